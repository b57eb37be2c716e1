"""From raw text to both schemes' trees: the model 'hetdep train' builds by default, and the ways text reaches it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import SAMPLES, write

from hetdep.cli import main
from hetdep.tokenizer.text import rebuild_text, sentence_text
from hetdep.treebank.conllu import read_conllu

TEXT = ("Le ministre parle du budget au public. Les élèves de l'école visitent le musée.\n\n"
        "La réunion aura lieu à Paris en 2024, dans les locaux de l'association.")


def test_raw_text_gives_both_schemes_trees_of_the_same_words(pipeline_model, tmp_path):
    raw = write(tmp_path, "text.txt", TEXT)
    out_a, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(raw), "--output", str(out_a),
                                       "--output-b", str(out_b)])
    assert result.exit_code == 0, result.output
    a, b = list(read_conllu(out_a, require_heads=True)), list(read_conllu(out_b, require_heads=True))
    assert len(a) == len(b) >= 3  # the blank line ends a sentence at least
    assert [s.forms for s in a] == [s.forms for s in b]
    assert rebuild_text(a) == TEXT and "".join(sentence_text(s) for s in a).replace(" ", "") == "".join(TEXT.split())
    first = a[0]
    assert first.forms[:6] == ["Le", "ministre", "parle", "de", "le", "budget"]  # du = de le
    assert all(tag != "_" for s in a for tag in s.upos)  # tagged by the model's own tagger


def test_standard_input_and_output(pipeline_model, tmp_path):
    out_b = tmp_path / "b.conllu"
    process = subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(pipeline_model), "--input", "-",
                              "--output", "-", "--output-b", str(out_b)], input=TEXT.encode(), capture_output=True)
    assert process.returncode == 0, process.stderr.decode()
    printed = process.stdout.decode()
    assert printed.startswith("# sent_id = 1\n# text = Le ministre parle du budget") and printed.count("# sent_id") == len(list(read_conllu(out_b)))
    broken = subprocess.run([sys.executable, "-m", "hetdep", "parse", "--model", str(pipeline_model), "--input", "-",
                             "--output", "-", "--output-b", str(out_b), "--format", "conllu"],
                            input=b"1\tLe\t_\tDET\n", capture_output=True)
    assert broken.returncode == 2 and broken.stdout == b""  # nothing half written to standard output
    assert "<stdin>:1:" in broken.stderr.decode() and "Traceback" not in broken.stderr.decode()


def test_a_pipe_given_as_a_file_name_is_read_once_like_standard_input(pipeline_model, tmp_path):
    """A shell's ``--input <(...)`` or a named pipe: it can be read once, so it is not sniffed and then reopened."""
    pipe = tmp_path / "text.pipe"
    os.mkfifo(pipe)
    process = subprocess.Popen([sys.executable, "-m", "hetdep", "parse", "--model", str(pipeline_model), "--input", str(pipe),
                                "--output", "-", "--scheme", "a"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pipe.write_bytes(TEXT.encode())  # opens the pipe for writing: blocks until the parser opens it to read
    printed, errors = process.communicate(timeout=120)
    assert process.returncode == 0, errors.decode()
    assert printed.decode().startswith("# sent_id = 1\n# text = Le ministre parle du budget")


def test_conllu_is_recognised_whatever_its_name_and_tokenized_text_on_request(pipeline_model, tmp_path):
    conllu = write(tmp_path, "sentences.data", (SAMPLES / "dev.ud.conllu").read_text(encoding="utf-8"))
    out_a, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    args = ["parse", "--model", str(pipeline_model), "--output", str(out_a), "--output-b", str(out_b)]
    assert CliRunner().invoke(main, [*args, "--input", str(conllu)]).exit_code == 0
    assert [s.forms for s in read_conllu(out_a)] == [s.forms for s in read_conllu(SAMPLES / "dev.ud.conllu")]
    tokenized = write(tmp_path, "tok.txt", "Le chat dort .\nIl parle du livre .\n")
    assert CliRunner().invoke(main, [*args, "--input", str(tokenized), "--format", "tokenized"]).exit_code == 0
    assert [s.forms for s in read_conllu(out_a)] == [["Le", "chat", "dort", "."], ["Il", "parle", "du", "livre", "."]]


@pytest.mark.slow
def test_raw_text_for_a_model_without_tokenizer_is_one_clear_error(tmp_path):
    model = tmp_path / "m"
    assert CliRunner().invoke(main, ["train", "--train", str(SAMPLES / "train.ud.conllu"), "--dev", str(SAMPLES / "dev.ud.conllu"),
                                     "--model", str(model), "--beam", "2", "--iterations", "1", "--no-tokenizer",
                                     "--folds", "2"]).exit_code == 0
    raw = write(tmp_path, "text.txt", TEXT)
    result = CliRunner().invoke(main, ["parse", "--model", str(model), "--input", str(raw), "--output", str(tmp_path / "o"),
                                       "--format", "raw"])
    assert result.exit_code == 2 and "has no tokenizer for raw text" in result.output
    assert not (tmp_path / "o").exists()


def test_tokenize_and_train_tokenizer_commands(pipeline_model, tmp_path):
    runner = CliRunner()
    trained = runner.invoke(main, ["train-tokenizer", "--train", str(SAMPLES / "train.ud.conllu"), "--dev",
                                   str(SAMPLES / "dev.ud.conllu"), "--model", str(tmp_path / "tok"), "--iterations", "3"])
    assert trained.exit_code == 0, trained.output
    raw = write(tmp_path, "text.txt", TEXT)
    for model in (tmp_path / "tok", pipeline_model):
        out = tmp_path / "tokens.conllu"
        assert runner.invoke(main, ["tokenize", "--model", str(model), "--input", str(raw), "--output", str(out)]).exit_code == 0
        assert rebuild_text(read_conllu(out)) == TEXT


def test_threads_give_byte_identical_output(pipeline_model, tmp_path):
    """--threads: raw text tokenized, tagged and parsed on three threads, the same two files as on one."""
    text = write(tmp_path, "dev.txt", "\n\n".join(sentence_text(s) for s in read_conllu(SAMPLES / "dev.ud.conllu")))
    outputs = {}
    for threads in ("1", "3"):
        a, b = tmp_path / f"a{threads}.conllu", tmp_path / f"b{threads}.conllu"
        result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(text), "--output", str(a),
                                           "--output-b", str(b), "--threads", threads])
        assert result.exit_code == 0, result.output
        outputs[threads] = a.read_bytes(), b.read_bytes()
    assert outputs["1"] == outputs["3"] and outputs["1"][0].count(b"\n\n") > 20


