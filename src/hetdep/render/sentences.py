"""CoNLL-U sentences to pictures: the trees of one or two schemes over the same words, or a
prediction against its gold tree."""

from __future__ import annotations

from typing import Sequence

from hetdep.errors import MismatchError
from hetdep.render.svg import Tree, html_page, sentence_svg
from hetdep.treebank.conllu import UPOS, Sentence
from hetdep.treebank.pairs import check_same_words


def tree_of(sentence: Sentence, name: str) -> Tree:
    return Tree(name, list(sentence.heads), sentence.deprels)


def picture(sentence: Sentence, name: str, other: Sentence | None = None, other_name: str = "",
            gold: Sentence | None = None) -> str:
    """The SVG of ``sentence``'s tree, with ``other`` (the same words in another scheme) below it, or
    against ``gold`` (the same words and scheme)."""
    for partner in (other, gold):
        if partner is not None:
            check_same_words(sentence, partner)
    title = f"{sentence.sent_id or ''}" + (" (against gold: wrong heads red)" if gold is not None else "")
    return sentence_svg(sentence.forms, sentence.column(UPOS), tree_of(sentence, name),
                        tree_of(other, other_name) if other is not None else None,
                        tree_of(gold, f"{name} gold") if gold is not None else None, title=title.strip())


def page(sentences: Sequence[Sentence], names: Sequence[str], others: Sequence[Sentence] | None = None,
         golds: Sequence[Sentence] | None = None, title: str = "hetdep") -> str:
    """Many sentences (with their other-scheme or gold partners, in order) as one HTML page."""
    for partners, what in ((others, "other-scheme"), (golds, "gold")):
        if partners is not None and len(partners) != len(sentences):
            at = min(len(partners), len(sentences))
            longer = partners if len(partners) > len(sentences) else sentences
            raise MismatchError(longer[at].path, longer[at].line, f"{len(sentences)} sentences against {len(partners)} "
                                f"{what} sentences; the first unmatched one starts here")
    svgs = [picture(sentence, names[0], others[k] if others is not None else None, names[1] if len(names) > 1 else "",
                    golds[k] if golds is not None else None) for k, sentence in enumerate(sentences)]
    return html_page(svgs, title)
