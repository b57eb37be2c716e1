"""The shift-reduce constituency parser: binarization, transition system, compiled twins against
the reference, EVALB scoring, and the command line."""

from __future__ import annotations

import random
import zipfile

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import SAMPLES, SHARED_DATA, needs_shared, write
from hypothesis import given, settings
from hypothesis import strategies as st

import hetdep
from hetdep.cli import main
from hetdep.constituency import _search, reference
from hetdep.constituency import features as F
from hetdep.constituency.binarize import binarize, debinarize
from hetdep.constituency.parser import template_array
from hetdep.constituency.system import Actions, State, apply, oracle, to_tree, valid
from hetdep.constituency.training import TaggedTree, inventory, read_treebank, train
from hetdep.convert.headrules import load_table
from hetdep.errors import HetdepError
from hetdep.evaluation.brackets import score
from hetdep.learn.perceptron import DECODE, TrainOptions
from hetdep.learn.weights import Weights
from hetdep.treebank.conllu import read_conllu
from hetdep.treebank.ptb import Tree, clean, parse_trees

WSJ = SHARED_DATA / "en-wsj-sample" / "treebank.zip"
PENN2MALT = load_table("penn2malt")
SMALL = """( (S (NP-SBJ (DT The) (JJ big) (NN dog)) (VP (VBZ barks)) (. .)) )
( (S (NP-SBJ (PRP It)) (VP (VBD saw) (NP (DT the) (NN cat)) (PP (IN in) (NP (DT the) (NN garden)))) (. .)) )
( (S (NP-SBJ (NNS Cats)) (VP (VBP sleep) (ADVP (RB often))) (. .)) )
( (S (NP-SBJ (DT The) (NN cat)) (VP (VBD ran) (PRT (RP away))) (. .)) )
( (FRAG (NP (NN Yes)) (. .)) )
"""


def trees_of(text: str) -> list:
    return [clean(tree.root) for tree in parse_trees(text)]


def wsj_trees(count: int | None = None) -> list[TaggedTree]:
    return read_treebank(WSJ)[:count]


def test_binarize_by_head_child_right_siblings_first():
    root = trees_of(SMALL)[0]
    assert binarize(root, PENN2MALT).to_text() == (
        "(S> (NP> (DT The) (NP*> (JJ big) (NN dog))) (S*< (VP (VBZ barks)) (. .)))")
    collapsed = binarize(trees_of("( (S (VP (VB Go))) )")[0], PENN2MALT)
    assert collapsed.label == "S+VP" and collapsed.children[0].is_word


def test_binarize_and_back_give_every_small_tree():
    for root in trees_of(SMALL):
        assert debinarize(binarize(root, PENN2MALT)).to_text() == root.to_text()


@needs_shared
def test_binarize_and_back_give_every_wsj_tree_and_the_oracle_rebuilds_it():
    items = wsj_trees()
    binarized = [binarize(item.root, PENN2MALT) for item in items]
    actions = inventory(binarized)
    for item, node in zip(items, binarized):
        assert debinarize(node).to_text() == item.root.to_text(), item.tree.describe()
        sequence = oracle(node, actions)
        tags = list(range(len(item.forms) + 1))
        state = State(len(item.forms))
        assert len(sequence) == state.steps == 4 * len(item.forms) - 1
        for action in sequence:
            assert valid(state, action, actions), (item.tree.describe(), actions.name(action), state.step)
            state = apply(state, action, actions, tags)
        assert to_tree(sequence, actions, item.forms, item.gold_tags) == node


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 14), st.integers(0, 10_000))
def test_every_state_reached_by_valid_actions_can_be_completed(n, seed):
    """Validity never leads into a dead end: a random walk over valid actions always finishes."""
    rng = random.Random(seed)
    actions = Actions(["NP", "S", "VP"], ["NP", "S+VP"])
    state = State(n)
    tags = [0] + [rng.randrange(2, 6) for _ in range(n)]
    sequence = []
    while not state.done:
        choices = [a for a in range(actions.n_actions) if valid(state, a, actions)]
        assert choices, f"dead end after {[actions.name(a) for a in sequence]}"
        sequence.append(rng.choice(choices))
        state = apply(state, sequence[-1], actions, tags)
    tree = debinarize(to_tree(sequence, actions, [f"w{k}" for k in range(n)], ["NN"] * n))
    assert [leaf.word for leaf in tree.leaves()] == [f"w{k}" for k in range(n)]
    assert len(sequence) == 4 * n - 1


