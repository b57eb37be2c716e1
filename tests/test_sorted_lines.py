"""Lines of a blob read where they lie are the blob's lines, and binary search over them finds
exactly the lines there are."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hetdep.sorted_lines import Lines, SortedStrings, Table, find, table_blob

LINE = st.binary(max_size=6).filter(lambda line: b"\n" not in line)


@given(st.lists(LINE, min_size=1, max_size=40))
def test_lines_are_the_blob_s_lines(lines):
    blob = b"\n".join(lines)
    read = Lines(blob)
    assert len(read) == len(lines) and list(read) == lines
    assert [read[k] for k in range(-len(lines), 0)] == lines
    with pytest.raises(IndexError):
        read[len(lines)]


# Lines long enough to be told apart past their first 16 bytes, of bytes around the zeros the
# comparison pads with (0, 1) and the line break's neighbours.
LONG_LINE = st.binary(max_size=24).map(lambda line: bytes(byte % 4 for byte in line)).filter(lambda line: b"\n" not in line)


@given(st.lists(LONG_LINE, min_size=1, max_size=40), st.booleans())
def test_lines_are_in_order_exactly_when_sorting_leaves_them_so(lines, sort):
    if sort:
        lines.sort()
    assert Lines(b"\n".join(lines)).in_order() == (lines == sorted(lines))


@given(st.lists(LINE, min_size=1, max_size=40, unique=True), st.lists(LINE, max_size=10))
def test_find_in_lines_finds_each_line_and_no_other(lines, asked):
    lines.sort()
    read = Lines(b"\n".join(lines))
    for k, line in enumerate(lines):
        assert find(read, line) == k
    for line in asked:
        assert find(read, line) == (lines.index(line) if line in lines else None)


KEY = st.text(st.characters(blacklist_characters="\n\t", blacklist_categories=("Cs",)), min_size=1, max_size=6)


@given(st.sets(KEY, max_size=30), st.lists(KEY, max_size=10))
def test_sorted_strings_answer_as_the_set_they_were_made_from(strings, asked):
    kept = SortedStrings(b"\n".join(sorted(text.encode("utf-8") for text in strings)))
    assert len(kept) == len(strings) and set(kept) == strings
    assert all(text in kept for text in strings) and all((text in kept) == (text in strings) for text in asked)
    assert 3 not in kept


@given(st.dictionaries(KEY, st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=6),
                       max_size=30), st.lists(KEY, max_size=10))
def test_a_table_answers_as_the_dict_it_was_made_from(entries, asked):
    table = Table(table_blob(entries), "t")
    assert len(table) == len(entries)
    for key in [*entries, *asked]:
        assert table.get(key) == entries.get(key)


def test_a_table_refuses_keys_and_values_its_lines_cannot_hold():
    for bad in ({"": "v"}, {"a\tb": "v"}, {"a\nb": "v"}, {"a": "v\nw"}):
        with pytest.raises(ValueError):
            table_blob(bad)
