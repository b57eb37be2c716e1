"""Training the tagger: the averaged perceptron in each direction, the right-to-left weight, the
temperature and the lemma margin fitted on dev, the lemma dictionary's choice, and jackknifing
(each fold tagged by a tagger that never saw it, for the parsers' training tags)."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.perceptron import TrainResult, perceptron_loop
from hetdep.learn.vocab import Vocab
from hetdep.learn.weights import Weights
from hetdep.tagger import _search as _tagger
from hetdep.tagger.dictionary import lemma_dictionary
from hetdep.tagger.inflections import NO_INFLECTIONS, inflection_lexicon
from hetdep.tagger.lemmas import MARGINS, known_lemmas
from hetdep.tagger.tagger import (
    BACKWARD_WEIGHTS,
    COLUMNS,
    DEFAULT_BACKWARD_WEIGHT,
    Tagger,
    ambiguity_classes,
    classes,
    encode,
    word_strings,
)
from hetdep.tagger.templates import FIRST_TAG_COLUMN, N_TAG_TEMPLATES, templates_for
from hetdep.tagger.tree_context import NO_TREE, tree_strings
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.tags import UNANNOTATED, malformed


@dataclass(frozen=True)
class TaggerOptions:
    column: str = "upos"
    beam: int = 8
    iterations: int = 20
    patience: int = 3
    seed: int = 1
    bidirectional: bool = True
    reads: str | None = None  # a column whose values the tagger reads as one more atom (UPOS, for FEATS and LEMMA)
    reads_tree: bool = False  # the sentence's tree too (hetdep.tagger.tree_context): gold in training, parsed in use
    inflections: str | None = None  # a language whose inflection lexicon it reads (hetdep.tagger.inflections)


def train_tagger(train_sentences: Sequence[Sentence], dev_sentences: Sequence[Sentence],
                 options: TaggerOptions = TaggerOptions(), progress: Callable | None = None) -> TrainResult:
    """Train a tagger for ``options.column``, keeping the iteration with the best dev accuracy."""
    if not train_sentences:
        raise HetdepError("no training sentences")
    if options.column not in COLUMNS:
        raise HetdepError(f"unknown tag column {options.column!r}; choose from {sorted(COLUMNS)}")
    problem = malformed(train_sentences, options.column)
    if problem:
        raise HetdepError(problem)
    gold = [classes(s, options.column) for s in train_sentences]
    tag_counts = Counter(tag for tags in gold for tag in tags)
    if set(tag_counts) <= {UNANNOTATED}:
        raise HetdepError(f"{train_sentences[0].path}: the training file has no {options.column.upper()} column to learn")
    tags = sorted(tag_counts)
    tag_index = {tag: i + 1 for i, tag in enumerate(tags)}
    lexicon = ambiguity_classes(train_sentences, options.column)
    given = [s.column(COLUMNS[options.reads]) if options.reads else [""] * len(s) for s in train_sentences]
    trees = [tree_strings(s, tags_given) if options.reads_tree else None for s, tags_given in zip(train_sentences, given)]
    inflections = inflection_lexicon(options.inflections) if options.inflections else None
    strings = Vocab.from_counts(Counter(s for sentence, tags_given, tree in zip(train_sentences, given, trees)
                                        for k, (form, tag) in enumerate(zip(sentence.forms, tags_given))
                                        for s in word_strings(form, lexicon, tag, tree[k] if tree else NO_TREE,
                                                              inflections.strings(form) if inflections else NO_INFLECTIONS)))
    encoded = [(encode(strings, lexicon, s.forms, tags_given, tree, inflections),
                np.array([tag_index[t] for t in tags_of], dtype=np.int64))
               for s, tags_of, tags_given, tree in zip(train_sentences, gold, given, trees) if len(s)]
    make = functools.partial(Tagger, strings, lexicon, tags, column=options.column, beam=options.beam, reads=options.reads,
                             known_lemmas=known_lemmas(train_sentences) if options.column == "lemma" else (),
                             reads_tree=options.reads_tree, inflections=options.inflections)
    if not options.bidirectional:
        return _train_direction(make, encoded, len(tags), dev_sentences, options, progress, reverse=False)
    backward = _train_direction(make, encoded, len(tags), dev_sentences, options, progress, reverse=True).parser
    result = _train_direction(make, encoded, len(tags), dev_sentences, options, progress, reverse=False)
    tagger = result.parser
    tagger.backward = backward
    if dev_sentences:
        backward.temperature = fit_temperature(backward, dev_sentences)
        tagger.backward_weight = max(BACKWARD_WEIGHTS, key=lambda weight: _accuracy_with(tagger, weight, dev_sentences))
        tagger.temperature = fit_temperature(tagger, dev_sentences)
        if tagger.known_lemmas:
            tagger.lemma_margin = max(MARGINS, key=lambda margin: (_accuracy_with_margin(tagger, margin, dev_sentences), -margin))
    else:
        tagger.backward_weight = DEFAULT_BACKWARD_WEIGHT
    return result


def fit_dictionary(tagger: Tagger, sentences: Sequence[Sentence], language: str | None) -> str:
    """A lemma tagger given ``language``'s dictionary if that tags ``sentences`` (dev, with the
    UPOS the tagger reads) better; the choice, in words, for the training log."""
    tagger.dictionary = None
    if tagger.column != "lemma" or lemma_dictionary(language) is None or not sentences:
        return "no lemma dictionary" + (f" for {language}" if language and tagger.column == "lemma" else "")
    without = tag_accuracy(sentences, tagger.tag(sentences), "lemma")
    tagger.dictionary = language
    with_it = tag_accuracy(sentences, tagger.tag(sentences), "lemma")
    if with_it <= without:
        tagger.dictionary = None
    return f"the {language} lemma dictionary {'kept' if tagger.dictionary else 'left out'}: dev {with_it:.2f}% with it, {without:.2f}% without"


def _accuracy_with_margin(tagger: Tagger, margin: float, sentences: Sequence[Sentence]) -> float:
    tagger.lemma_margin = margin
    return tag_accuracy(sentences, tagger.tag(sentences), tagger.column)


def _accuracy_with(tagger: Tagger, backward_weight: float, sentences: Sequence[Sentence]) -> float:
    tagger.backward_weight = backward_weight
    return tag_accuracy(sentences, tagger.tag(sentences), tagger.column)


def _train_direction(make: Callable, encoded: list[tuple[np.ndarray, np.ndarray]], n_tags: int,
                     dev_sentences: Sequence[Sentence], options: TaggerOptions, progress: Callable | None,
                     reverse: bool) -> TrainResult:
    """One direction's perceptron training; the right-to-left tagger learns on reversed sentences
    (a word's atoms do not depend on its position, so reversing the rows reverses the sentence)."""
    if reverse:
        encoded = [(atoms[::-1].copy(), gold[::-1].copy()) for atoms, gold in encoded]
    weights = Weights(n_tags + FIRST_TAG_COLUMN)
    templates = templates_for(options.reads_tree, bool(options.inflections))
    per_word = len(templates) + N_TAG_TEMPLATES
    no_extra = np.zeros((max(len(gold) for _, gold in encoded), n_tags), dtype=np.float32)  # training adds nothing

    def learn(index: int) -> bool:
        atoms, gold = encoded[index]
        n = len(gold)
        weights.reserve(2 * n * per_word)
        pred, length, _ = _tagger.search(atoms, n, options.beam, templates, weights.table, weights.rows, n_tags, gold, True,
                                         no_extra[:n])
        if length < n or not np.array_equal(pred, gold):
            _tagger.update(atoms, n, gold, pred, length, templates, weights.table, weights.n_used, weights.rows,
                           weights.sums, weights.counts, weights.counter)
            return True
        return False

    def evaluate_model(averaged):
        tagger = make(averaged, reverse=reverse)
        if not dev_sentences:  # no dev set: the last iteration is kept
            return tagger, None, None, {}
        accuracy = tag_accuracy(dev_sentences, tagger.tag(dev_sentences), options.column)
        return tagger, accuracy, accuracy, {}

    # a tagger is trained whole (both directions) or not at all
    result = perceptron_loop(len(encoded), learn, evaluate_model, weights, options, progress).finished()
    if dev_sentences:
        result.parser.temperature = fit_temperature(result.parser, dev_sentences)
    return result


def fit_temperature(tagger: Tagger, sentences: Sequence[Sentence]) -> float:
    """The temperature of the grid 2^(-2..8, step 1/2) under which the gold tags are likeliest."""
    index = {tag: i for i, tag in enumerate(tagger.tags)}
    rows, gold = [], []
    for sentence in sentences:
        given = tagger.given(sentence)
        _, scores = tagger.search(sentence.forms, given=given, tree=tagger.tree(sentence, given))
        for row, tag in zip(scores, classes(sentence, tagger.column)):
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
              progress: Callable | None = None, k: int = 0, threshold: float = 0.0, threads: int = 1) -> list[Sentence]:
    """The sentences with each column tagged by a tagger that never saw them (Collins 2000's jackknifing).

    Sentence i is in fold i mod ``folds``; each fold is tagged by a tagger trained on the other
    folds' own (gold) tags, with ``options.iterations`` iterations (no dev set: the last one is
    kept). Parsers trained on the result see tags as noisy as at parsing time. With ``k``, the
    column keeps its gold tags and MISC gets each word's k-best tags instead (``TagKBest``; what a
    parser trained on tag lattices reads, next to the gold tags). The folds are independent:
    ``threads`` of them train at once (hetdep.threads), with the same result.
    """
    if folds < 2 or folds > len(sentences):
        raise HetdepError(f"jackknifing needs 2..{len(sentences)} folds (one sentence at least in each), not {folds}")
    tagged = list(sentences)
    for column in columns:
        column_options = TaggerOptions(column=column, beam=options.beam, iterations=options.iterations,
                                       patience=options.iterations, seed=options.seed,
                                       bidirectional=options.bidirectional)

        def tag_fold(fold: int) -> tuple[list[int], list[Sentence]]:
            train_part = [s for i, s in enumerate(sentences) if i % folds != fold]
            held_out = [i for i in range(len(sentences)) if i % folds == fold]
            tagger = train_tagger(train_part, [], column_options).parser
            return held_out, list(tagger.tag((tagged[i] for i in held_out), k=k, threshold=threshold))

        for fold, (held_out, results) in enumerate(ordered_map(tag_fold, range(folds), threads)):
            for i, sentence in zip(held_out, results):
                tagged[i] = sentence.with_column(COLUMNS[column], tagged[i].column(COLUMNS[column])) if k else sentence
            if progress:
                progress(f"{column}: fold {fold + 1}/{folds} tagged")
    return tagged