def _compiled_atoms_along(sequence, actions, words, tags, n):
    """The compiled atoms of every state on a path (through the compiled ``apply``)."""
    nodes, cells, used = _search.new_pool(4 * n + 2)
    top, nxt, depth = 0, 1, 0
    out = []
    atoms = np.zeros(_search.N_ATOMS, dtype=np.int64)
    four = np.zeros(4, dtype=np.int64)
    for action in sequence:
        _search.top_nodes(cells, top, four)
        _search.fill_atoms(nodes, four, nxt, n, words, tags, atoms)
        out.append(atoms.tolist())
        top, nxt, depth = _search.apply(nodes, cells, used, top, nxt, depth, action, tags, len(actions.labels))
    return out


def _encoded(forms, tags):
    """Word and tag ids (2.., as a vocabulary gives them) of one sentence."""
    def ids(items):
        index: dict = {}
        return np.array([0] + [index.setdefault(item, 2 + len(index)) for item in items], dtype=np.int64)

    return ids(forms), ids(tags)


def test_compiled_atoms_equal_the_reference_on_every_oracle_state():
    assert F.QUEUE_ATOMS == {i for i, name in enumerate(F.ATOMS) if name.startswith("q")}  # side by side, summed apart
    roots = trees_of(SMALL)
    binarized = [binarize(root, PENN2MALT) for root in roots]
    actions = inventory(binarized)
    for root, node in zip(roots, binarized):
        forms, tags = [leaf.word for leaf in root.leaves()], [leaf.label for leaf in root.leaves()]
        words, tag_ids = _encoded(forms, tags)
        sequence = oracle(node, actions)
        state, expected = State(len(forms)), []
        for action in sequence:
            expected.append(F.atoms(state, words, tag_ids))
            state = apply(state, action, actions, tag_ids)
        assert _compiled_atoms_along(sequence, actions, words, tag_ids, len(forms)) == expected


@needs_shared
def test_compiled_search_equals_the_reference_on_real_sentences():
    items = wsj_trees(400)
    result = train(items[:150], [], TrainOptions(beam=4, iterations=1))
    parser = result.parser
    rows = parser.weights.dense_rows(parser.actions.n_actions)
    for item in items[300:306]:
        words, tags = parser.words.encode(item.forms), parser.tags.encode(item.gold_tags)
        n = len(item.forms)
        compiled, _, compiled_score = _search.search(words, tags, n, 4, parser.templates, parser.weights.table,
                                                     parser.weights.rows, len(parser.actions.labels),
                                                     len(parser.actions.unaries), np.zeros(4 * n - 1, dtype=np.int32), DECODE)
        expected, expected_score = reference.search(words, tags, n, 4, rows, parser.actions)
        assert compiled.tolist() == expected
        assert compiled_score == expected_score


def test_compiled_update_equals_the_reference_counts():
    from hetdep.learn import _weights

    roots = trees_of(SMALL)
    binarized = [binarize(root, PENN2MALT) for root in roots]
    actions = inventory(binarized)
    root, node = roots[1], binarized[1]
    forms, tags = [leaf.word for leaf in root.leaves()], [leaf.label for leaf in root.leaves()]
    words, tag_ids = _encoded(forms, tags)
    gold = np.array(oracle(node, actions), dtype=np.int32)
    n = len(forms)
    weights = Weights(actions.n_actions)
    templates = template_array()
    # with zero weights the beam's first choice differs from the gold: a real prediction to update from
    predicted, length, _ = _search.search(words, tag_ids, n, 2, templates, weights.table, weights.rows,
                                          len(actions.labels), len(actions.unaries), gold, DECODE)
    assert predicted.tolist() != gold.tolist()
    weights.reserve(2 * len(gold) * len(F.TEMPLATES))
    _search.update(words, tag_ids, n, gold, predicted, len(gold), templates, weights.table, weights.n_used, weights.rows,
                   weights.sums, weights.counts, weights.counter, len(actions.labels), tag_ids)
    keys, rows = _weights.unpack(weights.table, weights.rows, actions.n_actions)
    got = {(int(key), a): float(row[a]) for key, row in zip(keys, rows) for a in range(actions.n_actions) if row[a]}
    assert got == reference.update_counts(words, tag_ids, n, gold.tolist(), predicted.tolist(), actions)
    # a lattice's update: the prediction chose other tags, so it differs from the first step
    other_tags = tag_ids.copy()
    other_tags[2] = other_tags[1]
    weights = Weights(actions.n_actions)
    weights.reserve(2 * len(gold) * len(F.TEMPLATES))
    _search.update(words, tag_ids, n, gold, gold, len(gold), templates, weights.table, weights.n_used, weights.rows,
                   weights.sums, weights.counts, weights.counter, len(actions.labels), other_tags)
    keys, rows = _weights.unpack(weights.table, weights.rows, actions.n_actions)
    got = {(int(key), a): float(row[a]) for key, row in zip(keys, rows) for a in range(actions.n_actions) if row[a]}
    assert got and got == reference.update_counts(words, tag_ids, n, gold.tolist(), gold.tolist(), actions, other_tags)


