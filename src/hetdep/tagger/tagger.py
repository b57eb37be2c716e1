"""Part-of-speech tagger: averaged perceptron over tag sequences, beam search, k-best tags per word.

Features (Collins 2002; Ratnaparkhi 1996 for unknown words): the word, its lower-cased form,
prefixes of 1-4 and suffixes of 1-5 characters, its shape (``Xxxx`` -> ``Xx``, ``1,234`` ->
``d,d``) and casing, the neighbouring words and suffixes at -2..+2, word bigrams, the ambiguity classes
(the tags seen with a word in training) of the word and the next two, and the previous one or
two tags (alone and with the word, its suffix or the next word). Learning is the global
averaged perceptron with early update, as for the parsers; the compiled search is
:mod:`hetdep.tagger._search`. A right-to-left tagger, trained the same way on reversed sentences,
adds its per-word log-probabilities to the left-to-right search with a weight fitted on dev.

k-best output: each word's tags ranked by their score given the best sequence's previous tags,
with probabilities from a softmax over those scores divided by a temperature, written to MISC
as ``TagKBest=NOUN:0.912,PROPN:0.071`` (k and a probability threshold chosen by the caller).
Perceptron scores are not probabilities and a plain softmax of them is nearly always 1.0 for
the best tag, so the temperature is fitted on the dev set after training: the value of a
log-spaced grid that gives the gold tags the highest likelihood (1.0 without a dev set).
"""

from __future__ import annotations

import functools
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.learn.model_files import ModelFileError, SavedModel, check_width, save_model
from hetdep.learn.perceptron import TrainResult, perceptron_loop
from hetdep.learn.vocab import UNKNOWN, Vocab
from hetdep.learn.weights import TrainedWeights, Weights
from hetdep.tagger import _search as _tagger
from hetdep.tagger.dictionary import lemma_dictionary
from hetdep.tagger.lemmas import DEFAULT_MARGIN, MARGINS, known_lemmas, prefer_known
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import MISC, Sentence
from hetdep.treebank.tags import KBEST_KEY, UNANNOTATED, WORD_COLUMNS, malformed, with_word_classes, word_classes

COLUMNS = WORD_COLUMNS  # the word columns a tagger can fill: the parsers' tag columns, FEATS and LEMMA
BACKWARD = "backward"  # subdirectory of a tagger's right-to-left companion
BACKWARD_WEIGHTS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)  # grid fitted on dev (forward-score units)
DEFAULT_BACKWARD_WEIGHT = 4.0  # without a dev set (jackknifing): a middle value of the fitted ones
LEXICON_MIN_COUNT = 2
LEXICON_MIN_SHARE = 0.05


@dataclass(frozen=True)
class TaggerOptions:
    column: str = "upos"
    beam: int = 8
    iterations: int = 20
    patience: int = 3
    seed: int = 1
    bidirectional: bool = True
    reads: str | None = None  # a column whose values the tagger reads as one more atom (UPOS, for FEATS and LEMMA)


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


def word_strings(form: str, lexicon: dict[str, str], given: str = "") -> list[str]:
    """The strings behind a word's atoms, in the order of :data:`hetdep.tagger._search.N_ATOMS`
    (``given``: the word's tag in the column the tagger reads, if it reads one)."""
    lower = form.lower()
    return ([f"w:{form}", f"l:{lower}"] + [f"p{k}:{lower[:k]}" for k in (1, 2, 3)]
            + [f"s{k}:{lower[-k:]}" for k in (1, 2, 3, 4)] + [f"h:{shape(form)}", f"a:{lexicon.get(lower, '?')}"]
            + [f"p4:{lower[:4]}", f"s5:{lower[-5:]}", f"g:{given}", f"c:{casing(form)}"])


def casing(word: str) -> str:
    """The casing of a whole word: ``lower``, ``title``, ``upper``, ``mixed`` (``iPhone``, a URL
    with capitals) or ``none`` (no cased letter)."""
    if word == word.lower():
        return "none" if word == word.upper() else "lower"
    if word == word.upper():
        return "upper"
    return "title" if word[1:] == word[1:].lower() else "mixed"


def classes(sentence: Sentence, column: str) -> list[str]:
    """A sentence's classes in a tagger's column, "_" where the treebank leaves it empty (a class
    of its own, as the tag columns always had it)."""
    return [UNANNOTATED if value is None else value for value in word_classes(sentence, column)]