FOUR_WORDS = "1\tLe\t_\tDET\t_\t_\t2\tdet\t_\t_\n2\tchat\t_\tNOUN\t_\t_\t3\tnsubj\t_\t_\n3\tdort\t_\tVERB\t_\t_\t0\troot\t_\t_\n" \
             "4\t.\t_\tPUNCT\t_\t_\t3\tpunct\t_\t_\n\n"


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\r"])
def test_conllu_whose_comment_holds_a_line_separator_other_than_lf_is_still_conllu(pipeline_model, tmp_path, separator):
    conllu = write(tmp_path, "in.txt", f"# sent_id = 1\n# text = Le chat{separator}dort .\n" + FOUR_WORDS)
    out_a, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(conllu), "--output", str(out_a),
                                       "--output-b", str(out_b)])
    assert result.exit_code == 0, result.output
    assert [s.forms for s in read_conllu(out_a)] == [["Le", "chat", "dort", "."]]


@pytest.mark.parametrize("text, message", [
    ("\ufeff# sent_id = 1\n" + FOUR_WORDS, "in.txt:1: starts with a byte-order mark"),
    ("# sent_id = 1\n\ufeff# text = Le chat dort .\n" + FOUR_WORDS, "in.txt:2:"),  # a mark on a later comment line
    ("１\tLe\t_\tDET\t_\t_\t0\troot\t_\t_\n\n", "in.txt:1:"),  # a full-width digit for an ID
    ("①\tLe\t_\tDET\t_\t_\t0\troot\t_\t_\n\n", "in.txt:1:"),  # a circled digit
    ("Le\t_\tDET\t_\t_\t0\troot\t_\t_\n\n", "in.txt:1: expected 10"),  # its ID column lost (bench/fuzz.py)
])
def test_conllu_that_is_damaged_is_named_not_parsed_as_text(pipeline_model, tmp_path, text, message):
    conllu = write(tmp_path, "in.txt", text)
    for command in (["parse", "--output-b", str(tmp_path / "b.conllu")], ["tag"]):
        result = CliRunner().invoke(main, [*command, "--model", str(pipeline_model), "--input", str(conllu), "--output",
                                           str(tmp_path / "a.conllu")])
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output
        assert not (tmp_path / "a.conllu").exists()


