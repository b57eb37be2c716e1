"""Scheme pairs: same sentences in two files, refused with the first mismatch located."""

from __future__ import annotations

import pytest
from conftest import SAMPLES, conllu, needs_shared, shared_files, write

from hetdep.errors import InputError
from hetdep.treebank.pairs import read_pairs

A = conllu(("Le", "DET", 2, "det"), ("chat", "NOUN", 0, "root")) + conllu(("Oui", "INTJ", 0, "root"))


def test_sample_pairs_line_up():
    pairs = read_pairs(SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu")
    assert len(pairs) == 200
    assert all(p.a.forms == p.b.forms and p.a.sent_id == p.b.sent_id for p in pairs)
    assert any(p.a.heads != p.b.heads for p in pairs)  # two schemes, not one file twice


def test_different_counts_are_refused_with_the_extra_sentence(tmp_path):
    a = write(tmp_path, "a.conllu", A)
    b = write(tmp_path, "b.conllu", A + conllu(("Non", "INTJ", 0, "root")))
    with pytest.raises(InputError, match="has more sentences than") as caught:
        read_pairs(a, b)
    assert caught.value.path == str(b) and caught.value.line == 6


def test_different_forms_are_refused_at_the_word(tmp_path):
    a = write(tmp_path, "a.conllu", A)
    b = write(tmp_path, "b.conllu", A.replace("chat", "chien"))
    with pytest.raises(InputError, match="word 2 is 'chien' but 'chat'") as caught:
        read_pairs(a, b)
    assert caught.value.line == 2


def test_different_lengths_are_refused(tmp_path):
    a = write(tmp_path, "a.conllu", A)
    b = write(tmp_path, "b.conllu", conllu(("Le", "DET", 0, "root")) + conllu(("Oui", "INTJ", 0, "root")))
    with pytest.raises(InputError, match="sentence has 1 words but its pair"):
        read_pairs(a, b)


@needs_shared
def test_real_french_pair():
    pairs = read_pairs(*shared_files("fr-sequoia/dev.*.conllu"))
    assert len(pairs) == 412
