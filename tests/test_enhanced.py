"""Enhanced UD graphs (issue 90): labels with their marking word as a slot and back, the decoder's
valid graphs, the graph head's NumPy pass against PyTorch's, and the command line from training to
DEPS, validate and ELAS, on the shipped en-ewt sample. Small networks: accuracy is bench/raw_text.py's."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import EN_SAMPLES, SAMPLES, torch_network, write
from hypothesis import given, settings
from hypothesis import strategies as st

from hetdep.cli import main
from hetdep.neural.enhanced import SLOT, decoded_graph, deps_column, learned_labels, written_label
from hetdep.treebank.conllu import DEPS, ID, enhanced_edges, read_conllu

torch = pytest.importorskip("torch", reason="the graph head trains with PyTorch")

TRAIN = list(read_conllu(EN_SAMPLES / "train.ud.conllu"))


def test_labels_learned_with_a_slot_are_written_back_as_the_treebank_wrote_them():
    """Every gold graph of the sample, its labels made slots and filled again from the gold tree,
    is its DEPS column exactly (empty nodes' edges aside); the slot stands for most subtyped labels."""
    slotted = edges = 0
    for sentence in TRAIN:
        learned = learned_labels(sentence)
        forms, heads, deprels = sentence.forms, sentence.heads, sentence.deprels
        for word, k in enumerate(sentence.word_rows):
            mine = [(head, written_label(label, forms, heads, deprels, word))
                    for (dependent, head), label in learned.items() if dependent == word + 1]
            gold = [(int(head), relation) for head, relation in enhanced_edges(sentence.rows[k][DEPS]) if "." not in head]
            assert sorted(mine) == sorted(gold), sentence.describe()
        slotted += sum(label.endswith(SLOT) for label in learned.values())
        edges += len(learned)
    assert slotted > 200 and edges > 3000
    assert "obl:in" in {relation for s in TRAIN for k in s.word_rows for _, relation in enhanced_edges(s.rows[k][DEPS])}


def test_an_unseen_preposition_still_gets_its_label():
    """"obl:{marker}" written for a word whose case child is a preposition no training graph had."""
    forms, heads, deprels = ["sat", "amidst", "ruins"], [0, 3, 1], ["root", "case", "obl"]
    assert written_label(f"obl:{SLOT}", forms, heads, deprels, 2) == "obl:amidst"
    assert written_label(f"obl:{SLOT}", forms, [0, 1, 1], ["root", "advmod", "obl"], 2) == "obl"  # no marker: the base
    assert written_label("acl:relcl", forms, heads, deprels, 2) == "acl:relcl"
    # "A, B and C": B's conj label reads the cc of C, its fellow conjunct
    forms, heads, deprels = ["A", "B", "and", "C"], [0, 1, 4, 1], ["root", "conj", "cc", "conj"]
    assert written_label(f"conj:{SLOT}", forms, heads, deprels, 1) == "conj:and"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.lists(st.floats(0, 1), min_size=(n + 1) ** 2, max_size=(n + 1) ** 2),
    st.permutations(list(range(1, n + 1))))))
def test_every_decoded_graph_is_valid(case):
    """Whatever the edge probabilities: each word has a head, the root reaches every word, the basic
    tree's edges fill in only where they must."""
    flat, order = case
    n = len(order)
    heads = [0] * n  # a chain in a random order: order[0] on the root, each next one on the one before
    for before, word in zip(order, order[1:]):
        heads[word - 1] = before
    probabilities = np.array(flat).reshape(n + 1, n + 1)
    graph = decoded_graph(probabilities, heads)
    assert all(graph[i] for i in range(n))
    reached, frontier = {0}, [0]
    while frontier:
        head = frontier.pop()
        for word in range(1, n + 1):
            if head in graph[word - 1] and word not in reached:
                reached.add(word)
                frontier.append(word)
    assert reached == set(range(n + 1))
    for word in range(1, n + 1):
        likely = [j for j in range(n + 1) if j != word and probabilities[word, j] > 0.5]
        assert set(likely) <= set(graph[word - 1]) <= set(likely) | {heads[word - 1]}


