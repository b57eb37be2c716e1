"""Lines of a blob read where they lie are the blob's lines, and binary search over them finds
exactly the lines there are."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hetdep.sorted_lines import Lines, find

LINE = st.binary(max_size=6).filter(lambda line: b"\n" not in line)


@given(st.lists(LINE, min_size=1, max_size=40))
def test_lines_are_the_blob_s_lines(lines):
    blob = b"\n".join(lines)
    read = Lines(blob)
    assert len(read) == len(lines) and list(read) == lines
    assert [read[k] for k in range(-len(lines), 0)] == lines
    with pytest.raises(IndexError):
        read[len(lines)]


@given(st.lists(LINE, min_size=1, max_size=40, unique=True), st.lists(LINE, max_size=10))
def test_find_in_lines_finds_each_line_and_no_other(lines, asked):
    lines.sort()
    read = Lines(b"\n".join(lines))
    for k, line in enumerate(lines):
        assert find(read, line) == k
    for line in asked:
        assert find(read, line) == (lines.index(line) if line in lines else None)
