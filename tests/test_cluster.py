"""Parsing on Dask: a local cluster, an existing scheduler with its workers, a worker killed
mid-run, and the errors a user must get."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import SAMPLES, write

from hetdep.cli import main
from hetdep.cluster.chunks import chunks_of, model_files, run_on_cluster
from hetdep.cluster.connect import ClusterChoice, connect
from hetdep.errors import HetdepError, OutputError
from hetdep.models.opening import ParseJob
from hetdep.models.parsing import ParseChoice
from hetdep.treebank.conllu import read_conllu

DEV = SAMPLES / "dev.ud.conllu"


def run(*args):
    return CliRunner().invoke(main, [str(arg) for arg in args])


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    directory = tmp_path_factory.mktemp("cluster") / "model"
    result = run("train", "--train", SAMPLES / "train.ud.conllu", "--dev", DEV, "--model", directory, "--beam", "4",
                 "--iterations", "1", "--gold-tags", "--no-tokenizer")
    assert result.exit_code == 0, result.output
    return directory


@pytest.fixture(scope="module")
def one_process(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "one.conllu"
    assert run("parse", "--model", model, "--input", DEV, "--output", out).exit_code == 0
    return out.read_bytes()


def test_cli_workers_give_the_one_process_output(model, one_process, tmp_path):
    out = tmp_path / "two.conllu"
    result = run("parse", "--model", model, "--input", DEV, "--output", out, "--workers", "2")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == one_process
    assert [p.name for p in tmp_path.iterdir()] == ["two.conllu"]
    assert "Dask timing: cluster reached at" in result.output


def test_a_worker_of_two_threads_gives_the_one_process_output(model, one_process, tmp_path):
    out = tmp_path / "threads.conllu"
    result = run("parse", "--model", model, "--input", DEV, "--output", out, "--workers", "1", "--threads", "2")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == one_process
    assert "1 Dask workers" in result.output


def test_chunks_start_small_and_double():
    sentences = list(read_conllu(DEV))
    chunks = list(chunks_of(sentences, chunk_words=2000, first_words=300))
    assert [s for chunk in chunks for s in chunk] == sentences
    sizes = [sum(len(s) for s in chunk) for chunk in chunks]
    longest = max(len(s) for s in sentences)
    assert len(chunks) >= 5
    for size, wanted in zip(sizes[:-1], (300, 600, 1200, 2000, 2000)):
        assert wanted <= size < wanted + longest


def test_tagging_on_workers_and_threads_gives_the_one_process_output(pipeline_model, tmp_path):
    outputs = []
    for extra in ((), ("--workers", "2"), ("--threads", "2"), ("--workers", "1", "--threads", "2")):
        out = tmp_path / f"tagged{len(outputs)}.conllu"
        result = run("tag", "--model", pipeline_model, "--input", DEV, "--output", out, "--k", "2", *extra)
        assert result.exit_code == 0, result.output
        outputs.append(out.read_bytes())
    assert len(set(outputs)) == 1 and b"TagKBest=" in outputs[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_existing_scheduler_and_worker_processes_parse_as_one_process_and_train_as_a_local_cluster(model, one_process,
                                                                                                   tmp_path):
    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    assert dask, "the dask command comes with distributed"
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for k in range(2):  # each in a working folder of its own
            (tmp_path / f"worker{k}").mkdir()
            processes.append(subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-dashboard"],
                                              cwd=tmp_path / f"worker{k}", stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
        out = tmp_path / "remote.conllu"
        result = run("parse", "--model", model, "--input", DEV, "--output", out, "--scheduler", address)
        assert result.exit_code == 0, result.output
        assert out.read_bytes() == one_process
        # the workers need no folder of this process: the model's files are read, its folder removed, then the run
        copy = shutil.copytree(model, tmp_path / "driver" / "model")
        files = model_files(copy)
        shutil.rmtree(copy)
        unseen = tmp_path / "driver" / "unseen.conllu"
        run_on_cluster(ParseJob(str(copy), ParseChoice()), read_conllu(DEV), [str(unseen)], ClusterChoice(scheduler=address),
                       chunk_words=300, files=files)
        assert unseen.read_bytes() == one_process
        remote, local = tmp_path / "remote-model", tmp_path / "local-model"
        for directory, where in ((remote, ("--scheduler", address)), (local, ("--workers", "1"))):
            result = run("train", "--train", SAMPLES / "train.ud.conllu", "--dev", DEV, "--model", directory, "--beam", "4",
                         "--iterations", "2", "--gold-tags", "--no-tokenizer", "--shards", "2", *where)
            assert result.exit_code == 0, result.output
        assert (remote / "weights.npz").read_bytes() == (local / "weights.npz").read_bytes()
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def test_a_worker_killed_mid_run_loses_no_sentence_and_writes_none_twice(model, one_process, tmp_path):
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:  # closed before the run's own client: one client at a time in this process
            pids = list(client.run(os.getpid).values())
        killed = threading.Event()

        def progress(_sentences: int) -> None:
            if not killed.is_set():  # after the first chunk: one worker dies, its chunks run again elsewhere
                killed.set()
                os.kill(pids[0], signal.SIGKILL)

        out = tmp_path / "killed.conllu"
        run = run_on_cluster(ParseJob(str(model), ParseChoice()), read_conllu(DEV), [str(out)],
                             ClusterChoice(scheduler=cluster.scheduler_address), chunk_words=300, progress=progress)
        assert killed.is_set()
        assert run.sentences == run.stats.sentences == 200
        assert run.memory and all(peak > 2**20 for peak in run.memory.values())  # the killed worker may be restarting
        assert out.read_bytes() == one_process


def test_model_files_lost_with_every_worker_are_sent_again(model, one_process, tmp_path):
    """Dask keeps one copy of scattered data once its memory manager has run, so a worker killed
    can take the model's files with it; here both die, and their restarted twins get the files again."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            pids = list(client.run(os.getpid).values())
        killed = threading.Event()

        def progress(_sentences: int) -> None:
            if not killed.is_set():
                killed.set()
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)

        out = tmp_path / "lost.conllu"
        run = run_on_cluster(ParseJob(str(model), ParseChoice()), read_conllu(DEV), [str(out)],
                             ClusterChoice(scheduler=cluster.scheduler_address), chunk_words=300, progress=progress)
        assert killed.is_set() and run.sentences == 200
        assert out.read_bytes() == one_process


