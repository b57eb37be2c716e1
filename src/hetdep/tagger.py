"""Part-of-speech tagger: averaged perceptron over tag sequences, beam search, k-best tags per word.

Features (Collins 2002; Ratnaparkhi 1996 for unknown words): the word, its lower-cased form,
prefixes of 1-3 and suffixes of 1-4 characters, its shape (``Xxxx`` -> ``Xx``, ``1,234`` ->
``d,d``), the neighbouring words and suffixes at -2..+2, word bigrams, and the previous one or
two tags (alone and with the word or its suffix). Learning is the global averaged perceptron
with early update, as for the parsers; the compiled search is :mod:`hetdep._tagger`.

k-best output: each word's tags ranked by their score given the best sequence's previous tags,
with probabilities from a softmax over those scores divided by a temperature, written to MISC
as ``TagKBest=NOUN:0.912,PROPN:0.071`` (k and a probability threshold chosen by the caller).
Perceptron scores are not probabilities and a plain softmax of them is nearly always 1.0 for
the best tag, so the temperature is fitted on the dev set after training: the value of a
log-spaced grid that gives the gold tags the highest likelihood (1.0 without a dev set).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from . import _tagger
from .conllu import MISC, Sentence
from .errors import HetdepError
from .model import ModelFileError, TrainedWeights, Weights, load_model, save_model
from .parser import TAG_COLUMNS
from .training import TrainResult, perceptron_loop
from .vocab import UNKNOWN, Vocab

KIND = "tagger"
COLUMNS = TAG_COLUMNS  # the tag columns a tagger can fill, the parsers' own
KBEST_KEY = "TagKBest"


@dataclass(frozen=True)
class TaggerOptions:
    column: str = "upos"
    beam: int = 8
    iterations: int = 20
    patience: int = 3
    seed: int = 1


def shape(word: str) -> str:
    """Word shape with runs collapsed: ``Paris`` -> ``Xx``, ``1,234.5`` -> ``d,d.d``, ``e-mail`` -> ``x-x``."""
    out = []
    for char in word:
        if char.isdigit():
            kind = "d"
        elif char.isalpha():
            kind = "X" if char.isupper() else "x"
        elif unicodedata.category(char).startswith("P") or not char.isprintable():
            kind = char if char.isprintable() else "?"
        else:
            kind = "s"
        if not out or out[-1] != kind:
            out.append(kind)
    return "".join(out)[:8]


def word_strings(form: str) -> list[str]:
    """The strings behind a word's atoms, in the order of :data:`hetdep._tagger.N_ATOMS`."""
    lower = form.lower()
    return ([f"w:{form}", f"l:{lower}"] + [f"p{k}:{lower[:k]}" for k in (1, 2, 3)]
            + [f"s{k}:{lower[-k:]}" for k in (1, 2, 3, 4)] + [f"h:{shape(form)}"])


def encode(strings: Vocab, forms: Sequence[str]) -> np.ndarray:
    """The (words, atoms) array of a sentence: ids of :func:`word_strings` (unknown strings: 1)."""
    get = strings.index.get
    atoms = np.array([[get(s, UNKNOWN) for s in word_strings(form)] for form in forms], dtype=np.int64)
    return atoms.reshape(len(forms), _tagger.N_ATOMS)


