"""Pictures of two trees: one arc per word and scheme, shared arcs solid, wrong arcs marked, nothing fetched or run."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from click.testing import CliRunner
from conftest import SAMPLES, write

from hetdep.cli import main
from hetdep.render.sentences import page, picture
from hetdep.treebank.conllu import read_conllu

SVG = "{http://www.w3.org/2000/svg}"


def _arcs(svg: str) -> list[str]:
    root = ET.fromstring(svg)  # well-formed XML
    return [path.get("class") for path in root.iter(f"{SVG}path")]


def test_two_schemes_one_arc_per_word_each_shared_arcs_solid():
    sud = list(read_conllu(SAMPLES / "dev.sud.conllu"))[:20]
    ud = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:20]
    for a, b in zip(sud, ud):
        classes = _arcs(picture(a, "sud", b, "ud"))
        assert len(classes) == 2 * len(a)
        differ = sum(x != y for x, y in zip(a.heads, b.heads))
        assert sum("differs" in c for c in classes) == 2 * differ  # each differing word: dashed above and below
        svg = picture(a, "sud", b, "ud")
        assert "<script" not in svg and "href" not in svg and ">sud<" in svg and ">ud<" in svg


def test_a_prediction_against_gold_marks_exactly_the_wrong_heads():
    gold = list(read_conllu(SAMPLES / "dev.ud.conllu"))[3]
    heads = list(gold.heads)
    leaf = next(d for d in range(1, len(heads) + 1) if d not in heads and heads[d - 1] != 0)
    heads[leaf - 1] = next(h for h in range(1, len(heads) + 1) if h not in (leaf, heads[leaf - 1]))
    labels = gold.deprels
    relabelled = 1 if leaf != 1 else 2
    labels[relabelled - 1] = "xcomp"
    predicted = gold.with_tree(heads, labels)
    svg = picture(predicted, "ud", gold=gold)
    assert sum("wrong" in c for c in _arcs(svg)) == 1
    assert svg.count('class="label wrong-label"') == (gold.deprels[relabelled - 1] != "xcomp")


def test_a_long_sentence_and_a_page_of_many(tmp_path):
    sentences = list(read_conllu(SAMPLES / "train.ud.conllu"))
    longest = max(sentences, key=len)
    assert len(longest) >= 60
    root = ET.fromstring(picture(longest, "ud"))
    assert len(list(root.iter(f"{SVG}path"))) == len(longest) and float(root.get("height")) < 1000
    html = page(sentences[:30], ["ud"])
    assert html.count("<figure>") == 30 and "<script" not in html


def test_render_command(tmp_path):
    out = tmp_path / "trees.html"
    args = ["render", str(SAMPLES / "dev.sud.conllu"), "--input-b", str(SAMPLES / "dev.ud.conllu"), "--output", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").count("<figure>") == 200
    svg = tmp_path / "one.svg"
    assert CliRunner().invoke(main, [*args[:-1], str(svg), "--sentence", "5"]).exit_code == 0
    assert len(_arcs(svg.read_text(encoding="utf-8"))) == 2 * len(list(read_conllu(SAMPLES / "dev.ud.conllu"))[4])
    refused = CliRunner().invoke(main, [*args[:-1], str(svg)])
    assert refused.exit_code == 2 and "--sentence" in refused.output


TREE = "(TOP (S (NP (DT The) (NN dog)) (VP (VBZ barks) (ADVP (RB loudly))) (. .)))\n"
DEPENDENCIES = (  # the same words as a dependency tree (Penn2Malt's labels)
    "1\tThe\t_\tDET\tDT\t_\t2\tNMOD\t_\t_\n2\tdog\t_\tNOUN\tNN\t_\t3\tSBJ\t_\t_\n"
    "3\tbarks\t_\tVERB\tVBZ\t_\t0\tROOT\t_\t_\n4\tloudly\t_\tADV\tRB\t_\t3\tVMOD\t_\t_\n5\t.\t_\tPUNCT\t.\t_\t3\tP\t_\t_\n\n")


def _tree(text: str):
    from hetdep.treebank.ptb import parse_trees

    return next(parse_trees(text, "trees.mrg"))


def test_a_phrase_tree_draws_each_phrase_once_a_line_to_each_child_and_the_dependencies_below(tmp_path):
    from hetdep.render.sentences import phrase_picture

    root = ET.fromstring(phrase_picture(_tree(TREE), "phrase structure"))
    labels = [text.text for text in root.iter(f"{SVG}text") if text.get("class") == "label-phrase"]
    assert sorted(labels) == ["ADVP", "NP", "S", "VP"]  # TOP, the file's wrapper, is not drawn
    assert len(_arcs(phrase_picture(_tree(TREE), "phrase structure"))) == 3 + 2 + 2 + 1  # S, NP, VP, ADVP's children
    below = next(read_conllu(write(tmp_path, "deps.conllu", DEPENDENCIES)))
    assert len(_arcs(phrase_picture(_tree(TREE), "phrase structure", below, "penn2malt"))) == 8 + len(below)


def test_a_phrase_tree_against_gold_marks_exactly_the_phrases_gold_lacks():
    from hetdep.render.sentences import phrase_picture

    predicted = _tree("(TOP (S (NP (DT The) (NN dog)) (VP (VBZ barks) (RB loudly) (. .))))")
    gold = _tree("( (S (NP-SBJ-1 (DT The) (NN dog)) (VP (VBZ barks) (ADVP (RB loudly)) (-NONE- *T*-1)) (. .)) )")
    svg = phrase_picture(predicted, "phrase structure", gold=gold)
    assert svg.count('class="label-phrase wrong-label"') == 1  # VP over "barks loudly ."; NP and S are gold's (function tags, traces aside)
    assert sum(c == "arc wrong" for c in _arcs(svg)) == 3  # its lines to its three words


def test_a_phrase_tree_thousands_of_words_deep_draws():
    from hetdep.render.sentences import phrase_picture
    from hetdep.treebank.ptb import Node, Tree

    root = Node("X", [Node("NN", word="w")])
    for _ in range(2999):
        root = Node("X", [Node("NN", word="w"), root])
    root = ET.fromstring(phrase_picture(Tree(root, "deep.mrg", 1), "phrase structure"))
    assert len(list(root.iter(f"{SVG}path"))) == 2 * 3000 - 1


def test_render_command_draws_phrase_trees(tmp_path):
    trees = write(tmp_path, "out.mrg", TREE * 3)
    deps = write(tmp_path, "out.conllu", DEPENDENCIES * 3)
    out = tmp_path / "trees.html"
    result = CliRunner().invoke(main, ["render", str(trees), "--input-b", str(deps), "--output", str(out)])
    assert result.exit_code == 0, result.output
    drawn = out.read_text(encoding="utf-8")
    assert drawn.count("<figure>") == 3 and drawn.count(">VP<") == 3 and drawn.count(">SBJ<") == 3  # phrases, and arcs below
    one = tmp_path / "one.svg"
    result = CliRunner().invoke(main, ["render", str(trees), "--gold", str(trees), "--sentence", "2", "--output", str(one)])
    assert result.exit_code == 0 and "wrong-label\"" not in one.read_text(encoding="utf-8")
    for args, said in ((["--gold", str(deps)], "bracketed gold trees"),
                       (["--input-b", str(write(tmp_path, "two.conllu", DEPENDENCIES * 2))], "3 trees")):
        result = CliRunner().invoke(main, ["render", str(trees), *args, "--output", str(tmp_path / "no.html")])
        assert result.exit_code == 2 and said in result.output and not (tmp_path / "no.html").exists()
