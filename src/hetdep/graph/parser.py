"""Graph-based parsers: first order (dep1, McDonald et al. 2005: arc-factored scores, Eisner's
algorithm) and second order (dep2: arcs plus adjacent siblings, McDonald & Pereira 2006, and
grandparents, Koo et al. 2008, decoded exactly by Koo & Collins 2010's O(n^4) model-1 algorithm).

Training is the averaged perceptron over whole trees (Collins 2002): parse each training
sentence with the current weights, and where the tree or a label differs from the gold one,
add the gold arcs' features and subtract the predicted arcs'. Trees are made projective first
(pseudo-projective transform, as for the transition parsers) and deprojectivized on output.
The compiled features and decoders are :mod:`hetdep.graph._eisner`, :mod:`hetdep.graph._sibling` and
:mod:`hetdep.graph._grandparent`; labels come from the arc features (dep2's sibling and grandparent
features are unlabeled).

One parser can be trained on several treebanks at once (:func:`train_concatenated`, the
concatenation baseline of zhou-zhao2013): their labels are kept apart (``name:label``) and a
sentence is parsed *as* one treebank (:meth:`GraphParser.for_treebank`), choosing among that
treebank's labels only; parsed as no treebank in particular, it chooses among all labels and
writes them with their prefix (the paper's concatenation, which cannot know the scheme).
Every arc feature is labeled, so with labels kept apart the treebanks share attachment
knowledge only through the unlabeled sibling features; with ``augmented``, every feature has
an unlabeled copy shared by all treebanks and a labeled copy per treebank (Daume 2007), so the
shared weights learn what the schemes agree on and the copies where they differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, NamedTuple, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.graph import _eisner, _grandparent, _kbest, _sibling
from hetdep.learn.model_files import ModelFileError, SavedModel, check_width
from hetdep.learn.perceptron import TrainOptions, TrainResult, dev_scores, label_inventory, perceptron_loop, projective_trees
from hetdep.learn.vocab import ParseStats, Vocab, vocabularies
from hetdep.learn.weights import TrainedWeights, Weights
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.projectivity import deprojectivize
from hetdep.treebank.tags import TAG_COLUMNS

KINDS = {"dep1": 1, "dep2": 2}
# dep2's decoder takes O(n^4) time and O(n^3) memory (1.4 GB at 300 words): longer sentences
# are decoded with the arc scores alone (Eisner, O(n^3) time, O(n^2) memory), and counted.
SECOND_ORDER_MAX_WORDS = 150
NO_AGREEMENT = np.zeros((0, 0), dtype=np.int64)
AGREEMENT_EDGES = (0.05, 0.5, 0.95)  # bins of another parser's posterior mass on an arc: 1..4
AGREEMENT_FEATURES = "arc mass bins, reverse, grandparent, sibling"  # saved by helped models: what they were trained on


def arc_mass(heads: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """mass[h, m]: the probability that m's head is h, over k-best heads (k, n+1) with posteriors."""
    n = heads.shape[1] - 1
    mass = np.zeros((n + 1, n + 1))
    words = np.arange(1, n + 1)
    for tree, p in zip(heads, probabilities):
        mass[tree[1:], words] += p
    return mass


