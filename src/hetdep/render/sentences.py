"""CoNLL-U sentences to pictures: the trees of one or two schemes over the same words, a tree
with its enhanced graph, or a prediction against its gold tree; and bracketed phrase-structure trees, alone, with a dependency
tree of the same words below, or against their gold trees."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from hetdep.errors import MismatchError
from hetdep.render.svg import Graph, Phrase, Tree, html_page, phrase_svg, sentence_svg
from hetdep.treebank.conllu import UPOS, Sentence, word_edges
from hetdep.treebank.pairs import check_same_words
from hetdep.treebank.ptb import Node, clean, split_label
from hetdep.treebank.ptb import Tree as Bracketed


def tree_of(sentence: Sentence, name: str) -> Tree:
    return Tree(name, list(sentence.heads), sentence.deprels)


def graph_of(sentence: Sentence, name: str) -> Graph | None:
    """The sentence's enhanced graph (DEPS; empty nodes' edges left out), None where it has none."""
    arcs = [(word, head, label) for word, edges in enumerate(word_edges(sentence), 1) for head, label in edges]
    return Graph(f"{name} enhanced", arcs) if arcs else None


def picture(sentence: Sentence, name: str, other: Sentence | None = None, other_name: str = "",
            gold: Sentence | None = None, enhanced: bool = False) -> str:
    """The SVG of ``sentence``'s tree, with ``other`` (the same words in another scheme) below it,
    or against ``gold`` (the same words and scheme), or (``enhanced``) with its enhanced graph below."""
    for partner in (other, gold):
        if partner is not None:
            check_same_words(sentence, partner)
    title = f"{sentence.sent_id or ''}" + (" (against gold: wrong heads red)" if gold is not None else "")
    below = graph_of(sentence, name) if enhanced else tree_of(other, other_name) if other is not None else None
    return sentence_svg(sentence.forms, sentence.column(UPOS), tree_of(sentence, name), below,
                        tree_of(gold, f"{name} gold") if gold is not None else None, title=title.strip())


def page(sentences: Sequence[Sentence], names: Sequence[str], others: Sequence[Sentence] | None = None,
         golds: Sequence[Sentence] | None = None, title: str = "hetdep", enhanced: bool = False) -> str:
    """Many sentences (with their other-scheme or gold partners, in order, or their enhanced
    graphs) as one HTML page."""
    for partners, what in ((others, "other-scheme"), (golds, "gold")):
        if partners is not None and len(partners) != len(sentences):
            at = min(len(partners), len(sentences))
            longer = partners if len(partners) > len(sentences) else sentences
            raise MismatchError(longer[at].path, longer[at].line, f"{len(sentences)} sentences against {len(partners)} "
                                f"{what} sentences; the first unmatched one starts here")
    svgs = [picture(sentence, names[0], others[k] if others is not None else None, names[1] if len(names) > 1 else "",
                    golds[k] if golds is not None else None, enhanced) for k, sentence in enumerate(sentences)]
    return html_page(svgs, title)


def _top(root: Node) -> Node:
    """The tree under the wrappers files put around it (an empty label, ``TOP``, ``ROOT``)."""
    while root.label in ("", "TOP", "ROOT") and len(root.children) == 1 and not root.children[0].is_leaf:
        root = root.children[0]
    return root


def _phrases(root: Node, gold: Counter | None = None) -> tuple[list[Phrase], list[Node], list[tuple[str, int, int]]]:
    """The phrases of a tree, children before parents, its words, and each phrase's labelled span
    as EVALB counts it (category without function tags, first word, end) (a loop: any depth). A
    phrase is ``wrong`` when ``gold``'s spans lack it."""
    phrases: list[Phrase] = []
    words: list[Node] = []
    spans: list[tuple[str, int, int]] = []
    left = Counter(gold) if gold is not None else None
    done: dict[int, tuple[bool, int, int, int]] = {}  # id(node) -> (a word, its index, first word, end)
    stack = [(root, False, 0)]
    while stack:
        node, expanded, depth = stack.pop()
        if node.is_leaf:
            done[id(node)] = (True, len(words), len(words), len(words) + 1)
            words.append(node)
        elif not expanded:
            stack.append((node, True, depth))
            stack.extend((child, False, depth + 1) for child in reversed(node.children))
        else:
            children = [done.pop(id(child)) for child in node.children]
            span = (split_label(node.label)[0], children[0][2], children[-1][3])
            wrong = False
            if left is not None:
                wrong = left[span] <= 0
                left[span] -= 1
            phrases.append(Phrase(node.label, tuple((leaf, index) for leaf, index, _, _ in children), depth, wrong))
            spans.append(span)
            done[id(node)] = (False, len(phrases) - 1, span[1], span[2])
    return phrases, words, spans


def phrase_picture(tree: Bracketed, name: str, below: Sentence | None = None, below_name: str = "",
                   gold: Bracketed | None = None) -> str:
    """The SVG of a phrase-structure tree, with ``below`` (a dependency tree of the same words)
    under it, or against ``gold`` (the phrases that tree lacks red, both compared as EVALB
    compares them: without empty elements and function tags). Words are matched in number (a
    tree's words may be escaped, ``-LRB-`` for ``(``)."""
    root = _top(tree.root)
    gold_spans = None
    if gold is not None:
        gold_root = clean(_top(gold.root))
        _, gold_words, found = _phrases(gold_root) if gold_root is not None else ([], [], [])
        gold_spans = Counter(found)
        root = clean(root) or root
    phrases, words, _ = _phrases(root, gold_spans)
    if below is not None and len(below) != len(words):
        raise MismatchError(below.path, below.line, f"sentence has {len(below)} words but its tree at {tree.describe()} "
                            f"has {len(words)}")
    if gold is not None and len(gold_words) != len(words):
        raise MismatchError(gold.path, gold.line, f"tree has {len(gold_words)} words (empty elements left out) but its "
                            f"prediction at {tree.describe()} has {len(words)}")
    title = (tree.describe() if tree.path else "") + (" (against gold: the phrases it lacks red)" if gold is not None else "")
    return phrase_svg([word.word for word in words], [word.label for word in words], phrases, name,
                      tree_of(below, below_name) if below is not None else None, title=title)
