"""Short runs: a short input is parsed without numba, into what the compiled loops make of it."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner
from conftest import SAMPLES

from hetdep.cli import main
from hetdep.short_runs import SHORT_INPUT
from hetdep.tokenizer.text import sentence_text
from hetdep.treebank.conllu import read_conllu

_PARSE_AND_TELL = """
import sys
from hetdep.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    assert not done.code, done.code
print("numba" in sys.modules, "scipy" in sys.modules)
"""


def test_a_short_text_is_parsed_without_numba_as_the_compiled_loops_parse_it(tmp_path):
    """Raw text of sample sentences (tokenizer, taggers, network and decoder all at work, unseen
    words and the lemma dictionary too) just under the bound: the references in a fresh process,
    then the compiled loops here, where numba is loaded."""
    import numba  # noqa: F401 (loaded: this process's parse runs the compiled loops)

    text = "Le chat dort sur le canapé. Il pleut sur les gares"  # no final full stop, no line end
    for sentence in read_conllu(SAMPLES / "dev.ud.conllu"):
        if len((sentence_text(sentence) + "\n" + text).encode("utf-8")) > SHORT_INPUT:
            break
        text = sentence_text(sentence) + "\n" + text
    (tmp_path / "short.txt").write_text(text, encoding="utf-8")
    arguments = ["parse", "--input", str(tmp_path / "short.txt"), "--output", str(tmp_path / "plain.conllu"),
                 "--output-b", str(tmp_path / "plain.b.conllu")]
    told = subprocess.run([sys.executable, "-c", _PARSE_AND_TELL, *arguments], capture_output=True, text=True, check=True)
    assert told.stdout.split() == ["False", "False"]  # neither numba nor the SciPy it brings
    arguments[4::2] = [str(tmp_path / "compiled.conllu"), str(tmp_path / "compiled.b.conllu")]
    assert CliRunner().invoke(main, arguments).exit_code == 0
    for name in "", ".b":
        plain = (tmp_path / f"plain{name}.conllu").read_text(encoding="utf-8")
        assert plain == (tmp_path / f"compiled{name}.conllu").read_text(encoding="utf-8")
        assert plain.count("# text") >= 5


def test_a_python_user_s_short_text_and_short_standard_input_are_parsed_without_numba():
    script = ("import sys, hetdep; from hetdep.cli import main; document = hetdep.load()('Le chat dort sur le canapé.'); "
              "main(['parse', '--input', '-', '--output', '-'], standalone_mode=False); "
              "print(len(document.sentences[0].words), 'numba' in sys.modules)")
    told = subprocess.run([sys.executable, "-c", script], input="Le chat dort. Il pleut", capture_output=True, text=True,
                          check=True)
    assert told.stdout.count("# text") == 2 and told.stdout.split()[-2:] == ["7", "False"], told.stdout
