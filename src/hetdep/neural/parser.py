"""A trained neural model that tags and parses: every scheme's tree and every tag column in one
pass of the network, trees decoded exactly from the arc scores with one word on the root
(Eisner's algorithm for projective trees, the default, better and faster on fr-sequoia dev; or
Chu-Liu-Edmonds for any tree)."""

from __future__ import annotations

import copy
from collections import deque
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.model_config import ModelFileError
from hetdep.learn.model_files import FORMAT_VERSION, file_sha256, read_arrays, read_config, write_arrays, write_config
from hetdep.learn.vocab import ParseStats
from hetdep.neural._chart import best_spans
from hetdep.neural.data import PRETRAINED_FORMS, PRETRAINED_ROWS, UNKNOWN, WITH_FEATS, Encoder, Vocabularies
from hetdep.neural.enhanced import parsed_graphs, with_graph
from hetdep.neural.inference import LSTM_WEIGHTS, NumpyNetwork
from hetdep.neural.phrases import tree_from_spans
from hetdep.neural.quantized import SCALE, dequantized, quantizable, quantized
from hetdep.neural.shape import Shape
from hetdep.neural.transformer import FILES, carried_transformer
from hetdep.short_runs import use_arrays, use_references
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import UPOS, XPOS, Sentence
from hetdep.treebank.phrase_trees import PhraseTree
from hetdep.treebank.tags import WORD_COLUMNS

KIND = "neural"
PHRASE_KIND = "constituency-neural"  # a network with a span head (hetdep.models.NEURAL_CONSTITUENCY)
ROOT_LABEL = "root"  # UD's and SUD's label of the word on the root
TRANSFORMER = "transformer"  # in a model's folder: the pretrained encoder it reads (config.json, tokenizer.json, weights)
SENTENCES_AT_ONCE = 64  # sentences one forward pass reads when parsing
# and at most this many padded positions (sentences x the longest's words): one long sentence no
# longer pads 63 others to its length (a 142-word one made fr-sequoia test's whole parse 8% slower);
# 512 rather than 2,048: the same trees at the same speed (1,024 about 4% faster), a peak 20 MB below 1,024's and
# 33 below 2,048's (fr-sequoia test from raw text, 2 threads: docs/speed.md)
POSITIONS_AT_ONCE = 512
SENTENCES_READ_AHEAD = 16 * SENTENCES_AT_ONCE  # sentences read before parsing, to batch them by length
# A whole input of at most this many sentences may be decoded by whole-array Eisner (about a millisecond a
# sentence) rather than load numba for it (about a second): hetdep.short_runs.use_arrays.
ARRAY_DECODING = 512
DECODERS = ("eisner", "mst")  # eisner the default: on fr-sequoia dev, joint model, SUD/UD LAS 88.40/87.51 against 88.31/87.27


