"""Pictures of a sentence's two trees (zhang2014 Figure 1): scheme a's arcs above the words,
scheme b's below, the arcs both trees share solid and the others dashed, labels on the arcs,
tags under the words; or one scheme's predicted tree against its gold one, wrong arcs in red.
A phrase-structure tree is drawn above the words too, its phrases over their children, with a
dependency tree of the same words below (a neural constituency model's two trees).

spaCy's displaCy draws one tree per sentence with its arcs above only, and would bring spaCy
in for it, so the SVG is written here: plain elements and an inline style, no script, no font
or anything else fetched, so a file opens the same anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Sequence

CHAR = 7.8  # width of one character at the word font size, generously
LABEL_CHAR = 6.2  # and at the label font size
GAP = 22  # room between words
LEVEL = 26  # height of one nesting level of arcs
WORD_ROW = 18  # the words' line, then the tags' line
PHRASE_LEVEL = 24  # height of one level of phrases
STYLE = """
svg.hetdep { font-family: sans-serif; background: white; }
svg.hetdep .word { font-size: 13px; fill: #111; }
svg.hetdep .tag { font-size: 10px; fill: #666; }
svg.hetdep .label { font-size: 10px; fill: #333; }
svg.hetdep .label-phrase { font-size: 11px; fill: #234; font-weight: bold; }
svg.hetdep .scheme { font-size: 11px; fill: #888; font-style: italic; }
svg.hetdep .arc { fill: none; stroke: #345; stroke-width: 1.2; }
svg.hetdep .differs { stroke-dasharray: 4 3; }
svg.hetdep .wrong { stroke: #c22; stroke-width: 1.8; }
svg.hetdep .wrong-label { fill: #c22; font-weight: bold; }
svg.hetdep .head { fill: #345; }
svg.hetdep .wrong.head, svg.hetdep polygon.wrong { fill: #c22; }
"""


@dataclass(frozen=True)
class Tree:
    """One scheme's tree over the words: ``heads`` 1-based (0: the root), with labels, and its name."""

    name: str
    heads: Sequence[int]
    labels: Sequence[str]

    @property
    def arcs(self) -> list[tuple[int, int, str]]:
        """Each word's arc: (dependent, head, label), in the words' order."""
        return [(dependent, head, label) for dependent, (head, label) in enumerate(zip(self.heads, self.labels), 1)]


@dataclass(frozen=True)
class Graph:
    """An enhanced graph over the words, where a word may have several heads: its arcs
    (dependent, head, label), 1-based (head 0: the root), and its name."""

    name: str
    arcs: Sequence[tuple[int, int, str]]


@dataclass(frozen=True)
class Phrase:
    """One phrase of a phrase-structure picture: its label, its children in order (each ``(True,
    word index)`` for a word under its tag, or ``(False, phrase index)`` for an earlier phrase
    of the list), its depth (0: the top phrase), and whether the gold tree lacks it."""

    label: str
    children: tuple[tuple[bool, int], ...]
    depth: int
    wrong: bool = False


def _levels(arcs: Sequence[tuple[int, int, str]]) -> list[int]:
    """The nesting level of each arc: one more than the highest arc it spans (shorter first; 0 for the root's)."""
    spans = sorted(((min(h, d), max(h, d), k) for k, (d, h, _) in enumerate(arcs) if h > 0), key=lambda a: a[1] - a[0])
    level = [0] * len(arcs)
    placed: list[tuple[int, int, int]] = []
    for low, high, k in spans:
        inside = [lv for lo, hi, lv in placed if low <= lo and hi <= high]
        level[k] = 1 + max(inside, default=0)
        placed.append((low, high, level[k]))
    return level


def _arc(x1: float, x2: float, base: float, height: float, up: bool) -> str:
    """A rounded arc from x1 to x2 standing ``height`` above (or below) the baseline."""
    sign = -1 if up else 1
    top = base + sign * height
    bend = min(12.0, abs(x2 - x1) / 2)
    left, right = (x1, x2) if x1 < x2 else (x2, x1)
    return (f"M{left:.1f},{base:.1f} L{left:.1f},{top - sign * bend:.1f} Q{left:.1f},{top:.1f} {left + bend:.1f},{top:.1f} "
            f"L{right - bend:.1f},{top:.1f} Q{right:.1f},{top:.1f} {right:.1f},{top - sign * bend:.1f} L{right:.1f},{base:.1f}")


def sentence_svg(forms: Sequence[str], tags: Sequence[str], above: Tree, below: Tree | Graph | None = None,
                 gold: Tree | None = None, title: str = "") -> str:
    """One sentence as an SVG element. With ``below``: two schemes, or the tree and its enhanced
    graph, shared arcs solid. With ``gold``: ``above`` is a prediction of the same scheme, drawn
    against it (wrong heads red, right heads with a wrong label: the label red), and ``below`` is
    not drawn."""
    n = len(forms)
    if any(len(tree.heads) != n for tree in (above, below, gold) if isinstance(tree, Tree)):
        raise ValueError("every tree needs one head per word")
    if isinstance(below, Graph) and not all(1 <= d <= n and 0 <= h <= n for d, h, _ in below.arcs):
        raise ValueError("a graph's arcs join the sentence's words")
    centers, width = _word_centers(forms, tags, (above, below if gold is None else None))
    levels_above = _levels(above.arcs)
    second = below if gold is None else None
    top_room = (max(levels_above, default=0) + 1) * LEVEL + (16 if title else 0) + 14
    parts, finish = _picture(forms, tags, centers, width, top_room + 14, second, title, above.name,
                             top_room - 4 if not title else 30)
    parts += _tree(above, levels_above, centers, top_room - 1, up=True, other=second, gold=gold)
    return finish(parts, above)


def _picture(forms: Sequence[str], tags: Sequence[str], centers: list[float], width: float, word_y: float,
             below: Tree | Graph | None, title: str, name: str, name_y: float):
    """The start of a picture (its frame, title, the name of the tree above, the words and their
    tags on the line ``word_y``), and the function that ends it: ``below``'s arcs under the words."""
    bottom_base = word_y + WORD_ROW + 6
    levels_below = _levels(below.arcs) if below else []
    height = bottom_base + ((max(levels_below, default=0) + 1) * LEVEL + 14 if below else 4)
    parts = [f'<svg class="hetdep" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">', f"<style>{STYLE}</style>"]
    if title:
        parts.append(f'<text class="scheme" x="10" y="14">{escape(title)}</text>')
    parts.append(f'<text class="scheme" x="10" y="{name_y:.0f}">{escape(name)}</text>')
    for k, (form, tag) in enumerate(zip(forms, tags)):
        parts.append(f'<text class="word" x="{centers[k]:.1f}" y="{word_y:.1f}" text-anchor="middle">{escape(form)}</text>')
        parts.append(f'<text class="tag" x="{centers[k]:.1f}" y="{word_y + 13:.1f}" text-anchor="middle">{escape(tag)}</text>')

    def finish(parts: list[str], above: Tree | None) -> str:
        """``above``: the dependency tree drawn above, whose arcs ``below``'s that differ are dashed against."""
        if below:
            parts.append(f'<text class="scheme" x="10" y="{height - 4:.0f}">{escape(below.name)}</text>')
            parts += _tree(below, levels_below, centers, bottom_base, up=False, other=above, gold=None)
        parts.append("</svg>")
        return "\n".join(parts)

    return parts, finish


def _word_centers(forms: Sequence[str], tags: Sequence[str], trees: Sequence[Tree | Graph | None]) -> tuple[list[float], float]:
    """Each word's x and the picture's width: each word as wide as its form or tag, and room
    between neighbours for the labels of ``trees``' arcs that join them."""
    n = len(forms)
    widths = [max(len(f), len(t)) * CHAR + GAP for f, t in zip(forms, tags)]
    need = [0.0] * n  # between word k and k + 1: room for the labels of arcs joining them
    for tree in trees:
        for dependent, head, label in tree.arcs if tree else ():
            if head and abs(head - dependent) == 1:
                k = min(head, dependent) - 1
                need[k] = max(need[k], len(label) * LABEL_CHAR + 16)
    centers = [10.0 + widths[0] / 2] if n else []
    for k in range(1, n):
        centers.append(centers[-1] + max((widths[k - 1] + widths[k]) / 2, need[k - 1]))
    return centers, (centers[-1] + widths[-1] / 2 if n else 10.0) + 10


def phrase_svg(forms: Sequence[str], tags: Sequence[str], phrases: Sequence[Phrase], name: str,
               below: Tree | None = None, title: str = "") -> str:
    """One sentence's phrase-structure tree as an SVG element: each phrase one level under its
    parent, over the middle of its first and last children, a word hanging from its level
    straight down to the word (its tag under it, as in the dependency pictures), so no line
    crosses another; ``wrong`` phrases (not in the gold tree) red. With ``below``: a dependency
    tree of the same words drawn under them."""
    n = len(forms)
    if below is not None and len(below.heads) != n:
        raise ValueError("the dependency tree needs one head per word")
    centers, width = _word_centers(forms, tags, (below,))
    xs: list[float] = []
    for phrase in phrases:  # children first: a phrase's children are placed before it
        ends = [centers[child] if leaf else xs[child] for leaf, child in (phrase.children[0], phrase.children[-1])]
        xs.append(sum(ends) / 2)
    levels = max((phrase.depth for phrase in phrases), default=-1) + 2  # the deepest words hang one level lower
    top = (16 if title else 0) + 32
    word_y = top + levels * PHRASE_LEVEL
    parts, finish = _picture(forms, tags, centers, width, word_y, below, title, name, 30 if title else 14)
    for k, phrase in enumerate(phrases):
        y = top + phrase.depth * PHRASE_LEVEL
        line = "arc wrong" if phrase.wrong else "arc"
        for leaf, child in phrase.children:
            if leaf:  # to its level under the phrase, then straight down to the word
                x2 = centers[child]
                path = f"M{xs[k]:.1f},{y + 4:.1f} L{x2:.1f},{y + PHRASE_LEVEL - 11:.1f} L{x2:.1f},{word_y - 13:.1f}"
            else:
                path = f"M{xs[k]:.1f},{y + 4:.1f} L{xs[child]:.1f},{y + PHRASE_LEVEL - 11:.1f}"
            parts.append(f'<path class="{line}" d="{path}"/>')
        label_class = "label-phrase" + (" wrong-label" if phrase.wrong else "")
        parts.append(f'<text class="{label_class}" x="{xs[k]:.1f}" y="{y:.1f}" text-anchor="middle">{escape(phrase.label)}</text>')
    return finish(parts, None)


def _tree(tree: Tree | Graph, levels: list[int], centers: list[float], base: float, up: bool, other: Tree | Graph | None,
          gold: Tree | None) -> list[str]:
    """The arcs of a tree or graph (``levels``: each arc's), those ``other`` lacks dashed, those
    ``gold`` has otherwise red."""
    parts = []
    sign = -1 if up else 1
    shared = {(dependent, head) for dependent, head, _ in other.arcs} if other is not None else set()
    for (dependent, head, label), level in zip(tree.arcs, levels):
        classes = ["arc"]
        label_class = "label"
        if other is not None and (dependent, head) not in shared:
            classes.append("differs")
        if gold is not None:
            if gold.heads[dependent - 1] != head:
                classes.append("wrong")
            elif gold.labels[dependent - 1] != label:
                label_class += " wrong-label"
        x2 = centers[dependent - 1] + (2 if head and head < dependent else -2 if head else 0)
        if head == 0:
            height = (max(levels, default=0) + 1) * LEVEL
            y1 = base + sign * height
            parts.append(f'<path class="{" ".join(classes)}" d="M{x2:.1f},{y1:.1f} L{x2:.1f},{base:.1f}"/>')
            label_x, label_y = x2, y1 - (3 if up else -11)
        else:
            x1 = centers[head - 1] + (3 if dependent > head else -3)
            height = level * LEVEL
            parts.append(f'<path class="{" ".join(classes)}" d="{_arc(x1, x2, base, height, up)}"/>')
            label_x, label_y = (x1 + x2) / 2, base + sign * height + (-3 if up else 11)
        tip = f"{x2 - 3:.1f},{base + sign * 6:.1f} {x2 + 3:.1f},{base + sign * 6:.1f} {x2:.1f},{base:.1f}"
        parts.append(f'<polygon class="head{" wrong" if "wrong" in classes else ""}" points="{tip}"/>')
        shown = label if head else (label or "root")
        parts.append(f'<text class="{label_class}" x="{label_x:.1f}" y="{label_y:.1f}" text-anchor="middle">{escape(shown)}</text>')
    return parts


def html_page(svgs: Sequence[str], title: str = "hetdep") -> str:
    """Many pictures as one self-contained HTML page (no script, nothing fetched)."""
    body = "\n".join(f'<figure>{svg}</figure>' for svg in svgs)
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{escape(title)}</title>"
            "<style>body { font-family: sans-serif; margin: 1em; } figure { margin: 0 0 1.5em; overflow-x: auto; }</style>"
            f"</head><body>\n{body}\n</body></html>\n")