def ambiguity_classes(sentences: Sequence[Sentence], column: str, min_count: int = LEXICON_MIN_COUNT,
                      min_share: float = LEXICON_MIN_SHARE) -> dict[str, str]:
    """Each frequent lower-cased word's ambiguity class: its tags in training, sorted, joined by ``|``.

    Only words seen ``min_count`` times get a class, and only tags with at least ``min_share``
    of a word's occurrences enter it (annotation noise stays out). Rarer words read as ``?``,
    like unseen ones, so that training sees unknown-word classes as often as tagging does.
    """
    counts: dict[str, Counter] = {}
    for sentence in sentences:
        for form, tag in zip(sentence.forms, classes(sentence, column)):
            counts.setdefault(form.lower(), Counter())[tag] += 1
    lexicon = {}
    for word, tags in counts.items():
        total = sum(tags.values())
        if total >= min_count:
            lexicon[word] = "|".join(sorted(tag for tag, count in tags.items() if count >= min_share * total))
    return lexicon


def encode(strings: Vocab, lexicon: dict[str, str], forms: Sequence[str], given: Sequence[str] | None = None) -> np.ndarray:
    """The (words, atoms) array of a sentence: ids of :func:`word_strings` (unknown strings: 1)."""
    get = strings.index.get
    given = given or [""] * len(forms)
    atoms = np.array([[get(s, UNKNOWN) for s in word_strings(form, lexicon, tag)] for form, tag in zip(forms, given)],
                     dtype=np.int64)
    return atoms.reshape(len(forms), _tagger.N_ATOMS)