def _tree(text: str, path: str = "x.mrg") -> Tree:
    return next(parse_trees(text, path))


def test_brackets_as_evalb_counts_them():
    gold = _tree("( (S (NP (DT The) (NN cat)) (VP (VBD ran) (PRT (RP away))) (. .)) )")
    test = _tree("(TOP (S (NP (DT The) (NN cat)) (VP (VBD ran) (ADVP (RB away)) (. .))))")
    # gold: S 0-4, NP 0-2, VP 2-4, PRT(=ADVP) 3-4; test: S, NP, VP over "ran away ." = 2-4 once the
    # period is deleted (by the gold tag), ADVP 3-4: all four match; one tag of four (RB) differs.
    result = score([gold], [test])
    assert (result.gold_brackets, result.test_brackets, result.matched, result.complete) == (4, 4, 4, 1)
    assert result.f1 == 100.0 and result.tagging_accuracy == 75.0
    flat = _tree("( (S (DT The) (NN cat) (VBD ran) (RB away) (. .)) )")
    result = score([gold], [flat])
    assert (result.test_brackets, result.matched, result.complete) == (1, 1, 0)
    assert result.precision == 100.0 and result.recall == 25.0 and round(result.f1, 2) == 40.0


def test_brackets_count_a_unary_over_the_same_label_twice_and_cut_by_length():
    gold = _tree("( (S (NP (NP (DT a) (NN b))) (VP (VB c))) )")
    test = _tree("( (S (NP (DT a) (NN b)) (VP (VB c))) )")
    result = score([gold], [test])
    assert (result.gold_brackets, result.test_brackets, result.matched) == (4, 3, 3)
    assert score([gold], [test], max_length=2).sentences == 0


def test_brackets_refuse_different_words_or_tree_counts():
    from hetdep.errors import MismatchError

    gold = _tree("( (S (NN a) (NN b)) )", "gold.mrg")
    with pytest.raises(MismatchError, match="pred.mrg:1.*word 2 is 'c' here, 'b' there"):
        score([gold], [_tree("( (S (NN a) (NN c)) )", "pred.mrg")])
    with pytest.raises(MismatchError, match="gold.mrg:1.*different numbers of trees"):
        score([gold], [])


