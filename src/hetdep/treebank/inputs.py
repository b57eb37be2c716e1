"""Input that is not CoNLL-U: tokenized text (one sentence a line) and raw text, and which of
them (or CoNLL-U) a file is, so ``--format auto`` never takes a CoNLL-U file for text."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from hetdep.errors import InputError
from hetdep.treebank.conllu import COLUMNS_NOT_PROSE, CONLLU_ID, NO_HEAD, Sentence, open_input


def read_tokenized_text(path: str | Path, name: str | None = None) -> Iterator[Sentence]:
    """Sentences of a plain tokenized text: one sentence a line, tokens separated by spaces.

    Blank lines separate nothing and are skipped; a tab (the text is probably CoNLL-U, or
    columns) or bytes that are not UTF-8 are an error naming the line. Each sentence gets
    ``# sent_id = LINE`` and ``# text``; every column but ID and FORM is ``_``.
    """
    with open_input(str(path), name) as handle:
        path = name or str(path)
        for number, raw in enumerate(handle, 1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError:
                raise InputError(path, number, "not UTF-8 (text must be UTF-8)") from None
            if "\t" in line:
                raise InputError(path, number, "a tab in tokenized text: give CoNLL-U files with --format conllu")
            tokens = line.split()
            if not tokens:
                continue
            rows = [[str(i), token, "_", "_", "_", "_", "_", "_", "_", "_"] for i, token in enumerate(tokens, 1)]
            yield Sentence([f"# sent_id = {number}", "# text = " + " ".join(tokens)], rows, list(range(len(rows))),
                           [NO_HEAD] * len(rows), path, number)


def read_raw_text(path: str | Path, name: str | None = None) -> str:
    """A raw text file's text (UTF-8, a byte-order mark dropped); bytes that are not UTF-8 are an error naming the line."""
    with open_input(str(path), name) as handle:
        data = handle.read()
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(name or str(path), line, f"not UTF-8 (byte {data[error.start]:#04x}); text must be UTF-8") from None


def sniff_format(path: str | Path) -> str:
    """'conllu' when the file's first line that is neither blank nor a comment is columns (six
    tab-separated fields or more: CoNLL-U has ten, prose hardly five tabs in a line) or a word ID
    and a tab, or the file holds nothing but comments; else 'text'.

    A byte-order mark is dropped (at the start of the file, or of a comment line) and lines are split on LF alone (a CR, a form feed, U+2028 or
    U+0085 inside a comment does not end its line, as it does not for the CoNLL-U reader), so a
    CoNLL-U file is never taken for text: a bad line of it is then named by the reader.
    """
    with open_input(str(path)) as handle:
        head = handle.read(1 << 16)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    text = head.decode("utf-8", "replace")
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if line.strip() and not line.lstrip("\ufeff").startswith("#"):  # a stray byte-order mark before a comment: the reader names its line
            fields = line.split("\t")
            columns = len(fields) >= COLUMNS_NOT_PROSE or (len(fields) > 1 and CONLLU_ID.fullmatch(fields[0]))
            return "conllu" if columns else "text"
    return "conllu" if text.strip() else "text"
