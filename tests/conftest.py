"""Shared test fixtures: the shipped sample, the real treebanks in ../shared (skipped when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _own_share_of_the_cores() -> None:
    """Under pytest-xdist each worker runs on its own share of the cores, before NumPy or PyTorch
    start their threads: the code's "every core" defaults (a neural training's threads, BLAS) then
    give each worker its share, where two workers of two threads each would wait on each other."""
    worker, count = os.environ.get("PYTEST_XDIST_WORKER"), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not worker or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= count > 1:
        share = cores[int(worker.removeprefix("gw")) % count::count]
        try:
            os.sched_setaffinity(0, share)
        except OSError:  # a sandbox that forbids it: the workers share the cores
            return
        for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[variable] = str(len(share))  # for the subprocesses of tests too


_own_share_of_the_cores()

import hetdep  # imported after the worker's share of the cores is set

SAMPLES = Path(hetdep.__file__).parent / "samples" / "fr-sequoia"
EN_SAMPLES = SAMPLES.parent / "en-ewt"  # UD with enhanced graphs (DEPS) and empty nodes
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

needs_shared = pytest.mark.skipif(
    not SHARED_DATA.is_dir(), reason=f"the real treebanks are not at {SHARED_DATA} (../shared/data beside the checkout)"
)


def shared_files(pattern: str = "*/*.conllu") -> list[Path]:
    return sorted(SHARED_DATA.glob(pattern)) if SHARED_DATA.is_dir() else []


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def conllu(*words: tuple, comments: tuple[str, ...] = ()) -> str:
    """A CoNLL-U sentence from (form, upos, head, deprel) tuples."""
    lines = list(comments)
    for i, (form, upos, head, deprel) in enumerate(words, 1):
        lines.append(f"{i}\t{form}\t{form.lower()}\t{upos}\t_\t_\t{head}\t{deprel}\t_\t_")
    return "\n".join(lines) + "\n\n"


@pytest.fixture(scope="session")
def pipeline_model(tmp_path_factory):
    """A joint model trained the default way (tokenizer, tagger, jackknifed tags) on the sample, kept small."""
    from click.testing import CliRunner

    from hetdep.cli import main

    model = tmp_path_factory.mktemp("pipeline") / "model"
    result = CliRunner().invoke(main, [
        "train", "--train", str(SAMPLES / "train.sud.conllu"), "--train-b", str(SAMPLES / "train.ud.conllu"),
        "--dev", str(SAMPLES / "dev.sud.conllu"), "--dev-b", str(SAMPLES / "dev.ud.conllu"), "--model", str(model),
        "--beam", "4", "--iterations", "2", "--folds", "3"])
    assert result.exit_code == 0, result.output
    assert "with its tokenizer and tagger" in result.output
    return model


@pytest.fixture(scope="session")
def saved(tmp_path_factory):
    """Tiny saved models of three kinds (arc-standard, dep1, joint), trained on 40 sample sentences."""
    from hetdep.graph.parser import train_graph
    from hetdep.joint.training import train_joint
    from hetdep.learn.perceptron import TrainOptions
    from hetdep.transition.training import train
    from hetdep.treebank.conllu import read_conllu
    from hetdep.treebank.pairs import read_pairs

    folder = tmp_path_factory.mktemp("models")
    sentences = list(read_conllu(SAMPLES / "train.ud.conllu"))[:40]
    pairs = read_pairs(SAMPLES / "train.sud.conllu", SAMPLES / "train.ud.conllu")[:40]
    options = TrainOptions(beam=2, iterations=1)
    train(sentences, [], options).parser.save(folder / "arc")
    train_graph(sentences, [], options).parser.save(folder / "dep1")
    train_joint(pairs, [], options).parser.save(folder / "joint")
    return folder


def torch_network(parser):
    """The PyTorch network of a neural parser's arrays, in evaluation mode; its arrays' shapes are
    checked to be those the parser checks saved models against."""
    import torch

    from hetdep.neural.network import Network

    network = Network(parser.shape)
    network.load_state_dict({name: torch.from_numpy(array) for name, array in parser.arrays.items()})
    network.eval()
    assert {name: tuple(t.shape) for name, t in network.state_dict().items()} == parser.shape.arrays()
    return network