def run(*args):
    return CliRunner().invoke(main, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def wsj_files(tmp_path_factory):
    """A small WSJ training file (200 trees) and dev file (40), split from the sample as the experiment splits it."""
    if not WSJ.is_file():
        pytest.skip(f"the WSJ sample is not at {WSJ}")
    folder = tmp_path_factory.mktemp("wsj")
    with zipfile.ZipFile(WSJ) as archive:
        names = sorted(name for name in archive.namelist() if name.endswith(".mrg"))
        text = {name: archive.read(name).decode() for name in names}
    trees = [tree for name in names for tree in parse_trees(text[name], name)]
    write(folder, "train.mrg", "".join(f"( {tree.root.to_text()} )\n" for tree in trees[:200]))
    write(folder, "dev.mrg", "".join(f"( {tree.root.to_text()} )\n" for tree in trees[3500:3540]))
    return folder


@needs_shared
def test_cli_trains_parses_and_scores_with_its_own_tagger(wsj_files, tmp_path):
    model = tmp_path / "model"
    result = run("train", "--parser", "constituency", "--train", wsj_files / "train.mrg", "--dev", wsj_files / "dev.mrg",
                 "--model", model, "--iterations", "3", "--beam", "4", "--folds", "3")
    assert result.exit_code == 0, result.output
    assert (model / "tagger" / "xpos" / "config.json").is_file()
    assert run("convert", "--from", "ptb", "--rules", "penn2malt", wsj_files / "dev.mrg", tmp_path / "dev.conllu").exit_code == 0
    untagged = tmp_path / "dev.txt"
    untagged.write_text("".join(" ".join(tree_words) + "\n" for tree_words in
                                ([leaf.word for leaf in clean(t.root).leaves()] for t in parse_trees((wsj_files / "dev.mrg").read_text()))))
    result = run("parse", "--model", model, "--input", untagged, "--output", tmp_path / "dev.pred.mrg", "--threads", "2")
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "dev.pred.mrg").read_text().splitlines()
    assert len(lines) == 40 and all(line.startswith("(TOP (") for line in lines)
    result = run("eval", "--const", wsj_files / "dev.mrg", tmp_path / "dev.pred.mrg", "--json")
    assert result.exit_code == 0, result.output
    import json

    scores = json.loads(result.output)
    assert scores["sentences"] == 40 and scores["F1"] > 50.0 and scores["tagging_accuracy"] > 80.0
    result = run("parse", "--model", model, "--input", tmp_path / "dev.conllu", "--output", tmp_path / "dev.dep.conllu",
                 "--to-dependency", "penn2malt")
    assert result.exit_code == 0, result.output
    result = run("eval", tmp_path / "dev.conllu", tmp_path / "dev.dep.conllu", "--json")
    assert result.exit_code == 0 and json.loads(result.output)["UAS"] > 50.0
    # the same door for every entry point: Dask, and hetdep.load with the head rules named
    result = run("parse", "--model", model, "--input", untagged, "--output", tmp_path / "dask.mrg", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "dask.mrg").read_text() == (tmp_path / "dev.pred.mrg").read_text()
    with pytest.raises(HetdepError, match="gives phrase-structure trees: hetdep.load gives dependency trees"):
        hetdep.load(model)
    document = hetdep.load(model, to_dependency="penn2malt").parse_sentences(read_conllu(tmp_path / "dev.conllu"))
    assert [sentence.tree("penn2malt").heads for sentence in document] == [
        tree.heads for tree in read_conllu(tmp_path / "dev.dep.conllu")]
    # without the tagger it was trained with, the model is damaged: refused, not taken for one that reads given tags
    import shutil

    shutil.rmtree(model / "tagger")
    for args in (("parse", "--model", model, "--input", tmp_path / "dev.conllu", "--output", tmp_path / "none.mrg"),
                 ("info", model)):
        result = run(*args)
        assert result.exit_code == 2 and "the tagger the model was trained with is missing" in result.output
    assert not (tmp_path / "none.mrg").exists()


@needs_shared
def test_cli_bundles_a_neural_model_as_its_tagger(wsj_files, tmp_path):
    """--tagger DIR: a neural model trained on the trees' dependency conversion tags the parser's input."""
    pytest.importorskip("torch")
    from hetdep.neural.parser import NeuralParser
    from hetdep.neural.training import NeuralOptions, train_neural
    from hetdep.treebank.conllu import XPOS, read_conllu

    for split in ("train", "dev"):
        assert run("convert", "--from", "ptb", "--rules", "penn2malt", wsj_files / f"{split}.mrg",
                   tmp_path / f"{split}.conllu").exit_code == 0
    dev = list(read_conllu(tmp_path / "dev.conllu"))
    network = train_neural([list(read_conllu(tmp_path / "train.conllu"))], [dev],
                           NeuralOptions(epochs=2, hidden=48, layers=1, threads=1, batch_words=300)).parser
    network.save(tmp_path / "network")
    model = tmp_path / "model"
    common = ["train", "--parser", "constituency", "--train", wsj_files / "train.mrg", "--dev", wsj_files / "dev.mrg",
              "--iterations", "2", "--beam", "4", "--folds", "3"]
    result = run(*common, "--model", model, "--tagger", tmp_path / "network")
    assert result.exit_code == 0, result.output
    assert (model / "tagger" / "network" / "config.json").is_file() and not (model / "tagger" / "xpos").exists()
    untagged = dev[0].with_column(XPOS, ["_"] * len(dev[0]))
    (tmp_path / "one.conllu").write_text(untagged.to_text())
    result = run("parse", "--model", model, "--input", tmp_path / "one.conllu", "--output", tmp_path / "one.mrg")
    assert result.exit_code == 0, result.output
    written = [leaf.label for leaf in next(parse_trees((tmp_path / "one.mrg").read_text())).root.leaves()]
    assert written == next(NeuralParser.load(tmp_path / "network").tag([untagged])).column(XPOS)
    result = run(*common, "--model", tmp_path / "lattice", "--tagger", tmp_path / "network", "--lattice")
    assert result.exit_code != 0 and "not with --lattice" in result.output
    train_upos = ["train-tagger", "--train", tmp_path / "train.conllu", "--dev", tmp_path / "dev.conllu", "--model",
                  tmp_path / "upos", "--iterations", "1"]
    assert run(*train_upos).exit_code == 0
    result = run(*common, "--model", tmp_path / "other", "--tagger", tmp_path / "upos")
    assert result.exit_code != 0 and "reads XPOS tags" in result.output and not (tmp_path / "other").exists()