class NeuralParser:
    """One network's arrays, its vocabularies, and what the caller needs: ``schemes`` trees per
    sentence. It parses with the NumPy forward pass (:mod:`hetdep.neural.inference`): PyTorch is
    needed to train a model, not to parse with it."""

    KIND = KIND

    def __init__(self, arrays: dict[str, np.ndarray], shape: Shape, vocabularies: Vocabularies,
                 record: dict | None = None, decoder: str = "eisner", transformer=None):
        if decoder not in DECODERS:
            raise ModelFileError(f"decoder {decoder!r} is not one of {', '.join(DECODERS)}")
        self.decoder = decoder
        self.shape = shape
        self.network = NumpyNetwork(arrays, shape.layers, len(shape.tags), len(shape.labels))
        self.vocabularies = vocabularies
        self.encoder = Encoder(vocabularies, transformer)  # transformer: a TransformerEncoder the network reads
        self.record = record or {}
        self.stats = ParseStats()
        self.threads = 1  # batches computed at once (NumPy's products and ufuncs release Python's lock)
        self.tag_column = vocabularies.tag_columns[0] if vocabularies.tag_columns else "upos"
        self.tag_helpers: dict[str, tuple[Callable[[Sentence], np.ndarray], float]] = {}  # see _helped
        # The scheme heads parsed with and the treebank the input is read as: by default the first
        # treebank of a model of several (:meth:`for_treebank`), all heads of a model of one.
        treebanks = vocabularies.treebanks
        self.heads = tuple(treebanks[0]["heads"]) if treebanks else tuple(range(len(vocabularies.labels)))
        self.treebank_index = 0
        self.ahead: tuple = (None, 0, {})  # the input's first sentences encoded already (hetdep.neural.fitting)

    @property
    def treebank_names(self) -> list[str]:
        """The treebanks of a model trained on several, in training order ([]: one treebank)."""
        return [treebank["name"] for treebank in self.vocabularies.treebanks]

    def for_treebank(self, name: str) -> "NeuralParser":
        """The same network parsing as the treebank ``name`` (its schemes, its heads, its embedding)."""
        names = self.treebank_names
        if name not in names:
            raise HetdepError(f"no treebank {name!r} in this model: it was trained on "
                              + (", ".join(names) if names else "one treebank (parse without --treebank)"))
        chosen = copy.copy(self)
        chosen.treebank_index = names.index(name)
        chosen.heads = tuple(self.vocabularies.treebanks[chosen.treebank_index]["heads"])
        chosen.stats = ParseStats()
        chosen.tag_helpers = dict(self.tag_helpers)
        return chosen

    @classmethod
    def from_network(cls, network, vocabularies: Vocabularies, record: dict | None = None,
                     decoder: str = "eisner", encoder: Encoder | None = None) -> "NeuralParser":
        """The parser of a PyTorch network (being trained): a copy of its weights as they are now;
        ``encoder``: the training's, whose pretrained transformer (and states kept) it reads too."""
        tuned = getattr(network, "tuned", None)  # a fine-tuned transformer (hetdep.neural.fine_tune): its weights are the encoder's
        arrays = {name: tensor.detach().numpy().astype(np.float32) for name, tensor in network.state_dict().items()
                  if tuned is None or not name.startswith("tuned.")}
        if tuned is not None:
            tuned.write_back()
        parser = cls(arrays, network.shape, vocabularies, record, decoder, encoder.transformer if encoder else None)
        if encoder is not None and encoder.kept is not None:
            parser.encoder.kept = encoder.kept
        return parser

    @property
    def arrays(self) -> dict[str, np.ndarray]:
        return self.network.arrays

    @property
    def schemes(self) -> int:
        """Trees per sentence: the phrase-structure tree of a model with a span head, then the
        chosen treebank's schemes."""
        return bool(self.vocabularies.phrases) + len(self.heads)

    # parsing

    def parse(self, sentences: Iterable[Sentence], beam: int | None = None,
              finish: Callable | None = None) -> Iterator:
        """Per input sentence, in order: its tree (one scheme) or the tuple of its trees (several),
        with the predicted tags written in; ``beam`` is for the beam parsers and is ignored here.
        ``finish``: applied to each sentence's parse on the thread that parsed its batch (a model's
        bundled taggers: their work, mostly Python's, then overlaps the other threads' products)."""
        pending: list[Sentence] = []
        whole = True  # the input read whole so far: a small one may be decoded without numba
        for sentence in sentences:
            pending.append(sentence)
            if len(pending) == SENTENCES_READ_AHEAD:
                yield from self._parse_by_length(pending, finish, small=False)
                pending, whole = [], False
        if pending:
            yield from self._parse_by_length(pending, finish, small=whole and len(pending) <= ARRAY_DECODING)

    def _parse_by_length(self, sentences: list[Sentence], finish: Callable | None = None, small: bool = False) -> list:
        """The sentences parsed in batches of similar lengths (a batch computes every position up to
        its longest sentence: on fr-sequoia test 1.6x faster than batches in input order), returned
        in input order; ``small``: a whole input of few sentences (:func:`_decoder`)."""
        order = sorted(range(len(sentences)), key=lambda k: len(sentences[k]))
        parsed: list = [None] * len(sentences)
        treebank, judged, kept = self.ahead  # the first sentences fits read as this treebank: in its batches
        self.ahead, kept = (None, 0, {}), kept if treebank == self.treebank_index else {}
        first = [k for k in order if k < judged and len(sentences[k])] if kept else []
        rest = [k for k in order if k >= judged or not len(sentences[k])] if kept else order
        batches = [*batches_by_positions(first, [len(sentences[k]) + 1 for k in first]),
                   *batches_by_positions(rest, [len(sentences[k]) + 1 for k in rest])]
        decode = _decoder(self.decoder, small) if self.heads else None  # a phrase-structure model alone: none
        done = ordered_map(lambda chosen: self._parse_batch(decode, [sentences[k] for k in chosen], finish, kept.get(
            tuple(tuple(sentences[k].forms) for k in chosen)) if kept else None), batches, self.threads)
        for chosen, results in zip(batches, done):
            for k, (result, unknown_words) in zip(chosen, results):
                parsed[k] = result
                words = len(sentences[k])
                if words:
                    self.stats.count(sentences=1, words=words, unknown_words=unknown_words)
        return parsed

    def tag(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """The sentences with the network's tags written in, every other column (trees too) kept."""
        for sentence, parsed in with_parses(sentences, self.parse):
            tagged = parsed if self.schemes == 1 else parsed[0]
            tagged = tagged.sentence if isinstance(tagged, PhraseTree) else tagged
            for column in self.vocabularies.tag_columns:
                sentence = sentence.with_column(WORD_COLUMNS[column], tagged.column(WORD_COLUMNS[column]))
            yield sentence

    def _parse_batch(self, decode: Callable | None, sentences: list[Sentence], finish: Callable | None = None,
                     encoded: np.ndarray | None = None) -> list[tuple]:
        """Each sentence's tree or trees (``decode``: the dependency heads' tree decoder; ``finish``,
        if given, applied to them; ``encoded``: the batch's encodings, if made already) and its count
        of unknown words (counted by the caller, in one thread)."""
        network = self.network
        nonempty = [s for s in sentences if len(s)]
        outputs: dict[int, tuple] = {}
        graphs = graph_slot = None
        if nonempty:
            batch = self.encoder.batch([nonempty], treebank=self.treebank_index)
            encoded = network.encode(batch) if encoded is None else encoded
            tags = self._tags(network.tags(encoded), nonempty)
            heads = [np.zeros(batch.words.shape, dtype=np.int64) for _ in self.heads]
            for slot, head in enumerate(self.heads):
                scores = network.arc_scores(encoded, head)
                for row, sentence in enumerate(nonempty):
                    n = len(sentence)
                    found, _ = decode(np.ascontiguousarray(scores[row, :n + 1, :n + 1].T), n)
                    heads[slot][row, :n + 1] = found
            labels = [network.labels(encoded, head, found, self._root_labels[head]) for head, found in zip(self.heads, heads)]
            graph_slot = next((slot for slot, head in enumerate(self.heads) if head in self.vocabularies.graph_heads), None)
            graphs = (parsed_graphs(network, encoded, nonempty, heads[graph_slot], labels[graph_slot],
                                    self.vocabularies.labels[self.heads[graph_slot]], self.vocabularies.enhanced)
                      if graph_slot is not None else None)
            if self.vocabularies.phrases:
                phrases = [best_spans(network.span_scores(encoded[row], len(sentence)), len(sentence))[:2]
                           for row, sentence in enumerate(nonempty)]
            unknown = (batch.words == UNKNOWN).sum(1).tolist()
            for row, sentence in enumerate(nonempty):
                outputs[id(sentence)] = (row, unknown[row])
        out = []
        for sentence in sentences:
            if not len(sentence):
                out.append((sentence if self.schemes == 1 else (sentence,) * self.schemes, 0))
                continue
            row, unknown_words = outputs[id(sentence)]
            n = len(sentence)
            tagged = sentence
            for column, tag_ids, names in zip(self.vocabularies.tag_columns, tags, self.vocabularies.tags):
                tagged = _with_tags(tagged, column, names, tag_ids[row])
            trees = tuple(tagged.with_tree(heads[s][row, 1:n + 1].tolist(),
                                           [self.vocabularies.labels[head][k] for k in labels[s][row, 1:n + 1]])
                          for s, head in enumerate(self.heads))
            if graphs is not None:
                trees = (*trees[:graph_slot], with_graph(trees[graph_slot], graphs[row]), *trees[graph_slot + 1:])
            if self.vocabularies.phrases:
                root = tree_from_spans(tagged.forms, _leaf_tags(tagged), *phrases[row], self.vocabularies.phrases)
                trees = (PhraseTree(tagged, root), *trees)
            out.append((trees[0] if self.schemes == 1 else trees, unknown_words))
        return out if finish is None else [(finish(parsed), unknown_words) for parsed, unknown_words in out]

    @cached_property
    def _root_labels(self) -> list[int | None]:
        """Per scheme head, its ``root`` label's id (None where it has none): the label of the word
        on the root, and of no other (a tree with another is invalid, ``hetdep validate`` says)."""
        return [labels.index(ROOT_LABEL) if ROOT_LABEL in labels else None for labels in self.vocabularies.labels]

    def _tags(self, heads: list[np.ndarray], sentences: list[Sentence]) -> list[np.ndarray]:
        """Each tag column's (batch, position) tag ids, column by column: a helper of a later column
        (the FEATS tagger) reads the sentences with the tags chosen before it (UPOS) written in."""
        columns, chosen = self.vocabularies.tag_columns, []
        for k, (column, scores, names) in enumerate(zip(columns, heads, self.vocabularies.tags)):
            chosen.append(self._helped(column, scores, sentences).argmax(-1))
            if any(later in self.tag_helpers for later in columns[k + 1:]):
                sentences = [_with_tags(sentence, column, names, chosen[-1][row]) for row, sentence in enumerate(sentences)]
        return chosen

    def _helped(self, column: str, scores: np.ndarray, sentences: list[Sentence]) -> np.ndarray:
        """A tag head's (batch, position, tag) log-probabilities, plus its helper's times its weight
        (``tag_helpers[column]``: a function giving a sentence's (words, tags) log-probabilities in
        this network's tag order, and its weight), where the column has one."""
        if column not in self.tag_helpers:
            return scores
        helper, weight = self.tag_helpers[column]
        scores = scores.copy()
        for row, sentence in enumerate(sentences):
            scores[row, 1:len(sentence) + 1] += weight * helper(sentence)
        return scores

    def tag_log_probabilities(self, sentences: list[Sentence]) -> list[list[np.ndarray]]:
        """Per sentence, per tag column, its words' (words, tags) log-probabilities from the
        network's head alone (what a helper's weight is fitted against)."""
        out = []
        for start in range(0, len(sentences), SENTENCES_AT_ONCE):
            chunk = sentences[start:start + SENTENCES_AT_ONCE]
            nonempty = [sentence for sentence in chunk if len(sentence)]
            batch = self.encoder.batch([nonempty], treebank=self.treebank_index) if nonempty else None
            heads = self.network.tags(self.network.encode(batch)) if nonempty else []
            row = 0
            for sentence in chunk:
                if len(sentence):
                    out.append([scores[row, 1:len(sentence) + 1] for scores in heads])
                    row += 1
                else:
                    out.append([np.zeros((0, len(names))) for names in self.vocabularies.tags])
        return out

    # files

    def save(self, directory: str | Path, *, quantize: bool = False, **training_record) -> None:
        """config.json (shape, vocabularies, training record) and weights.npz (every parameter,
        float32; ``quantize``: the large ones as 8-bit integers, a quarter the size, the rest compressed,
        and so the pretrained transformer's the model carries)."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        state = {name: np.ascontiguousarray(array) for name, array in self.arrays.items()}  # the LSTMs' are transposed views
        eight_bit = sorted(name for name, array in state.items() if quantize and quantizable(array))
        for name in eight_bit:
            state[name], state[name + SCALE] = quantized(state[name])
        state.update(self.vocabularies.pretrained_arrays())
        if quantize or self.vocabularies.pretrained:
            write_arrays(directory / "weights.npz", state, stored=frozenset(eight_bit))
        else:
            np.savez(directory / "weights.npz", **state)
        transformer = self.encoder.transformer
        if transformer is not None and transformer.folder.resolve() != (directory / TRANSFORMER).resolve():
            import shutil

            (directory / TRANSFORMER).mkdir(exist_ok=True)  # the model carries the encoder it reads
            for pattern in FILES:
                for path in transformer.folder.glob(pattern):
                    shutil.copyfile(path, directory / TRANSFORMER / path.name)
        if transformer is not None and (quantize or transformer.tuned):  # 8 bits, or weights other than the folder's
            transformer.save_weights(directory / TRANSFORMER, quantize)
        config = {"kind": PHRASE_KIND if self.vocabularies.phrases else KIND, "format_version": FORMAT_VERSION,
                  "weights_sha256": file_sha256(directory / "weights.npz"),
                  "network": self.shape.record(), "vocabularies": self.vocabularies.record(),
                  "tag_column": self.tag_column, "decoder": self.decoder, **self.record, **training_record,
                  **({"quantized": eight_bit} if eight_bit else {})}
        write_config(directory, config)

    @classmethod
    def load(cls, directory: str | Path, config: dict | None = None) -> "NeuralParser":
        """A saved model, read through the checks of every model part (fields, sha256, arrays), its
        arrays checked against the shapes its configuration gives (``config``: its config.json,
        where the caller read it already)."""
        directory = Path(directory)
        config = read_config(directory) if config is None else config
        if config["kind"] not in (KIND, PHRASE_KIND):
            raise ModelFileError(f"{directory}: this is a '{config['kind']}' model, not a neural one")
        try:
            shape = Shape.from_record(config["network"])
            vocabularies = Vocabularies.from_record(config["vocabularies"])
            if (shape.words, shape.chars, shape.tags, shape.labels) != (
                    len(vocabularies.words), len(vocabularies.chars), tuple(map(len, vocabularies.tags)),
                    tuple(map(len, vocabularies.labels))):
                raise ValueError("the network's sizes do not fit its vocabularies")
            _check_treebanks(vocabularies, shape)
            if shape.phrase_labels != len(vocabularies.phrases) or bool(shape.phrase_labels) != (config["kind"] == PHRASE_KIND):
                raise ValueError(f"its span labels do not fit a '{config['kind']}' network")
            graph_heads = vocabularies.graph_heads
            if (shape.enhanced_labels != len(vocabularies.enhanced) or bool(graph_heads) != bool(shape.enhanced_labels)
                    or not all(type(head) is int and 0 <= head < len(shape.labels) for head in graph_heads)):
                raise ValueError("its enhanced graph's labels or scheme heads do not fit the network")
            if len(set(vocabularies.tag_columns)) != len(vocabularies.tag_columns) or not set(vocabularies.tag_columns) <= set(WITH_FEATS):
                raise ValueError(f"tag heads {vocabularies.tag_columns!r} are not distinct columns of {', '.join(WITH_FEATS)}")
            expected = shape.arrays()
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{directory}/config.json: incomplete or invalid neural model configuration ({error})") from None
        quantized = config.get("quantized", [])
        if not set(quantized) <= set(expected):
            raise ModelFileError(f"{directory}/config.json: quantized names arrays the network does not have")
        kinds = {name: ("i" if name in quantized else "f", len(dims)) for name, dims in expected.items()}
        pretrained = {PRETRAINED_FORMS: ("u", 1), PRETRAINED_ROWS: ("i", 1)} if shape.pretrained else {}
        arrays = read_arrays(directory, config, {**kinds, **{name + SCALE: ("f", len(expected[name]) - 1)
                                                             for name in quantized}, **pretrained})
        if pretrained:
            try:
                vocabularies = vocabularies.with_pretrained(arrays.pop(PRETRAINED_FORMS), arrays.pop(PRETRAINED_ROWS),
                                                            shape.pretrained)
            except (UnicodeDecodeError, ValueError) as error:
                raise ModelFileError(f"{directory / 'weights.npz'}: {error}") from None
        for name in quantized:
            arrays[name] = dequantized(arrays[name], arrays.pop(name + SCALE), directory / "weights.npz",
                                       transposed=name.startswith(LSTM_WEIGHTS))
        for name, dims in expected.items():
            if tuple(arrays[name].shape) != dims:
                raise ModelFileError(f"{directory / 'weights.npz'}: array '{name}' does not fit the network "
                                     f"(its shape is {arrays[name].shape}, not {dims})")
            if name not in quantized and not np.isfinite(arrays[name]).all():  # dequantized: finite by their scales
                raise ModelFileError(f"{directory / 'weights.npz'}: array '{name}' holds values that are not finite numbers")
        record = {k: v for k, v in config.items()
                  if k not in ("kind", "format_version", "weights_sha256", "network", "vocabularies", "tag_column", "decoder",
                               "quantized")}
        return cls(arrays, shape, vocabularies, record, decoder=config.get("decoder", "eisner"),
                   transformer=carried_transformer(directory / TRANSFORMER, shape))

def _check_treebanks(vocabularies: Vocabularies, shape: Shape) -> None:
    """ValueError unless the treebanks a model records fit its network: distinct names, a scheme
    head per scheme (at least one, but in a network with a span head), within the heads there are,
    an embedding row per treebank."""
    treebanks = vocabularies.treebanks
    if not treebanks:
        return
    names = [treebank["name"] for treebank in treebanks]
    if len(set(names)) != len(names) or not all(isinstance(name, str) and name for name in names):
        raise ValueError(f"treebank names {names!r} are not distinct names")
    for treebank in treebanks:
        heads, schemes = treebank["heads"], treebank["schemes"]
        if (not isinstance(heads, list) or not isinstance(schemes, list) or len(heads) != len(schemes)
                or not (heads or shape.phrase_labels)  # a treebank of phrase structure alone trains no scheme head
                or not all(isinstance(head, int) and 0 <= head < len(shape.labels) for head in heads)):
            raise ValueError(f"treebank {treebank['name']!r}: its schemes and heads do not fit the network")
    if shape.treebanks not in (0, len(treebanks)):
        raise ValueError("the treebank embedding does not fit the treebanks")


def _with_tags(sentence: Sentence, column: str, names: list[str], ids: np.ndarray) -> Sentence:
    """The sentence with a tag column written from its row of tag ids (position 0: the root)."""
    return sentence.with_column(WORD_COLUMNS[column], [names[k] for k in ids[1:len(sentence) + 1]])


def batches_by_positions(order: list[int], lengths: list[int]) -> Iterator[list[int]]:
    """``order`` (sentences by increasing length, ``lengths`` theirs with the root) cut into batches
    of at most SENTENCES_AT_ONCE sentences and POSITIONS_AT_ONCE padded positions (one sentence at least)."""
    batch: list[int] = []
    for k, length in zip(order, lengths):
        if batch and (len(batch) == SENTENCES_AT_ONCE or (len(batch) + 1) * length > POSITIONS_AT_ONCE):
            yield batch
            batch = []
        batch.append(k)
    if batch:
        yield batch


def with_parses(sentences: Iterable[Sentence], parse) -> Iterator[tuple[Sentence, object]]:
    """Each input sentence with its parse, the input read once (a generator may be passed)."""
    kept: deque[Sentence] = deque()

    def remembered():
        for sentence in sentences:
            kept.append(sentence)
            yield sentence

    for parsed in parse(remembered()):
        yield kept.popleft(), parsed


def _leaf_tags(sentence: Sentence) -> list[str]:
    """The tags a phrase-structure tree's words stand under: XPOS, else UPOS, else X."""
    for column in (XPOS, UPOS):
        found = sentence.column(column)
        if any(tag != "_" for tag in found):
            return found
    return ["X"] * len(sentence)


def _decoder(name: str, small: bool):
    """The tree decoder: Eisner (projective trees) or Chu-Liu-Edmonds (any tree), both exact.
    Eisner's compiled loop, or, while numba is not loaded, its whole-array twin (the same trees)
    for a short run (:mod:`hetdep.short_runs`) or a small input of ``hetdep parse``, where loading
    numba would cost more than the slower decoding."""
    if name == "mst":
        from hetdep.graph.mst import mst

        return mst
    if use_references() or (small and use_arrays()):
        from hetdep.graph.eisner_arrays import eisner
    else:
        from hetdep.graph._eisner import eisner
    return eisner