class Tagger(SavedModel):
    """A trained tagger for one word column (UPOS, XPOS, FEATS bundles, or LEMMA as edit scripts).

    A left-to-right tagger may hold a right-to-left one (``backward``, trained on reversed
    sentences): its per-word log-probabilities, times ``backward_weight``, are added to every
    tag's score in the left-to-right search, so that each choice also sees the tags the words
    to its right are likely to get (Tsuruoka & Tsujii 2005 combine the two directions too).

    A tagger may read another column (``reads``: a FEATS or LEMMA tagger reads UPOS, given by the
    UPOS tagger that runs before it, the gold one in training): its value is one more atom of
    each word. On fr-sequoia dev, the gold UPOS read: FEATS 95.11% -> 96.36% (SUD file), LEMMA
    97.75% -> 98.81% (the same lemmas in both files). A lemma tagger also prefers lemmas its
    training treebank has (hetdep.tagger.lemmas).
    """

    KIND = "tagger"
    WHAT = "tagger"

    def __init__(self, strings: Vocab, lexicon: dict[str, str], tags: list[str], weights: TrainedWeights, *,
                 column: str = "upos", beam: int = 8, temperature: float = 1.0, reverse: bool = False,
                 backward: "Tagger | None" = None, backward_weight: float = 0.0, reads: str | None = None,
                 known_lemmas: Iterable[str] = (), lemma_margin: float = DEFAULT_MARGIN,
                 templates: np.ndarray = _tagger.STATIC_TEMPLATES, dictionary: str | None = None):
        self.strings = strings
        self.lexicon = lexicon
        self.temperature = temperature
        self.tags = tags
        self.weights = weights
        self.column = column
        self.beam = beam
        self.reverse = reverse
        self.backward = backward
        self.backward_weight = backward_weight
        self.reads = reads
        self.known_lemmas = frozenset(known_lemmas)  # a lemma tagger's lexicon (hetdep.tagger.lemmas)
        self.lemma_margin = lemma_margin
        self.dictionary = dictionary  # a lemma tagger's dictionary language (hetdep.tagger.dictionary), fitted on dev
        self.templates = templates  # a model trained before templates were appended keeps its set
        self.unknown_words = 0
        self.words = 0
        self._counting = threading.Lock()  # sentences may be tagged on several threads (hetdep.threads)

    def given(self, sentence: Sentence) -> list[str] | None:
        """The sentence's values in the column this tagger reads (None if it reads none)."""
        return sentence.column(COLUMNS[self.reads]) if self.reads else None

    def search(self, forms: Sequence[str], beam: int | None = None,
               given: Sequence[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Best tag ids (0-based) and every word's tag scores (the backward tagger's share included)."""
        n = len(forms)
        if not n:
            return np.zeros(0, dtype=np.int64), np.zeros((0, len(self.tags)), dtype=np.float32)
        atoms = encode(self.strings, self.lexicon, forms, given)
        with self._counting:
            self.words += n
            self.unknown_words += int((atoms[:, _tagger.W] == UNKNOWN).sum())
        extra = np.zeros((n, len(self.tags)), dtype=np.float32)
        if self.backward is not None and self.backward_weight:  # the two share strings and lexicon: atoms too
            _, backward_scores = self.backward._search(atoms, beam, np.zeros_like(extra))
            extra += self.backward_weight * _log_softmax(backward_scores / self.backward.temperature)
        return self._search(atoms, beam, extra)

    def _search(self, atoms: np.ndarray, beam: int | None, extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        step = -1 if self.reverse else 1
        n = len(atoms)
        tags, _, scores = _tagger.search(atoms[::step].copy(), n, beam or self.beam, self.templates, self.weights.table,
                                         self.weights.rows, len(self.tags), np.zeros(n, dtype=np.int64), False,
                                         extra[::step].copy())
        return tags[::step] - 1, scores[::step]

    def tag(self, sentences: Iterable[Sentence], beam: int | None = None, k: int = 0,
            threshold: float = 0.0) -> Iterator[Sentence]:
        """Each sentence with this tagger's column replaced; with ``k``, the k-best tags in MISC."""
        dictionary = lemma_dictionary(self.dictionary)
        known = self._known_with(dictionary)
        for sentence in sentences:
            given = self.given(sentence)
            best, scores = self.search(sentence.forms, beam, given)
            if known:
                best = prefer_known(sentence.forms, best, scores / self.temperature, self.tags, known, self.lemma_margin)
            chosen = [self.tags[t] for t in best]
            if dictionary:
                chosen = dictionary.fill_unseen(sentence.forms, chosen, self.has_seen, known,
                                                given if self.reads == "upos" else None)
            tagged = with_word_classes(sentence, self.column, chosen)
            if k:
                tagged = tagged.with_column(MISC, [_with_misc(misc, KBEST_KEY, _kbest_text(row / self.temperature, self.tags, k, threshold))
                                                   for misc, row in zip(tagged.column(MISC), scores)])
            yield tagged

    def _known_with(self, dictionary) -> frozenset[str]:
        """The lemmas this tagger prefers: its treebank's, and its dictionary's (their union made
        once: tagging calls come a sentence at a time)."""
        if dictionary is None:
            return self.known_lemmas
        cached = self.__dict__.get("_known_cache")
        if cached is None or cached[0] is not dictionary or cached[1] is not self.known_lemmas:
            cached = self._known_cache = (dictionary, self.known_lemmas, self.known_lemmas | dictionary.lemmas)
        return cached[2]

    def has_seen(self, form: str) -> bool:
        """Whether training gave the form an atom of its own (else it is unseen to the tagger)."""
        return f"w:{form}" in self.strings.index

    def log_probabilities(self, sentence: Sentence) -> np.ndarray:
        """(words, tags): each word's log-probability of each tag (the k-best's, all of them)."""
        _, scores = self.search(sentence.forms, None, self.given(sentence))
        return _log_softmax(scores.astype(np.float64) / self.temperature)

    def kbest(self, forms: Sequence[str], k: int, threshold: float = 0.0) -> list[list[tuple[str, float]]]:
        """Per word, up to k (tag, probability) pairs, best first, those below ``threshold`` dropped (the best kept)."""
        _, scores = self.search(forms)
        return [_kbest(row / self.temperature, self.tags, k, threshold) for row in scores]

    def config(self) -> dict:
        return {"kind": self.KIND, "column": self.column, "beam": self.beam, "temperature": self.temperature, "tags": self.tags,
                "strings": self.strings.to_list(), "lexicon": self.lexicon, "templates": self.templates.tolist(),
                "reverse": self.reverse, "backward_weight": self.backward_weight if self.backward else 0.0,
                "reads": self.reads, "known_lemmas": sorted(self.known_lemmas), "lemma_margin": self.lemma_margin,
                **({"dictionary": self.dictionary} if self.dictionary else {})}

    def save(self, directory: str | Path, **training_record) -> None:
        """Weights and configuration; a backward tagger goes to the ``backward`` subdirectory,
        without the strings, lexicon and known lemmas of this one (it needs none of the last)."""
        super().save(directory, **training_record)
        if self.backward is not None:
            shared = {"strings", "lexicon", "known_lemmas"}
            save_model(Path(directory) / BACKWARD, {key: value for key, value in self.backward.config().items()
                                                    if key not in shared}, self.backward.weights)

    @classmethod
    def from_config(cls, config: dict, weights: TrainedWeights, directory: Path,
                    shared: tuple[Vocab, dict[str, str]] | None = None) -> "Tagger":
        """A saved tagger (``shared``: the strings and lexicon of the tagger a backward one belongs to)."""
        tags = list(config["tags"])
        what = "the tag set or the feature templates"
        check_width(weights, len(tags) + _tagger.FIRST_TAG_COLUMN, directory, what)
        templates = config["templates"]
        if (not isinstance(templates, list) or len(templates) < _tagger.FIRST_TEMPLATES
                or templates != _tagger.STATIC_TEMPLATES[:len(templates)].tolist() or config["column"] not in COLUMNS):
            raise ModelFileError(f"{directory}: weights do not match {what}")
        strings, lexicon = shared or (Vocab.from_list(config["strings"]), dict(config["lexicon"]))
        backward_weight = float(config["backward_weight"])
        # A right-to-left tagger that is there is checked whether or not its weight lets it tag: a model is whole or refused.
        backward = (cls.load(directory / BACKWARD, shared=(strings, lexicon))
                    if backward_weight or (directory / BACKWARD).exists() else None)
        if backward is not None and (backward.tags != tags or not backward.reverse):
            raise ModelFileError(f"{directory}/{BACKWARD}: not the right-to-left tagger of this tag set")
        reads = config.get("reads")
        if reads is not None and reads not in COLUMNS:
            raise ModelFileError(f"{directory}/config.json: reads {reads!r} is not a column ({', '.join(COLUMNS)})")
        return cls(strings, lexicon, tags, weights, column=config["column"],
                   beam=config["beam"], temperature=float(config["temperature"]), reverse=bool(config["reverse"]),
                   backward=backward, backward_weight=backward_weight, reads=reads,
                   known_lemmas=config.get("known_lemmas", ()), lemma_margin=float(config.get("lemma_margin", 0.0)),
                   templates=_tagger.STATIC_TEMPLATES[:len(templates)], dictionary=config.get("dictionary"))


def _log_softmax(scores: np.ndarray) -> np.ndarray:
    shifted = scores - scores.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


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
    strings = Vocab.from_counts(Counter(s for sentence, tags_given in zip(train_sentences, given)
                                        for form, tag in zip(sentence.forms, tags_given)
                                        for s in word_strings(form, lexicon, tag)))
    encoded = [(encode(strings, lexicon, s.forms, tags_given), np.array([tag_index[t] for t in tags_of], dtype=np.int64))
               for s, tags_of, tags_given in zip(train_sentences, gold, given) if len(s)]
    make = functools.partial(Tagger, strings, lexicon, tags, column=options.column, beam=options.beam, reads=options.reads,
                             known_lemmas=known_lemmas(train_sentences) if options.column == "lemma" else ())
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
    weights = Weights(n_tags + _tagger.FIRST_TAG_COLUMN)
    templates = _tagger.STATIC_TEMPLATES
    per_word = len(templates) + _tagger.N_TAG_TEMPLATES
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

    result = perceptron_loop(len(encoded), learn, evaluate_model, weights, options, progress)
    if result.interrupted:  # a tagger is trained whole (both directions) or not at all
        raise KeyboardInterrupt
    if dev_sentences:
        result.parser.temperature = fit_temperature(result.parser, dev_sentences)
    return result


def fit_temperature(tagger: Tagger, sentences: Sequence[Sentence]) -> float:
    """The temperature of the grid 2^(-2..8, step 1/2) under which the gold tags are likeliest."""
    index = {tag: i for i, tag in enumerate(tagger.tags)}
    rows, gold = [], []
    for sentence in sentences:
        _, scores = tagger.search(sentence.forms, given=tagger.given(sentence))
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


def load_taggers(model_dir: str | Path) -> list[Tagger]:
    """The taggers of a model directory: the directory itself, or its upos/, xpos/, feats/ and lemma/
    subdirectories, each of which must load (a column's folder without its tagger, or anything
    else in the folder, is a damaged model rather than a column left untagged)."""
    directory = Path(model_dir)
    if (directory / "config.json").exists():
        return [Tagger.load(directory)]
    entries = sorted(path.name for path in directory.iterdir()) if directory.is_dir() else []
    strays = [name for name in entries if name not in COLUMNS]
    if strays or not entries:
        raise ModelFileError(f"{model_dir}: no tagger model here (" + (f"{strays[0]!r} is not one of " if strays else "neither config.json nor ")
                             + f"the subdirectories {', '.join(COLUMNS)})")
    taggers = []
    for column in (column for column in COLUMNS if column in entries):
        taggers.append(Tagger.load(directory / column))
        if taggers[-1].column != column:
            raise ModelFileError(f"{directory / column}: a tagger of {taggers[-1].column}, not of {column}")
    return taggers
