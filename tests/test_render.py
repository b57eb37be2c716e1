"""Pictures of two trees: one arc per word and scheme, shared arcs solid, wrong arcs marked, nothing fetched or run."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from click.testing import CliRunner
from conftest import SAMPLES

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