@pytest.mark.parametrize("options", [(), ("--dp",), ("--update", "early")])
def test_one_word_training_trees_train_and_parse(tmp_path, options):
    """Trees of one word (under a phrase, a unary chain, or its tag alone) among longer ones."""
    one_word = "( (NP (NN word)))\n( (X (Y (NN hi))))\n( (UH yes))\n"
    train_file = write(tmp_path, "train.mrg", SMALL * 2 + one_word)
    model = tmp_path / "model"
    result = run("train", "--parser", "constituency", "--train", train_file, "--dev", train_file, "--model", model,
                 "--iterations", "3", "--gold-tags", "--beam", "4", *options)
    assert result.exit_code == 0, result.output
    tagged = write(tmp_path, "in.conllu", "1\tword\t_\tNOUN\tNN\t_\t_\t_\t_\t_\n\n1\tyes\t_\tINTJ\tUH\t_\t_\t_\t_\t_\n\n")
    out = tmp_path / "out.mrg"
    result = run("parse", "--model", model, "--input", tagged, "--output", out)
    assert result.exit_code == 0, result.output
    lines = out.read_text().splitlines()
    assert len(lines) == 2 and "word" in lines[0] and "yes" in lines[1]


def test_cli_gold_tags_model_refuses_untagged_input_and_other_kinds_refuse_its_options(tmp_path):
    train_file = write(tmp_path, "train.mrg", SMALL * 4)
    model = tmp_path / "model"
    result = run("train", "--parser", "constituency", "--train", train_file, "--dev", train_file, "--model", model,
                 "--iterations", "2", "--gold-tags", "--beam", "4")
    assert result.exit_code == 0, result.output
    untagged = write(tmp_path, "in.txt", "The cat ran away .\n")
    out = tmp_path / "out.mrg"
    result = run("parse", "--model", model, "--input", untagged, "--output", out)
    assert result.exit_code == 2 and "in.txt:1" in result.output and "no XPOS tag" in result.output
    assert not out.exists()
    tagged = write(tmp_path, "in.conllu", "1\tThe\t_\tDET\tDT\t_\t_\t_\t_\t_\n2\tcat\t_\tNOUN\tNN\t_\t_\t_\t_\t_\n"
                   "3\tsleeps\t_\tVERB\tVBZ\t_\t_\t_\t_\t_\n\n1\tYes\t_\tINTJ\tUH\t_\t_\t_\t_\t_\n\n")
    result = run("parse", "--model", model, "--input", tagged, "--output", out)
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 2  # one tree per sentence, a one-word sentence too
    result = run("train", "--parser", "constituency", "--train", train_file, "--dev", train_file, "--model", model, "--lattice",
                 "--gold-tags")
    assert result.exit_code == 2 and "drop --gold-tags" in result.output
    result = run("train", "--parser", "constituency", "--train", train_file, "--dev", train_file, "--model", model, "--guide",
                 "paper")
    assert result.exit_code == 2 and "--guide does not apply to --parser constituency" in result.output
    conllu_file = write(tmp_path, "t.conllu", "1\ta\t_\tX\tX\t_\t0\troot\t_\t_\n\n")
    result = run("train", "--parser", "constituency", "--train", conllu_file, "--dev", conllu_file, "--model", tmp_path / "m2")
    assert result.exit_code == 2 and "bracketed trees" in result.output


