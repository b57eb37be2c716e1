"""Sentences as the network's arrays: vocabularies learned from the training treebank, and batches
of whole sentences (each distinct word form spelled once for the character encoder), as NumPy
arrays (parsing needs no PyTorch; training turns them into tensors, :meth:`Batch.tensors`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Sequence

import numpy as np

from hetdep.neural.pretrained import pretrained_forms
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.tags import TAG_COLUMNS, annotated, word_classes

PAD, UNKNOWN, ROOT = 0, 1, 2  # word ids (chars: PAD and UNKNOWN, and ROOT spells the root)
IGNORE = -100  # a target the loss skips (padding, the root, a tag the treebank leaves empty)
MAX_CHARS = 40  # characters of a form the character encoder reads (a 10,000-character "word" costs no more)
PRETRAINED_FORMS, PRETRAINED_ROWS = "pretrained.forms", "pretrained.rows"  # their arrays' names in weights.npz
MIN_WORD_COUNT = 2  # training occurrences a form needs for an embedding of its own (rarer ones: spelled only)
TAG_HEADS = tuple(TAG_COLUMNS)  # the tag columns a network predicts where its treebank fills them; FEATS on demand
WITH_FEATS = (*TAG_HEADS, "feats")  # every tag head a network may have (NeuralOptions.feats_head)


@dataclass
class Vocabularies:
    """Every string the network knows, in id order (ids 0.. are the list positions)."""

    words: list[str]
    chars: list[str]
    tag_columns: list[str]  # the tag columns the network predicts (UPOS, XPOS, FEATS if asked: those the treebank fills)
    tags: list[list[str]]  # per tag column
    labels: list[list[str]]  # per scheme
    pretrained: Mapping[str, int] = field(default_factory=dict)  # lower-cased form -> its row of the frozen vector table
    # A model trained on several treebanks: per treebank (in training order) its name, its schemes'
    # names and the scheme head (index into ``labels``) each scheme's trees come from. Empty: one
    # treebank, whose schemes are the heads in order.
    treebanks: list[dict] = field(default_factory=list)
    phrases: list[str] = field(default_factory=list)  # span labels of a phrase-structure head, the empty one first
    # An enhanced graph's head (hetdep.neural.enhanced): its labels, and the scheme heads whose trees
    # carry the graph (those trained from files with DEPS).
    enhanced: list[str] = field(default_factory=list)
    graph_heads: list[int] = field(default_factory=list)

    def learn_enhanced(self, graphs: Sequence[dict[tuple[int, int], str]], heads: Sequence[int]) -> None:
        """The labels of the training graphs (:func:`hetdep.neural.enhanced.learned_labels`), for a
        graph head whose graphs go with the trees of the scheme heads ``heads``."""
        self.enhanced = _by_count(Counter(label for edges in graphs for label in edges.values()), 1)
        self.graph_heads = sorted(set(heads))

    def learn_phrases(self, trees: Sequence[dict[tuple[int, int], str]]) -> None:
        """The span labels of the training trees (:func:`hetdep.neural.phrases.labelled_spans`), for a span head."""
        from hetdep.neural.phrases import EMPTY

        self.phrases = [EMPTY] + _by_count(Counter(label for spans in trees for label in spans.values()), 1)

    @classmethod
    def learn(cls, schemes: Sequence[Sequence[Sentence]], min_count: int = MIN_WORD_COUNT,
              heads: Sequence[str] = TAG_HEADS, sentences: Sequence[Sentence] | None = None) -> "Vocabularies":
        """From the training sentences of each scheme (the same words in each; ``sentences``, where
        no scheme is given: a phrase-structure model's words): forms seen ``min_count`` times, every
        character, the tag columns of ``heads`` the treebank fills, each scheme's labels (LEMMA, and
        FEATS unless asked for, are left to the perceptron taggers: see hetdep.models.pipeline)."""
        return cls._learned(schemes[0] if sentences is None else sentences, list(schemes), min_count, heads)

    @classmethod
    def learn_treebanks(cls, treebanks: Sequence, heads: Sequence[Sequence[int]],
                        min_count: int = MIN_WORD_COUNT, tag_heads: Sequence[str] = TAG_HEADS) -> "Vocabularies":
        """The same from several treebanks (:class:`hetdep.neural.treebanks.Treebank`, each its
        schemes' training sentences): words, characters and tags from all of them, and each
        scheme head's labels from the schemes ``heads`` sends to it (per treebank, a head per scheme)."""
        sentences = [sentence for treebank in treebanks for sentence in treebank.train[0]]
        count = 1 + max(head for per_treebank in heads for head in per_treebank)
        per_head: list[list] = [[] for _ in range(count)]
        for treebank, per_treebank in zip(treebanks, heads):
            for scheme, head in zip(treebank.train, per_treebank):
                per_head[head].extend(scheme)
        learned = cls._learned(sentences, per_head, min_count, tag_heads)
        learned.treebanks = [{"name": treebank.name, "schemes": list(treebank.schemes), "heads": list(per_treebank)}
                             for treebank, per_treebank in zip(treebanks, heads)]
        return learned

    @classmethod
    def _learned(cls, first: Sequence[Sentence], schemes: Sequence[Sequence[Sentence]], min_count: int,
                 heads: Sequence[str]) -> "Vocabularies":
        counts = Counter(form.lower() for sentence in first for form in sentence.forms)
        chars = Counter(char for sentence in first for form in sentence.forms for char in form[:MAX_CHARS])
        columns = [column for column in heads if annotated(first, column)]
        return cls(words=["<pad>", "<unknown>", "<root>"] + _by_count(counts, min_count),
                   chars=["<pad>", "<unknown>", "<root>"] + _by_count(chars, 1),
                   tag_columns=columns,
                   tags=[_by_count(Counter(t for s in first for t in word_classes(s, c) if t is not None), 1)
                         for c in columns],
                   labels=[_by_count(Counter(label for s in sentences for label in s.deprels), 1) for sentences in schemes])

    def record(self) -> dict:
        """What config.json holds (the pretrained forms, many, are arrays: :meth:`pretrained_arrays`)."""
        return {"words": self.words, "chars": self.chars, "tag_columns": self.tag_columns, "tags": self.tags,
                "labels": self.labels, **({"treebanks": self.treebanks} if self.treebanks else {}),
                **({"phrases": self.phrases} if self.phrases else {}),
                **({"enhanced": self.enhanced, "graph_heads": self.graph_heads} if self.enhanced else {})}

    @classmethod
    def from_record(cls, record: dict) -> "Vocabularies":
        return cls(**{key: record[key] for key in ("words", "chars", "tag_columns", "tags", "labels")},
                   treebanks=record.get("treebanks", []), phrases=record.get("phrases", []),
                   enhanced=record.get("enhanced", []), graph_heads=record.get("graph_heads", []))

    def pretrained_arrays(self) -> dict[str, np.ndarray]:
        """The pretrained forms (UTF-8, a line each, sorted: they compress a third better) and their
        rows, for weights.npz (compressed there)."""
        if not self.pretrained:
            return {}
        forms, rows = zip(*sorted(self.pretrained.items()))
        return {PRETRAINED_FORMS: np.frombuffer("\n".join(forms).encode("utf-8"), dtype=np.uint8),
                PRETRAINED_ROWS: np.array(rows, dtype=np.int16 if max(rows) < 2 ** 15 else np.int32)}  # spaCy's: 20,000

    def with_pretrained(self, forms: np.ndarray, rows: np.ndarray, table_rows: int) -> "Vocabularies":
        """These vocabularies with the pretrained forms of :meth:`pretrained_arrays`; ValueError if
        they do not decode or a row falls outside a table of ``table_rows``."""
        if not ((rows > 0) & (rows < table_rows)).all():
            raise ValueError("the pretrained forms and their rows do not fit the vector table")
        return replace(self, pretrained=pretrained_forms(forms.tobytes(), rows))


def _by_count(counts: Counter, min_count: int) -> list[str]:
    """Items seen ``min_count`` times, most frequent first, ties by string (deterministic)."""
    return [item for item, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if count >= min_count]


@dataclass
class Batch:
    words: np.ndarray  # (batch, 1 + longest): word ids, root first
    types: np.ndarray  # (batch, 1 + longest): row of each position's form in chars
    chars: np.ndarray  # (forms, longest form): character ids of the batch's distinct forms
    char_lengths: np.ndarray  # (forms,)
    lengths: np.ndarray  # (batch,): words + 1 (the root)
    pretrained: np.ndarray  # (batch, 1 + longest): rows of the pretrained vectors (0: none)
    tags: list  # per tag column: (batch, 1 + longest) gold ids or IGNORE
    heads: list  # per scheme given with gold trees
    labels: list  # per scheme given with gold trees
    outputs: np.ndarray  # (schemes given,): the scheme head each of ``heads`` and ``labels`` trains
    treebank: np.ndarray  # (batch,): the treebank each sentence is read as (a model of several treebanks)
    spans: np.ndarray  # (batch, 1 + longest, 1 + longest): each span's gold phrase label id or IGNORE; (0,) without
    # (batch, 1 + longest, layers, hidden): a pretrained transformer's states of each word (0 at the root); (0,) without
    transformer: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    # (batch, dependent, head): each pair's gold enhanced label id, NO_EDGE, or IGNORE (padding, a
    # sentence without a graph); (0,) without a graph to learn
    graph: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def read_as(self, treebanks: Sequence[int]) -> "Batch":
        """The sentences of this batch (for parsing: no gold) once per treebank of ``treebanks``, in
        that order, each copy read as its treebank; the spellings computed once for all."""
        def repeated(array: np.ndarray) -> np.ndarray:
            return np.concatenate([array] * len(treebanks)) if array.size else array

        return replace(self, words=repeated(self.words), types=repeated(self.types), lengths=repeated(self.lengths),
                       pretrained=repeated(self.pretrained), transformer=repeated(self.transformer),
                       treebank=np.repeat(np.asarray(treebanks, dtype=self.treebank.dtype), len(self.words)))

    def tensors(self) -> "Batch":
        """The same batch as PyTorch tensors, for training."""
        import torch

        def tensor(value):
            return [torch.from_numpy(v) for v in value] if isinstance(value, list) else torch.from_numpy(value)

        return Batch(**{item.name: tensor(getattr(self, item.name)) for item in fields(self)})


class Encoder:
    """Turns sentences into batches with the ids of one model's vocabularies."""

    def __init__(self, vocabularies: Vocabularies, transformer=None, keep: bool = False):
        """``transformer``: a :class:`hetdep.neural.transformer.TransformerEncoder` whose states each
        batch carries; ``keep``: each sentence's states kept once computed (training, where the same
        sentences come every epoch and the transformer is frozen)."""
        self.vocabularies = vocabularies
        self.transformer, self.kept = transformer, {} if keep else None
        self.word_index = {word: k for k, word in enumerate(vocabularies.words)}
        self.char_index = {char: k for k, char in enumerate(vocabularies.chars)}
        self.tag_index = [{tag: k for k, tag in enumerate(tags)} for tags in vocabularies.tags]
        self.label_index = [{label: k for k, label in enumerate(labels)} for labels in vocabularies.labels]
        self.phrase_index = {label: k for k, label in enumerate(vocabularies.phrases)}
        self.enhanced_index = {label: k for k, label in enumerate(vocabularies.enhanced)}

    def batch(self, schemes: Sequence[Sequence[Sentence]], word_dropout: float = 0.0, generator=None,
              outputs: Sequence[int] | None = None, treebank: int = 0,
              phrases: Sequence[dict[tuple[int, int], str]] | None = None,
              graphs: Sequence[dict[tuple[int, int], str] | None] | None = None) -> Batch:
        """The sentences of ``schemes[0]`` (and their trees in every scheme given, for training: the
        scheme heads ``outputs`` names, by default all of them in order); ``word_dropout``: that share
        of known words made unknown, drawn from ``generator`` (a seeded ``torch.Generator``, as
        training has); ``treebank``: which of the model's treebanks the sentences are read as;
        ``phrases``: each sentence's gold phrases by span, for training a span head; ``graphs``: each
        sentence's enhanced edges (:func:`hetdep.neural.enhanced.learned_labels`, None: no graph to
        learn), for training a graph head."""
        sentences = schemes[0]
        longest = max(len(sentence) for sentence in sentences) + 1
        size = len(sentences)
        words = np.zeros((size, longest), dtype=np.int64)
        types = np.zeros((size, longest), dtype=np.int64)
        pretrained = np.zeros((size, longest), dtype=np.int64)
        forms: dict[str, int] = {"\0root": 0}
        for row, sentence in enumerate(sentences):
            words[row, 0] = ROOT
            for k, form in enumerate(sentence.forms, 1):
                lower = form.lower()
                words[row, k] = self.word_index.get(lower, UNKNOWN)
                pretrained[row, k] = self.vocabularies.pretrained.get(lower, 0)
                types[row, k] = forms.setdefault(form, len(forms))
        if word_dropout > 0:
            import torch

            dropped = torch.rand(words.shape, generator=generator).numpy() < word_dropout
            words = np.where(dropped & (words > ROOT), UNKNOWN, words)
        spelled = list(forms)
        chars = np.zeros((len(spelled), max(1, max(len(form[:MAX_CHARS]) for form in spelled[1:] or ["x"]))),
                         dtype=np.int64)
        lengths = np.ones(len(spelled), dtype=np.int64)
        chars[0, 0] = ROOT
        for row, form in enumerate(spelled[1:], 1):
            ids = [self.char_index.get(char, UNKNOWN) for char in form[:MAX_CHARS]]
            chars[row, :len(ids)] = ids
            lengths[row] = len(ids)
        sentence_lengths = np.array([len(sentence) + 1 for sentence in sentences], dtype=np.int64)
        tags, heads, labels = [], [], []
        if outputs is None and len(schemes) == len(self.vocabularies.labels):
            outputs = range(len(schemes))
        if outputs is not None:  # with gold trees: the targets
            for column, index in zip(self.vocabularies.tag_columns, self.tag_index):
                tags.append(self._targets(sentences, longest, lambda s, c=column: word_classes(s, c), index))
            given = schemes if phrases is None else schemes[:len(outputs)]  # a phrase-structure model's words may train no scheme
            for trees, head in zip(given, outputs, strict=True):
                heads.append(self._targets(trees, longest, lambda s: s.heads, None))
                labels.append(self._targets(trees, longest, lambda s: s.deprels, self.label_index[head]))
        spans = np.zeros(0, dtype=np.int64)
        if phrases is not None:
            spans = np.full((size, longest, longest), IGNORE, dtype=np.int64)
            for row, (sentence, found) in enumerate(zip(sentences, phrases, strict=True)):
                n = len(sentence)
                spans[row, :n + 1, :n + 1] = np.where(np.triu(np.ones((n + 1, n + 1), dtype=bool), 1), 0, IGNORE)  # i < j: no phrase
                for (i, j), label in found.items():
                    spans[row, i, j] = self.phrase_index.get(label, IGNORE)
        graph = np.zeros(0, dtype=np.int64)
        if graphs is not None:
            from hetdep.neural.enhanced import NO_EDGE

            graph = np.full((size, longest, longest), IGNORE, dtype=np.int64)
            for row, (sentence, edges) in enumerate(zip(sentences, graphs, strict=True)):
                if edges is not None:
                    n = len(sentence)
                    graph[row, 1:n + 1, :n + 1] = NO_EDGE
                    for (dependent, head), label in edges.items():
                        graph[row, dependent, head] = self.enhanced_index.get(label, IGNORE)
        return Batch(words, types, chars, lengths, sentence_lengths, pretrained, tags, heads, labels,
                     np.array(list(outputs or ()), dtype=np.int64), np.full(size, treebank, dtype=np.int64), spans,
                     self._transformer_states(sentences, longest), graph)

    def _transformer_states(self, sentences: Sequence[Sentence], longest: int) -> np.ndarray:
        """(batch, longest, layers, hidden): each word's pretrained transformer states, the root's zeros."""
        if self.transformer is None:
            return np.zeros(0, dtype=np.float32)
        kept = self.kept if self.kept is not None else {}  # by the words: the states are theirs alone
        missing = list(dict.fromkeys(tuple(sentence.forms) for sentence in sentences if tuple(sentence.forms) not in kept))
        for words, states in zip(missing, self.transformer.word_layers([list(words) for words in missing])):
            kept[words] = states.transpose(1, 0, 2)  # (words, layers, hidden)
        architecture = self.transformer.architecture
        out = np.zeros((len(sentences), longest, architecture.layers + 1, architecture.hidden), dtype=np.float32)
        for row, sentence in enumerate(sentences):
            out[row, 1:len(sentence) + 1] = kept[tuple(sentence.forms)]
        return out

    @staticmethod
    def _targets(sentences: Sequence[Sentence], longest: int, values, index: dict | None) -> np.ndarray:
        out = np.full((len(sentences), longest), IGNORE, dtype=np.int64)
        for row, sentence in enumerate(sentences):
            found = values(sentence)
            ids = [v if index is None else index.get(v, IGNORE) for v in found]
            out[row, 1:len(ids) + 1] = ids
        return out


def batches_by_length(lengths: Sequence[int], words_per_batch: int) -> list[list[int]]:
    """Sentence indices grouped into batches of similar lengths, about ``words_per_batch`` words each."""
    order = sorted(range(len(lengths)), key=lambda k: (lengths[k], k))
    batches, current, words = [], [], 0
    for k in order:
        if current and words + lengths[k] > words_per_batch:
            batches.append(current)
            current, words = [], 0
        current.append(k)
        words += lengths[k]
    if current:
        batches.append(current)
    return batches