def test_deps_are_written_in_the_order_of_their_heads():
    assert deps_column([(4, "obl:in"), (0, "root"), (2, "nsubj")]) == "0:root|2:nsubj|4:obl:in"
    assert deps_column([]) == "_"


@functools.cache
def _trained():
    from hetdep.neural.training import NeuralOptions, train_neural

    dev = [list(read_conllu(EN_SAMPLES / "dev.ud.conllu"))[:40]]
    return train_neural([TRAIN], dev, NeuralOptions(epochs=3, final_epochs=0, hidden=48, layers=1, threads=1,
                                                    batch_words=300, enhanced=True))


def test_the_graph_head_s_numpy_pass_is_the_pytorch_one():
    parser = _trained().parser
    assert parser.shape.enhanced_labels == len(parser.vocabularies.enhanced) > 20
    assert "ELAS" in _trained().history[-1].dev_detail
    network = torch_network(parser)
    batch = parser.encoder.batch([TRAIN[:30]])
    with torch.inference_mode():
        encoded = network.encode(batch.tensors())
        edges = torch.sigmoid(network.graph.arc_scores(encoded)).numpy()
        rows, dependents, heads = (torch.from_numpy(a) for a in np.nonzero(edges > 0.3))
        labels = network.graph.edge_labels(encoded, rows, dependents, heads).argmax(-1).numpy()
    mine = parser.network.encode(batch)
    np.testing.assert_allclose(parser.network.edge_probabilities(mine), edges, atol=1e-5)
    assert (parser.network.edge_labels(mine, rows.numpy(), dependents.numpy(), heads.numpy()) == labels).all()


def test_a_parse_writes_a_valid_graph_for_every_sentence(tmp_path):
    parser = _trained().parser
    dev = list(read_conllu(EN_SAMPLES / "dev.ud.conllu"))
    parsed = list(parser.parse(dev))
    assert len(parsed) == len(dev)
    write(tmp_path, "out.conllu", "".join(tree.to_text() for tree in parsed))
    assert CliRunner().invoke(main, ["validate", str(tmp_path / "out.conllu")]).exit_code == 0
    for tree in parsed:
        graph = [enhanced_edges(tree.rows[k][DEPS]) for k in tree.word_rows]
        assert all(graph) and not any("." in row[ID] for row in tree.rows)


def test_train_enhanced_parses_raw_text_to_deps_and_eval_scores_them(tmp_path):
    model = tmp_path / "m"
    runner = CliRunner()
    result = runner.invoke(main, ["train", "--train", str(EN_SAMPLES / "train.ud.conllu"), "--dev", str(EN_SAMPLES / "dev.ud.conllu"),
                                  "--model", str(model), "--enhanced", "--iterations", "1", "--final-epochs", "0",
                                  "--threads", "1", "--embeddings", "none"])
    assert result.exit_code == 0, result.output
    assert "enhanced graphs (DEPS): 200 of 200 training sentences have one" in result.output
    text = write(tmp_path, "dev.txt", "".join(s.comments[[c.startswith("# text = ") for c in s.comments].index(True)][9:] + "\n"
                                              for s in read_conllu(EN_SAMPLES / "dev.ud.conllu")))
    out = tmp_path / "out.conllu"
    result = runner.invoke(main, ["parse", "--model", str(model), "--input", str(text), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert all(s.rows[k][DEPS] != "_" for s in read_conllu(out) for k in s.word_rows)
    scored = runner.invoke(main, ["eval", "--conll18", str(EN_SAMPLES / "dev.ud.conllu"), str(out)])
    assert scored.exit_code == 0 and "ELAS" in scored.output and "EULAS" in scored.output, scored.output
    assert "enhanced graphs: yes, in the DEPS of ud" in runner.invoke(main, ["info", str(model)]).output
    import hetdep

    document = hetdep.load(model)("The dog that I saw barked at the cat and the bird.")
    assert all(word.deps["ud"] for word in document.words)  # hetdep.load: each word's edges (head, label)
    assert any(head == word.head["ud"] for word in document.words for head, _ in word.deps["ud"])
    from starlette.testclient import TestClient

    from hetdep.service.app import create_app

    answer = TestClient(create_app({"en-enhanced": str(model)})).post(  # the service keeps the column
        "/process", data={"data": "The dog barked.", "model": "en-enhanced", "tokenizer": "", "tagger": "", "parser": ""})
    rows = [line.split("\t") for line in answer.json()["result"].splitlines() if line and not line.startswith("#")]
    assert rows and all(row[DEPS] != "_" for row in rows)
    spacy = pytest.importorskip("spacy", reason="spaCy's component is checked where spaCy is installed")
    nlp = spacy.blank("en")
    nlp.add_pipe("hetdep", config={"model": str(model), "scheme": "ud"})
    doc = nlp("The dog barked at the cat.")
    assert all(token._.hetdep_deps["ud"] for token in doc)


def test_a_training_file_without_graphs_is_refused_before_any_training(tmp_path):
    result = CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                       "--model", str(tmp_path / "m"), "--enhanced"])
    assert result.exit_code == 2 and "--enhanced: no training sentence of" in result.output and "Traceback" not in result.output
    assert "tokenizer" not in result.output and not (tmp_path / "m").exists()