def test_inputs_and_outputs_at_fsspec_urls(model, one_process, tmp_path):
    import fsspec

    memory = fsspec.filesystem("memory")
    memory.pipe("memory://corpus/dev.conllu", DEV.read_bytes())
    for extra in ((), ("--workers", "2")):
        result = run("parse", "--model", model, "--input", "memory://corpus/dev.conllu", "--output",
                     "memory://parsed/out.conllu", *extra)
        assert result.exit_code == 0, result.output
        assert memory.cat("memory://parsed/out.conllu") == one_process
        memory.rm("memory://parsed/out.conllu")
    result = run("parse", "--model", model, "--input", DEV.resolve().as_uri(), "--output", (tmp_path / "f.conllu").as_uri())
    assert result.exit_code == 0 and (tmp_path / "f.conllu").read_bytes() == one_process, result.output
    broken = DEV.read_text(encoding="utf-8").replace("\t", " ", 1).encode()  # the first word's line loses a tab
    memory.pipe("memory://corpus/broken.conllu", broken)
    result = run("parse", "--model", model, "--input", "memory://corpus/broken.conllu", "--output",
                 "memory://parsed/out.conllu", "--format", "conllu")
    assert result.exit_code == 2 and "memory://corpus/broken.conllu:" in result.output, result.output
    assert not memory.exists("memory://parsed/out.conllu")  # a failed command writes nothing there
    result = run("parse", "--model", model, "--input", "memory://corpus/none.conllu", "--output", tmp_path / "o.conllu")
    assert result.exit_code == 2 and "memory://corpus/none.conllu: cannot open" in result.output, result.output
    result = run("parse", "--model", model, "--input", DEV, "--output", "nosuchfs://bucket/out.conllu")
    assert result.exit_code == 2 and "no filesystem here reads or writes this 'nosuchfs://' URL" in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_a_chunk_that_kills_every_worker_is_a_clear_error(tmp_path):
    import dask

    class Dying:  # defined here: sent by value to the workers
        model_dir = "unused"

        def open(self, threads, directory):
            return None

        def run(self, models, sentences):
            os._exit(1)

    out = tmp_path / "out.conllu"
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        with pytest.raises(HetdepError, match=f"each time they parsed the chunk of sentences from {re.escape(str(DEV))}:[0-9]+ on"):
            run_on_cluster(Dying(), read_conllu(DEV), [str(out)], ClusterChoice(workers=1))
    assert not out.exists()


