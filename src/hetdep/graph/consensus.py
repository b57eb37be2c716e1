"""Joint inference between parsers trained on different treebanks (zhou-zhao2013, Algorithm 1).

Each parser keeps a k-best list of trees with posteriors. The consensus scores one parser adds
to its own scores come from the *other* parser's list, each a sum of posteriors over the
other's candidates (the paper's subtree measures): an arc h -> m gets
``edge * P(other's tree has h -> m)``, a root word m ``root * P(other's root is m)``, a pair of
adjacent siblings s, m of h ``sibling * P(...)`` and a chain g -> h -> m ``grand * P(...)``.
Re-parsing is the parser's own k-best search on shifted part scores: Eisner's for a dep1
parser with only edge and root consensus, the second-order search otherwise (a dep1 parser's
own sibling and grandparent scores are then zero). The lists are replaced and the exchange
repeated for a set number of iterations (paper: 4).

Only heads are exchanged: the two treebanks' label sets are unrelated. The four consensus
weights are tuned on dev (:func:`tune`): that needs no training data parsed by the other
parser, and the paper reports them chosen on dev too. The learned alternative, features
conjoined with the other parser's agreement, is a parser trained with a helper
(:func:`hetdep.graph.parser.train_graph`); joint inference re-scores its arcs from the other's
current list in every round. Its agreement also sees the other's reverse arcs, grandparents
and siblings (:func:`hetdep.graph.parser.agreement_bins`), which is how heads move between schemes
that differ in function words.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Iterator, NamedTuple, Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.evaluation.attachment import evaluate, scored_mask
from hetdep.graph import _sibling
from hetdep.graph.parser import (
    SECOND_ORDER_MAX_WORDS,
    GraphParser,
    Parts,
    agreement_bins,
    arc_mass,
    helper_agreement,
    posteriors,
    related,
)
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.tags import TAG_COLUMNS


@dataclass(frozen=True)
class ConsensusOptions:
    edge: float = 0.0  # weight of the other parser's arc posterior mass
    root: float = 0.0  # weight of the other parser's root posterior mass
    sibling: float = 0.0  # weight of the other parser's adjacent-sibling posterior mass
    grand: float = 0.0  # weight of the other parser's grandparent-chain posterior mass
    k: int = 16
    iterations: int = 4
    temperature: float = 1.0  # posteriors: softmax of k-best scores / temperature

    @property
    def listens(self) -> bool:
        """Whether the other parser's candidates change this parser's scores at all."""
        return any(getattr(self, name) for name in WEIGHTS)


class Candidates(NamedTuple):
    """One parser's k-best list for one sentence: heads (k', n+1), best first, and posteriors."""

    heads: np.ndarray
    posteriors: np.ndarray

    @property
    def n(self) -> int:
        return self.heads.shape[1] - 1

    def arc_mass(self) -> np.ndarray:
        """mass[h, m]: the posterior probability that m's head is h."""
        return arc_mass(self.heads, self.posteriors)

    def second_order_mass(self) -> tuple[np.ndarray, np.ndarray]:
        """siblings[h, s, m] and grands[g, h, m]: posterior probabilities of those parts (s = 0: m is
        h's closest modifier on its side)."""
        siblings, grands = np.zeros((self.n + 1,) * 3), np.zeros((self.n + 1,) * 3)
        closer = np.zeros(self.n + 1, dtype=np.int64)
        words = np.arange(1, self.n + 1)
        for heads, p in zip(self.heads, self.posteriors):
            _sibling.siblings_of(heads, self.n, closer)
            attached = words[heads[1:] != 0]
            siblings[heads[attached], closer[attached], attached] += p
            grands[heads[heads[attached]], heads[attached], attached] += p
        return siblings, grands


def candidates(parts: Parts, options: ConsensusOptions) -> Candidates:
    heads, totals = parts.kbest(options.k)
    return Candidates(heads, posteriors(totals, options.temperature))