def test_graphs_in_some_sentences_only_teach_from_those_and_say_how_many(tmp_path):
    text = (EN_SAMPLES / "train.ud.conllu").read_text(encoding="utf-8")
    blocks = text.split("\n\n")
    cut = [block if k % 2 else "\n".join("\t".join(f[:8] + ["_"] + f[9:]) if not line.startswith("#") else line
                                           for line in block.splitlines() if line.startswith("#") or "." not in line.split("\t")[0]
                                           for f in [line.split("\t")])
           for k, block in enumerate(blocks)]
    train = write(tmp_path, "train.conllu", "\n\n".join(cut))
    from hetdep.neural.enhanced import graphs_taught

    line = graphs_taught([("", [list(read_conllu(train))])], train)
    assert line == "enhanced graphs (DEPS): 100 of 200 training sentences have one"


def test_render_draws_a_tree_with_its_enhanced_graph_below(tmp_path):
    runner = CliRunner()
    out = tmp_path / "graph.svg"
    number, sentence = next((k, s) for k, s in enumerate(TRAIN, 1) if any(  # one with an edge its tree has not
        (word, int(head)) not in set(enumerate(s.heads, 1)) for word, row in enumerate(s.word_rows, 1)
        for head, _ in enhanced_edges(s.rows[row][DEPS]) if "." not in head))
    result = runner.invoke(main, ["render", str(EN_SAMPLES / "train.ud.conllu"), "--enhanced", "--sentence", str(number),
                                  "--output", str(out)])
    assert result.exit_code == 0, result.output
    picture = out.read_text(encoding="utf-8")
    edges = sum(1 for k in sentence.word_rows for head, _ in enhanced_edges(sentence.rows[k][DEPS]) if "." not in head)
    assert picture.count('<path class="arc') == len(sentence) + edges and "ud enhanced" in picture
    assert 'class="arc differs"' in picture  # that edge dashed
    refused = runner.invoke(main, ["render", str(SAMPLES / "dev.ud.conllu"), "--enhanced", "--output", str(tmp_path / "x.html")])
    assert refused.exit_code == 2 and "has no enhanced graph" in refused.output and not (tmp_path / "x.html").exists()


