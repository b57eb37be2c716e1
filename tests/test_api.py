"""The Python API: hetdep.load, documents with one tree per scheme, the same trees as the command line."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SAMPLES, write

import hetdep
from hetdep.cli import main
from hetdep.errors import HetdepError, InputError
from hetdep.treebank.conllu import FEATS, read_conllu

TEXT = "Le ministre parle du budget au public. Les élèves de l'école visitent le musée."


def test_raw_text_to_both_schemes_and_the_same_conllu_as_the_command_line(pipeline_model, tmp_path):
    nlp = hetdep.load(pipeline_model)
    assert nlp.kind == "joint" and nlp.schemes == ("sud", "ud") and nlp.has_tokenizer and nlp.has_tagger
    doc = nlp(TEXT)
    assert len(doc) == 2 and doc.schemes == ("sud", "ud")
    first = doc.sentences[0]
    assert [w.form for w in first.words][:6] == ["Le", "ministre", "parle", "de", "le", "budget"]
    assert first.text == "Le ministre parle du budget au public."
    for sentence in doc:
        for scheme in doc.schemes:
            heads = [w.head[scheme] for w in sentence.words]
            assert heads.count(0) == 1 and all(0 <= h <= len(sentence) for h in heads)
            assert all(w.deprel[scheme] not in ("", "_") for w in sentence.words)
    out_a, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(write(tmp_path, "t.txt", TEXT)),
                                       "--output", str(out_a), "--output-b", str(out_b)])
    assert result.exit_code == 0, result.output
    assert doc.to_conllu("sud") == out_a.read_text(encoding="utf-8") and doc.to_conllu("ud") == out_b.read_text(encoding="utf-8")


def test_tokens_threads_and_processes_give_the_same_trees(pipeline_model):
    nlp = hetdep.load(pipeline_model)
    tokens = [["Le", "chat", "dort", "."], ["Il", "parle", "de", "le", "livre", "."]]
    expected = nlp.parse(tokens=tokens).to_conllu("ud")
    results = [None] * 4

    def parse(k):
        results[k] = nlp.parse(tokens=tokens).to_conllu("ud")

    threads = [threading.Thread(target=parse, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4
    texts = [TEXT, "Il pleut.", "Bonjour le monde."] * 3
    serial = [d.to_conllu("sud") for d in nlp.pipe(texts)]
    assert [d.to_conllu("sud") for d in nlp.pipe(texts, batch_size=2, n_process=2)] == serial
    # One call's sentences on three threads: the same trees, every word counted once.
    sentences = list(read_conllu(SAMPLES / "dev.ud.conllu"))
    threaded = hetdep.load(pipeline_model, threads=3)
    assert threaded.parse_sentences(sentences).to_conllu("ud") == nlp.parse_sentences(sentences).to_conllu("ud")
    assert threaded._models.stats.words == sum(len(sentence) for sentence in sentences)
    with pytest.raises(HetdepError, match="threads must be a whole number"):
        hetdep.load(pipeline_model, threads=0)


def test_what_a_model_cannot_do_is_refused(pipeline_model, tmp_path):
    nlp = hetdep.load(pipeline_model)
    with pytest.raises(HetdepError, match="list of words"):
        nlp.parse(tokens=["Le chat dort ."])
    with pytest.raises(HetdepError, match="must be a string"):
        nlp(["Le", "chat"])
    with pytest.raises(KeyError, match="no scheme 'xyz'"):
        nlp(TEXT).to_conllu("xyz")
    with pytest.raises(HetdepError, match=r"lone surrogate \(U\+DC80 at character 4\)"):
        nlp("Le \udc80 chat.")
    with pytest.raises(HetdepError, match="lone surrogate"):
        nlp.parse(tokens=[["Le", "\ud800"]])
    bare = tmp_path / "bare"
    assert CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                     "--model", str(bare), "--beam", "2", "--iterations", "1", "--gold-tags",
                                     "--no-tokenizer"]).exit_code == 0
    single = hetdep.load(bare)
    assert single.schemes == ("ud",) and not single.has_tokenizer
    with pytest.raises(HetdepError, match="has no tokenizer"):
        single(TEXT)
    with pytest.raises(InputError, match="has no tagger"):
        single.parse(tokens=[["Le", "chat", "dort", "."]])


def test_the_readme_python_blocks_run(tmp_path, monkeypatch, capsys):
    pytest.importorskip("torch", reason="the shipped model is a neural one: it needs PyTorch ('hetdep[neural]')")
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert printed.startswith("1 Le le DET") and "# text = Le conseil municipal s'est réuni hier soir." in printed


def test_documents_draw_their_two_trees(pipeline_model):
    doc = hetdep.load(pipeline_model)(TEXT)
    html = doc.render()
    assert html.startswith("<!DOCTYPE html>") and html.count("<figure>") == len(doc) and "<script" not in html
    svg = doc[0].render()
    assert svg.count('class="arc') == 2 * len(doc[0]) and ">sud<" in svg and ">ud<" in svg
    against_itself = doc[0].render(gold=doc[0], scheme="ud")
    assert against_itself.count('class="arc') == len(doc[0]) and 'class="arc wrong"' not in against_itself


def test_two_graph_parsers_helping_each_other(tmp_path):
    from hetdep.graph.parser import train_graph
    from hetdep.learn.perceptron import TrainOptions
    from hetdep.treebank.conllu import read_conllu

    for scheme in ("ud", "sud"):
        sentences = list(read_conllu(SAMPLES / f"train.{scheme}.conllu"))[:40]
        train_graph(sentences, [], TrainOptions(iterations=1)).parser.save(tmp_path / scheme)
    nlp = hetdep.load(tmp_path / "ud", helper=tmp_path / "sud")
    assert nlp.kind == "dep1" and len(nlp.schemes) == 2
    dev = list(read_conllu(SAMPLES / "dev.ud.conllu"))[:5]  # tagged CoNLL-U: these models have no tagger
    doc = nlp.parse_sentences(dev)
    assert len(doc) == 5 and all(set(w.head) == set(nlp.schemes) for w in doc.words)


def test_each_scheme_s_features_are_the_word_s_own_in_that_scheme():
    """A joint model's schemes may give a word different FEATS (SUD's ExtPos on a cardinal
    determiner): ``word.scheme_feats`` has each, as ``to_conllu(scheme)`` writes it."""
    doc = hetdep.load()("Il a acheté 30 pommes.")
    sentence = doc.sentences[0]
    for scheme in sentence.schemes:
        assert [word.scheme_feats[scheme] for word in sentence] == sentence.tree(scheme).column(FEATS)
    assert [word.feats for word in sentence] == sentence.tree(sentence.schemes[0]).column(FEATS)
    thirty = next(word for word in sentence if word.form == "30")
    assert thirty.scheme_feats["sud"] != thirty.scheme_feats["ud"], thirty