@pytest.mark.parametrize("content", ["", "\n\n  \n", " \t "])
def test_an_input_without_a_sentence_says_so_in_one_line(pipeline_model, tmp_path, content):
    empty = write(tmp_path, "empty.txt", content)
    out_a, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    result = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(empty), "--output", str(out_a),
                                       "--output-b", str(out_b)])
    assert result.exit_code == 0 and f"no sentence in {empty}" in result.output
    assert out_a.read_text() == "" and out_b.read_text() == ""


def test_one_scheme_of_a_joint_model_to_standard_output(pipeline_model, tmp_path):
    raw = write(tmp_path, "text.txt", TEXT)
    base = [sys.executable, "-m", "hetdep", "parse", "--model", str(pipeline_model), "--input", str(raw), "--output", "-"]
    a = subprocess.run(base, capture_output=True, text=True)
    assert a.returncode == 0, a.stderr
    b = subprocess.run(base + ["--scheme", "ud"], capture_output=True, text=True)
    both = subprocess.run(base + ["--scheme", "both"], capture_output=True, text=True)
    files = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(raw), "--output",
                                      str(tmp_path / "sud.conllu"), "--output-b", str(tmp_path / "ud.conllu")])
    assert files.exit_code == 0
    assert a.stdout == (tmp_path / "sud.conllu").read_text() and b.stdout == (tmp_path / "ud.conllu").read_text()
    ud = list(read_conllu(tmp_path / "ud.conllu"))
    lines = [line.split("\t") for line in both.stdout.splitlines() if line and line.split("\t")[0].isdigit()]
    assert [line[9].split("|")[-2:] for line in lines] == [[f"HeadB={h}", f"DeprelB={d}"] for s in ud
                                                           for h, d in zip(s.heads, s.deprels)]
    wrong = subprocess.run(base + ["--scheme", "xyz"], capture_output=True, text=True)
    assert wrong.returncode == 2 and "no scheme 'xyz'" in wrong.stderr and "sud, ud" in wrong.stderr
    to_file = CliRunner().invoke(main, ["parse", "--model", str(pipeline_model), "--input", str(raw), "--output",
                                        str(tmp_path / "x.conllu")])  # --output alone: scheme a, as to standard output
    assert to_file.exit_code == 0 and (tmp_path / "x.conllu").read_text() == a.stdout


ENGLISH = "The committee met yesterday evening to discuss the budget of the next year, which was approved by everyone."


def test_text_in_another_language_is_warned_of(pipeline_model, tmp_path):
    import warnings

    import hetdep
    from hetdep.api.model import UnknownWordsWarning

    raw = write(tmp_path, "english.txt", ENGLISH)
    args = ["parse", "--model", str(pipeline_model), "--input", str(raw), "--output", str(tmp_path / "a"),
            "--output-b", str(tmp_path / "b")]
    result = CliRunner().invoke(main, args)
    assert json.loads((pipeline_model / "config.json").read_text(encoding="utf-8"))["language"] == "fr"  # told at training
    said = "100% of the 20 words are in sentences that look like another language than the model's (fr)"
    assert result.exit_code == 0 and said in result.output
    assert "another language" not in CliRunner().invoke(main, args + ["--quiet"]).output
    french = write(tmp_path, "french.txt", TEXT)
    assert "another language" not in CliRunner().invoke(main, args[:3] + [str(french)] + args[4:]).output
    with pytest.warns(UnknownWordsWarning, match="another language"):
        document = hetdep.load(pipeline_model)(ENGLISH)
    assert len(document.warnings) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hetdep.load(pipeline_model, quiet=True)(ENGLISH).warnings == document.warnings
