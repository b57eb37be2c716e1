"""CoNLL-U and CoNLL-X reading and writing, built for speed and byte-exact round trips.
(Over 450 lines: the reader and its checks of each column, IDs, trees and DEPS, are one room:
every check reports the reader's own file and line.)

A plain tab-split reader: every token line keeps its ten fields as strings, so writing a
sentence back gives the bytes that were read. Comments, multiword-token ranges (``3-4``)
and empty nodes (``8.1``) stay in place; parsers see only the syntactic words.

CoNLL-X files (ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD DEPREL PHEAD PDEPREL) share the
layout: CPOSTAG sits where CoNLL-U has UPOS and POSTAG where it has XPOS.

Reading streams one sentence at a time, so memory follows the longest sentence, not the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from hetdep.errors import InputError
from hetdep.treebank.outputs import output_files

ID, FORM, LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC = range(10)
COLUMNS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")
NO_HEAD = -1  # a word whose HEAD is "_" (unannotated input)
CONLLU_ID = re.compile(r"[0-9]+([-.][0-9]+)?")
COLUMNS_NOT_PROSE = 6  # tab-separated fields in a line from which sniffing takes a file for CoNLL-U


class Sentence:
    """One sentence: its comment lines, all token rows in file order, and which rows are words.

    ``rows`` holds every token line split into ten strings; ``word_rows`` the positions in
    ``rows`` of the syntactic words (integer IDs), in order. ``heads`` holds the HEAD column
    of the words as integers (0 is the root, ``NO_HEAD`` when unannotated).
    """

    __slots__ = ("comments", "rows", "word_rows", "heads", "path", "line")

    def __init__(self, comments, rows, word_rows, heads, path="<memory>", line=0):
        self.comments: list[str] = comments
        self.rows: list[list[str]] = rows
        self.word_rows: list[int] = word_rows
        self.heads: list[int] = heads
        self.path = path
        self.line = line  # 1-based line of the sentence's first line in its file

    def __len__(self) -> int:
        return len(self.word_rows)

    def column(self, index: int) -> list[str]:
        """The given column (``FORM``, ``UPOS``, ...) over the syntactic words."""
        rows = self.rows
        return [rows[i][index] for i in self.word_rows]

    @property
    def forms(self) -> list[str]:
        return self.column(FORM)

    @property
    def upos(self) -> list[str]:
        return self.column(UPOS)

    @property
    def deprels(self) -> list[str]:
        return self.column(DEPREL)

    @property
    def sent_id(self) -> str | None:
        for comment in self.comments:
            if comment.startswith("# sent_id"):
                return comment.split("=", 1)[1].strip() if "=" in comment else None
        return None

    def word_line(self, word: int) -> int:
        """File line of the 0-based syntactic word ``word``."""
        return self.line + len(self.comments) + self.word_rows[word]

    def describe(self) -> str:
        """Where this sentence is, for error messages."""
        sid = self.sent_id
        return f"{self.path}:{self.line}" + (f" (sent_id {sid})" if sid else "")

    def with_tree(self, heads: Iterable[int], deprels: Iterable[str]) -> "Sentence":
        """A copy with new HEAD and DEPREL for the words; every other column is kept."""
        heads = list(heads)
        deprels = list(deprels)
        if len(heads) != len(self.word_rows) or len(deprels) != len(self.word_rows):
            raise ValueError("with_tree needs one head and one label per word")
        rows = list(self.rows)
        for head, label, i in zip(heads, deprels, self.word_rows):
            row = list(rows[i])
            row[HEAD] = str(head)
            row[DEPREL] = label
            rows[i] = row
        return Sentence(list(self.comments), rows, self.word_rows, heads, self.path, self.line)

    def with_column(self, index: int, values: Iterable[str]) -> "Sentence":
        """A copy with one column (e.g. ``UPOS``) replaced over the words."""
        values = list(values)
        rows = list(self.rows)
        for value, i in zip(values, self.word_rows, strict=True):
            row = list(rows[i])
            row[index] = value
            rows[i] = row
        return Sentence(list(self.comments), rows, self.word_rows, list(self.heads), self.path, self.line)

    def without_enhanced(self) -> "Sentence":
        """The sentence without its enhanced graph: DEPS '_' everywhere, and no empty nodes (which
        exist for that graph alone). A parse's input keeps no graph its parser did not predict, and
        a conversion to another scheme none of the first scheme's."""
        if all(row[DEPS] == "_" and "." not in row[ID] for row in self.rows):
            return self
        rows = [row[:DEPS] + ["_"] + row[DEPS + 1:] for row in self.rows if "." not in row[ID]]
        word_rows = [k for k, row in enumerate(rows) if "-" not in row[ID]]
        return Sentence(list(self.comments), rows, word_rows, list(self.heads), self.path, self.line)

    def to_text(self) -> str:
        lines = self.comments + ["\t".join(row) for row in self.rows]
        return "\n".join(lines) + "\n\n"