def test_template_sets_and_head_tables_are_chosen_recorded_and_checked(tmp_path):
    """A model trains with ZPar's templates and Collins' table by default, or with --templates and
    --rules; it records them; a model of before the choice (no set named: Zhu et al.'s 43) still
    loads; a recorded set that does not match the weights is refused in one line."""
    import json

    from hetdep.cli.training import train_command
    from hetdep.constituency.parser import ConstituencyParser

    choices = next(p for p in train_command.params if p.name == "template_set").type.choices
    assert sorted(choices) == sorted(F.TEMPLATE_SETS) and F.DEFAULT_TEMPLATES in choices
    train_file = write(tmp_path, "train.mrg", SMALL * 4)
    tagged = write(tmp_path, "in.conllu", "1\tThe\t_\tDET\tDT\t_\t_\t_\t_\t_\n2\tcat\t_\tNOUN\tNN\t_\t_\t_\t_\t_\n"
                   "3\tsleeps\t_\tVERB\tVBZ\t_\t_\t_\t_\t_\n\n")
    for options, template_set, table in (((), "zpar", "collins"), (("--templates", "zhu2013", "--rules", "penn2malt"),
                                                                      "zhu2013", "penn2malt")):
        model = tmp_path / template_set
        result = run("train", "--parser", "constituency", "--train", train_file, "--dev", train_file, "--model", model,
                     "--iterations", "2", "--gold-tags", "--beam", "4", *options)
        assert result.exit_code == 0, result.output
        config = json.loads((model / "config.json").read_text())
        assert (config["template_set"], config["templates"], config["head_table"]) == (
            template_set, len(F.TEMPLATE_SETS[template_set]), table)
        assert ConstituencyParser.load(model).template_set == template_set
        shown = run("info", model)
        assert f"features: {template_set} templates ({len(F.TEMPLATE_SETS[template_set])}); training trees binarized by " \
               f"the {table} head table" in shown.output
        assert run("parse", "--model", model, "--input", tagged, "--output", tmp_path / f"{template_set}.mrg").exit_code == 0
    config = json.loads((tmp_path / "zhu2013" / "config.json").read_text())
    del config["template_set"]  # as written before the choice
    (tmp_path / "zhu2013" / "config.json").write_text(json.dumps(config))
    assert ConstituencyParser.load(tmp_path / "zhu2013").template_set == "zhu2013"
    config["template_set"] = "zpar"
    (tmp_path / "zhu2013" / "config.json").write_text(json.dumps(config))
    out = tmp_path / "refused.mrg"
    result = run("parse", "--model", tmp_path / "zhu2013", "--input", tagged, "--output", out)
    assert result.exit_code == 2 and "weights do not match" in result.output and not out.exists()
    refused = write(tmp_path, "t.conllu", "1\ta\t_\tX\tX\t_\t0\troot\t_\t_\n\n")
    for option in (("--templates", "zpar"), ("--rules", "collins")):
        result = run("train", "--parser", "arc-standard", "--train", refused, "--dev", refused, "--model", tmp_path / "a",
                     *option)
        assert result.exit_code == 2 and f"{option[0]} is for --parser constituency" in result.output


def test_one_word_training_trees_train_and_a_treebank_of_only_those_is_one_clear_line(tmp_path):
    one_word = "( (NP (NN word)))\n(NN other)\n( (INTJ (UH Hi)))\n"
    longer = write(tmp_path, "longer.mrg", one_word + SMALL * 2)
    dev = write(tmp_path, "dev.mrg", SMALL + one_word)
    result = run("train", "--parser", "constituency", "--train", longer, "--dev", dev, "--model", tmp_path / "m",
                 "--iterations", "2", "--gold-tags", "--beam", "4")
    assert result.exit_code == 0, result.output
    only = write(tmp_path, "only.mrg", one_word)
    result = run("train", "--parser", "constituency", "--train", only, "--dev", dev, "--model", tmp_path / "m2",
                 "--iterations", "2", "--gold-tags", "--beam", "4")
    assert result.exit_code == 2 and "only.mrg: no training tree has a phrase over two or more words" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "m2").exists()


def test_parser_gives_one_tree_for_long_and_unknown_input_and_loads_what_it_saved(tmp_path):
    from hetdep.constituency.parser import ConstituencyParser
    from hetdep.learn.model_files import ModelFileError

    items = [TaggedTree(tree, clean(tree.root)) for tree in parse_trees(SMALL * 3)]
    parser = train(items, items[:5], TrainOptions(beam=4, iterations=2)).parser
    forms = [f"zzz{k}" for k in range(300)]
    tags = ["NN", "VBZ", "DT", "."] * 75
    tree = parser.parse_tokens(forms, tags)
    assert [leaf.word for leaf in tree.leaves()] == forms
    parser.save(tmp_path / "m")
    loaded = ConstituencyParser.load(tmp_path / "m")
    assert loaded.parse_tokens(forms, tags).to_text() == tree.to_text()
    assert loaded.parse_tokens(["Hello"], ["UH"]).leaves()[0].word == "Hello"
    (tmp_path / "m" / "config.json").write_text((tmp_path / "m" / "config.json").read_text().replace(
        '"kind": "constituency"', '"kind": "arc-standard"'))
    with pytest.raises(ModelFileError, match="'arc-standard' model, not a 'constituency' model"):
        ConstituencyParser.load(tmp_path / "m")


@pytest.fixture(scope="module")
def wsj_parser():
    if not WSJ.is_file():
        pytest.skip(f"the WSJ sample is not at {WSJ}")
    items = wsj_trees()
    return train(items[:300], items[3500:3530], TrainOptions(beam=8, iterations=2)).parser, items[3600:3640]


