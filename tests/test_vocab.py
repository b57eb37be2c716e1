"""Vocabularies: a saved one read back at once is the one its items give one by one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hetdep.learn.vocab import Vocab


@given(st.lists(st.sampled_from(["<absent>", "<unknown>", "a", "b", "é"]) | st.text(max_size=3), max_size=30))
def test_a_saved_vocabulary_reads_back_as_its_items_added_one_by_one(items):
    read, added = Vocab.from_list(items), Vocab(items)
    assert read.items == added.items and read.index == added.index
    assert read.encode(items).tolist() == added.encode(items).tolist()
