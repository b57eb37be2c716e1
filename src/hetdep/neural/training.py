"""Training the neural model: Adam on the sum of every head's cross-entropy (each scheme's arcs and
labels, each tag column), dev scores after each epoch, the best epoch kept. Training ends with a few
epochs at a tenth of the learning rate, from the best weights so far (UDPipe 2 ends its training
the same way): they begin when the dev score stops rising (patience) or the epochs run out.
Several treebanks train one network (:mod:`hetdep.neural.treebanks`): each batch is one
treebank's sentences, its loss that of its own scheme heads and the shared tag heads, and the
dev score the mean LAS over every treebank's schemes.

A fixed seed gives the same model on the same machine with the same number of threads
(``torch.use_deterministic_algorithms``; the batches' order and dropout come from seeded
generators); more threads can change the float sums' order, so the number is recorded.
"""

from __future__ import annotations

import copy
import os
import pickle
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.interrupts import is_interrupt
from hetdep.learn import checkpoint
from hetdep.learn.model_config import ModelFileError
from hetdep.learn.perceptron import IterationReport, TrainResult
from hetdep.learn.vectors import read_embeddings
from hetdep.neural import torch_module
from hetdep.neural.data import IGNORE, TAG_HEADS, WITH_FEATS, Encoder, Vocabularies, batches_by_length
from hetdep.neural.phrases import labelled_spans
from hetdep.neural.treebanks import SHARINGS, Treebank, check_treebanks, epoch_batches, scheme_heads
from hetdep.threads import usable_cores
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.tags import WORD_COLUMNS, word_classes

FINAL_RATE = 0.1  # the learning rate of the final epochs, as a share of the first one
EPOCH_STATE = "epoch.pt"  # in the pipeline's state folder: the training after its last finished epoch


@dataclass(frozen=True)
class NeuralOptions:
    epochs: int = 30
    patience: int = 8  # epochs without a better dev LAS before the final epochs begin (or training stops)
    final_epochs: int = 5  # epochs at FINAL_RATE of the learning rate after the others, from the best weights
    batch_words: int = 500
    learning_rate: float = 2e-3
    word_dropout: float = 0.25
    seed: int = 1
    threads: int = field(default_factory=usable_cores)  # PyTorch's threads in training
    hidden: int = 400
    layers: int = 2
    dropout: float = 0.33
    embeddings: str | None = None  # word2vec / fastText text file: the word embeddings start from its vectors
    decoder: str = "eisner"  # or "mst" (non-projective trees): see hetdep.neural.parser.DECODERS
    # Several treebanks: scheme heads per scheme (Stymne et al. 2018), or per treebank (SHARINGS); per
    # scheme measured better on the fr recipe (docs/archive.md, bench/treebank_variants.py).
    sharing: str = "per-scheme"
    temperature: float = 1.0  # several treebanks: batches drawn by size ** (1 / temperature)
    treebank_dim: int = 12  # several treebanks: the size of each treebank's embedding on the input
    feats_head: bool = False  # a FEATS head beside UPOS and XPOS (the pipeline mixes it with its FEATS tagger)
    encoder: str | None = None  # a pretrained transformer's folder (Hugging Face's layout), read frozen beside the rest
    enhanced: bool = False  # a graph head learning the enhanced UD graphs of the training files' DEPS (hetdep.neural.enhanced)
    # A measurement's control (bench/treebank_variants.py): the heads ("trees": the schemes', "graph": the
    # graph head's) whose loss trains their own scorers only, not the encoder they share.
    detached: str | None = None
    fine_tune: bool = False  # the encoder's transformer trained too, at its own rate (hetdep.neural.fine_tune)


def train_neural(train: Sequence[Sequence[Sentence]], dev: Sequence[Sequence[Sentence]], options: NeuralOptions = NeuralOptions(),
                 progress: Callable | None = None, vectors: tuple | None = None) -> TrainResult:
    """Train on each scheme's training sentences (the same sentences, one list per scheme); keep the
    epoch with the best mean dev LAS (``dev``: one list per scheme, may be empty)."""
    return train_treebanks([Treebank("", tuple("ab"[:len(train)]), list(train), list(dev))], options, progress, vectors)