class Tagger:
    """A trained tagger for one column (UPOS or XPOS)."""

    def __init__(self, strings: Vocab, tags: list[str], weights: TrainedWeights, *, column: str = "upos", beam: int = 8,
                 temperature: float = 1.0):
        self.strings = strings
        self.temperature = temperature
        self.tags = tags
        self.weights = weights
        self.column = column
        self.beam = beam
        self.templates = _tagger.STATIC_TEMPLATES
        self.unknown_words = 0
        self.words = 0

    def search(self, forms: Sequence[str], beam: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Best tag ids (0-based) and every word's tag scores."""
        atoms = encode(self.strings, forms)
        self.words += len(forms)
        self.unknown_words += int((atoms[:, _tagger.W] == UNKNOWN).sum()) if len(forms) else 0
        if not len(forms):
            return np.zeros(0, dtype=np.int64), np.zeros((0, len(self.tags)), dtype=np.float32)
        tags, _, scores = _tagger.search(atoms, len(forms), beam or self.beam, self.templates, self.weights.table,
                                         self.weights.rows, len(self.tags), np.zeros(len(forms), dtype=np.int64), False)
        return tags - 1, scores

    def tag(self, sentences: Iterable[Sentence], beam: int | None = None, k: int = 0,
            threshold: float = 0.0) -> Iterator[Sentence]:
        """Each sentence with this tagger's column replaced; with ``k``, the k-best tags in MISC."""
        column = COLUMNS[self.column]
        for sentence in sentences:
            best, scores = self.search(sentence.forms, beam)
            tagged = sentence.with_column(column, [self.tags[t] for t in best])
            if k:
                tagged = tagged.with_column(MISC, [_with_misc(misc, KBEST_KEY, _kbest_text(row / self.temperature, self.tags, k, threshold))
                                                   for misc, row in zip(tagged.column(MISC), scores)])
            yield tagged

    def kbest(self, forms: Sequence[str], k: int, threshold: float = 0.0) -> list[list[tuple[str, float]]]:
        """Per word, up to k (tag, probability) pairs, best first, those below ``threshold`` dropped (the best kept)."""
        _, scores = self.search(forms)
        return [_kbest(row / self.temperature, self.tags, k, threshold) for row in scores]

    def config(self) -> dict:
        return {"kind": KIND, "column": self.column, "beam": self.beam, "temperature": self.temperature, "tags": self.tags,
                "strings": self.strings.to_list(), "templates": len(self.templates)}

    def save(self, directory: str | Path, **training_record) -> None:
        save_model(Path(directory), {**self.config(), **training_record}, self.weights)

    @classmethod
    def load(cls, directory: str | Path) -> "Tagger":
        config, weights = load_model(Path(directory), KIND)
        try:
            tags = list(config["tags"])
            n_columns = len(tags) + _tagger.FIRST_TAG_COLUMN
            if (weights.act.size and weights.act.max() >= n_columns) or weights.dense.shape[1] != n_columns \
                    or config["templates"] != len(_tagger.STATIC_TEMPLATES) or config["column"] not in COLUMNS:
                raise ModelFileError(f"{directory}: weights do not match the tag set or the feature templates")
            return cls(Vocab.from_list(config["strings"]), tags, weights, column=config["column"], beam=int(config["beam"]),
                       temperature=float(config["temperature"]))
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{directory}/config.json: incomplete or invalid tagger configuration ({error!r})") from None


def _kbest(scores: np.ndarray, tags: list[str], k: int, threshold: float) -> list[tuple[str, float]]:
    probabilities = np.exp(scores - scores.max())
    probabilities /= probabilities.sum()
    order = np.argsort(-probabilities, kind="stable")[:k]
    return [(tags[i], float(probabilities[i])) for j, i in enumerate(order) if j == 0 or probabilities[i] >= threshold]


def _kbest_text(scores: np.ndarray, tags: list[str], k: int, threshold: float) -> str:
    return ",".join(f"{tag}:{p:.3f}" for tag, p in _kbest(scores, tags, k, threshold))


def _with_misc(misc: str, key: str, value: str) -> str:
    kept = [item for item in misc.split("|") if item and item != "_" and not item.startswith(key + "=")]
    return "|".join(kept + [f"{key}={value}"])


def parse_kbest(misc: str) -> list[tuple[str, float]]:
    """The (tag, probability) pairs that :meth:`Tagger.tag` wrote to a MISC field ([] if none)."""
    for item in misc.split("|"):
        if item.startswith(KBEST_KEY + "="):
            pairs = [part.rsplit(":", 1) for part in item[len(KBEST_KEY) + 1:].split(",") if part]
            return [(tag, float(p)) for tag, p in pairs]
    return []


def train_tagger(train_sentences: Sequence[Sentence], dev_sentences: Sequence[Sentence],
                 options: TaggerOptions = TaggerOptions(), progress: Callable | None = None) -> TrainResult:
    """Train a tagger for ``options.column``, keeping the iteration with the best dev accuracy."""
    if not train_sentences:
        raise HetdepError("no training sentences")
    if options.column not in COLUMNS:
        raise HetdepError(f"unknown tag column {options.column!r}; choose from {sorted(COLUMNS)}")
    column = COLUMNS[options.column]
    tag_counts = Counter(tag for s in train_sentences for tag in s.column(column))
    if set(tag_counts) <= {"_"}:
        raise HetdepError(f"{train_sentences[0].path}: the training file has no {options.column.upper()} tags")
    tags = sorted(tag_counts)
    tag_index = {tag: i + 1 for i, tag in enumerate(tags)}
    strings = Vocab.from_counts(Counter(s for sentence in train_sentences for form in sentence.forms
                                        for s in word_strings(form)))
    encoded = [(encode(strings, s.forms), np.array([tag_index[t] for t in s.column(column)], dtype=np.int64))
               for s in train_sentences if len(s)]
    weights = Weights(len(tags) + _tagger.FIRST_TAG_COLUMN)
    templates = _tagger.STATIC_TEMPLATES
    per_word = len(templates) + _tagger.N_TAG_TEMPLATES

    def learn(index: int) -> bool:
        atoms, gold = encoded[index]
        n = len(gold)
        weights.reserve(2 * n * per_word)
        pred, length, _ = _tagger.search(atoms, n, options.beam, templates, weights.table, weights.rows, len(tags), gold, True)
        if length < n or not np.array_equal(pred, gold):
            _tagger.update(atoms, n, gold, pred, length, templates, weights.table, weights.n_used, weights.rows,
                           weights.sums, weights.counts, weights.counter)
            return True
        return False


    def evaluate_model(averaged):
        tagger = Tagger(strings, tags, averaged, column=options.column, beam=options.beam)
        if not dev_sentences:  # no dev set: the last iteration is kept
            return tagger, None, None, {}
        accuracy = tag_accuracy(dev_sentences, tagger.tag(dev_sentences), options.column)
        return tagger, accuracy, accuracy, {}

    tagger, best_iteration, history = perceptron_loop(len(encoded), learn, evaluate_model, weights, options, progress)
    if dev_sentences:
        tagger.temperature = fit_temperature(tagger, dev_sentences)
    return TrainResult(tagger, best_iteration, history)


def fit_temperature(tagger: Tagger, sentences: Sequence[Sentence]) -> float:
    """The temperature of the grid 2^(-2..8, step 1/2) under which the gold tags are likeliest."""
    index = {tag: i for i, tag in enumerate(tagger.tags)}
    column = COLUMNS[tagger.column]
    rows, gold = [], []
    for sentence in sentences:
        _, scores = tagger.search(sentence.forms)
        for row, tag in zip(scores, sentence.column(column)):
            if tag in index:
                rows.append(row)
                gold.append(index[tag])
    if not rows:
        return 1.0
    scores = np.array(rows, dtype=np.float64)
    gold_index = np.array(gold)

    def log_likelihood(temperature: float) -> float:
        scaled = scores / temperature
        scaled -= scaled.max(axis=1, keepdims=True)
        return float((scaled[np.arange(len(gold_index)), gold_index] - np.log(np.exp(scaled).sum(axis=1))).sum())

    return max((2.0 ** (k / 2) for k in range(-4, 17)), key=log_likelihood)


def tag_accuracy(gold: Iterable[Sentence], predicted: Iterable[Sentence], column: str = "upos") -> float:
    """Percentage of words whose tag in ``column`` matches the gold one (every word, punctuation included)."""
    index = COLUMNS[column]
    right = total = 0
    for g, p in zip(gold, predicted, strict=True):
        if len(g) != len(p):
            raise HetdepError(f"{p.describe()}: {len(p)} words, the gold sentence {g.describe()} has {len(g)}")
        right += sum(a == b for a, b in zip(g.column(index), p.column(index)))
        total += len(g)
    return 100.0 * right / total if total else 0.0


def jackknife(sentences: Sequence[Sentence], folds: int, columns: Sequence[str], options: TaggerOptions = TaggerOptions(),
              progress: Callable | None = None, k: int = 0, threshold: float = 0.0) -> list[Sentence]:
    """The sentences with each column tagged by a tagger that never saw them (Collins 2000's jackknifing).

    Sentence i is in fold i mod ``folds``; each fold is tagged by a tagger trained on the other
    folds, with ``options.iterations`` iterations (no dev set: the last one is kept). Parsers
    trained on the result see tags as noisy as at parsing time. With ``k``, the column keeps
    its gold tags and MISC gets each word's k-best tags instead (``TagKBest``; what a parser
    trained on tag lattices reads, next to the gold tags).
    """
    if folds < 2 or folds > len(sentences):
        raise HetdepError(f"jackknifing needs 2..{len(sentences)} folds (one sentence at least in each), not {folds}")
    tagged = list(sentences)
    for column in columns:
        column_options = TaggerOptions(column=column, beam=options.beam, iterations=options.iterations,
                                       patience=options.iterations, seed=options.seed)
        for fold in range(folds):
            train_part = [s for i, s in enumerate(tagged) if i % folds != fold]
            held_out = [i for i in range(len(tagged)) if i % folds == fold]
            tagger = train_tagger(train_part, [], column_options).parser
            for i, sentence in zip(held_out, tagger.tag((tagged[i] for i in held_out), k=k, threshold=threshold)):
                tagged[i] = sentence.with_column(COLUMNS[column], tagged[i].column(COLUMNS[column])) if k else sentence
            if progress:
                progress(f"{column}: fold {fold + 1}/{folds} tagged")
    return tagged
