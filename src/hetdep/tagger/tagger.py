"""Part-of-speech tagger: averaged perceptron over tag sequences, beam search, k-best tags per word.

Features (Collins 2002; Ratnaparkhi 1996 for unknown words): the word, its lower-cased form,
prefixes of 1-4 and suffixes of 1-5 characters, its shape (``Xxxx`` -> ``Xx``, ``1,234`` ->
``d,d``) and casing, the neighbouring words and suffixes at -2..+2, word bigrams, the ambiguity classes
(the tags seen with a word in training) of the word and the next two, and the previous one or
two tags (alone and with the word, its suffix or the next word). Learning is the global
averaged perceptron with early update, as for the parsers (:mod:`hetdep.tagger.training`); the compiled search is
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

import threading
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Container, Iterable, Iterator, Sequence

import numpy as np

from hetdep.learn.model_files import ModelFileError, SavedModel, check_width, save_model
from hetdep.learn.vocab import UNKNOWN, Vocab
from hetdep.learn.weights import TrainedWeights
from hetdep.short_runs import use_references
from hetdep.tagger import reference
from hetdep.tagger.dictionary import lemma_dictionary
from hetdep.tagger.inflections import NO_INFLECTIONS, InflectionLexicon, has_inflections, inflection_lexicon
from hetdep.tagger.lemmas import DEFAULT_MARGIN, KnownLemmas, prefer_known
from hetdep.tagger.lexicon_lemmas import lexicon_lemmas
from hetdep.tagger.templates import CASING, FIRST_TAG_COLUMN, FIRST_TEMPLATES, GIVEN, N_ATOMS, NOMINAL, W, templates_for
from hetdep.tagger.tree_context import NO_TREE, tree_strings
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import MISC, Sentence
from hetdep.treebank.tags import KBEST_KEY, UNANNOTATED, WORD_COLUMNS, with_word_classes, word_classes

COLUMNS = WORD_COLUMNS  # the word columns a tagger can fill: the parsers' tag columns, FEATS and LEMMA
BACKWARD = "backward"  # subdirectory of a tagger's right-to-left companion
BACKWARD_WEIGHTS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)  # grid fitted on dev (forward-score units)
DEFAULT_BACKWARD_WEIGHT = 4.0  # without a dev set (jackknifing): a middle value of the fitted ones
LEXICON_MIN_COUNT = 2
LEXICON_MIN_SHARE = 0.05
MEMO_FORMS = 10_000  # forms whose atoms a tagger keeps (encode; about 460 bytes each), started afresh past it




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


def word_strings(form: str, lexicon: dict[str, str], given: str = "", tree: Sequence[str] = NO_TREE,
                 inflections: Sequence[str] = NO_INFLECTIONS) -> list[str]:
    """The strings behind a word's atoms, in the order of :data:`hetdep.tagger.templates.N_ATOMS`
    (``given``: the word's tag in the column the tagger reads, if it reads one; ``tree``: its
    tree atoms' strings, :func:`hetdep.tagger.tree_context.tree_strings`, if it reads the tree;
    ``inflections``: its readings in an inflection lexicon, if it reads one)."""
    lower = form.lower()
    return ([f"w:{form}", f"l:{lower}"] + [f"p{k}:{lower[:k]}" for k in (1, 2, 3)]
            + [f"s{k}:{lower[-k:]}" for k in (1, 2, 3, 4)] + [f"h:{shape(form)}", f"a:{lexicon.get(lower, '?')}"]
            + [f"p4:{lower[:4]}", f"s5:{lower[-5:]}", f"g:{given}", f"c:{casing(form)}", *tree, *inflections])


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


def encode(strings: Vocab, lexicon: dict[str, str], forms: Sequence[str], given: Sequence[str] | None = None,
           tree: Sequence[Sequence[str]] | None = None, inflections: InflectionLexicon | None = None,
           memo: dict | None = None) -> np.ndarray:
    """The (words, atoms) array of a sentence: ids of :func:`word_strings` (unknown strings: 1).
    ``memo`` keeps each form's own atoms' ids (all but its given tag's and its tree's) between
    calls: a text repeats its forms, and their strings are most of the work."""
    get = strings.index.get
    no_tree = [get(s, UNKNOWN) for s in NO_TREE]
    rows = []
    for i, form in enumerate(forms):
        own = memo.get(form) if memo is not None else None
        if own is None:
            reading = inflections.strings(form) if inflections else NO_INFLECTIONS
            ids = [get(s, UNKNOWN) for s in word_strings(form, lexicon, "", NO_TREE, reading)]
            own = (ids[:GIVEN], ids[CASING], ids[NOMINAL:])  # around the given tag and the tree
            if memo is not None:
                if len(memo) >= MEMO_FORMS:
                    memo.clear()
                memo[form] = own
        before, casing_id, readings = own
        context = [get(s, UNKNOWN) for s in tree[i]] if tree else no_tree
        rows.append([*before, get(f"g:{given[i] if given else ''}", UNKNOWN), casing_id, *context, *readings])
    return np.array(rows, dtype=np.int64).reshape(len(forms), N_ATOMS)


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
    training treebank has (hetdep.tagger.lemmas). A tagger may also read the sentence's tree
    (``reads_tree``: a FEATS tagger run after the parser, trained on the gold trees), what
    agreement needs (hetdep.tagger.tree_context), and a language's inflection lexicon
    (``inflections``: its language; what a FEATS tagger cannot guess of an unseen noun's gender,
    hetdep.tagger.inflections).
    """

    KIND = "tagger"
    WHAT = "tagger"

    def __init__(self, strings: Vocab, lexicon: dict[str, str], tags: list[str], weights: TrainedWeights, *,
                 column: str = "upos", beam: int = 8, temperature: float = 1.0, reverse: bool = False,
                 backward: "Tagger | None" = None, backward_weight: float = 0.0, reads: str | None = None,
                 known_lemmas: Iterable[str] = (), lemma_margin: float = DEFAULT_MARGIN,
                 templates: np.ndarray | None = None, dictionary: str | None = None, reads_tree: bool = False,
                 inflections: str | None = None):
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
        self.reads_tree = reads_tree
        self.inflections = inflections  # the language of the inflection lexicon it reads, if any
        # a model trained before templates were appended keeps its set
        self.templates = templates_for(reads_tree, bool(inflections)) if templates is None else templates
        self.unknown_words = 0
        self.words = 0
        self._counting = threading.Lock()  # sentences may be tagged on several threads (hetdep.threads)
        self._memo: dict = {}  # each form's own atoms' ids (encode)

    def set_beam(self, beam: int) -> None:
        """The search beam of this tagger and of its right-to-left companion (trained wide, a
        FEATS or LEMMA tagger tags narrower: hetdep.models.pipeline.MORPHOLOGY_BEAM)."""
        self.beam = beam
        if self.backward is not None:
            self.backward.beam = beam

    def given(self, sentence: Sentence) -> list[str] | None:
        """The sentence's values in the column this tagger reads (None if it reads none)."""
        return sentence.column(COLUMNS[self.reads]) if self.reads else None

    def tree(self, sentence: Sentence, given: Sequence[str] | None) -> list[tuple[str, ...]] | None:
        """The sentence's tree atoms' strings, if this tagger reads the tree (None if not)."""
        return tree_strings(sentence, given or [""] * len(sentence)) if self.reads_tree else None

    def search(self, forms: Sequence[str], beam: int | None = None, given: Sequence[str] | None = None,
               tree: Sequence[Sequence[str]] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Best tag ids (0-based) and every word's tag scores (the backward tagger's share included)."""
        n = len(forms)
        if not n:
            return np.zeros(0, dtype=np.int64), np.zeros((0, len(self.tags)), dtype=np.float32)
        atoms = encode(self.strings, self.lexicon, forms, given, tree,
                       inflection_lexicon(self.inflections) if self.inflections else None, self._memo)
        with self._counting:
            self.words += n
            self.unknown_words += int((atoms[:, W] == UNKNOWN).sum())
        extra = np.zeros((n, len(self.tags)), dtype=np.float32)
        if self.backward is not None and self.backward_weight:  # the two share strings and lexicon: atoms too
            _, backward_scores = self.backward._search(atoms, beam, np.zeros_like(extra))
            extra += self.backward_weight * _log_softmax(backward_scores / self.backward.temperature)
        return self._search(atoms, beam, extra)

    def _search(self, atoms: np.ndarray, beam: int | None, extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        step = -1 if self.reverse else 1
        n = len(atoms)
        if use_references():
            tags, scores = reference.search(atoms[::step], beam or self.beam, self.templates, self.weights.plain,
                                            len(self.tags), extra[::step])
        else:
            from hetdep.tagger._search import search

            tags, _, scores = search(atoms[::step].copy(), n, beam or self.beam, self.templates, self.weights.table,
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
            best, scores = self.search(sentence.forms, beam, given, self.tree(sentence, given))
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

    def ready(self, plain: bool) -> None:
        """Read what tagging reads first, so that it finds it read: the lexicons this tagger consults
        (each once per process) and, with ``plain``, its plain search's weights, its right-to-left
        companion's too (on a thread of its own while a neural model's network is read: :func:`load_taggers`)."""
        if self.inflections:
            inflection_lexicon(self.inflections)
        dictionary = lemma_dictionary(self.dictionary)
        if dictionary is not None and self.reads == "upos":  # the lexicon of lemmas by UPOS (fill_unseen)
            lexicon_lemmas(dictionary.language)
        for tagger in (self, self.backward) if plain else ():
            if tagger is not None:
                tagger.weights.plain  # noqa: B018 -- made once, kept

    def _known_with(self, dictionary) -> Container[str]:
        """The lemmas this tagger prefers: its treebank's, and its dictionary's."""
        return self.known_lemmas if dictionary is None else KnownLemmas(self.known_lemmas, dictionary.lemmas)

    def has_seen(self, form: str) -> bool:
        """Whether training gave the form an atom of its own (else it is unseen to the tagger)."""
        return f"w:{form}" in self.strings.index

    def log_probabilities(self, sentence: Sentence) -> np.ndarray:
        """(words, tags): each word's log-probability of each tag (the k-best's, all of them)."""
        given = self.given(sentence)
        _, scores = self.search(sentence.forms, None, given, self.tree(sentence, given))
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
                **({"dictionary": self.dictionary} if self.dictionary else {}),
                **({"reads_tree": True} if self.reads_tree else {}),
                **({"inflections": self.inflections} if self.inflections else {})}

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
        check_width(weights, len(tags) + FIRST_TAG_COLUMN, what)
        templates = config["templates"]
        reads_tree = config.get("reads_tree", False)  # a bool: model_config checked it
        inflections = config.get("inflections")
        if inflections is not None and not has_inflections(inflections):
            raise ModelFileError(f"{directory}/config.json: reads the inflection lexicon of {inflections!r}, "
                                 "which this hetdep does not ship")
        allowed = templates_for(reads_tree, bool(inflections))
        if (not isinstance(templates, list) or len(templates) < (len(allowed) if reads_tree or inflections else FIRST_TEMPLATES)
                or templates != allowed[:len(templates)].tolist() or config["column"] not in COLUMNS):
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
                   beam=config["beam"], temperature=float(config["temperature"]), reverse=config["reverse"],
                   backward=backward, backward_weight=backward_weight, reads=reads,
                   known_lemmas=config.get("known_lemmas", ()), lemma_margin=float(config.get("lemma_margin", 0.0)),
                   templates=allowed[:len(templates)], dictionary=config.get("dictionary"), reads_tree=reads_tree,
                   inflections=inflections)


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


def load_taggers(model_dir: str | Path, threads: int = 1, plain: bool = False) -> list[Tagger]:
    """The taggers of a model directory: the directory itself, or its upos/, xpos/, feats/ and lemma/
    subdirectories, each of which must load (a column's folder without its tagger, or anything
    else in the folder, is a damaged model rather than a column left untagged). With ``threads``
    above one, each is read on a thread of its own, made :meth:`Tagger.ready` there (``plain``:
    for the plain search, a short input's); most of it is inflating and NumPy, which let go of
    Python's lock."""
    directory = Path(model_dir)
    if (directory / "config.json").exists():
        return [Tagger.load(directory)]
    entries = sorted(path.name for path in directory.iterdir()) if directory.is_dir() else []
    strays = [name for name in entries if name not in COLUMNS]
    if strays or not entries:
        raise ModelFileError(f"{model_dir}: no tagger model here (" + (f"{strays[0]!r} is not one of " if strays else "neither config.json nor ")
                             + f"the subdirectories {', '.join(COLUMNS)})")

    def read(column: str) -> Tagger:
        tagger = Tagger.load(directory / column)
        if tagger.column != column:
            raise ModelFileError(f"{directory / column}: a tagger of {tagger.column}, not of {column}")
        if threads > 1:
            tagger.ready(plain)
        return tagger

    return list(ordered_map(read, [column for column in COLUMNS if column in entries], threads))