def test_a_detached_head_trains_its_own_scorers_and_not_the_shared_encoder():
    """The control bench/treebank_variants.py compares the joint network with (the trees and the
    graph helping each other or not): a detached head's loss gives its own scorers the gradient it
    gives them attached, and the encoder none of it."""
    from hetdep.neural.enhanced import learned_labels
    from hetdep.neural.training import _loss

    parser = _trained().parser
    network = torch_network(parser)  # in evaluation mode: no dropout, the same pass each time
    batch = parser.encoder.batch([TRAIN[:20]], graphs=[learned_labels(s) for s in TRAIN[:20]]).tensors()

    def gradients(detached):
        network.zero_grad()
        _loss(network, batch, detached).backward()
        return {name: parameter.grad.clone() for name, parameter in network.named_parameters() if parameter.grad is not None}

    attached, trees, graph = gradients(None), gradients("trees"), gradients("graph")
    for name in attached:
        if name.startswith("schemes."):
            torch.testing.assert_close(trees[name], attached[name])  # the trees' own scorers learn as before
        if name.startswith("graph."):
            torch.testing.assert_close(graph[name], attached[name])
        if name.startswith("encoder."):
            assert not torch.allclose(trees[name], attached[name]) and not torch.allclose(graph[name], attached[name])


def test_only_the_trees_or_the_graph_can_be_detached():
    from hetdep.errors import HetdepError
    from hetdep.neural.training import NeuralOptions, train_neural

    with pytest.raises(HetdepError, match="detached 'encoder'"):
        train_neural([TRAIN[:5]], [], NeuralOptions(epochs=1, hidden=16, layers=1, threads=1, detached="encoder"))


def test_label_families_group_the_enhanced_labels_by_relation():
    from hetdep.neural.enhanced import label_families

    family_of, families = label_families(("root", "obl", "nsubj", "obl:tmod", "dep"),
                                         ("obl:{marker}", "nsubj", "obl", "root", "nsubj:xsubj", "ref"))
    named = [sorted(["obl:{marker}", "nsubj", "obl", "root", "nsubj:xsubj", "ref"][k] for k in family)
             for family in families]
    assert [named[k] if k >= 0 else None for k in family_of] == [
        ["root"], ["obl", "obl:{marker}"], ["nsubj", "nsubj:xsubj"], ["obl", "obl:{marker}"], None]


def test_an_edge_s_label_within_its_family_is_the_best_of_that_family():
    """edge_labels with groups: each edge's best label among its family's (all labels for -1), as
    the scores of every label computed at once rank them."""
    from hetdep.neural.inference import _leaky_relu, _with_ones

    parser = _trained().parser
    network = parser.network
    encoded = network.encode(parser.encoder.batch([TRAIN[:12]]))
    rng = np.random.default_rng(5)
    rows = rng.integers(0, 12, 300)
    lengths = np.array([len(s) for s in TRAIN[:12]])
    dependents, heads = rng.integers(1, lengths[rows] + 1), rng.integers(0, lengths[rows] + 1)
    labels = len(parser.vocabularies.enhanced)
    families = [np.array([0, 3, 5]), np.array([1]), rng.permutation(labels)[:9]]
    groups = rng.integers(-1, 3, 300)
    weight = network.arrays["graph.labels.weight"]
    dependent = _with_ones(_leaky_relu(network._linear(encoded[rows, dependents], "graph.label_dependent.0")))
    head = _with_ones(_leaky_relu(network._linear(encoded[rows, heads], "graph.label_head.0")))
    scores = np.einsum("ex,oxy,ey->eo", dependent, weight, head)
    found = network.edge_labels(encoded, rows, dependents, heads, groups, families)
    for e, group in enumerate(groups):
        allowed = np.arange(labels) if group < 0 else families[group]
        assert found[e] in allowed and scores[e, found[e]] >= scores[e, allowed].max() - 1e-4
    assert (network.edge_labels(encoded, rows, dependents, heads) == scores.argmax(-1)).mean() > 0.99


def test_an_enhanced_edge_the_basic_tree_has_keeps_its_basic_relation():
    """As the treebank's graphs do: obl -> obl:in, conj -> conj:and, never another relation."""
    parsed = list(_trained().parser.parse(list(read_conllu(EN_SAMPLES / "dev.ud.conllu"))))
    shared = 0
    for tree in parsed:
        for word, k in enumerate(tree.word_rows):
            for head, relation in enhanced_edges(tree.rows[k][DEPS]):
                if int(head) == tree.heads[word]:
                    shared += 1
                    assert relation.split(":")[0] == tree.deprels[word].split(":")[0], tree.describe()
    assert shared > 1000
