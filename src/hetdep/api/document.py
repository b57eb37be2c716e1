"""What parsing gives back in Python: a document of sentences of words, each word with one head
and one label per scheme (``word.head["ud"]``, ``word.deprel["sud"]``).

These are plain read-only values built from the CoNLL-U sentences the parsers write; they keep
those sentences, so ``to_conllu(scheme)`` writes exactly what ``hetdep parse`` would.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

from hetdep.treebank.conllu import DEPREL, FEATS, FORM, ID, LEMMA, MISC, UPOS, XPOS, word_edges
from hetdep.treebank.conllu import Sentence as TreebankSentence

if TYPE_CHECKING:
    from hetdep.treebank.ptb import Node


@dataclass(frozen=True)
class Word:
    """One syntactic word: ``id`` counts from 1 in its sentence; ``head[scheme]`` is the id of
    its head there (0: the root). ``feats`` is the first scheme's FEATS and
    ``scheme_feats[scheme]`` each scheme's: a joint model's schemes may differ there (SUD's
    ``ExtPos`` and ``Shared``). ``deps[scheme]``: the word's edges in that scheme's enhanced graph,
    (head id, label) in the order of their heads, () where the model writes none (DEPS '_')."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    misc: str
    head: Mapping[str, int]
    deprel: Mapping[str, str]
    scheme_feats: Mapping[str, str]
    deps: Mapping[str, tuple[tuple[int, str], ...]]


class Sentence:
    """A parsed sentence: its words, its text (``# text``, when the input had one), its trees, and
    a phrase-structure model's phrase-structure tree (``phrase_tree``, bracketed; else None)."""

    def __init__(self, trees: Mapping[str, TreebankSentence], phrases: "Node | None" = None):
        self._trees = dict(trees)
        self._phrases = phrases
        first = next(iter(self._trees.values()))
        rows = [first.rows[i] for i in first.word_rows]
        heads = {scheme: tree.heads for scheme, tree in self._trees.items()}
        labels = {scheme: tree.column(DEPREL) for scheme, tree in self._trees.items()}
        feats = {scheme: tree.column(FEATS) for scheme, tree in self._trees.items()}
        deps = {scheme: [tuple(edges) for edges in word_edges(tree)] for scheme, tree in self._trees.items()}
        self.words: tuple[Word, ...] = tuple(
            Word(int(row[ID]), row[FORM], row[LEMMA], row[UPOS], row[XPOS], row[FEATS], row[MISC],
                 {scheme: heads[scheme][k] for scheme in heads}, {scheme: labels[scheme][k] for scheme in labels},
                 {scheme: feats[scheme][k] for scheme in feats}, {scheme: deps[scheme][k] for scheme in deps})
            for k, row in enumerate(rows))
        self.text: str | None = next((c.split("=", 1)[1].strip() for c in first.comments if c.startswith("# text =")), None)
        self.sent_id: str | None = first.sent_id

    @property
    def schemes(self) -> tuple[str, ...]:
        return tuple(self._trees)

    @property
    def phrase_tree(self) -> str | None:
        """The phrase-structure tree on one line of brackets, as ``hetdep parse`` writes it (None: the
        model gives dependency trees alone)."""
        from hetdep.treebank.phrase_trees import bracketed

        return bracketed(self._phrases) if self._phrases is not None else None

    def __len__(self) -> int:
        return len(self.words)

    def __iter__(self) -> Iterator[Word]:
        return iter(self.words)

    def tree(self, scheme: str) -> TreebankSentence:
        """The CoNLL-U sentence of one scheme's tree."""
        if scheme not in self._trees:
            raise KeyError(f"no scheme {scheme!r}: this sentence has {', '.join(self._trees)}")
        return self._trees[scheme]

    def to_conllu(self, scheme: str | None = None) -> str:
        return self.tree(scheme or self.schemes[0]).to_text()

    def render(self, gold: "Sentence | None" = None, scheme: str | None = None, enhanced: bool = False) -> str:
        """An SVG: the first scheme's arcs above the words and the second's below (shared arcs
        solid, the others dashed), or a phrase-structure model's phrases above and its
        dependencies below; with ``gold``, ``scheme``'s tree against gold's, wrong arcs red;
        ``enhanced``: ``scheme``'s tree (the first with a graph) with its enhanced graph below."""
        from hetdep.render.sentences import phrase_picture, picture

        if self._phrases is not None and gold is None and scheme is None:  # its phrase structure, the dependencies below
            from hetdep.treebank.ptb import Tree

            return phrase_picture(Tree(self._phrases, "", 0), "phrase structure", self.tree(self.schemes[0]), self.schemes[0])
        if gold is not None:
            scheme = scheme or self.schemes[0]
            return picture(self.tree(scheme), scheme, gold=gold.tree(scheme))
        if enhanced:
            scheme = scheme or next((s for s in self.schemes if any(w.deps[s] for w in self.words)), self.schemes[0])
            return picture(self.tree(scheme), scheme, enhanced=True)
        second = self.schemes[1] if len(self.schemes) > 1 else None
        return picture(self.tree(self.schemes[0]), self.schemes[0], self.tree(second) if second else None, second or "")

    def __repr__(self) -> str:
        return f"Sentence({' '.join(w.form for w in self.words)!r}, schemes={self.schemes})"


class Document:
    """Sentences parsed together, in input order, all with the same schemes."""

    def __init__(self, sentences: Sequence[Sentence], schemes: Sequence[str], warnings: Sequence[str] = (),
                 unknown_words: int = 0, foreign: Mapping[str, int] | None = None):
        self.sentences: tuple[Sentence, ...] = tuple(sentences)
        self.schemes: tuple[str, ...] = tuple(schemes)
        self.warnings: tuple[str, ...] = tuple(warnings)  # e.g. most words in sentences of another language
        self.unknown_words = unknown_words  # words the model never saw in training
        # Words of sentences that look like another language than the model's, by that language (hetdep.models.language).
        self.foreign: Counter[str] = Counter(foreign or {})

    @property
    def foreign_words(self) -> int:
        """How many words are in sentences that look like another language than the model's."""
        return sum(self.foreign.values())

    def __len__(self) -> int:
        return len(self.sentences)

    def __iter__(self) -> Iterator[Sentence]:
        return iter(self.sentences)

    def __getitem__(self, index: int) -> Sentence:
        return self.sentences[index]

    @property
    def words(self) -> list[Word]:
        return [word for sentence in self.sentences for word in sentence.words]

    def to_conllu(self, scheme: str | None = None) -> str:
        """The document as CoNLL-U in one scheme (the model's first by default)."""
        scheme = scheme or self.schemes[0]
        if scheme not in self.schemes:
            raise KeyError(f"no scheme {scheme!r}: this document has {', '.join(self.schemes)}")
        return "".join(sentence.to_conllu(scheme) for sentence in self.sentences)

    def render(self, gold: "Document | None" = None, scheme: str | None = None, enhanced: bool = False) -> str:
        """One self-contained HTML page with every sentence's picture (see :meth:`Sentence.render`)."""
        from hetdep.render.svg import html_page

        if gold is not None and len(gold) != len(self):
            raise ValueError(f"gold has {len(gold)} sentences, this document {len(self)}")
        return html_page([s.render(gold.sentences[k] if gold is not None else None, scheme, enhanced)
                          for k, s in enumerate(self.sentences)])

    def __repr__(self) -> str:
        return f"Document({len(self.sentences)} sentences, {len(self.words)} words, schemes={self.schemes})"