def _search_with(parser, module, item, beam):
    words, tags = parser.words.encode(item.forms), parser.tags.encode(item.gold_tags)
    n = len(item.forms)
    return module.search(words, tags, n, beam, parser.templates, parser.weights.table, parser.weights.rows,
                         len(parser.actions.labels), len(parser.actions.unaries), np.zeros(4 * n - 1, dtype=np.int32), DECODE)


def _replayed_score(parser, item, sequence):
    """The model score of an action sequence, one state at a time (no beam, no merging), checking each action is valid."""
    words, tags = parser.words.encode(item.forms), parser.tags.encode(item.gold_tags)
    n = len(item.forms)
    nodes, cells, used = _search.new_pool(4 * n + 2)
    top, nxt, depth, total = 0, 1, 0, 0.0
    four, atoms = np.zeros(4, dtype=np.int64), np.zeros(_search.N_ATOMS, dtype=np.int64)
    keys, acc = np.zeros(len(F.TEMPLATES), dtype=np.uint64), np.zeros(parser.actions.n_actions, dtype=np.float32)
    queue = _search.new_queue_sums(parser.templates, n, parser.actions.n_actions)
    state = State(n)
    for action in sequence:
        assert valid(state, action, parser.actions)
        state = apply(state, action, parser.actions, tags)
        _search.top_nodes(cells, top, four)
        _search.score_state(nodes, four, nxt, n, words, tags, parser.templates, parser.weights.table, parser.weights.rows,
                            atoms, keys, acc, queue, False)
        total += float(acc[action])
        top, nxt, depth = _search.apply(nodes, cells, used, top, nxt, depth, action, tags, len(parser.actions.labels))
    return total


@needs_shared
@pytest.mark.parametrize("beam", [1, 4, 16])
def test_dp_prefix_scores_are_the_scores_of_the_returned_valid_sequences(wsj_parser, beam):
    from hetdep.constituency import _dp

    parser, items = wsj_parser
    for item in items[:20]:
        actions, length, best = _search_with(parser, _dp, item, beam)
        assert length == 4 * len(item.forms) - 1
        assert best == pytest.approx(_replayed_score(parser, item, actions[:length].tolist()), rel=1e-5, abs=1e-3)


@needs_shared
def test_dp_at_beam_one_is_greedy_and_merging_finds_better_sequences_more_often(wsj_parser):
    from hetdep.constituency import _dp

    parser, items = wsj_parser
    better = worse = 0
    for item in items:
        assert np.array_equal(_search_with(parser, _dp, item, 1)[0], _search_with(parser, _search, item, 1)[0])
        dp_score, plain_score = _search_with(parser, _dp, item, 4)[2], _search_with(parser, _search, item, 4)[2]
        better += dp_score > plain_score + 1e-6
        worse += dp_score < plain_score - 1e-6
    assert better > worse


@needs_shared
def test_training_with_dp_learns_saves_and_parses(tmp_path):
    from hetdep.constituency.parser import ConstituencyParser

    items = wsj_trees()
    result = train(items[:300], items[3500:3540], TrainOptions(beam=8, iterations=2, dp=True))
    assert result.parser.dp and max(r.dev_uas for r in result.history) > 65
    result.parser.save(tmp_path / "m")
    loaded = ConstituencyParser.load(tmp_path / "m")
    assert loaded.dp
    assert ([loaded.parse_tokens(i.forms, i.gold_tags).to_text() for i in items[3600:3610]]
            == [result.parser.parse_tokens(i.forms, i.gold_tags).to_text() for i in items[3600:3610]])


@needs_shared
def test_lattice_search_with_one_candidate_a_word_is_the_plain_search(wsj_parser):
    from hetdep.constituency import _lattice
    from hetdep.transition.parser import encode_lattice

    parser, items = wsj_parser
    for item in items[:20]:
        n = len(item.forms)
        words = parser.words.encode(item.forms)
        candidates, counts, logp = encode_lattice(parser.tags, [[(tag, 1.0)] for tag in item.gold_tags])
        actions, _, best, chosen = _lattice.search(words, candidates, counts, logp, 0.0, n, 8, parser.templates,
                                                   parser.weights.table, parser.weights.rows, len(parser.actions.labels),
                                                   len(parser.actions.unaries), np.zeros(4 * n - 1, dtype=np.int32),
                                                   np.zeros(n + 2, dtype=np.int64), DECODE)
        plain, _, plain_best = _search_with(parser, _search, item, 8)
        assert np.array_equal(actions, plain) and best == plain_best
        assert chosen[1:n + 1].tolist() == parser.tags.encode(item.gold_tags)[1:].tolist()


