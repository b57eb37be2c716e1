"""Scheme converters: bracketed trees and head rules, UD -> SUD, and the convert command."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import EN_SAMPLES, SAMPLES, SHARED_DATA, conllu, needs_shared, write

from hetdep.cli import main
from hetdep.convert.headrules import convert_trees, load_table, parse_table, to_dependencies
from hetdep.convert.ud2sud import convert_sentences, convert_tree
from hetdep.errors import HetdepError, InputError
from hetdep.evaluation.attachment import base_label, evaluate
from hetdep.treebank.conllu import DEPS, ID, read_conllu
from hetdep.treebank.ptb import clean, parse_trees, split_label

# Made-up sentences in Penn Treebank style (the WSJ sample itself may not be shipped).
TREE = """
( (S
    (NP-SBJ-1 (DT The) (JJ old) (NN ferry) )
    (VP (MD will)
      (VP (VB carry)
        (NP (CD 300) (NNS passengers) )
        (PP-DIR (IN across)
          (NP (DT the) (NNP Rhine) (NN river) ))
        (NP-TMP (NNP May) (CD 4) )
        (SBAR (-NONE- 0) (S (-NONE- *T*-1)) )))
    (. .) ))
"""


def test_reader_cleans_labels_and_empty_elements():
    (tree,) = parse_trees(TREE, "t.mrg")
    assert tree.line == 2
    root = clean(tree.root)
    assert [leaf.word for leaf in root.leaves()] == "The old ferry will carry 300 passengers across the Rhine river May 4 .".split()
    subject = root.children[0]
    assert (subject.label, subject.functions) == ("NP", ("SBJ",))
    assert "SBAR" not in root.to_text()  # emptied by removing its -NONE- leaves


@pytest.mark.parametrize("raw, expected", [
    ("NP-SBJ-1", ("NP", ("SBJ",))), ("PP-LOC=2", ("PP", ("LOC",))), ("-LRB-", ("-LRB-", ())),
    ("-NONE-", ("-NONE-", ())), ("ADVP|PRT", ("ADVP", ())), ("S", ("S", ())),
])
def test_split_label(raw, expected):
    assert split_label(raw) == expected


@pytest.mark.parametrize("text, line, message", [
    ("( (S (NP (NN a)) )\n", 1, "never closed"),
    ("( (S (NN a)) ))\n", 1, "closes nothing"),
    ("\n\nword ( (S (NN a)))", 3, "outside any bracket"),
    ("( (S (NN a)) (S (NN b)) )", 1, "holds 2 trees"),
])
def test_reader_refuses_malformed_brackets_naming_the_line(text, line, message):
    with pytest.raises(InputError) as error:
        list(parse_trees(text, "bad.mrg"))
    assert error.value.line == line and message in str(error.value) and "bad.mrg" in str(error.value)


def test_penn2malt_heads_and_labels():
    (tree,) = parse_trees(TREE)
    deps = to_dependencies(clean(tree.root), load_table("penn2malt"))
    #          The old ferry will carry 300 passengers across the Rhine river May 4 .
    assert deps.heads == [3, 3, 4, 0, 4, 7, 5, 5, 11, 11, 8, 5, 12, 4]
    assert deps.labels[2] == "SBJ" and deps.labels[3] == "ROOT" and deps.labels[4] == "VC"
    assert deps.labels[6] == "OBJ" and deps.labels[10] == "PMOD" and deps.labels[13] == "P"


def test_punctuation_never_heads_a_phrase_with_words():
    (tree,) = parse_trees("((PRN (, ,) (VP (VBZ says) (NP (PRP he))) (, ,)))")
    assert to_dependencies(clean(tree.root), load_table("penn2malt")).heads == [2, 0, 2, 2]


def test_collins_table_heads_to_phrases_by_to_and_noun_phrases_by_their_first_noun_phrase():
    """Where Collins' table (ZPar's binarizer's) and Penn2Malt's disagree: VP -> TO VP, and a noun
    phrase of noun phrases (apposition)."""
    (tree,) = parse_trees("((S (NP (NP (NNP Vinken)) (, ,) (NP (NN chairman))) (VP (TO to) (VP (VB retire))) (. .)))")
    root = clean(tree.root)
    #                        Vinken , chairman to retire .
    assert to_dependencies(root, load_table("collins"), labels="phrase").heads == [4, 1, 1, 0, 4, 4]
    assert to_dependencies(root, load_table("penn2malt")).heads == [3, 3, 5, 5, 0, 5]


def test_chinese_table_and_phrase_labels():
    (tree,) = parse_trees("((IP (NP (NR 张三)) (VP (ADVP (AD 很)) (VP (VV 喜欢) (NP (NN 书)))) (PU 。)))")
    deps = to_dependencies(clean(tree.root), load_table("zhang-clark-2008"), labels="phrase")
    assert deps.heads == [3, 3, 0, 3, 3]
    assert deps.labels == ["NP", "ADVP", "root", "NP", "punct"]


def test_unknown_phrase_labels_use_default_and_are_counted():
    table = load_table("penn2malt")
    (tree,) = parse_trees("((S (NP (NN it)) (VP (VBZ works)) (XYZ (NN a) (NN b))))")
    to_dependencies(clean(tree.root), table)
    assert table.unknown == {"XYZ": 1}


def test_table_errors_name_the_line(tmp_path):
    with pytest.raises(InputError, match="line|:2:"):
        parse_table("NP\tr NN\nVP\tup VB\nDEFAULT\tl", "mine.txt")
    with pytest.raises(InputError, match="DEFAULT"):
        parse_table("NP\tr NN", "mine.txt")
    with pytest.raises(HetdepError, match="no head table"):
        load_table(str(tmp_path / "missing.txt"))


def test_a_tree_of_empty_elements_is_an_error_not_a_lost_sentence():
    trees = parse_trees("((S (NP (NN a))))\n((S (-NONE- *)))\n", "e.mrg")
    with pytest.raises(InputError, match="e.mrg:2: tree has no words"):
        list(convert_trees(trees, load_table("penn2malt")))


def test_ud_to_sud_chain_of_function_words():
    # Jean a été vu à Paris .  (UD: content heads)
    heads = [4, 4, 4, 0, 6, 4, 4]
    relations = ["nsubj:pass", "aux:tense", "aux:pass", "root", "case", "obl:mod", "punct"]
    upos = ["PROPN", "AUX", "AUX", "VERB", "ADP", "PROPN", "PUNCT"]
    new_heads, new_relations = convert_tree(heads, relations, upos)
    assert new_heads == [2, 0, 2, 3, 2, 5, 2]
    assert new_relations == ["subj@pass", "root", "comp:aux@tense", "comp:aux@pass", "mod", "comp:obj", "punct"]


def test_ud_to_sud_coordination_is_a_chain():
    # pommes , poires et prunes
    heads, relations = [0, 3, 1, 5, 1], ["root", "punct", "conj", "cc", "conj"]
    new_heads, new_relations = convert_tree(heads, relations, ["NOUN", "PUNCT", "NOUN", "CCONJ", "NOUN"])
    assert new_heads == [0, 3, 1, 5, 3] and new_relations[4] == "conj:coord"


def test_ud_to_sud_agrees_with_the_real_sud_sample():
    ud = list(read_conllu(SAMPLES / "dev.ud.conllu"))
    gold = list(read_conllu(SAMPLES / "dev.sud.conllu"))
    ours = list(convert_sentences(ud))
    assert len(ours) == len(ud)
    assert evaluate(gold, ours).uas >= 95.0
    labels = [(base_label(g.split("@")[0]), base_label(o.split("@")[0]))
              for gs, os_ in zip(gold, ours) for g, o, tag in zip(gs.deprels, os_.deprels, gs.upos) if tag != "PUNCT"]
    assert sum(g == o for g, o in labels) / len(labels) >= 0.90


def test_ud_to_sud_leaves_ud_s_enhanced_graph_out(tmp_path):
    """SUD's releases have no enhanced graph: UD's is not copied into the SUD trees, nor its empty nodes."""
    ud = list(read_conllu(EN_SAMPLES / "dev.ud.conllu"))
    assert any(row[DEPS] != "_" for s in ud for row in s.rows) and any("." in row[ID] for s in ud for row in s.rows)
    sud = list(convert_sentences(ud))
    assert all(row[DEPS] == "_" and "." not in row[ID] for s in sud for row in s.rows)
    assert [s.forms for s in sud] == [s.forms for s in ud]
    out = tmp_path / "sud.conllu"
    assert CliRunner().invoke(main, ["convert", "--from", "ud", "--to", "sud", str(EN_SAMPLES / "dev.ud.conllu"), str(out)]).exit_code == 0
    assert len(list(read_conllu(out))) == len(ud)


def test_ud_to_sud_refuses_cycles(tmp_path):
    path = write(tmp_path, "c.conllu", conllu(("a", "NOUN", 0, "root"), ("b", "NOUN", 1, "nmod")))
    (sentence,) = read_conllu(path)
    sentence.heads[0] = 2  # a cycle that the reader would have refused
    with pytest.raises(InputError, match="cycle"):
        list(convert_sentences([sentence]))


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_cli_converts_ptb_and_ud(tmp_path):
    mrg = write(tmp_path, "t.mrg", TREE + "((S (NP (PRP It)) (VP (VBZ works)) (. .)))\n")
    out = tmp_path / "t.conllu"
    result = run("convert", "--from", "ptb", "--rules", "penn2malt", str(mrg), str(out))
    assert result.exit_code == 0, result.output
    sentences = list(read_conllu(out))
    assert [len(s) for s in sentences] == [14, 3] and sentences[1].heads == [2, 0, 2]

    pair = tmp_path / "pair"
    result = run("convert", "--from", "ud", "--to", "sud", str(SAMPLES), str(pair))
    assert result.exit_code == 0, result.output
    for split in ("train", "dev"):
        ud = list(read_conllu(pair / f"{split}.ud.conllu"))
        sud = list(read_conllu(pair / f"{split}.sud.conllu"))
        assert len(ud) == len(sud) == 200 and ud[0].forms == sud[0].forms


def test_a_folder_with_a_bad_file_changes_nothing_in_out(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    write(folder, "a.ud.conllu", (SAMPLES / "dev.ud.conllu").read_text(encoding="utf-8"))
    write(folder, "b.ud.conllu", "1\tLe\t_\tDET\t_\t_\t0\troot\t_\t_\n2\tchat\t_\n\n")
    out = tmp_path / "out"
    out.mkdir()
    old = write(out, "a.sud.conllu", "an older conversion\n")
    result = run("convert", "--from", "ud", "--to", "sud", str(folder), str(out))
    assert result.exit_code == 2 and "b.ud.conllu:2" in result.output
    assert sorted(p.name for p in out.iterdir()) == ["a.sud.conllu"] and old.read_text() == "an older conversion\n"
    result = run("convert", "--from", "ud", "--to", "sud", str(folder), str(tmp_path / "new"))
    assert result.exit_code == 2 and not (tmp_path / "new").exists()


def test_cli_convert_explains_what_it_needs(tmp_path):
    result = run("convert", "--from", "ud", str(SAMPLES / "dev.ud.conllu"), str(tmp_path / "x"))
    assert result.exit_code == 2 and "--to sud" in result.output
    bad = write(tmp_path, "bad.mrg", "( (S (NN a) )\n")
    result = run("convert", "--from", "ptb", str(bad), str(tmp_path / "y"))
    assert result.exit_code == 2 and "bad.mrg:1" in result.output and "Traceback" not in result.output


@needs_shared
def test_penn2malt_reproduces_the_wsj_sample():
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).parents[1] / "bench" / "accuracy_penn2malt.py"
    output = subprocess.run([sys.executable, str(script), "--data", str(SHARED_DATA / "en-wsj-sample")],
                            capture_output=True, text=True, check=True).stdout
    agreement = float(output.split("heads agree: ")[1].split("%")[0])
    assert agreement >= 99.0, output


@needs_shared
@pytest.mark.parametrize("treebank", ["fr-sequoia", "fr-gsd"])
def test_ud_to_sud_on_real_french(treebank):
    for ud_path in sorted((SHARED_DATA / treebank).glob("*.ud.conllu")):
        gold = list(read_conllu(ud_path.with_name(ud_path.name.replace(".ud.", ".sud."))))
        ours = list(convert_sentences(read_conllu(ud_path)))
        assert len(ours) == len(gold)
        assert evaluate(gold, ours).uas >= 95.0, ud_path


def _convert(*paths):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "hetdep", "convert", "--from", "ptb", *map(str, paths)],
                          capture_output=True, text=True)


def test_deep_brackets_an_empty_preterminal_and_bad_folders_are_one_clear_line(tmp_path):
    deep = write(tmp_path, "deep.mrg", "( " + "(S " * 2000 + "(NN x)" + ")" * 2000 + " )\n")
    result = _convert(deep, tmp_path / "out.conllu")
    assert result.returncode == 2 and "Traceback" not in result.stderr and "nested deeper than 200" in result.stderr
    # Deep but plausible trees still convert (no RecursionError below the limit).
    nested = write(tmp_path, "nested.mrg", "( " + "(S " * 150 + "(NP (NN x)) (VP (VB y))" + ")" * 150 + " )\n")
    assert _convert(nested, tmp_path / "nested.conllu").returncode == 0
    # A preterminal without its word would lose the word: refused, naming the line.
    lost = write(tmp_path, "lost.mrg", "( (S (NP (DT the)\n (NN)) (VP (VB go))) )\n")
    result = _convert(lost, tmp_path / "lost.conllu")
    assert result.returncode == 2 and f"{lost}:2: bracket (NN) holds neither a word nor a phrase" in result.stderr
    # A folder holding a directory named like a tree file, and a broken symbolic link.
    folder = tmp_path / "folder"
    (folder / "sub.mrg").mkdir(parents=True)
    write(folder, "a.mrg", "( (S (NP (NN x)) (VP (VB y))) )\n")
    assert _convert(folder, tmp_path / "folder.conllu").returncode == 0
    (folder / "broken.mrg").symlink_to(tmp_path / "missing.mrg")
    result = _convert(folder, tmp_path / "folder2.conllu")
    assert result.returncode == 2 and "broken.mrg: cannot read" in result.stderr and "Traceback" not in result.stderr


def test_damaged_zip_archives_are_one_clear_line(tmp_path):
    import zipfile

    archive = tmp_path / "trees.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as out:
        out.writestr("wsj_0001.mrg", "( (S (NP (NN x)) (VP (VB y))) )\n" * 200)
    data = archive.read_bytes()
    failures = 0
    for position in range(30, len(data) - 30, max(1, len(data) // 40)):
        flipped = bytearray(data)
        flipped[position] ^= 0xFF
        archive.write_bytes(bytes(flipped))
        result = _convert(archive, tmp_path / "out.conllu")
        assert "Traceback" not in result.stderr, result.stderr[-800:]
        failures += result.returncode == 2
    assert failures  # some flips damage the archive, and each is reported, not raised
