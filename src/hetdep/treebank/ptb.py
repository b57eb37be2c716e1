"""Penn-Treebank-style bracketed trees (``.mrg``): reading, cleaning, and where they come from.

A file holds trees like ``( (S (NP-SBJ (NNP Pierre)) (VP ...) (. .)) )``: each tree is one
outermost bracket, whose label may be empty, ``ROOT`` or ``TOP``. The reader streams trees with
the line each starts on, so every error names the file and line. ``clean`` gives what
dependency conversion needs: empty elements (``-NONE-`` leaves, e.g. traces) removed together
with phrases left empty, function tags and co-indices stripped from phrase labels
(``NP-SBJ-1`` is an ``NP`` with function ``SBJ``), and bracket tokens such as ``-LRB-`` kept.

Input may be one file, a folder (its ``*.mrg`` files in name order) or a ``.zip`` archive (its
``.mrg`` members in name order), which is how NLTK ships its WSJ sample.
"""

from __future__ import annotations

import re
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from hetdep.errors import InputError

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
MAX_DEPTH = 200  # real trees nest a few dozen brackets deep; the tree code recurses (two frames a level) that far
EMPTY_ELEMENT = "-NONE-"


@dataclass
class Node:
    """A phrase (``word`` is None) or a preterminal (``label`` is its POS tag, ``word`` its form)."""

    label: str
    children: list["Node"] = field(default_factory=list)
    word: str | None = None
    functions: tuple[str, ...] = ()  # function tags of the raw label, e.g. ("SBJ",)

    @property
    def is_leaf(self) -> bool:
        return self.word is not None

    def leaves(self) -> list["Node"]:
        """The words in order (a loop, not recursion: a parser's tree may be thousands of phrases deep)."""
        found, stack = [], [self]
        while stack:
            node = stack.pop()
            if node.is_leaf:
                found.append(node)
            else:
                stack.extend(reversed(node.children))
        return found

    def to_text(self, leaf: Callable[["Node"], str] | None = None) -> str:
        """Brackets on one line, each word written by ``leaf`` (by default ``(TAG word)``); a loop, as :meth:`leaves`."""
        parts: list[str] = []
        stack: list = [(self, "")]
        while stack:
            node, before = stack.pop()
            if node is None:
                parts.append(")")
            elif node.is_leaf:
                parts.append(before + (leaf(node) if leaf else f"({node.label} {node.word})"))
            else:
                parts.append(f"{before}({node.label}")
                stack.append((None, ""))
                stack.extend((child, " ") for child in reversed(node.children))
        return "".join(parts)


@dataclass
class Tree:
    """One bracketed tree and where it was read."""

    root: Node
    path: str
    line: int

    def describe(self) -> str:
        return f"{self.path}:{self.line}"


def split_label(raw: str) -> tuple[str, tuple[str, ...]]:
    """``NP-SBJ-1`` -> (``NP``, (``SBJ``,)); ``NP=2`` -> ``NP``; ``ADVP|PRT`` (annotators' doubt) -> ``ADVP``.

    ``-LRB-`` and ``-NONE-`` stay whole.
    """
    if raw.startswith("-") and raw.endswith("-") and len(raw) > 1:
        return raw, ()
    base, *rest = raw.split("-")
    base = base.split("=")[0].split("|")[0]
    functions = tuple(part.split("=")[0] for part in rest if part and not part.split("=")[0].isdigit())
    return (base or raw), functions


def read_trees(path: str | Path) -> Iterator[Tree]:
    """Every tree of a ``.mrg`` file, a folder of them, or a ``.zip`` holding them, in order."""
    path = Path(path)
    if path.is_dir():
        files = sorted(file for file in path.rglob("*.mrg") if not file.is_dir())
        if not files:
            raise InputError(str(path), None, "folder holds no .mrg files")
        for file in files:
            yield from parse_trees(_decode(_read(file), str(file)), str(file))
    elif zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as archive:
                names = sorted(name for name in archive.namelist() if name.endswith(".mrg"))
                if not names:
                    raise InputError(str(path), None, "archive holds no .mrg files")
                for name in names:
                    where = f"{path}:{name}"
                    yield from parse_trees(_decode(archive.read(name), where), where)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError) as error:
            raise InputError(str(path), None, f"damaged zip archive ({error})") from None
    else:
        yield from parse_trees(_decode(_read(path), str(path)), str(path))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise InputError(str(path), None, f"cannot read: {error.strerror}") from None


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(where, line, "not UTF-8 (treebank files must be UTF-8 or ASCII)") from None


def parse_trees(text: str, path: str = "<memory>") -> Iterator[Tree]:
    """Parse bracketed trees from text; unbalanced brackets are an error naming the line."""
    line = 1
    stack: list[tuple[list, int]] = []  # (items of an open bracket, its line)
    position = 0
    for match in _TOKEN.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        token = match.group()
        if token == "(":
            if len(stack) >= MAX_DEPTH:
                raise InputError(path, line, f"brackets nested deeper than {MAX_DEPTH}: not a treebank tree")
            stack.append(([], line))
        elif token == ")":
            if not stack:
                raise InputError(path, line, "unbalanced brackets: ')' closes nothing")
            items, start = stack.pop()
            node = _build(items, path, start)
            if stack:
                stack[-1][0].append(node)
            else:
                yield Tree(_unwrap(node, path, start), path, start)
        else:
            if not stack:
                raise InputError(path, line, f"text {token!r} outside any bracket")
            stack[-1][0].append(token)
    if stack:
        raise InputError(path, stack[0][1], "unbalanced brackets: the tree starting here is never closed")


def _build(items: list, path: str, line: int) -> Node:
    """A bracket's items: [label?, children...] or [tag, word] for a preterminal."""
    label = items[0] if items and isinstance(items[0], str) else ""
    rest = items[1:] if label else items
    if not rest:
        raise InputError(path, line, f"bracket ({label}) holds neither a word nor a phrase"
                         + (" (a preterminal without its word?)" if label else ""))
    if len(rest) == 1 and isinstance(rest[0], str):
        return Node(label, word=rest[0])
    if any(isinstance(item, str) for item in rest):
        raise InputError(path, line, f"bracket ({label} ...) mixes words and phrases")
    return Node(label, list(rest))


def _unwrap(node: Node, path: str, line: int) -> Node:
    """Drop the outermost unlabeled (or ROOT/TOP) bracket around a single tree."""
    if node.label in ("", "ROOT", "TOP") and not node.is_leaf:
        if len(node.children) != 1:
            raise InputError(path, line, f"the outer bracket holds {len(node.children)} trees, expected 1")
        return node.children[0]
    return node


def clean(node: Node) -> Node | None:
    """Remove empty elements (and phrases left empty); split labels into category and functions."""
    if node.is_leaf:
        return None if node.label == EMPTY_ELEMENT else Node(node.label, word=node.word)
    children = [kept for kept in (clean(child) for child in node.children) if kept is not None]
    if not children:
        return None
    label, functions = split_label(node.label)
    return Node(label, children, functions=functions)