@needs_shared
def test_cli_lattice_model_chooses_among_its_taggers_candidates(wsj_files, tmp_path):
    model = tmp_path / "model"
    result = run("train", "--parser", "constituency", "--train", wsj_files / "train.mrg", "--dev", wsj_files / "dev.mrg",
                 "--model", model, "--iterations", "2", "--beam", "4", "--folds", "3", "--lattice")
    assert result.exit_code == 0, result.output
    untagged = write(tmp_path, "in.txt", "The company said it expects sales to rise .\nYes .\n")
    for weight in ("0", "2"):
        out = tmp_path / f"out{weight}.mrg"
        result = run("parse", "--model", model, "--input", untagged, "--output", out, "--lattice-weight", weight)
        assert result.exit_code == 0, result.output
        trees = [clean(tree.root) for tree in parse_trees(out.read_text())]
        assert [len(tree.leaves()) for tree in trees] == [9, 2]


def test_bracketed_output_escapes_brackets_and_spaces_so_it_reads_back():
    from hetdep.treebank.phrase_trees import bracketed
    from hetdep.treebank.ptb import Node

    root = Node("NP", [Node("-LRB-", word="("), Node("NNP", word="new york"), Node("-RRB-", word=")")])
    text = bracketed(root)
    assert text == "(TOP (NP (-LRB- -LRB-) (NNP new_york) (-RRB- -RRB-)))"
    assert [leaf.word for leaf in clean(next(parse_trees(text)).root).leaves()] == ["-LRB-", "new_york", "-RRB-"]


def test_constituency_options_on_other_inputs_are_clear_errors(tmp_path):
    conllu_file = write(tmp_path, "t.conllu", "1\ta\t_\tX\tX\t_\t0\troot\t_\t_\n\n")
    result = run("eval", "--const", conllu_file, conllu_file)
    assert result.exit_code == 2 and "t.conllu:1" in result.output and "outside any bracket" in result.output
    result = run("eval", conllu_file, conllu_file, "--max-length", "40")
    assert result.exit_code == 2 and "--max-length is for --const" in result.output
    model = tmp_path / "dependency-model"
    assert run("train", "--train", SAMPLES / "train.ud.conllu", "--dev", SAMPLES / "dev.ud.conllu", "--model", model,
               "--beam", "2", "--iterations", "1", "--gold-tags", "--no-tokenizer").exit_code == 0
    result = run("parse", "--model", model, "--input", SAMPLES / "dev.ud.conllu", "--output", tmp_path / "o.conllu",
                 "--to-dependency", "penn2malt")
    assert result.exit_code == 2 and "--to-dependency is for constituency models" in result.output
    assert not (tmp_path / "o.conllu").exists()


@pytest.mark.parametrize("template_set", ["zhu2013", "zpar"])
def test_dp_kernel_holds_every_stack_atom_the_templates_read(template_set):
    """States that differ only in an atom no template reads (s3's head word, for Zhu et al.'s
    templates) score every future action alike, so they share a kernel and merge; any atom a
    template reads keeps them apart."""
    from hetdep.constituency import _dp
    from hetdep.constituency._search import N_ATOMS, new_pool

    templates = template_array(template_set)
    read = {atom for template in F.templates_of(template_set) for atom in template}
    stack_atoms = set(range(12)) | set(range(20, N_ATOMS))  # s0..s3, and the children of s0 and s1
    unread = stack_atoms - read
    assert unread == ({F.A["s3w"]} if template_set == "zhu2013" else set())
    assert _dp.kernel_atoms(templates).tolist() == sorted(stack_atoms & read)
    nodes, _, _ = new_pool(4)
    atoms = np.arange(1, N_ATOMS + 1, dtype=np.int64)

    def kernel(values):
        kept = _dp.kernel_atoms(templates)
        out = np.zeros(len(kept) + 3, dtype=np.int64)
        return _dp._kernel(values, kept, nodes, 1, 5, 3, out), out.tolist()

    for atom in unread:
        other = atoms.copy()
        other[atom] += 100
        assert kernel(other) == kernel(atoms)
    for atom in stack_atoms & read:  # the queue's atoms follow from the next word, in the kernel
        changed = atoms.copy()
        changed[atom] += 100
        assert kernel(changed)[1] != kernel(atoms)[1], F.ATOMS[atom]