def test_an_unreachable_scheduler_is_a_clear_error():
    port = _free_port()
    started = time.perf_counter()
    with pytest.raises(HetdepError, match=f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}"):
        with connect(ClusterChoice(scheduler=f"tcp://127.0.0.1:{port}"), timeout=2):
            pass
    assert time.perf_counter() - started < 30


def test_an_untagged_word_deep_in_a_chunk_names_the_input_line_and_writes_nothing(model, tmp_path):
    sentences = DEV.read_text(encoding="utf-8").split("\n\n")
    lines = sentences[150].split("\n")
    word = next(i for i, line in enumerate(lines) if line and line[0].isdigit())
    fields = lines[word].split("\t")
    fields[3] = "_"
    lines[word] = "\t".join(fields)
    sentences[150] = "\n".join(lines)
    source = write(tmp_path, "input.conllu", "\n\n".join(sentences))
    first_line = "\n\n".join(sentences[:150]).count("\n") + 3
    out = tmp_path / "out.conllu"
    result = run("parse", "--model", model, "--input", source, "--output", out, "--workers", "2")
    assert result.exit_code == 2, result.output
    assert f"input.conllu:{first_line}" in result.output and "has no UPOS tag" in result.output
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["input.conllu"]


def test_an_output_folder_that_cannot_be_written_is_refused_before_any_work(model, tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        run_on_cluster(ParseJob(str(model), ParseChoice()), read_conllu(DEV), [str(tmp_path / "missing" / "out.conllu")],
                       ClusterChoice(workers=1))


def _entries(pairs, w, averaged):
    import numpy as np

    from hetdep.learn.weights import WeightEntries

    keys, actions = zip(*pairs) if pairs else ((), ())
    return WeightEntries(np.array(keys, dtype=np.uint64), np.array(actions, dtype=np.int32),
                         np.array(w, dtype=np.float32), np.array(averaged, dtype=np.float32))


def test_mixing_averages_by_feature_and_action_in_shard_order():
    from hetdep.cluster.mixing import mix, running_mean

    a = _entries([(7, 1), (3, 0)], [2.0, 4.0], [1.0, 2.0])
    b = _entries([(3, 0), (3, 2)], [-2.0, 6.0], [0.0, 3.0])
    mixed = mix([a, b])
    assert list(zip(mixed.keys.tolist(), mixed.actions.tolist())) == [(7, 1), (3, 0), (3, 2)]  # as first seen
    assert mixed.w.tolist() == [1.0, 1.0, 3.0] and mixed.averaged.tolist() == [0.5, 1.0, 1.5]
    later = running_mean(mixed, _entries([(3, 0)], [0.0], [4.0]), 2)  # (epoch 1's mean + epoch 2's) / 2
    assert later.averaged.tolist() == [0.25, 2.5, 0.75]
    assert len(mix([_entries([], [], []), _entries([], [], [])]).keys) == 0


def test_dealing_gives_every_example_once_and_shards_of_nearly_equal_words():
    import numpy as np

    from hetdep.cluster.mixing import deal

    sizes = np.random.default_rng(3).integers(1, 60, 500).tolist()
    order = np.random.default_rng(4).permutation(500)
    shards = deal(order, sizes, 3)
    assert sorted(i for shard in shards for i in shard) == list(range(500))
    loads = [sum(sizes[i] for i in shard) for shard in shards]
    assert max(loads) - min(loads) <= max(sizes)  # every shard's pass the same work, to one sentence
    assert all(shard == [i for i in order.tolist() if i in set(shard)] for shard in shards)  # the order kept


def test_compiled_weighted_sums_equal_the_reference():
    """Parts that share most pairs, keys crowding the same slots (equal low bits) and factors that
    do not round evenly: the compiled sums are the reference's, bit for bit."""
    import numpy as np

    from hetdep.cluster import reference
    from hetdep.cluster.mixing import _weighted_sums

    rng = np.random.default_rng(7)
    pool = [(int(k) << 20 | 5, int(a)) for k, a in zip(rng.integers(1, 1 << 40, 300), rng.integers(0, 90, 300))]
    parts = []
    for _ in range(3):
        chosen = sorted(set(rng.choice(len(pool), 200).tolist()))
        parts.append(_entries([pool[i] for i in chosen], rng.normal(size=len(chosen)), rng.normal(size=len(chosen))))
    factors = [1 / 3, 0.7, -2.1]
    keys, actions, (w, averaged) = _weighted_sums(parts, ("w", "averaged"), factors)
    expected = reference.weighted_sums(parts, ("w", "averaged"), factors)
    assert list(zip(keys.tolist(), actions.tolist())) == list(expected)
    assert w.tolist() == [float(v[0]) for v in expected.values()]
    assert averaged.tolist() == [float(v[1]) for v in expected.values()]


def test_parameter_mixing_learns_is_deterministic_and_trains_the_joint_model(tmp_path):
    models = {}
    for name, workers in (("two", "2"), ("one", "1")):
        models[name] = tmp_path / name
        result = run("train", "--train", SAMPLES / "train.ud.conllu", "--dev", DEV, "--model", models[name], "--beam", "4",
                     "--iterations", "3", "--gold-tags", "--no-tokenizer", "--workers", workers, "--shards", "2")
        assert result.exit_code == 0, result.output
    assert (models["two"] / "weights.npz").read_bytes() == (models["one"] / "weights.npz").read_bytes()
    assert "dev UAS" in result.output and float(result.output.split("dev UAS ")[-1].split()[0]) > 70.0
    joint = tmp_path / "joint"
    result = run("train", "--train", SAMPLES / "train.sud.conllu", "--train-b", SAMPLES / "train.ud.conllu", "--dev",
                 SAMPLES / "dev.sud.conllu", "--dev-b", DEV, "--model", joint, "--beam", "4", "--iterations", "2",
                 "--gold-tags", "--no-tokenizer", "--workers", "2")
    assert result.exit_code == 0, result.output
    out_a, out_b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    assert run("parse", "--model", joint, "--input", DEV, "--output", out_a, "--output-b", out_b).exit_code == 0
    assert len(list(read_conllu(out_b))) == 200


def test_threads_on_an_existing_cluster_are_the_workers_own(model, tmp_path):
    result = run("parse", "--model", model, "--input", DEV, "--output", tmp_path / "out.conllu", "--scheduler",
                 "tcp://127.0.0.1:1", "--threads", "2")
    assert result.exit_code == 2 and "dask worker --nthreads N" in result.output, result.output


@pytest.mark.parametrize("args, message", [
    (("--parser", "dep1", "--workers", "2"), "training on a cluster (--workers, --scheduler) is for the arc-standard"),
    (("--shards", "2"), "--shards is for training on a cluster"),
    (("--workers", "2", "--scheduler", "tcp://127.0.0.1:1"), "not both"),
])
def test_training_on_a_cluster_refuses_what_it_cannot_do(tmp_path, args, message):
    result = run("train", "--train", SAMPLES / "train.ud.conllu", "--dev", DEV, "--model", tmp_path / "m", "--gold-tags",
                 "--no-tokenizer", "--iterations", "1", *args)
    assert result.exit_code == 2 and message in result.output, result.output


def test_workers_parse_with_the_shipped_model_in_its_own_arithmetic(tmp_path):
    """A worker opens the shipped model as one process does: in float32 the workers' trees are one
    process's, byte for byte; in int8 (where this machine can), each worker parses in 8 bits too
    (its trees are not float32's), and as the runtime quantizes each batch with a scale of its own
    and the chunks make other batches, a few sentences may differ from one process's."""
    from hetdep.neural import int8
    from hetdep.tokenizer.text import document_text

    source = tmp_path / "t.txt"
    source.write_text(document_text(list(read_conllu(DEV))[:120]) + "\n", encoding="utf-8")
    outputs = {}
    for precision in ("int8", "float32"):
        for where, extra in (("one", ()), ("workers", ("--workers", "2"))):
            out, out_b = tmp_path / f"{precision}.{where}.sud", tmp_path / f"{precision}.{where}.ud"
            result = run("parse", "--input", source, "--output", out, "--output-b", out_b, "--precision", precision, *extra)
            assert result.exit_code == 0, result.output
            outputs[precision, where] = [sentence.to_text() for path in (out, out_b) for sentence in read_conllu(path)]
    assert outputs["float32", "workers"] == outputs["float32", "one"]
    if int8.unavailable() is None:
        workers, one, float32 = (outputs[key] for key in (("int8", "workers"), ("int8", "one"), ("float32", "one")))
        assert len(workers) == len(one) == len(float32) and workers != float32
        assert sum(a != b for a, b in zip(workers, one)) < len(one) // 5
