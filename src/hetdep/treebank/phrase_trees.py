"""Phrase-structure trees as ``hetdep parse`` writes them: one bracketed line per sentence, under
``TOP``, with the sentence parsed (its words, tags and comments) kept beside the tree."""

from __future__ import annotations

from dataclasses import dataclass

from hetdep.treebank.conllu import Sentence
from hetdep.treebank.ptb import Node

ESCAPES = {"(": "-LRB-", ")": "-RRB-"}  # the Penn Treebank's names for brackets in words and tags


def bracketed(root: Node) -> str:
    """One line of brackets, the tree under a ``TOP`` node (as EVALB's parameter files expect).
    Brackets in words and tags are written as the Penn Treebank writes them (``-LRB-``, ``-RRB-``),
    and white space inside a word, which the format cannot hold, as ``_``."""
    return f"(TOP {root.to_text(_escaped)})"


def _escaped(leaf: Node) -> str:
    word = "_".join(ESCAPES.get(leaf.word, leaf.word).split()) or "_"
    return f"({ESCAPES.get(leaf.label, leaf.label)} {word})"


@dataclass(frozen=True)
class PhraseTree:
    """A sentence's phrase-structure tree with the sentence it was parsed from (its words and
    comments): written as one bracketed line, as ``hetdep parse`` writes a constituency model's trees."""

    sentence: Sentence
    root: Node

    @property
    def forms(self) -> list[str]:
        return self.sentence.forms

    @property
    def comments(self) -> list[str]:
        return self.sentence.comments

    def __len__(self) -> int:
        return len(self.sentence)

    def to_text(self) -> str:
        return bracketed(self.root) + "\n"