@dataclass(frozen=True)
class Problem:
    """One problem found in a file (``hetdep validate`` lists them all)."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _raise(problem: Problem) -> None:
    raise InputError(problem.path, problem.line, problem.message)


def read_conllu(
    path: str | Path,
    *,
    single_root: bool = True,
    require_heads: bool = False,
    on_problem: Callable[[Problem], None] = _raise,
    name: str | None = None,
) -> Iterator[Sentence]:
    """Stream the sentences of a CoNLL-U or CoNLL-X file.

    Every problem (wrong column count, bad ID or HEAD, head out of range, a cycle, several
    roots when ``single_root``, an empty sentence, a BOM, CRLF line ends, bytes that are not
    UTF-8) goes to ``on_problem``, which by default raises :class:`InputError`; a collecting
    callback sees them all, and sentences with problems are then not yielded. ``name`` is how
    messages call the file (``<stdin>`` for a copy of standard input).
    """
    with open_input(str(path), name) as handle:
        yield from _parse(handle, name or str(path), single_root, require_heads, on_problem)


def open_input(path: str, name: str | None = None):
    """The file opened for binary reading, or an InputError naming it (as ``name``, if given)."""
    try:
        return open(path, "rb")
    except OSError as error:
        raise InputError(name or path, None, f"cannot open: {error.strerror}") from None


BLOCK = 1 << 22  # bytes read and decoded at once; lines never straddle blocks


def _lines(handle, path, on_problem) -> Iterator[tuple[int, str | None, bool]]:
    """(line number, line without its end or None if undecodable, whether it was clean) for every line.

    Decodes large blocks at once for speed, and falls back to line-by-line decoding only in
    a block that holds bad bytes, so that the bad line can be named.
    """
    number = 0
    rest = b""
    while True:
        chunk = handle.read(BLOCK)
        data = rest + chunk
        if not chunk:
            if not data:
                return
            rest = b""
        else:
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                rest = data
                continue
            data, rest = data[:cut], data[cut:]
        if number == 0 and data.startswith(b"\xef\xbb\xbf"):
            on_problem(Problem(path, 1, "starts with a byte-order mark (BOM); save the file as UTF-8 without BOM"))
            data = data[3:]
            first_clean = False
        else:
            first_clean = True
        try:
            lines = data.decode("utf-8").split("\n")
            decoded = True
        except UnicodeDecodeError:
            lines = data.split(b"\n")
            decoded = False
        if lines and lines[-1] in ("", b""):
            lines.pop()
        has_cr = b"\r" in data
        for line in lines:
            number += 1
            clean = first_clean or number > 1
            if not decoded:
                try:
                    line = line.decode("utf-8")
                except UnicodeDecodeError as error:
                    on_problem(Problem(path, number, f"not UTF-8 (byte {line[error.start]:#04x} at column {error.start + 1}); re-encode the file as UTF-8"))
                    yield number, None, False
                    continue
            if has_cr and line.endswith("\r"):
                on_problem(Problem(path, number, "CRLF (Windows) line end; convert the file to LF line ends (e.g. dos2unix)"))
                line = line[:-1]
                clean = False
            yield number, line, clean
        if not chunk:
            return


def _parse(handle, path, single_root, require_heads, on_problem) -> Iterator[Sentence]:
    comments: list[str] = []
    rows: list[list[str]] = []
    start = 0  # line where the current sentence began
    bad = False
    for number, line, clean in _lines(handle, path, on_problem):
        if not clean:
            bad = True  # reported already; the sentence holding this line is not kept
            if line is None:
                continue
        if not line:
            if rows:
                sentence = _finish(comments, rows, start, path, single_root, require_heads, on_problem, bad)
                if sentence is not None:
                    yield sentence
            elif comments:
                on_problem(Problem(path, start, "empty sentence: comment lines but no token lines"))
            else:
                on_problem(Problem(path, number, "empty sentence: blank line where a sentence should start"))
            comments, rows, bad = [], [], False
            continue
        if not rows and not comments:
            start = number
        if line[0] == "#":
            if rows:
                on_problem(Problem(path, number, "comment line after token lines (comments must come before a sentence's tokens)"))
                bad = True
            else:
                comments.append(line)
            continue
        fields = line.split("\t")
        if len(fields) != 10:
            on_problem(Problem(path, number, f"expected 10 tab-separated columns, found {len(fields)}"))
            bad = True
            continue
        problem = _field_problem(line, fields)
        if problem:
            on_problem(Problem(path, number, problem))
            bad = True
        rows.append(fields)
    if rows:
        sentence = _finish(comments, rows, start, path, single_root, require_heads, on_problem, bad)
        if sentence is not None:
            yield sentence
    elif comments:
        on_problem(Problem(path, start, "empty sentence at end of file: comment lines but no token lines"))


def _finish(comments, rows, start, path, single_root, require_heads, on_problem, bad) -> Sentence | None:
    """Check IDs and the tree of one sentence; build it unless something was wrong."""
    first_row_line = start + len(comments)
    word_rows: list[int] = []
    heads: list[int] = []
    range_end, last_range, empty = 0, "", (-1, 0)  # the last multiword range's end and ID, the last empty node
    empty_nodes: set[str] = set()
    for k, row in enumerate(rows):
        token_id = row[ID]
        if _is_number(token_id):
            if int(token_id) != len(word_rows) + 1:
                if not bad:  # one problem: every later ID of the sentence is then out of sequence too
                    on_problem(Problem(path, first_row_line + k, f"word ID {token_id} out of sequence (expected "
                                       f"{len(word_rows) + 1})"))
                bad = True
            word_rows.append(k)
            head = row[HEAD]
            if _is_number(head):
                heads.append(int(head))
            elif head == "_":
                heads.append(NO_HEAD)
            else:
                on_problem(Problem(path, first_row_line + k, f"HEAD {head!r} is not a non-negative integer"))
                bad = True
                heads.append(NO_HEAD)
        elif _is_range(token_id):
            first, last = (int(part) for part in token_id.split("-"))
            if first != len(word_rows) + 1 or last <= first or first <= range_end:
                on_problem(Problem(path, first_row_line + k, f"multiword range {token_id} does not fit: a range comes just "
                                   f"before its first word (here word {len(word_rows) + 1}), spans two words or more, "
                                   "and does not overlap the range before it"))
                bad = True
            range_end, last_range = last, token_id
        elif _is_empty_node(token_id):
            word, sub = (int(part) for part in token_id.split("."))
            expected = (len(word_rows), empty[1] + 1 if empty[0] == len(word_rows) else 1)
            if (word, sub) != expected:
                on_problem(Problem(path, first_row_line + k, f"empty node {token_id} out of place: after word "
                                   f"{len(word_rows)} the next empty node is {expected[0]}.{expected[1]}"))
                bad = True
            empty = (word, sub)
            empty_nodes.add(token_id)
        else:
            on_problem(Problem(path, first_row_line + k, f"ID {token_id!r} is neither a word, a range (3-4) nor an empty node (8.1)"))
            bad = True
    if range_end > len(word_rows):
        on_problem(Problem(path, start, f"multiword range {last_range} goes past the last word ({len(word_rows)})"))
        bad = True
    if not word_rows:
        on_problem(Problem(path, start, "sentence has no syntactic words"))
        return None
    if bad:
        return None
    n = len(heads)
    annotated = [h != NO_HEAD for h in heads]
    if require_heads and not all(annotated):
        k = annotated.index(False)
        on_problem(Problem(path, first_row_line + word_rows[k], "HEAD is '_' but a tree is required here"))
        return None
    for k, head in enumerate(heads):
        if head > n:
            on_problem(Problem(path, first_row_line + word_rows[k], f"HEAD {head} out of range (sentence has {n} words)"))
            bad = True
        elif head == k + 1:
            on_problem(Problem(path, first_row_line + word_rows[k], "word is its own head"))
            bad = True
    for k, row in enumerate(rows):
        if row[DEPS] != "_" and not _is_range(row[ID]):
            problem = _deps_problem(row[DEPS], n, empty_nodes)
            if problem:
                on_problem(Problem(path, first_row_line + k, problem))
                bad = True
    if bad:
        return None
    if all(annotated):
        roots = [k for k, h in enumerate(heads) if h == 0]
        if not roots:
            on_problem(Problem(path, start, "no word has HEAD 0 (the tree has no root)"))
            return None
        if single_root and len(roots) > 1:
            on_problem(Problem(path, first_row_line + word_rows[roots[1]], f"{len(roots)} words have HEAD 0; one root is allowed (words {', '.join(str(r + 1) for r in roots)})"))
            return None
    # A cycle is a cycle whether or not the other words have heads ('_' stands in as the root here).
    cycle = find_cycle([0 if head == NO_HEAD else head for head in heads]) if any(annotated) else []
    if cycle:
        on_problem(Problem(path, first_row_line + word_rows[cycle[0] - 1], f"cycle in the tree through words {' -> '.join(map(str, cycle))}"))
        return None
    return Sentence(comments, rows, word_rows, heads, path, start)


def enhanced_edges(deps: str) -> list[tuple[str, str]]:
    """The enhanced graph's edges into one word, from its DEPS column: (head ID, relation), the
    head "0" for the root, a word's number or an empty node's ("8.1"); none for "_". The column is
    one :func:`read_conllu` checked."""
    if deps == "_":
        return []
    return [tuple(edge.split(":", 1)) for edge in deps.split("|")]  # type: ignore[misc]


def word_edges(sentence: Sentence) -> list[list[tuple[int, str]]]:
    """Each word's enhanced edges (head: 0 the root or a word's number; relation), in DEPS's order;
    edges from empty nodes left out."""
    return [[(int(head), relation) for head, relation in enhanced_edges(sentence.rows[k][DEPS]) if "." not in head]
            for k in sentence.word_rows]


def _deps_problem(deps: str, words: int, empty_nodes: set[str]) -> str | None:
    """What breaks CoNLL-U's DEPS syntax: edges "head:relation" joined by "|" in the order of their
    heads, each head the root (0), a word of the sentence or one of its empty nodes."""
    last = (-1, 0)
    for edge in deps.split("|"):
        head, colon, relation = edge.partition(":")
        if edge == "_":
            return f"DEPS {deps!r} mixes '_' (no enhanced edges) with edges"
        if not colon or not relation or " " in relation:
            return f"DEPS edge {edge!r} is not head:relation"
        if _is_number(head):
            if int(head) > words:
                return f"DEPS head {head} out of range (sentence has {words} words)"
            at = (int(head), 0)
        elif _is_empty_node(head):
            if head not in empty_nodes:
                return f"DEPS head {head} is no empty node of the sentence"
            at = tuple(int(part) for part in head.split("."))
        else:
            return f"DEPS head {head!r} is neither 0, a word's ID nor an empty node's"
        if at < last:
            return f"DEPS edges {deps!r} are not in the order of their heads"
        last = at
    return None


_NUMBER = re.compile(r"0|[1-9][0-9]{0,8}")  # ASCII digits, no leading zero, below a billion
_PADDED_FIELDS = (ID, UPOS, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC)  # FORM and LEMMA may hold spaces


def _is_number(text: str) -> bool:
    """A number as CoNLL-U writes it (so not ``01``, ``²`` or ten thousand digits)."""
    return _NUMBER.fullmatch(text) is not None


def _is_range(token_id: str) -> bool:
    first, dash, last = token_id.partition("-")
    return bool(dash) and _is_number(first) and _is_number(last)


def _is_empty_node(token_id: str) -> bool:
    word, dot, sub = token_id.partition(".")
    return bool(dot) and _is_number(word) and _is_number(sub) and sub != "0"


_SUSPECT = re.compile(r"\r|^\s|\s$|\s\t|\t\s")  # what any problem below needs, found in one pass


def _field_problem(line: str, fields: list[str]) -> str | None:
    """What is wrong with a token line's fields taken one by one: an empty one ('_' marks a
    missing value), spaces around a value, or a carriage return inside the line."""
    if _SUSPECT.search(line) is None:  # the common case: no empty field, no CR, no padding
        return None
    for column, value in enumerate(fields):
        if value == "":
            return f"column {COLUMNS[column]} is empty: write '_' for a missing value"
        if "\r" in value:
            return f"a carriage return inside column {COLUMNS[column]}"
        if column in _PADDED_FIELDS and value != value.strip():
            return f"column {COLUMNS[column]} {value!r} has spaces around its value"
    return None


def find_cycle(heads: list[int]) -> list[int]:
    """1-based words of a cycle in a head list (0 = root), or [] if every word reaches the root."""
    n = len(heads)
    state = [0] * (n + 1)  # 0 unseen, 1 on the current path, 2 reaches the root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node - 1]
            if node < 0 or node > n:
                break
        if 0 <= node <= n and state[node] == 1:
            return path[path.index(node):]
        for visited in path:
            state[visited] = 2
    return []


def write_conllu(sentences: Iterable[Sentence], path: str | Path) -> int:
    """Write sentences to a file (streaming, whole or not at all, see :func:`output_files`); returns how many."""
    count = 0
    with output_files(path) as (out,):
        for sentence in sentences:
            out.write(sentence.to_text())
            count += 1
    return count


def _root_label_problems(sentence: Sentence, path: str) -> list[Problem]:
    """A word on HEAD 0 whose label is not root, and a word labelled root on another head (unlabelled
    words, ``_``, pass; ROOT as CoNLL-X converters write it, and root's subtypes, are root)."""
    problems = []
    for k, (head, label) in enumerate(zip(sentence.heads, sentence.column(DEPREL))):
        rooted = label.split(":")[0].lower() == "root"
        if label != "_" and head != NO_HEAD and (head == 0) != rooted:
            line = sentence.line + len(sentence.comments) + sentence.word_rows[k]
            problems.append(Problem(path, line, f"HEAD 0 with the label {label!r}: the root's label is root" if head == 0
                                    else f"the label {label!r} on HEAD {head}: only the word on HEAD 0 is the root"))
    return problems


def collect_problems(path: str | Path, *, single_root: bool = True, require_heads: bool = False) -> tuple[int, list[Problem]]:
    """Read a whole file and return (number of good sentences, every problem found)."""
    problems: list[Problem] = []
    good = 0
    for sentence in read_conllu(path, single_root=single_root, require_heads=require_heads, on_problem=problems.append):
        labels = _root_label_problems(sentence, str(path))
        problems += labels
        good += not labels
    if not good and not problems:
        problems.append(Problem(str(path), 1, "the file holds no sentence"))
    return good, problems