def grand_mass(heads: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """mass[g, m]: the probability that m's grandparent is g, over k-best heads (k, n+1) with posteriors."""
    n = heads.shape[1] - 1
    mass = np.zeros((n + 1, n + 1))
    words = np.arange(1, n + 1)
    for tree, p in zip(heads, probabilities):
        below_root = tree[words] > 0
        mass[tree[tree[words[below_root]]], words[below_root]] += p
    return mass


def sibling_mass(heads: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """mass[h, m]: the probability that words h and m (h != m, both >= 1) have the same head."""
    n = heads.shape[1] - 1
    mass = np.zeros((n + 1, n + 1))
    for tree, p in zip(heads, probabilities):
        same = tree[1:, None] == tree[None, 1:]
        np.fill_diagonal(same, False)
        mass[1:, 1:] += p * same
    return mass


def agreement_bins(heads: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """The agreement feature of each arc h -> m under another parser's k-best trees: the mass on
    h -> m binned by :data:`AGREEMENT_EDGES` (1..4), plus 4 if the reverse arc m -> h holds half the
    mass, 8 if h is m's grandparent in half of it, 16 if h and m are siblings in half of it. Between
    schemes that is how function-word heads move (UD's verb -> aux is SUD's aux -> verb; UD's
    verb -> noun is SUD's verb -> adp -> noun; UD's sibling subject and auxiliary of a verb are
    SUD's aux -> subj), so a parser trained with these features learns where to follow the other."""
    mass = arc_mass(heads, probabilities)
    return (np.digitize(mass, AGREEMENT_EDGES) + 1 + 4 * (mass.T >= 0.5) + 8 * (grand_mass(heads, probabilities) >= 0.5)
            + 16 * (sibling_mass(heads, probabilities) >= 0.5)).astype(np.int64)


def related(bins: np.ndarray) -> np.ndarray:
    """Where :func:`agreement_bins` says the other parser's trees mostly relate h and m at all: the
    arc h -> m, its reverse, h as m's grandparent or the two as siblings holds half the mass."""
    flags = bins - 1  # bits 0-1: the arc's mass bin (2, 3: at least 0.5); bits 2-4: reverse, grandparent, sibling
    return (bins > 0) & (((flags & 3) >= 2) | (flags >= 4))


def sibling_column(n_labels: int) -> int:
    """dep2's weight column for the (unlabeled) sibling features, after the label columns."""
    return n_labels + 2


def weight_width(n_labels: int, order: int) -> int:
    """Weight columns: 2 unused, one per label, and for dep2 one for the sibling and grandparent features."""
    return sibling_column(n_labels) + (order == 2)


@dataclass(frozen=True)
class Scoring:
    """What the compiled scorers need besides the weights: the labels to choose among
    (ids first..end-1), the number of labels, the order, and the feature domain (0: shared only)."""

    first: int
    end: int
    n_labels: int
    order: int
    domain: int = 0

    def parts(self, words: np.ndarray, tags: np.ndarray, table: np.ndarray, rows: tuple,
              agreement: np.ndarray = NO_AGREEMENT) -> "Parts":
        """The sentence's part scores under these weights (second-order ones for dep2 up to
        SECOND_ORDER_MAX_WORDS words), with ``agreement`` bins for a model trained with a helper."""
        n = len(words) - 1
        arcs, labels = _eisner.arc_scores(words, tags, n, table, rows, self.first, self.end,
                                          weight_width(self.n_labels, self.order), self.domain, agreement)
        if self.order == 2 and n <= SECOND_ORDER_MAX_WORDS:
            column = sibling_column(self.n_labels)
            return Parts(arcs, labels, _sibling.sibling_scores(words, tags, n, table, rows, column, self.domain),
                         _grandparent.grand_scores(words, tags, n, table, rows, column, self.domain))
        return Parts(arcs, labels)

    def best_tree(self, words: np.ndarray, tags: np.ndarray, table: np.ndarray, rows: tuple,
                  agreement: np.ndarray = NO_AGREEMENT) -> tuple[np.ndarray, np.ndarray, float]:
        """Heads and label ids (index 1..n) of the best projective tree under these weights, and its score."""
        parts = self.parts(words, tags, table, rows, agreement)
        heads, total = parts.best()
        return heads, parts.labels[heads, np.arange(len(heads))], total


class Parts(NamedTuple):
    """A sentence's scores: arcs (n+1, n+1) with their best labels, and for second-order decoding
    siblings[h, s, m] and grandparents[g, h, m] (None: first order)."""

    arcs: np.ndarray
    labels: np.ndarray
    siblings: np.ndarray | None = None
    grands: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.arcs) - 1

    def best(self) -> tuple[np.ndarray, float]:
        """Heads of the best tree and its score."""
        if self.siblings is None:
            return _eisner.eisner(self.arcs, self.n)
        return _grandparent.decode(self.arcs, self.siblings, self.grands, self.n)

    def kbest(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Heads of the k best trees (k', n+1) and their scores, best first."""
        if self.siblings is None:
            return _kbest.eisner_kbest(self.arcs, self.n, k)
        return _grandparent.kbest(self.arcs, self.siblings, self.grands, self.n, k)


def scoring_for(labels: Sequence[str], order: int, treebanks: Sequence[str] = (), augmented: bool = False,
                treebank: str | None = None) -> Scoring:
    """How a model scores, parsing as ``treebank`` (one of a concatenated model's) or with every label."""
    if treebank is None:
        return Scoring(0, len(labels), len(labels), order)
    ids = [i for i, label in enumerate(labels) if label.startswith(f"{treebank}:")]  # kept together in training
    return Scoring(ids[0], ids[-1] + 1, len(labels), order, list(treebanks).index(treebank) + 1 if augmented else 0)


def helper_agreement(helper: "GraphParser", sentence: Sentence, k: int) -> np.ndarray:
    """Agreement bins of each arc of ``sentence`` under ``helper``'s k-best trees (posteriors at temperature 1)."""
    words, tags = helper.encode(sentence)
    heads, totals = helper.parts(words, tags).kbest(k)
    return agreement_bins(heads, posteriors(totals, 1.0))


def posteriors(totals: np.ndarray, temperature: float) -> np.ndarray:
    """Softmax of k-best scores divided by ``temperature``."""
    weights = np.exp((totals - totals.max()) / temperature)
    return weights / weights.sum()


class GraphParser(SavedModel):
    """A trained graph-based parser of order 1 or 2: vocabularies, labels and averaged weights."""

    KIND = "dep1"  # or dep2: loading reads the kind from config.json
    WHAT = "model"

    def __init__(self, words: Vocab, tags: Vocab, labels: list[str], weights: TrainedWeights, *, order: int = 1,
                 tag_column: str = "upos", projective_encoding: str = "head", treebanks: Sequence[str] = (),
                 augmented: bool = False, treebank: str | None = None, helped: bool = False, helper_k: int = 16):
        self.order = order
        self.words = words
        self.tags = tags
        self.labels = labels
        self.weights = weights
        self.tag_column = tag_column
        self.projective_encoding = projective_encoding
        self.treebanks = list(treebanks)  # a concatenated model's treebanks, in training order
        self.augmented = augmented
        self.treebank = treebank
        self.helped = helped  # trained with agreement features from another parser's k-best lists
        self.helper_k = helper_k
        self.helper: GraphParser | None = None  # that other parser, when parsing on its own
        self.stats = ParseStats()
        self.scoring = scoring_for(labels, order, self.treebanks, augmented, treebank)

    def for_treebank(self, name: str) -> "GraphParser":
        """This concatenated model parsing as treebank ``name``: its labels only (written without
        the prefix) and, if augmented, its feature copies."""
        if name not in self.treebanks:
            known = ", ".join(self.treebanks) or "none: it was trained on one treebank"
            raise HetdepError(f"this model knows no treebank {name!r} (treebanks: {known})")
        return GraphParser(self.words, self.tags, self.labels, self.weights, order=self.order, tag_column=self.tag_column,
                           projective_encoding=self.projective_encoding, treebanks=self.treebanks,
                           augmented=self.augmented, treebank=name, helped=self.helped, helper_k=self.helper_k)

    def encode(self, sentence: Sentence) -> tuple[np.ndarray, np.ndarray]:
        if self.augmented and self.treebank is None:
            raise HetdepError(f"this model has feature copies per treebank ({', '.join(self.treebanks)}): "
                              "say which treebank to parse as")
        return self.words.encode(sentence.forms), self.tags.encode(sentence.column(TAG_COLUMNS[self.tag_column]))

    def agreement(self, sentence: Sentence) -> np.ndarray:
        """For a helped model, the agreement bins of its helper's k-best list (else none)."""
        if not self.helped:
            return NO_AGREEMENT
        if self.helper is None:
            raise HetdepError("this model was trained with agreement features from another parser's k-best trees: "
                              "parse with that parser beside it ('hetdep parse --with')")
        return helper_agreement(self.helper, sentence, self.helper_k)

    @property
    def width(self) -> int:
        return weight_width(len(self.labels), self.order)

    def parts(self, words: np.ndarray, tags: np.ndarray, agreement: np.ndarray = NO_AGREEMENT) -> Parts:
        """The sentence's part scores (arcs with labels; siblings and grandparents for dep2)."""
        return self.scoring.parts(words, tags, self.weights.table, self.weights.rows, agreement)

    def with_tree(self, sentence: Sentence, heads: np.ndarray, label_ids: np.ndarray) -> Sentence:
        """The sentence with these heads and label ids (index 1..n), non-projective arcs restored."""
        prefix = len(self.treebank) + 1 if self.treebank else 0
        heads, labels = deprojectivize([int(h) for h in heads[1:]], [self.labels[i][prefix:] for i in label_ids[1:]])
        return sentence.with_tree(heads, labels)

    def parse_sentence(self, sentence: Sentence, beam: int | None = None) -> Sentence:
        """The sentence with this parser's tree in HEAD and DEPREL (``beam`` is ignored: decoding is exact)."""
        words, tags = self.encode(sentence)
        self.stats.record(words, tags, sentence.column(TAG_COLUMNS[self.tag_column]))
        self.stats.count(first_order_only=self.order == 2 and len(sentence) > SECOND_ORDER_MAX_WORDS)
        heads, label_ids, _ = self.scoring.best_tree(words, tags, self.weights.table, self.weights.rows,
                                                     self.agreement(sentence))
        return self.with_tree(sentence, heads, label_ids)

    def kbest(self, sentence: Sentence, k: int = 16, temperature: float = 1.0) -> list[tuple[Sentence, float]]:
        """The k best trees (each arc with its best label), best first, with posteriors.

        A tree's posterior is the softmax of the k trees' scores divided by ``temperature``
        (perceptron scores are not probabilities; the temperature sets how peaked the
        distribution over the list is, 1.0 by default).
        """
        words, tags = self.encode(sentence)
        parts = self.parts(words, tags, self.agreement(sentence))
        all_heads, totals = parts.kbest(k)
        columns = np.arange(len(words))
        return [(self.with_tree(sentence, heads, parts.labels[heads, columns]), float(p))
                for heads, p in zip(all_heads, posteriors(totals, temperature))]

    def parse(self, sentences: Iterable[Sentence], beam: int | None = None) -> Iterator[Sentence]:
        """One output sentence per input sentence, in order."""
        for sentence in sentences:
            yield self.parse_sentence(sentence)

    def config(self) -> dict:
        return {"kind": f"dep{self.order}", "tag_column": self.tag_column, "projective_encoding": self.projective_encoding,
                "labels": self.labels, "treebanks": self.treebanks, "augmented": self.augmented, "helped": self.helped,
                "helper_k": self.helper_k, **({"agreement_features": AGREEMENT_FEATURES} if self.helped else {}),
                "words": self.words.to_list(), "tags": self.tags.to_list()}

    @classmethod
    def from_config(cls, config: dict, weights: TrainedWeights, directory: Path) -> "GraphParser":
        labels = list(config["labels"])
        parser = cls(Vocab.from_list(config["words"]), Vocab.from_list(config["tags"]), labels, weights,
                     order=KINDS[config["kind"]], tag_column=config["tag_column"],
                     projective_encoding=config["projective_encoding"], treebanks=config.get("treebanks", []),
                     augmented=bool(config.get("augmented", False)), helped=bool(config.get("helped", False)),
                     helper_k=int(config.get("helper_k", 16)))
        check_width(weights, parser.width, "the label set")
        if any(not any(label.startswith(f"{name}:") for label in labels) for name in parser.treebanks):
            raise ModelFileError(f"{directory}/config.json: a treebank of the model has no labels")
        if parser.helped and config.get("agreement_features") != AGREEMENT_FEATURES:
            raise ModelFileError(f"{directory}: trained with other agreement features ({config.get('agreement_features')!r}; "
                                 f"this hetdep computes {AGREEMENT_FEATURES!r}): retrain it with --helper")
        return parser


def train_graph(train_sentences: Sequence[Sentence], dev_sentences: Sequence[Sentence],
                options: TrainOptions = TrainOptions(), progress: Callable | None = None, order: int = 1,
                helper: "GraphParser | None" = None, helper_k: int = 16) -> TrainResult:
    """Train dep1 (``order`` 1) or dep2 (2), choosing the iteration by dev UAS (``options.beam`` is unused).

    With a ``helper`` (a parser trained on another treebank, which never saw these sentences),
    every arc also has agreement features: how much the helper's ``helper_k``-best trees hold
    that arc, conjoined with its direction, length and tags (the learned consensus features of
    zhou-zhao2013), so the parser learns when to trust the other scheme's attachments.
    """
    return _train({"": (train_sentences, dev_sentences)}, options, progress, order, helper=helper, helper_k=helper_k)


def train_concatenated(treebanks: dict[str, tuple[Sequence[Sentence], Sequence[Sentence]]], options: TrainOptions = TrainOptions(),
                       progress: Callable | None = None, order: int = 1, augmented: bool = False) -> TrainResult:
    """One parser trained on several treebanks, ``{name: (train, dev)}``, labels kept apart; with
    ``augmented``, per-treebank feature copies. The iteration is chosen by the mean dev UAS."""
    for name in treebanks:
        if not name or ":" in name:
            raise HetdepError(f"treebank name {name!r}: give a non-empty name without ':'")
    return _train(treebanks, options, progress, order, augmented)


def _train(treebanks: dict[str, tuple[Sequence[Sentence], Sequence[Sentence]]], options: TrainOptions,
           progress: Callable | None, order: int, augmented: bool = False, helper: "GraphParser | None" = None,
           helper_k: int = 16) -> TrainResult:
    """The perceptron training of :func:`train_graph` (one treebank, named "") and :func:`train_concatenated`."""
    concatenated = "" not in treebanks
    all_train = [sentence for train, _ in treebanks.values() for sentence in train]
    if not all_train:
        raise HetdepError("no training sentences")
    labels: list[str] = []
    examples = []  # (sentence, projective heads, labels with rare lifted ones replaced, treebank)
    for name, (train, _) in treebanks.items():
        trees = projective_trees(train, options)
        own, rare = label_inventory(trees, options.min_lifted_label)
        prefix = f"{name}:" if concatenated else ""
        labels += [prefix + label for label in own]
        examples += [(sentence, heads, [prefix + rare.get(label, label) for label in tree_labels], name)
                     for sentence, (heads, tree_labels) in zip(train, trees)]
    label_index = {label: i for i, label in enumerate(labels)}
    words, tags = vocabularies(all_train, options)
    column = TAG_COLUMNS[options.tag_column]
    names = list(treebanks) if concatenated else []
    scorings = {name: scoring_for(labels, order, names, augmented, name if concatenated else None) for name in treebanks}
    encoded = [(words.encode(s.forms), tags.encode(s.column(column)), np.array([0] + heads, dtype=np.int64),
                np.array([0] + [label_index[label] for label in tree_labels], dtype=np.int64), scorings[name],
                helper_agreement(helper, s, helper_k) if helper else NO_AGREEMENT)
               for s, heads, tree_labels, name in examples]
    weights = Weights(weight_width(len(labels), order))

    def learn(index: int) -> bool:
        w, t, gold_heads, gold_labels, scoring, agreement = encoded[index]
        n = len(w) - 1
        weights.reserve(2 * n * (_eisner.MAX_KEYS + _sibling.MAX_SIBLING_KEYS + _grandparent.MAX_GRAND_KEYS))
        heads, predicted_labels, _ = scoring.best_tree(w, t, weights.table, weights.rows, agreement)
        changed = _eisner.update(w, t, n, scoring.domain, agreement, gold_heads, gold_labels, heads, predicted_labels,
                                 weights.table, weights.n_used, weights.rows, weights.sums, weights.counts, weights.counter)
        if order == 2:
            for part in (_sibling, _grandparent):
                part.update(w, t, n, scoring.domain, gold_heads, heads, weights.table, weights.n_used, weights.rows,
                            weights.sums, weights.counts, weights.counter, sibling_column(len(labels)))
        return changed > 0 or not np.array_equal(heads, gold_heads)

    def evaluate_model(averaged):
        parser = GraphParser(words, tags, labels, averaged, order=order, tag_column=options.tag_column,
                             projective_encoding=options.projective_encoding, treebanks=names, augmented=augmented,
                             helped=helper is not None, helper_k=helper_k)
        parser.helper = helper
        if not concatenated:
            return dev_scores(parser, treebanks[""][1])
        scored = {name: dev_scores(parser.for_treebank(name), dev)[1:3] for name, (_, dev) in treebanks.items() if dev}
        if not scored:
            return parser, None, None, {}
        detail = {f"{key}_{name}": value for name, (uas, las) in scored.items() for key, value in (("UAS", uas), ("LAS", las))}
        return (parser, sum(uas for uas, _ in scored.values()) / len(scored),
                sum(las for _, las in scored.values()) / len(scored), detail)

    return perceptron_loop(len(encoded), learn, evaluate_model, weights, options, progress)