def shifted(parts: Parts, other: Candidates, options: ConsensusOptions) -> Parts:
    """A parser's part scores plus the consensus scores from the other parser's candidates."""
    mass = other.arc_mass()
    arcs = parts.arcs + options.edge * mass
    arcs[0] += options.root * mass[0]
    if not (options.sibling or options.grand) or parts.n > SECOND_ORDER_MAX_WORDS:
        return parts._replace(arcs=arcs)
    siblings, grands = other.second_order_mass()
    if parts.siblings is None:  # a dep1 parser has no second-order scores of its own
        return parts._replace(arcs=arcs, siblings=options.sibling * siblings, grands=options.grand * grands)
    return parts._replace(arcs=arcs, siblings=parts.siblings + options.sibling * siblings,
                          grands=parts.grands + options.grand * grands)


class Start(NamedTuple):
    """Both parsers' encoded words and tags, part scores and first k-best lists for one sentence:
    what every setting of the consensus weights starts from (computed once per sentence when
    tuning them)."""

    encoded_a: tuple
    encoded_b: tuple
    parts_a: Parts
    parts_b: Parts
    list_a: Candidates
    list_b: Candidates


def start(a: GraphParser, b: GraphParser, sentence: Sentence, options_a: ConsensusOptions,
          options_b: ConsensusOptions) -> Start:
    """First lists: a parser trained with agreement features (``helped``) starts from the other's
    first list (if both are, neither has one yet: they start without)."""
    encoded, parts = [], []
    for parser in (a, b):
        words, tags = parser.encode(sentence)
        parser.stats.record(words, tags, sentence.column(TAG_COLUMNS[parser.tag_column]))
        encoded.append((words, tags))
        parts.append(parser.parts(words, tags))
    lists = [candidates(parts[0], options_a), candidates(parts[1], options_b)]
    for side, (parser, options) in enumerate(((a, options_a), (b, options_b))):
        other = (b, a)[side]
        if parser.helped and not other.helped:
            parts[side] = parser.parts(*encoded[side], agreement_bins(*lists[1 - side]))
            lists[side] = candidates(parts[side], options)
    return Start(encoded[0], encoded[1], parts[0], parts[1], lists[0], lists[1])


def _reparse(parser: GraphParser, encoded: tuple, parts: Parts, other: Candidates, options: ConsensusOptions) -> Candidates:
    """One parser's new list given the other's: a helped parser re-scores its arcs with the other's agreement."""
    if parser.helped:
        parts = parser.parts(*encoded, agreement_bins(*other))
    return candidates(shifted(parts, other, options), options)


def joint_parse_sentence(a: GraphParser, b: GraphParser, sentence: Sentence, options_a: ConsensusOptions,
                         options_b: ConsensusOptions, begin: Start | None = None) -> tuple[Sentence, Sentence]:
    """The sentence parsed by both parsers, each helped by the other's candidates."""
    begin = begin or start(a, b, sentence, options_a, options_b)
    list_a, list_b = begin.list_a, begin.list_b
    for _ in range(max(options_a.iterations, options_b.iterations)):
        # Both re-parse against the other's previous list; a parser that does not listen keeps its list.
        list_a, list_b = (_reparse(a, begin.encoded_a, begin.parts_a, list_b, options_a) if options_a.listens or a.helped
                          else list_a,
                          _reparse(b, begin.encoded_b, begin.parts_b, list_a, options_b) if options_b.listens or b.helped
                          else list_b)
    return _tree(a, begin.parts_a, list_a, sentence), _tree(b, begin.parts_b, list_b, sentence)


def _tree(parser: GraphParser, parts: Parts, found: Candidates, sentence: Sentence) -> Sentence:
    """The best tree of the final list, each arc with its best label (consensus moves heads, not labels)."""
    heads = found.heads[0]
    return parser.with_tree(sentence, heads, parts.labels[heads, np.arange(len(heads))])


