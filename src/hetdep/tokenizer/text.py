"""A treebank's text: what its sentences say about the text they were cut from.

Each UD sentence has its ``# text``, its tokens (a multiword token's range line, else the word)
and ``SpaceAfter=No``; these make the tokenizer's training document (:func:`gold_text`, every
character's boundary labelled), the CoNLL 2018 shared task's raw text (:func:`document_text`),
and give back the text a tokenizer's output came from (:func:`rebuild_text`, with the white
space ``SpacesBefore``/``SpacesAfter`` record in MISC).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import numpy as np

from hetdep.tokenizer.multiword import Token
from hetdep.tokenizer.templates import INSIDE, SENTENCE_END, TOKEN_END
from hetdep.treebank.conllu import FORM, ID, MISC, Sentence

_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\", "|": "\\p"}
_UNESCAPE = re.compile(r"\\(s|t|n|r|p|\\|u[0-9A-Fa-f]{4})")


@dataclass
class GoldText:
    """A treebank's sentences as one document with every boundary labelled (-1 at white space)."""

    text: str
    labels: np.ndarray
    sentence_spans: list[tuple[int, int]]  # characters of each sentence
    tokens: list[list[Token]]  # per sentence
    skipped: int  # sentences without # text, or whose tokens do not spell it
    paragraph_ends: np.ndarray  # the last characters of sentences a new paragraph or document follows


def sentence_text(sentence: Sentence) -> str | None:
    for comment in sentence.comments:
        if comment.startswith("# text =") or comment.startswith("# text="):
            return comment.split("=", 1)[1].strip()
    return None


def starts_paragraph(sentence: Sentence) -> bool:
    """Whether the treebank marks a new paragraph or document at this sentence."""
    return any(c.startswith(("# newpar", "# newdoc")) for c in sentence.comments)


def document_text(sentences: Iterable[Sentence]) -> str:
    """A treebank's text as the CoNLL 2018 shared task gave it to the systems: each sentence's
    ``# text`` (its forms when it has none) after a space, or after a blank line where the
    treebank marks a new paragraph or document (``# newpar``, ``# newdoc``)."""
    pieces = []
    for sentence in sentences:
        if pieces:
            pieces.append("\n\n" if starts_paragraph(sentence) else " ")
        pieces.append(sentence_text(sentence) or " ".join(sentence.forms))
    return "".join(pieces)


def token_rows(sentence: Sentence) -> Iterator[tuple[list[str], list[list[str]] | None]]:
    """Each token's row (a multiword token's range line, else the word's) and, for a multiword
    token, the rows of its words; empty nodes are not tokens."""
    words: list[list[str]] | None = None
    words_left = 0
    token = None
    for row in sentence.rows:
        token_id = row[ID]
        if "-" in token_id:
            low, high = token_id.split("-")
            token, words, words_left = row, [], int(high) - int(low) + 1
        elif "." in token_id:
            continue
        elif words_left:
            words.append(row)
            words_left -= 1
            if not words_left:
                yield token, words
        else:
            yield row, None


def sentence_tokens(sentence: Sentence) -> list[Token]:
    """(surface, words or None) for each token."""
    return [(row[FORM], [w[FORM] for w in words] if words is not None else None) for row, words in token_rows(sentence)]


def _space_after(sentence: Sentence) -> bool:
    last = sentence.rows[-1] if sentence.rows else None
    return last is None or "SpaceAfter=No" not in last[MISC].split("|")


def _spans(text: str, forms: Sequence[str]) -> list[tuple[int, int]] | None:
    """Where each token's characters lie in ``text`` (spaces inside a form may be absent from the text)."""
    spans, at = [], 0
    for form in forms:
        while at < len(text) and text[at].isspace():
            at += 1
        start = at
        for char in form:
            if char.isspace():
                continue
            while at < len(text) and text[at].isspace() and at > start:
                at += 1
            if at >= len(text) or text[at] != char:
                return None
            at += 1
        spans.append((start, at))
    return spans


def _final_punctuation(char: str) -> bool:
    """Unicode's "other punctuation" (``.``, ``?``, ``:``, ``…``, ``。``...) but not quotation marks."""
    return unicodedata.category(char) == "Po" and not any(w in unicodedata.name(char, "") for w in ("QUOTATION", "APOSTROPHE"))


