"""Sentences on several threads: results in input order, errors in their turn, input read lazily."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from hetdep.threads import AHEAD, ordered_map


def test_results_come_in_input_order_whatever_finishes_first():
    def slow_for_small(x):
        time.sleep(0.002 * (10 - x % 10))
        return x * x

    assert list(ordered_map(slow_for_small, range(50), 4)) == [x * x for x in range(50)]
    assert list(ordered_map(slow_for_small, range(50), 1)) == [x * x for x in range(50)]


def test_work_runs_on_several_threads():
    seen = set()

    def record(x):
        seen.add(threading.get_ident())
        time.sleep(0.01)
        return x

    assert list(ordered_map(record, range(20), 3)) == list(range(20))
    assert len(seen) == 3


def test_an_error_is_raised_in_its_turn():
    def fails_at_7(x):
        if x == 7:
            raise ValueError("item 7")
        return x

    results = []
    with pytest.raises(ValueError, match="item 7"):
        for result in ordered_map(fails_at_7, range(20), 3):
            results.append(result)
    assert results == list(range(7))


def test_the_input_is_read_lazily_and_work_stops_with_the_consumer():
    read = []
    done = []

    def items():
        for x in range(10_000):
            read.append(x)
            yield x

    def work(x):
        done.append(x)
        return x

    stream = ordered_map(work, items(), 2)
    assert [next(stream) for _ in range(5)] == list(range(5))
    assert len(read) <= AHEAD * 2 + 5  # bounded look-ahead, not the whole input
    stream.close()  # the consumer stops: what was not started is cancelled
    assert len(done) <= AHEAD * 2 + 5


def test_blas_threads_are_limited_from_then_on():
    from threadpoolctl import threadpool_info, threadpool_limits

    from hetdep.threads import limit_blas_threads

    with threadpool_limits(limits=2, user_api="blas"):  # the process's setting is put back afterwards
        limit_blas_threads(0)  # a share of no cores is one thread
        blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
        assert blas and set(blas) == {1}


def test_a_parse_keeps_one_blas_thread(tmp_path):
    from click.testing import CliRunner
    from threadpoolctl import threadpool_info, threadpool_limits

    from hetdep.cli import main

    (tmp_path / "in.txt").write_text("Le chat dort sur le canapé.", encoding="utf-8")
    with threadpool_limits(limits=2, user_api="blas"):  # the test process's setting is put back afterwards
        result = CliRunner().invoke(main, ["parse", "--input", str(tmp_path / "in.txt"), "--output", str(tmp_path / "out.conllu")])
        assert result.exit_code == 0, result.output
        assert {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"} == {1}


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="this system has no CPU affinity")
def test_every_core_means_the_cores_this_process_may_run_on():
    """``taskset`` or a container's cpuset gives a process fewer cores than the machine has: a
    neural training's default threads and the service's BLAS share count those."""
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from hetdep.threads import usable_cores; from hetdep.neural.training import NeuralOptions; "
            "print(usable_cores(), NeuralOptions().threads)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["1", "1"]


def test_the_blas_description_names_the_kernels_and_an_environment_s_choice(monkeypatch):
    from threadpoolctl import threadpool_info

    from hetdep.threads import blas_kernels

    running = [info for info in threadpool_info() if info.get("user_api") == "blas"]
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Prescott")  # read when OpenBLAS loads: named, not applied, here
    described = blas_kernels()
    assert described.endswith(", OPENBLAS_CORETYPE=Prescott from the environment")
    assert all(f"({info.get('architecture') or 'its own'} kernels)" in described for info in running), described
    monkeypatch.delenv("OPENBLAS_CORETYPE")
    assert "OPENBLAS_CORETYPE" not in blas_kernels()
