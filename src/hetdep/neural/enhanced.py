"""Enhanced UD graphs as the network's graph head learns and writes them (issue 90): each word's
edges from the DEPS column, their labels with the case marker left as a slot filled from the
sentence, and a graph decoded from the head's edge probabilities and kept valid by UD's rules.

A label such as ``obl:in`` or ``conj:and`` names the word that marks the dependent (its ``case``
child, the ``cc`` of its conjunction). Where the sentence's basic tree gives that word, the head
learns ``obl:{marker}`` and the parse writes whatever word marks the dependent in its own tree, so
a preposition unseen in training still gets its label; elsewhere (``acl:relcl``, ``nsubj:pass``,
``nmod:poss``, ``advcl:when`` where "when" is an adverb) the label is learned whole. On en-ewt's
training graphs the slot covers 25,543 of the 36,708 edges whose obl, nmod, advcl, acl or conj has
a subtype. The marker is spelled by lower-cased forms, not lemmas: the treebank writes
"according_to" and "including", forms.

Empty nodes (gapping; en-ewt test has 2) are left out: edges into and out of them are not learned
and not written, as the IWPT scorer leaves them when they are not collapsed first.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.treebank.conllu import DEPS, Sentence, enhanced_edges, word_edges

SLOT = "{marker}"  # in a learned label: the dependent's marking word(s), read from the sentence
NO_EDGE = -1  # a graph target: no edge between these two words (IGNORE: not learned)
# The relations whose subtype names a marking word, and the basic relations of the words that mark them.
MARKERS = {"obl": ("case",), "nmod": ("case",), "advcl": ("mark", "case"), "acl": ("mark", "case"), "conj": ("cc",)}


def has_graph(sentence: Sentence) -> bool:
    """Whether the sentence's words carry an enhanced graph (DEPS filled)."""
    return any(sentence.rows[k][DEPS] != "_" for k in sentence.word_rows)


def graph_scheme(schemes: Sequence[Sequence[Sentence]]) -> int | None:
    """Which of a treebank's schemes (each its sentences) carries the enhanced graph: the first
    whose sentences have one; None where none has."""
    return next((k for k, sentences in enumerate(schemes) if any(map(has_graph, sentences))), None)


def graphs_taught(treebanks: Sequence[tuple[str, Sequence[Sequence[Sentence]]]], first_file) -> str:
    """What a graph head learns from (``train --enhanced``), in one line: per treebank (its name and
    its schemes' training sentences), how many sentences have a graph; refused in one line naming
    ``first_file`` where none has."""
    counts = []
    for name, schemes in treebanks:
        scheme = graph_scheme(schemes)
        if scheme is not None:
            counts.append(f"{sum(map(has_graph, schemes[scheme])):,} of {len(schemes[scheme]):,} training sentences"
                          + (f" of {name}" if name else "") + " have one")
    if not counts:
        raise HetdepError(f"--enhanced: no training sentence of {first_file} has an enhanced graph (its DEPS column is "
                          "'_' throughout)" + (" nor of the other treebanks" if len(treebanks) > 1 else ""))
    return "enhanced graphs (DEPS): " + "; ".join(counts)


def marking(forms: Sequence[str], heads: Sequence[int], deprels: Sequence[str], word: int, relation: str) -> str | None:
    """The word(s) marking ``word`` (0-based) as a dependent of ``relation``'s kind in the basic tree
    (``heads`` 1-based, 0 the root), as enhanced labels spell them: the marker's lower-cased form
    joined by "_" to its ``fixed`` dependents' ("according_to"); for ``conj``, the ``cc`` of any
    conjunct of the same head ("A, B and C": B's too). None where no word marks it."""
    kinds = MARKERS.get(relation.split(":")[0])
    if kinds is None:
        return None
    owners = [word]
    if kinds == ("cc",):
        owners = [k for k, head in enumerate(heads) if head == heads[word] and deprels[k].split(":")[0] == "conj"] or [word]
    for owner in owners:
        for child, head in enumerate(heads):
            if head == owner + 1 and deprels[child].split(":")[0] in kinds:
                fixed = [forms[k].lower() for k, h in enumerate(heads) if h == child + 1 and deprels[k] == "fixed"]
                return "_".join([forms[child].lower(), *fixed])
    return None


def learned_labels(sentence: Sentence) -> dict[tuple[int, int], str]:
    """The sentence's enhanced edges as the head learns them: (dependent, head) -> label, both
    positions 1-based (0 the root), the marking word a slot where the basic tree gives it."""
    forms, heads, deprels = sentence.forms, sentence.heads, sentence.deprels
    edges = {}
    for word, k in enumerate(sentence.word_rows):
        for head, relation in enhanced_edges(sentence.rows[k][DEPS]):
            if "." in head or ">" in relation:  # an empty node's edge, or a path through one: left out
                continue
            base, _, subtype = relation.partition(":")
            if subtype and subtype == marking(forms, heads, deprels, word, base):
                relation = f"{base}:{SLOT}"
            edges[(word + 1, int(head))] = relation
    return edges


def written_label(label: str, forms: Sequence[str], heads: Sequence[int], deprels: Sequence[str], word: int) -> str:
    """A learned label as the parse writes it for ``word`` (0-based): its slot filled from the
    sentence's predicted basic tree, or left out ("obl") where no word marks the dependent."""
    if not label.endswith(SLOT):
        return label
    base = label[:-len(SLOT) - 1]
    marker = marking(forms, heads, deprels, word, base)
    return f"{base}:{marker}" if marker else base