def without_final_punctuation(sentence: Sentence) -> Sentence | None:
    """The sentence as it would be without its last token when that token is final punctuation
    (``.``, ``?!``, ``:``, ``。``; closing quotes and brackets stay), or None when it has no such
    token to lose."""
    rows, text = sentence.rows, sentence_text(sentence)
    last = rows[-1][FORM] if rows else ""
    if (not last or len(sentence.word_rows) < 2 or sentence.word_rows[-1] != len(rows) - 1 or not text
            or not text.endswith(last) or not all(_final_punctuation(char) for char in last)):
        return None
    kept = [list(row) for row in rows[:-1]]  # the new last word ends the sentence as the punctuation did
    misc = [m for m in kept[-1][MISC].split("|") if m not in ("SpaceAfter=No", "_")]
    misc += [m for m in rows[-1][MISC].split("|") if m == "SpaceAfter=No"]
    kept[-1][MISC] = "|".join(misc) or "_"
    comments = [f"# text = {text[:-len(last)].rstrip()}" if c.startswith(("# text =", "# text=")) else c
                for c in sentence.comments]
    return Sentence(comments, kept, sentence.word_rows[:-1], sentence.heads[:-1], sentence.path, sentence.line)


def gold_text(sentences: Iterable[Sentence]) -> GoldText:
    pieces: list[str] = []
    labels: list[np.ndarray] = []
    spans, tokens, skipped, length = [], [], 0, 0
    kept: list[tuple[str, list[Token], list[tuple[int, int]], bool, bool]] = []
    for sentence in sentences:
        text, toks = sentence_text(sentence), sentence_tokens(sentence)
        where = _spans(text, [form for form, _ in toks]) if text else None
        if not where:
            skipped += 1
            continue
        kept.append((text, toks, where, _space_after(sentence), starts_paragraph(sentence)))
    spaced = sum(space for _, _, _, space, _ in kept) * 2 >= len(kept)  # how this treebank's sentences follow each other
    paragraph_ends = []
    for k, (text, toks, where, _, new_paragraph) in enumerate(kept):
        if pieces:
            if new_paragraph:
                paragraph_ends.append(length - 1)
            joiner = " " if spaced or k % 2 else ""  # touching sentences also meet a space, as users' text may have
            pieces.append(joiner)
            labels.append(np.full(len(joiner), -1, np.int8))
            length += len(joiner)
        sentence_labels = np.array([-1 if c.isspace() else INSIDE for c in text], dtype=np.int8)
        for start, end in where:
            sentence_labels[end - 1] = TOKEN_END
        sentence_labels[where[-1][1] - 1] = SENTENCE_END
        for i in range(len(text) - 1):  # a token with a space inside: before the space only an end can be learned
            if sentence_labels[i] == INSIDE and text[i + 1].isspace():
                sentence_labels[i] = TOKEN_END
        pieces.append(text)
        labels.append(sentence_labels)
        spans.append((length, length + len(text)))
        tokens.append(toks)
        length += len(text)
    return GoldText("".join(pieces), np.concatenate(labels) if labels else np.zeros(0, np.int8), spans, tokens, skipped,
                    np.array(paragraph_ends, np.int64))


def escaped_space(space: str) -> str:
    """White space as MISC's ``SpacesBefore``/``SpacesAfter`` write it (UDPipe's escapes)."""
    return "".join(_ESCAPES.get(c) or (c if not c.isspace() else f"\\u{ord(c):04x}") for c in space)


def _unescape(value: str) -> str:
    def one(match: re.Match) -> str:
        code = match.group(1)
        return {"s": " ", "t": "\t", "n": "\n", "r": "\r", "p": "|", "\\": "\\"}.get(code) or chr(int(code[1:], 16))
    return _UNESCAPE.sub(one, value)


def rebuild_text(sentences: Iterable[Sentence]) -> str:
    """The text a tokenizer's output came from: its tokens and the white space MISC records."""
    pieces = []
    for sentence in sentences:
        for row, _ in token_rows(sentence):
            misc = dict(item.split("=", 1) for item in row[MISC].split("|") if "=" in item)
            if "SpacesBefore" in misc:
                pieces.append(_unescape(misc["SpacesBefore"]))
            pieces.append(row[FORM])
            if "SpacesAfter" in misc:
                pieces.append(_unescape(misc["SpacesAfter"]))
            elif misc.get("SpaceAfter") != "No":
                pieces.append(" ")
    return "".join(pieces)
