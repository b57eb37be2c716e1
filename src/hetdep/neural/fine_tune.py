"""``--fine-tune``: the pretrained transformer trained with the rest (SuPar's and benepar's way),
at its own small learning rate (ENCODER_RATE) after a linear warm-up over the first epoch, where
frozen it only gives its states. The module runs ``transformers``' PyTorch model of the same
weights the NumPy encoder (:mod:`hetdep.neural.transformer`) reads, pieces and windows chosen by
that encoder, so what it learns is written back into those weights and parses with NumPy alone.

It is a submodule of the network while training (``network.tuned``), so the best epoch, the kept
state of ``--resume`` and Adam's moments hold its weights like the others'."""

from __future__ import annotations

import numpy as np

from hetdep.neural import torch_module
from hetdep.neural.transformer import EncoderFolderError, TransformerEncoder

torch = torch_module()
nn = torch.nn

ENCODER_RATE = 5e-5  # SuPar's: a pretrained encoder unlearns what it knows at the rate the new layers learn


class TunedTransformer(nn.Module):
    """The transformer of ``encoder``'s weights in PyTorch: each sentence's words' states at every
    layer, each the mean of its pieces' (as :meth:`TransformerEncoder.word_layers`), with gradients."""

    def __init__(self, encoder: TransformerEncoder):
        super().__init__()
        import transformers

        self.encoder = encoder
        config = transformers.AutoConfig.from_pretrained(str(encoder.folder))
        self.model = transformers.AutoModel.from_config(config)
        if getattr(self.model, "pooler", None) is not None:
            self.model.pooler = None  # the sentence vector: read by no head, trained by nothing
        own = self.model.state_dict()
        found = {name: torch.from_numpy(np.array(encoder.weights[name])) for name in own if name in encoder.weights}
        missing = [name for name in own if name not in found and not name.endswith("position_ids")]
        if missing:
            raise EncoderFolderError(f"{encoder.folder}: transformers' {config.model_type} model wants weights the folder "
                                     f"lacks ({', '.join(missing[:3])})")
        self.model.load_state_dict(found, strict=False)

    def forward(self, sentences: list[tuple[str, ...]], longest: int) -> torch.Tensor:
        """(batch, longest, layers + 1, hidden): the words' states from position 1 (0 is the root's, zeros)."""
        a = self.encoder.architecture
        units, owners = self.encoder.reading(sentences)
        width = max(len(unit.ids) for unit in units)
        ids = torch.zeros((len(units), width), dtype=torch.long)
        mask = torch.zeros((len(units), width), dtype=torch.long)
        for row, unit in enumerate(units):
            ids[row, :len(unit.ids)], mask[row, :len(unit.ids)] = torch.tensor(unit.ids), 1
        given = {"input_ids": ids, "attention_mask": mask, "output_hidden_states": True}
        if a.kind != "distilbert":  # positions counted as the NumPy encoder counts them, padding aside
            given["position_ids"] = (torch.cumsum(mask, 1) * mask + a.offset - 1 if a.offset
                                     else torch.arange(width).expand(len(units), -1))
        states = torch.stack(self.model(**given).hidden_states, 2)  # (windows, width, layers + 1, hidden)
        kept: list[list[torch.Tensor]] = [[] for _ in sentences]
        for row, unit in enumerate(units):
            kept[unit.sentence].append(states[row, unit.kept])
        out = states.new_zeros((len(sentences), longest, a.layers + 1, a.hidden))
        for number, (words, owner) in enumerate(zip(sentences, owners)):
            pieces, owner = torch.cat(kept[number]), torch.from_numpy(owner)
            summed = pieces.new_zeros((len(words),) + pieces.shape[1:]).index_add(0, owner, pieces)
            counts = torch.bincount(owner, minlength=len(words)).to(pieces.dtype)
            out[number, 1:len(words) + 1] = summed / counts[:, None, None]
        return out

    def write_back(self) -> None:
        """Set the NumPy encoder's weights to these (dev parsing reads them; the model saves them)."""
        for name, tensor in self.model.state_dict().items():
            if name in self.encoder.weights:
                self.encoder.weights[name] = tensor.detach().numpy().astype(np.float32, copy=True)
        self.encoder.tuned = True


def warmed_rate(epoch: int, step: int, steps: int) -> float:
    """The share of ENCODER_RATE at ``step`` (from 0) of ``steps`` in ``epoch`` (from 1): rising
    linearly through the first epoch, whole after it."""
    return min(1.0, (step + 1) / steps) if epoch == 1 else 1.0