@lru_cache(maxsize=8)
def label_families(basic: tuple[str, ...], enhanced: tuple[str, ...]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Per basic label id, its family's id (-1: no enhanced label of its relation), and each
    family's enhanced label ids: those of one relation (``obl``: ``obl``, ``obl:{marker}``,
    ``obl:unmarked``, ...). An enhanced edge the basic tree has too is labelled within the family of
    its basic label, as the treebanks label them: each of en-ewt's 203,241 training edges the basic
    tree has too (94% of them) has its basic label's relation. A parse keeps that rule, and the
    graph head then chooses among a few labels, not all: on en-ewt dev (27,045 edges, 24,744 of
    them the tree's) its label products took 0.43-0.56 s instead of 2.3-2.8 (one thread). Cached
    per model's label lists (each batch of a parse asks again); the arrays read-only."""
    base = {}
    for k, label in enumerate(enhanced):
        base.setdefault(label.split(":")[0], []).append(k)
    relations = sorted(base)
    family_of = np.array([relations.index(r) if (r := label.split(":")[0]) in base else -1 for label in basic], dtype=np.int64)
    families = [np.array(base[relation], dtype=np.int64) for relation in relations]
    for array in (family_of, *families):
        array.setflags(write=False)
    return family_of, families


def decoded_graph(probabilities: np.ndarray, heads: Sequence[int]) -> list[list[int]]:
    """Each word's enhanced heads (1-based dependents, ``probabilities[i, j]``: of an edge from head
    j to word i, 0 the root) from the edges likelier than not, made valid by UD's rules: a word of
    none gets its basic head (``heads``, the predicted basic tree), and a word the root cannot reach
    gets it too (the basic tree's edges reach every word, so one pass suffices)."""
    n = len(heads)
    chosen = [[j for j in range(n + 1) if j != i and probabilities[i, j] > 0.5] for i in range(1, n + 1)]
    for i in range(n):
        if not chosen[i]:
            chosen[i] = [heads[i]]
    reached = reached_from_root(chosen)
    for i in range(n):
        if not reached[i + 1] and heads[i] not in chosen[i]:
            chosen[i] = sorted(chosen[i] + [heads[i]])
    return chosen


def parsed_graphs(network, encoded: np.ndarray, sentences: Sequence[Sentence], heads: np.ndarray, basic: np.ndarray,
                  basic_labels: Sequence[str], enhanced: Sequence[str]) -> list[list[list[tuple[int, str]]]]:
    """Each sentence's enhanced graph, as each word's (head, label of ``enhanced``) edges: the graph
    head's (``network``, a :class:`hetdep.neural.inference.NumpyNetwork`, on the sentences'
    ``encoded`` rows) made valid over the basic tree ``heads`` (:func:`decoded_graph`), an edge of
    the tree labelled within the family of its ``basic`` label (ids of ``basic_labels``,
    :func:`label_families`)."""
    probabilities = network.edge_probabilities(encoded)
    chosen = [decoded_graph(probabilities[row, :len(s) + 1, :len(s) + 1], heads[row, 1:len(s) + 1].tolist())
              for row, s in enumerate(sentences)]
    rows, dependents, edge_heads = np.array([(row, word + 1, head) for row, words in enumerate(chosen)
                                             for word, found in enumerate(words) for head in found],
                                            dtype=np.int64).reshape(-1, 3).T
    family_of, families = label_families(tuple(basic_labels), tuple(enhanced))
    groups = np.where(heads[rows, dependents] == edge_heads, family_of[basic[rows, dependents]], -1)
    labels = iter(network.edge_labels(encoded, rows, dependents, edge_heads, groups, families).tolist())
    return [[[(head, enhanced[next(labels)]) for head in found] for found in words] for words in chosen]


def reached_from_root(chosen: list[list[int]]) -> list[bool]:
    """Which positions (0 the root) the root reaches along the edges (``chosen[i]``: word i + 1's heads)."""
    children: list[list[int]] = [[] for _ in range(len(chosen) + 1)]
    for i, heads in enumerate(chosen):
        for head in heads:
            children[head].append(i + 1)
    reached = [False] * (len(chosen) + 1)
    reached[0] = True
    queue = deque([0])
    while queue:
        for child in children[queue.popleft()]:
            if not reached[child]:
                reached[child] = True
                queue.append(child)
    return reached


def graph_f1(gold: Sequence[Sentence], system: Sequence[Sentence]) -> float:
    """Labelled F1 of the enhanced edges of sentences of the same words (a dev score: ``hetdep eval
    --conll18``'s ELAS on gold tokens), empty nodes' edges left out."""
    def edges(sentence: Sentence) -> set[tuple[int, int, str]]:
        return {(word, head, relation) for word, found in enumerate(word_edges(sentence)) for head, relation in found}

    found = [(edges(g), edges(s)) for g, s in zip(gold, system, strict=True)]
    total = sum(len(g) + len(s) for g, s in found)
    return 200.0 * sum(len(g & s) for g, s in found) / total if total else 0.0


def deps_column(edges: list[tuple[int, str]]) -> str:
    """A word's DEPS: its edges (head, label) in the order of their heads."""
    return "|".join(f"{head}:{label}" for head, label in sorted(edges)) or "_"


def with_graph(tree: Sentence, graph: list[list[tuple[int, str]]]) -> Sentence:
    """The tree with its enhanced graph (each word's edges, labels as learned) in DEPS, each label's
    marking word read from the tree's own words (an empty node of the input left out: the graph has none)."""
    forms, heads, deprels = tree.forms, tree.heads, tree.deprels
    deps = [deps_column([(head, written_label(label, forms, heads, deprels, word)) for head, label in edges])
            for word, edges in enumerate(graph)]
    return tree.without_enhanced().with_column(DEPS, deps)