def joint_parse(a: GraphParser, b: GraphParser, sentences: Iterable[Sentence], options_a: ConsensusOptions,
                options_b: ConsensusOptions, starts: Sequence[Start] | None = None) -> Iterator[tuple[Sentence, Sentence]]:
    """One (a's tree, b's tree) pair per input sentence, in order (``starts``: precomputed, one per sentence)."""
    for index, sentence in enumerate(sentences):
        yield joint_parse_sentence(a, b, sentence, options_a, options_b, starts[index] if starts else None)


WEIGHTS = ("edge", "root", "sibling", "grand")


def tune(a: GraphParser, b: GraphParser, dev: Sequence[Sentence], grids: dict[str, Sequence[float]],
         base: ConsensusOptions = ConsensusOptions()) -> tuple[ConsensusOptions, float]:
    """Parser a's consensus weights (names of :data:`WEIGHTS`) with the best UAS on its own dev
    treebank, and that UAS. One weight at a time, in the order of ``grids``, takes its grid value
    with the best UAS while the others stay (one pass of coordinate ascent: 5 values of 4
    weights are 20 dev parses instead of 625); parser b helps without being helped (``base``)."""
    scores: dict = {}
    starts = [start(a, b, sentence, base, base) for sentence in dev]

    def uas(options: ConsensusOptions) -> float:
        if options not in scores:
            scores[options] = evaluate(dev, [pair[0] for pair in joint_parse(a, b, dev, options, base, starts)]).uas
        return scores[options]

    best = replace(base, **{name: 0.0 for name in WEIGHTS})
    for name, grid in grids.items():
        for value in grid:
            candidate = replace(best, **{name: value})
            if uas(candidate) > uas(best):
                best = candidate
    return best, uas(best)


SUPPORT = ("gold head only", "predicted head only", "both", "neither")


def error_support(parser: GraphParser, other: GraphParser, sentences: Sequence[Sentence], k: int = 16) -> dict[str, int]:
    """How much the other parser could teach this one: of the words whose head ``parser`` gets
    wrong (punctuation excluded), how many the other's k-best trees relate (arc, reverse arc,
    grandparent or sibling, :func:`hetdep.graph.parser.related`) to their gold head only, to the wrongly
    predicted head only, to both or to neither. Agreement features can only move a head towards
    a word the other relates it to: the first count bounds what they could mend, the second is
    where the other's errors coincide with the parser's."""
    counts = dict.fromkeys(SUPPORT, 0)
    for sentence, parsed in zip(sentences, parser.parse(sentences)):
        supported = related(helper_agreement(other, sentence, k))
        for m, (gold, predicted, scored) in enumerate(zip(sentence.heads, parsed.heads, scored_mask(sentence, "upos")), 1):
            if scored and gold != predicted:
                to_gold, to_predicted = supported[gold, m], supported[predicted, m]
                counts[SUPPORT[0 if to_gold and not to_predicted else 1 if to_predicted and not to_gold
                                 else 2 if to_gold else 3]] += 1
    return counts


def check_compatible(a: GraphParser, b: GraphParser, name_a: str = "first model", name_b: str = "second model") -> None:
    """Refuse two parsers that would read the input differently: tags from different columns,
    or tag sets that share less than half their tags (two tagsets in one column)."""
    if a.tag_column != b.tag_column:
        raise HetdepError(f"{name_a} reads tags from {a.tag_column.upper()}, {name_b} from {b.tag_column.upper()}: "
                          "train both on the same column")
    tags_a, tags_b = set(a.tags.to_list()), set(b.tags.to_list())
    shared = tags_a & tags_b
    if len(shared) < 0.5 * min(len(tags_a), len(tags_b)):
        raise HetdepError(f"{name_a} and {name_b} share {len(shared)} of their {a.tag_column.upper()} tags "
                          f"({', '.join(sorted(tags_a - shared)[:5])} vs {', '.join(sorted(tags_b - shared)[:5])}): "
                          "they were trained on different tag sets")
