"""Joint inference between parsers trained on different treebanks (zhou-zhao2013, Algorithm 1).

Each parser keeps a k-best list of trees with posteriors. The consensus scores one parser adds
to its own arc scores come from the *other* parser's list: an arc h -> m gets
``edge * P(other's tree has h -> m)`` and a root word m gets ``root * P(other's root is m)``,
each a sum of posteriors over the other's candidates (the paper's edge and root measures).
Both decompose over arcs, so re-parsing is the same k-best Eisner search on shifted scores.
The lists are replaced and the exchange repeated for a set number of iterations (paper: 4).

Only heads are exchanged: the two treebanks' label sets are unrelated. The consensus weights
are tuned on dev (:func:`tune`), not learned: tuning two weights needs no training data
parsed by the other parser, and the paper reports them chosen on dev too.
Parsers here are first order (dep1), the only ones with k-best lists so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from . import _eisner
from .conllu import Sentence
from .errors import HetdepError
from .evaluation import evaluate
from .graph import GraphParser, posteriors
from .parser import TAG_COLUMNS


@dataclass(frozen=True)
class ConsensusOptions:
    edge: float = 0.0  # weight of the other parser's arc posterior mass
    root: float = 0.0  # weight of the other parser's root posterior mass
    k: int = 16
    iterations: int = 4
    temperature: float = 1.0  # posteriors: softmax of k-best scores / temperature


class _State:
    """One parser's view of one sentence: arc scores, best labels, current k-best heads and posteriors."""

    def __init__(self, parser: GraphParser, sentence: Sentence, k: int, temperature: float):
        if parser.order != 1:
            raise HetdepError("joint inference needs k-best lists: give dep1 models")
        words, tags = parser.encode(sentence)
        parser.stats.record(words, tags, sentence.column(TAG_COLUMNS[parser.tag_column]))
        self.n = len(words) - 1
        self.scores, self.labels = parser.arc_scores(words, tags)
        self.k, self.temperature = k, temperature
        self.search(self.scores)

    def search(self, scores: np.ndarray) -> None:
        self.heads, totals = _eisner.eisner_kbest(scores, self.n, self.k)
        self.posteriors = posteriors(totals, self.temperature)

    def arc_mass(self) -> np.ndarray:
        """mass[h, m]: the posterior probability that m's head is h."""
        mass = np.zeros((self.n + 1, self.n + 1))
        words = np.arange(1, self.n + 1)
        for heads, p in zip(self.heads, self.posteriors):
            mass[heads[1:], words] += p
        return mass


def _shifted(scores: np.ndarray, other_mass: np.ndarray, options: ConsensusOptions) -> np.ndarray:
    shifted = scores + options.edge * other_mass
    shifted[0] += options.root * other_mass[0]
    return shifted


def joint_parse_sentence(a: GraphParser, b: GraphParser, sentence: Sentence, options_a: ConsensusOptions,
                         options_b: ConsensusOptions) -> tuple[Sentence, Sentence]:
    """The sentence parsed by both parsers, each helped by the other's candidates."""
    state_a = _State(a, sentence, options_a.k, options_a.temperature)
    state_b = _State(b, sentence, options_b.k, options_b.temperature)
    for _ in range(max(options_a.iterations, options_b.iterations)):
        mass_a, mass_b = state_a.arc_mass(), state_b.arc_mass()
        state_a.search(_shifted(state_a.scores, mass_b, options_a))
        state_b.search(_shifted(state_b.scores, mass_a, options_b))
    return _tree(a, state_a, sentence), _tree(b, state_b, sentence)


def _tree(parser: GraphParser, state: _State, sentence: Sentence) -> Sentence:
    heads = state.heads[0]
    return parser.with_tree(sentence, heads, state.labels[heads, np.arange(state.n + 1)])


def joint_parse(a: GraphParser, b: GraphParser, sentences: Iterable[Sentence], options_a: ConsensusOptions,
                options_b: ConsensusOptions) -> Iterator[tuple[Sentence, Sentence]]:
    """One (a's tree, b's tree) pair per input sentence, in order."""
    for sentence in sentences:
        yield joint_parse_sentence(a, b, sentence, options_a, options_b)


def tune(a: GraphParser, b: GraphParser, dev: Sequence[Sentence], edge_grid: Sequence[float] = (0.0, 1.0, 2.0, 5.0, 10.0),
         root_grid: Sequence[float] = (0.0, 1.0, 2.0, 5.0, 10.0),
         base: ConsensusOptions = ConsensusOptions()) -> tuple[ConsensusOptions, float]:
    """The edge and root weights of parser a (on its own dev treebank) with the best UAS, and that UAS;
    parser b helps without being helped (its weights are those of ``base``)."""
    best = None
    for edge in edge_grid:
        for root in root_grid:
            options = ConsensusOptions(edge=edge, root=root, k=base.k, iterations=base.iterations, temperature=base.temperature)
            uas = evaluate(dev, [pair[0] for pair in joint_parse(a, b, dev, options, base)]).uas
            if best is None or uas > best[1]:
                best = (options, uas)
    return best


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
