"""Training the constituency parser: global averaged perceptron over beam search, max-violation
update by default (early update as an option), the iteration kept by dev F1 (EVALB's scores).

Training trees are read as ``convert --from ptb`` reads them (a ``.mrg`` file, a folder, a
``.zip``), cleaned (:func:`hetdep.treebank.ptb.clean`) and binarized around their head children
(:mod:`hetdep.constituency.binarize`); their oracle sequences rebuild them exactly.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from hetdep.constituency import _dp, _lattice, _search
from hetdep.constituency.binarize import BNode, binarize
from hetdep.constituency.features import DEFAULT_TEMPLATES, TEMPLATE_SETS
from hetdep.constituency.parser import ConstituencyParser, template_array
from hetdep.constituency.system import Actions, oracle
from hetdep.convert.headrules import load_table
from hetdep.errors import HetdepError, InputError
from hetdep.evaluation.brackets import score
from hetdep.learn.perceptron import TrainOptions, TrainResult, perceptron_loop, update_mode
from hetdep.learn.vocab import Vocab
from hetdep.learn.weights import Weights
from hetdep.transition.parser import encode_lattice
from hetdep.treebank.ptb import Node, Tree, clean, read_trees


@dataclass
class TaggedTree:
    """A cleaned treebank tree, where it was read, and the tags a parser is given for its words
    (its own gold tags, or a tagger's)."""

    tree: Tree
    root: Node

    @property
    def forms(self) -> list[str]:
        return [leaf.word for leaf in self.root.leaves()]

    @property
    def gold_tags(self) -> list[str]:
        return [leaf.label for leaf in self.root.leaves()]


def read_treebank(path: str | Path) -> list[TaggedTree]:
    """Every tree of a ``.mrg`` file, folder or ``.zip``, cleaned; a tree left without words is an error."""
    out = []
    for tree in read_trees(path):
        root = clean(tree.root)
        if root is None:
            raise InputError(tree.path, tree.line, "tree has no words once empty elements (-NONE-) are removed")
        if root.is_leaf:  # a bare word: give it a phrase, as the dependency converter does
            root = Node("X", [root])
        out.append(TaggedTree(tree, root))
    if not out:
        raise HetdepError(f"{path}: no trees")
    return out


def inventory(binarized: Sequence[BNode]) -> Actions:
    """The phrase labels of binary nodes and the (chain) labels of unary nodes, sorted."""
    labels, unaries = set(), set()

    def walk(node: BNode) -> None:
        if node.is_word:
            return
        (unaries if len(node.children) == 1 else labels).add(node.label)
        for child in node.children:
            walk(child)

    for node in binarized:
        walk(node)
    return Actions(sorted(labels), sorted(unaries))


Candidates = list[list[tuple[str, float]]]  # each word's candidate tags, best first, with probabilities


def dev_f1(parser: ConstituencyParser, dev: Sequence[TaggedTree], dev_tags: Sequence) -> tuple[float, dict]:
    """EVALB's F1 of the parser on dev trees (parsed with ``dev_tags``: tags, or candidates for a
    lattice parser), and LP, LR."""
    parse = parser.parse_candidates if parser.lattice else parser.parse_tokens
    parsed = [Tree(parse(item.forms, tags), item.tree.path, item.tree.line) for item, tags in zip(dev, dev_tags)]
    scores = score([Tree(item.root, item.tree.path, item.tree.line) for item in dev], parsed)
    return scores.f1, {"LP": scores.precision, "LR": scores.recall, "F1": scores.f1}


def train(train_trees: Sequence[TaggedTree], dev_trees: Sequence[TaggedTree], options: TrainOptions = TrainOptions(beam=16),
          head_table: str = "collins", train_tags: Sequence[list[str]] | None = None,
          dev_tags: Sequence[list[str]] | None = None, progress: Callable | None = None,
          train_lattices: Sequence[Candidates] | None = None, dev_lattices: Sequence[Candidates] | None = None,
          templates: str = DEFAULT_TEMPLATES) -> TrainResult:
    """Train on treebank trees, the iteration chosen by dev F1 (reported as ``dev_uas``/``dev_las``).

    ``head_table`` binarizes the trees, ``templates`` names the feature template set
    (``features.TEMPLATE_SETS``); their defaults, Collins' table and ZPar's templates, measured
    best on the WSJ sample (docs/archive.md).

    ``train_tags``/``dev_tags``: the tags the parser learns from and is tuned with (jackknifed,
    predicted); by default each tree's own. With ``options.lattice``, ``train_lattices`` and
    ``dev_lattices`` give each word's candidate tags (a jackknifed and a plain k-best tagger's);
    the parser learns to choose the gold tag where it is a candidate.
    """
    if not train_trees:
        raise HetdepError("no training trees")
    if options.lattice and (train_lattices is None or (dev_trees and dev_lattices is None)):
        raise HetdepError("a lattice parser trains from each word's candidate tags: give train_lattices and dev_lattices")
    if options.lattice and options.dp:
        raise HetdepError("tag lattices and the dynamic-programming beam do not combine yet: choose one")
    if templates not in TEMPLATE_SETS:
        raise HetdepError(f"no template set {templates!r}: choose from {', '.join(TEMPLATE_SETS)}")
    mode = update_mode(options)
    table = load_table(head_table)
    binarized = [binarize(item.root, table) for item in train_trees]
    actions = inventory(binarized)
    if not actions.labels:  # without a binary reduce, no sentence of two words or more could be parsed
        raise HetdepError(f"{train_trees[0].tree.path}: no training tree has a phrase over two or more words, so the "
                          "parser could not learn to build one: train on a treebank of longer sentences")
    train_tags = list(train_tags) if train_tags is not None else [item.gold_tags for item in train_trees]
    dev_tags = list(dev_tags) if dev_tags is not None else [item.gold_tags for item in dev_trees]
    words = Vocab.from_counts(Counter(form for item in train_trees for form in item.forms))
    tag_counts = Counter(tag for listed in train_tags for tag in listed)
    if options.lattice:
        tag_counts.update(tag for candidates in train_lattices for listed in candidates for tag, _ in listed)
    tags = Vocab.from_counts(tag_counts)
    encoded = [(words.encode(item.forms), tags.encode(listed), np.array(oracle(node, actions), dtype=np.int32))
               for item, listed, node in zip(train_trees, train_tags, binarized)]
    weights = Weights(actions.n_actions)
    template_rows = template_array(templates)
    n_labels, n_unaries = len(actions.labels), len(actions.unaries)
    lattices = [lattice_example(tags, item.gold_tags, candidates) for item, candidates in zip(train_trees, train_lattices)] \
        if options.lattice else []

    def learn(index: int) -> bool:
        w, t, gold = encoded[index]
        n = len(w) - 1
        weights.reserve(2 * len(gold) * len(template_rows))
        if options.lattice:
            candidates, counts, logp, t = lattices[index]
            predicted, length, _, predicted_tags = _lattice.search(w, candidates, counts, logp, options.lattice_weight, n,
                                                                   options.beam, template_rows, weights.table, weights.rows,
                                                                   n_labels, n_unaries, gold, t, mode)
        else:
            search = _dp.search if options.dp else _search.search
            predicted, length, _ = search(w, t, n, options.beam, template_rows, weights.table, weights.rows, n_labels,
                                          n_unaries, gold, mode)
            predicted_tags = t
        if length < len(gold) or not np.array_equal(predicted, gold) or not np.array_equal(predicted_tags[:n + 1], t[:n + 1]):
            _search.update(w, t, n, gold, predicted, length, template_rows, weights.table, weights.n_used, weights.rows,
                           weights.sums, weights.counts, weights.counter, n_labels, predicted_tags)
            return True
        return False

    def evaluate_model(averaged):
        parser = ConstituencyParser(words, tags, actions, averaged, beam=options.beam, head_table=head_table, dp=options.dp,
                                    lattice=options.lattice, lattice_weight=options.lattice_weight, template_set=templates)
        if not dev_trees:
            return parser, None, None, {}
        f1, detail = dev_f1(parser, dev_trees, dev_lattices if options.lattice else dev_tags)
        return parser, f1, f1, detail

    return perceptron_loop(len(encoded), learn, evaluate_model, weights, options, progress)


def lattice_example(tags: Vocab, gold_tags: list[str], candidates: Candidates) -> tuple:
    """A training sentence's lattice and its gold path's tags: the gold tag where it is a candidate,
    else the best candidate (the parser cannot choose a tag the tagger did not offer)."""
    candidate_ids, counts, logp = encode_lattice(tags, candidates)
    gold = np.zeros(len(gold_tags) + 2, dtype=np.int64)
    for k, (tag, listed) in enumerate(zip(gold_tags, candidates), 1):
        offered = [candidate for candidate, _ in listed]
        gold[k] = candidate_ids[k, offered.index(tag)] if tag in offered else candidate_ids[k, 0]
    return candidate_ids, counts, logp, gold