def train_treebanks(treebanks: Sequence[Treebank], options: NeuralOptions = NeuralOptions(),
                    progress: Callable | None = None, vectors: tuple | None = None) -> TrainResult:
    """Train one network on every treebank; a single unnamed one is the model of one treebank
    (no treebank embedding, none recorded). ``vectors``: the pretrained words and vectors, read
    already (else from ``options.embeddings``, a vectors file)."""
    torch = torch_module()

    from hetdep.neural.network import Network
    from hetdep.neural.parser import NeuralParser
    from hetdep.neural.shape import Shape

    several = len(treebanks) > 1 or bool(treebanks and treebanks[0].name)
    if several:
        check_treebanks(treebanks)
    if not treebanks or not treebanks[0].train or not treebanks[0].train[0]:
        raise HetdepError("no training sentences")
    if options.detached not in (None, "trees", "graph"):
        raise HetdepError(f"detached {options.detached!r}: the heads detached are 'trees' or 'graph'")
    if options.sharing not in SHARINGS or not options.temperature > 0:
        raise HetdepError(f"head sharing {options.sharing!r} / temperature {options.temperature}: choose "
                          f"{' or '.join(SHARINGS)} and a temperature above 0")
    for treebank in treebanks:
        for sentences in treebank.train:
            for sentence in sentences:
                if any(h < 0 for h in sentence.heads):
                    raise HetdepError(f"{sentence.describe()}: training sentence has no tree (HEAD is '_')")
    torch.manual_seed(options.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(options.threads)
    heads = scheme_heads(treebanks, options.sharing) if several else [list(range(len(treebanks[0].schemes)))]
    tag_heads = WITH_FEATS if options.feats_head else TAG_HEADS
    vocabularies = (Vocabularies.learn_treebanks(treebanks, heads, tag_heads=tag_heads) if several
                    else Vocabularies.learn(treebanks[0].train[:len(treebanks[0].schemes)], heads=tag_heads,
                                            sentences=treebanks[0].train[0]))
    phrases = [[labelled_spans(root) for root in treebank.phrases] for treebank in treebanks]
    if any(phrases):  # one span head, trained by the treebanks that have phrase structure
        vocabularies.learn_phrases([spans for own in phrases for spans in own])
    graphs = _graphs(treebanks, heads, vocabularies) if options.enhanced else [None] * len(treebanks)
    table = None
    if vectors is None and options.embeddings:
        vectors = read_embeddings(options.embeddings)
    if vectors is not None:
        words, matrix = vectors
        table, rows = np.unique(matrix, axis=0, return_inverse=True)  # forms often share a vector (spaCy's do)
        table = table / max(float(table.std()), 1e-6)  # the scale of the trained embeddings (standard normal)
        vocabularies.pretrained = dict(zip(words, (rows.reshape(-1) + 1).tolist()))
    transformer = None
    if options.encoder:
        from hetdep.neural.transformer import TransformerEncoder

        transformer = TransformerEncoder.load(options.encoder)
    embedded_treebanks = len(treebanks) if len(treebanks) > 1 else 0
    shape = Shape(words=len(vocabularies.words), chars=len(vocabularies.chars), tags=tuple(map(len, vocabularies.tags)),
                  labels=tuple(map(len, vocabularies.labels)), hidden=options.hidden, layers=options.layers,
                  dropout=options.dropout, pretrained=0 if table is None else len(table) + 1,
                  pretrained_dim=0 if table is None else table.shape[1], treebanks=embedded_treebanks,
                  treebank_dim=options.treebank_dim if embedded_treebanks else 0, phrase_labels=len(vocabularies.phrases),
                  encoder_layers=transformer.architecture.layers + 1 if transformer else 0,
                  encoder_dim=transformer.architecture.hidden if transformer else 0,
                  enhanced_labels=len(vocabularies.enhanced))
    network = Network(shape)
    if table is not None:
        with torch.no_grad():
            network.pretrained.weight[1:] = torch.from_numpy(table.astype(np.float32))
    if options.fine_tune and transformer is None:
        raise HetdepError("--fine-tune trains the pretrained transformer of --encoder: give --encoder")
    # Frozen, each sentence's transformer states are computed once and kept; fine-tuned, the network's
    # own transformer computes them for each batch, and dev parsing reads its weights as they are then.
    encoder = Encoder(vocabularies, transformer, keep=not options.fine_tune)
    batching = encoder
    rates = [options.learning_rate]  # each group of parameters' rate (the final epochs' a share of it)
    groups = [{"params": list(network.parameters())}]
    if options.fine_tune:
        from hetdep.neural.fine_tune import ENCODER_RATE, TunedTransformer, warmed_rate

        network.tuned = TunedTransformer(transformer)
        batching = Encoder(vocabularies)
        groups.append({"params": list(network.tuned.parameters())})
        rates.append(ENCODER_RATE)
    optimizer = torch.optim.Adam([{**group, "lr": rate} for group, rate in zip(groups, rates)], betas=(0.9, 0.9))
    rng = np.random.default_rng(options.seed)
    generator = torch.Generator().manual_seed(options.seed)
    batches = [batches_by_length([len(s) for s in treebank.train[0]], options.batch_words) for treebank in treebanks]
    sentences_per_epoch = sum(len(treebank.train[0]) for treebank in treebanks)
    history: list[IterationReport] = []
    best: tuple[float, int, dict, dict] | None = None  # dev score, epoch, the network's and Adam's state
    final_from = None  # the first of the final epochs, once they have begun
    epoch = 0
    kept = checkpoint.active()  # set by the pipeline: each finished epoch is kept there for --resume
    if kept is not None and (kept / EPOCH_STATE).is_file():
        epoch, history, best, final_from = _restore(kept / EPOCH_STATE, options, network, optimizer, rng, generator)
    while True:
        bar = None
        try:
            epoch += 1
            if final_from is None and (epoch > options.epochs or (best is not None and epoch - best[1] > options.patience)):
                if not options.final_epochs:
                    break
                final_from = epoch
                network.load_state_dict(best[2])
                optimizer.load_state_dict(best[3])
                for group, rate in zip(optimizer.param_groups, rates):
                    group["lr"] = rate * FINAL_RATE
            if final_from is not None and epoch >= final_from + options.final_epochs:
                break
            started = time.perf_counter()
            network.train()
            drawn = epoch_batches(batches, options.temperature, rng)
            bar = progress(total=sum(len(chosen) for _, chosen in drawn), desc=f"epoch {epoch}", unit="sent") if progress else None
            total_loss = 0.0
            for step, (k, chosen) in enumerate(drawn):
                batch = batching.batch([[sentences[i] for i in chosen] for sentences in treebanks[k].train],
                                       options.word_dropout, generator, outputs=heads[k], treebank=k,
                                       phrases=[phrases[k][i] for i in chosen] if phrases[k] else None,
                                       graphs=[graphs[k][i] for i in chosen] if graphs[k] else None).tensors()
                if options.fine_tune:
                    optimizer.param_groups[1]["lr"] = rates[1] * warmed_rate(epoch, step, len(drawn)) * (
                        1.0 if final_from is None else FINAL_RATE)
                    batch.transformer = network.tuned([tuple(treebanks[k].train[0][i].forms) for i in chosen],
                                                      batch.words.shape[1])
                loss = _loss(network, batch, options.detached)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(network.parameters(), 5.0)
                optimizer.step()
                total_loss += float(loss.detach()) * len(chosen)
                if bar:
                    bar.update(len(chosen))
            network.eval()
            parser = NeuralParser.from_network(network, vocabularies, decoder=options.decoder, encoder=encoder)
            scores = treebank_scores(parser, treebanks) if several else (
                dev_scores(parser, treebanks[0].dev, treebanks[0].schemes, treebanks[0].dev_phrases)
                if treebanks[0].dev and treebanks[0].dev[0] else {})
            las = [value for key, value in scores.items() if key.startswith(("LAS", "F1"))]  # phrase structure's F1 too
            uas = [value for key, value in scores.items() if key.startswith("UAS")]
            report = IterationReport(epoch, time.perf_counter() - started, 0, 0, float(np.mean(uas)) if uas else None,
                                     float(np.mean(las)) if las else None,
                                     {**scores, "loss": round(total_loss / sentences_per_epoch, 4),
                                      "learning_rate": optimizer.param_groups[0]["lr"]})
            if bar:
                if report.dev_las is not None:  # a phrase-structure model alone has F1 and no UAS
                    bar.set_postfix(**({} if report.dev_uas is None else {"dev_UAS": f"{report.dev_uas:.2f}"}),
                                    dev_LAS=f"{report.dev_las:.2f}")
                bar.close()
            score = report.dev_las if report.dev_las is not None else float(epoch)
            # Kept whole or not at all: an interrupt while the best state is copied (the moment an
            # epoch's line has been printed) leaves the previous best, which is then written.
            if best is None or score > best[0]:
                best = (score, epoch, copy.deepcopy(network.state_dict()), copy.deepcopy(optimizer.state_dict()))
            history.append(report)
            if kept is not None:
                _keep(kept / EPOCH_STATE, options, network, optimizer, rng, generator, epoch, history, best, final_from)
        except BaseException as error:
            if bar:
                bar.close()
            if best is None or not is_interrupt(error):
                raise
            return _result(network, vocabularies, best, history, options, encoder, interrupted=True)
    return _result(network, vocabularies, best, history, options, encoder)


def _graphs(treebanks: Sequence[Treebank], heads: list, vocabularies: Vocabularies) -> list:
    """Per treebank, the enhanced edges each training sentence of its first scheme with DEPS teaches
    the graph head (None for a sentence without; None for a treebank without any), the head's labels
    learned into ``vocabularies``."""
    from hetdep.neural.enhanced import graph_scheme, has_graph, learned_labels

    graphs, graph_heads = [], []
    for treebank, per_treebank in zip(treebanks, heads):
        scheme = graph_scheme(treebank.train[:len(per_treebank)])
        if scheme is None:
            graphs.append(None)
            continue
        graphs.append([learned_labels(sentence) if has_graph(sentence) else None for sentence in treebank.train[scheme]])
        graph_heads.append(per_treebank[scheme])
    if not graph_heads:
        raise HetdepError("--enhanced: no training sentence has an enhanced graph (its DEPS column is '_' throughout)")
    vocabularies.learn_enhanced([edges for own in graphs if own for edges in own if edges], graph_heads)
    return graphs


def _keep(path, options: NeuralOptions, network, optimizer, rng, generator, epoch: int, history: list, best: tuple,
          final_from: int | None) -> None:
    """Keep the training after a finished epoch: the network, Adam, every random generator, the
    history and the best epoch, so that ``--resume`` goes on to the model an uninterrupted run gives.
    Written beside the last one, then renamed: an interrupt while saving leaves the epoch before."""
    torch = torch_module()

    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_suffix(".partial")
    torch.save({"options": asdict(options), "epoch": epoch, "history": [asdict(report) for report in history],
                "best": list(best), "final_from": final_from, "network": network.state_dict(),
                "optimizer": optimizer.state_dict(), "rng": rng.bit_generator.state, "generator": generator.get_state(),
                "torch_rng": torch.get_rng_state()}, fresh)
    os.replace(fresh, path)


def _restore(path, options: NeuralOptions, network, optimizer, rng, generator) -> tuple:
    """Set the training back to the kept epoch (:func:`_keep`); its epoch, history, best and first
    final epoch. A state of other options or another network is refused."""
    torch = torch_module()

    try:
        state = torch.load(path, weights_only=True)
        # An option added since the state was kept (--encoder, --enhanced) is at its default there;
        # the threads may differ (a training stopped on one machine goes on on another).
        kept = {**asdict(NeuralOptions()), **state["options"], "threads": options.threads}
        if kept != asdict(options):
            raise ValueError("it was kept by a training with other options")
        network.load_state_dict(state["network"])
        optimizer.load_state_dict(state["optimizer"])
        rng.bit_generator.state = state["rng"]
        generator.set_state(state["generator"])
        torch.set_rng_state(state["torch_rng"])
        history = [IterationReport(**report) for report in state["history"]]
        return int(state["epoch"]), history, tuple(state["best"]), state["final_from"]
    except (OSError, RuntimeError, ValueError, KeyError, TypeError, EOFError, pickle.UnpicklingError) as error:
        raise ModelFileError(f"{path}: the kept training state is damaged ({error}); train again without --resume") from None


def _result(network, vocabularies: Vocabularies, best: tuple, history: list, options: NeuralOptions, encoder: Encoder,
            interrupted: bool = False) -> TrainResult:
    from hetdep.neural.parser import NeuralParser

    network.load_state_dict(best[2])
    record = {"neural_options": asdict(options)}
    parser = NeuralParser.from_network(network, vocabularies, record, decoder=options.decoder, encoder=encoder)
    parser.encoder.kept = None  # the training sentences' states are the training's: parsing computes its own
    return TrainResult(parser, best[1], history, interrupted=interrupted)


def _loss(network, batch, detached: str | None = None):
    """The batch's loss: every head's, summed; a ``detached`` head's ("trees", "graph") reaching its
    own scorers only."""
    import torch
    from torch.nn.functional import cross_entropy

    encoded = network.encode(batch)
    trees_read, graph_read = (encoded.detach() if detached == kind else encoded for kind in ("trees", "graph"))
    longest = batch.words.shape[1]
    padding = torch.arange(longest)[None, :] >= batch.lengths[:, None]  # (batch, head): no such word
    loss = encoded.new_zeros(())
    for tagger, gold in zip(network.taggers, batch.tags):
        loss = loss + cross_entropy(tagger(encoded).flatten(0, 1), gold.flatten(), ignore_index=IGNORE)
    for output, gold_heads, gold_labels in zip(batch.outputs.tolist(), batch.heads, batch.labels):
        head = network.schemes[output]
        arcs = head.arc_scores(trees_read).masked_fill(padding[:, None, :], -1e9)
        loss = loss + cross_entropy(arcs.flatten(0, 1), gold_heads.flatten(), ignore_index=IGNORE)
        labels = head.label_scores(trees_read, gold_heads.clamp(min=0))
        loss = loss + cross_entropy(labels.flatten(0, 1), gold_labels.flatten(), ignore_index=IGNORE)
    if batch.graph.dim() == 3:  # every pair's edge or none, summed per word; each gold edge's label
        from torch.nn.functional import binary_cross_entropy_with_logits

        from hetdep.neural.enhanced import NO_EDGE

        learned = batch.graph != IGNORE
        if learned.any():
            edges = network.graph.arc_scores(graph_read)
            loss = loss + binary_cross_entropy_with_logits(edges[learned], (batch.graph[learned] != NO_EDGE).float(),
                                                           reduction="sum") / learned.any(-1).sum()
            rows, dependents, heads = (batch.graph >= 0).nonzero(as_tuple=True)
            if len(rows):
                labels = network.graph.edge_labels(graph_read, rows, dependents, heads)
                loss = loss + cross_entropy(labels, batch.graph[rows, dependents, heads])
    if batch.spans.dim() == 3:  # every span's label, summed per word (a sentence of n words has n(n+1)/2 spans)
        loss = loss + cross_entropy(network.spans(encoded).flatten(0, 2), batch.spans.flatten(), ignore_index=IGNORE,
                                    reduction="sum") / (batch.lengths - 1).sum()
    return loss


def treebank_scores(parser, treebanks: Sequence[Treebank]) -> dict:
    """:func:`dev_scores` of each treebank with dev sentences, parsed as that treebank, its name
    and scheme in each key (``LAS_sequoia_ud``, ``UPOS_sequoia``, a treebank of phrase structure's
    ``F1_wsj``...)."""
    scores = {}
    for treebank in treebanks:
        if treebank.dev and treebank.dev[0]:
            found = dev_scores(parser.for_treebank(treebank.name), treebank.dev, treebank.schemes, treebank.dev_phrases)
            for key, value in found.items():  # LAS_ud -> LAS_sequoia_ud, UPOS -> UPOS_sequoia
                metric, _, scheme = key.partition("_")
                scores["_".join(filter(None, (metric, treebank.name, scheme)))] = value
    return scores


def dev_scores(parser, dev: Sequence[Sequence[Sentence]], names: Sequence[str] = (), phrases: Sequence = ()) -> dict:
    """UAS and LAS per scheme (``UAS_a``, ``LAS_b``...; punctuation excluded), each tag column's
    accuracy and, with the gold ``phrases`` of a phrase-structure model, its bracket F1 (EVALB's)."""
    from hetdep.evaluation.attachment import evaluate
    from hetdep.evaluation.brackets import score
    from hetdep.neural.enhanced import graph_f1, has_graph
    from hetdep.treebank.ptb import Tree

    parsed = list(parser.parse(dev[0]))
    per_scheme = [parsed] if parser.schemes == 1 else [list(trees) for trees in zip(*parsed)]
    scores = {}
    if parser.vocabularies.phrases:
        trees, per_scheme = per_scheme[0], per_scheme[1:]
        if phrases:
            found = score([Tree(root, s.path, s.line) for root, s in zip(phrases, dev[0])],
                          [Tree(tree.root, tree.sentence.path, tree.sentence.line) for tree in trees])
            scores["F1"] = round(found.f1, 2)
        per_scheme = per_scheme or [[tree.sentence for tree in trees]]  # the tags of a model of phrase structure alone
    for name, gold, system, head in zip(names or "ab", dev[:len(parser.heads)], per_scheme[:len(parser.heads)], parser.heads):
        result = evaluate(gold, system)
        suffix = f"_{name}" if parser.schemes > 1 else ""
        scores[f"UAS{suffix}"], scores[f"LAS{suffix}"] = round(result.uas, 2), round(result.las, 2)
        if head in parser.vocabularies.graph_heads and any(map(has_graph, gold)):  # not in the dev score: reported
            scores[f"ELAS{suffix}"] = round(graph_f1(gold, system), 2)
    for column in parser.vocabularies.tag_columns:
        index = WORD_COLUMNS[column]
        pairs = [(g, s) for gold, system in zip(dev[0], per_scheme[0])
                 for g, s in zip(word_classes(gold, column), system.column(index)) if g is not None]
        if pairs:  # a column another treebank of the model fills may be empty in this one
            scores[column.upper()] = round(100.0 * sum(g == s for g, s in pairs) / len(pairs), 2)
    return scores
