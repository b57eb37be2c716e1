"""Perceptron training by iterative parameter mixing on a Dask cluster (McDonald, Hall & Mann 2010).

Each epoch the training examples are dealt anew into ``shards`` (in an order drawn from (seed,
epoch), each to the shard with the fewest words so far), and every shard trains one pass of the
ordinary perceptron over its examples, in an order drawn from (seed, epoch, shard), starting
from the mixed weights of the previous epoch; the shards' weights are then averaged (uniform
mixing). Dealt anew, the shards mix their examples from epoch to epoch as serial training's
shuffling does; dealt by words, the workers finish together instead of waiting at the mix.
Averaging as the serial perceptron does: each shard also returns its weights averaged over its
pass, and the model of epoch t is the mean of the mixed pass averages of epochs 1..t.
Everything is summed in shard order, so a fixed seed and shard count give the same model on any
cluster.

Workers prepare the training data (vocabularies, oracles) once, from the examples sent to them
once; each epoch ships the mixed weights out and each shard's weights back. The dev set is
scored here, as in serial training, and the best epoch kept (with the same patience).
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from hetdep.cluster import _mixing
from hetdep.cluster.connect import ClusterChoice, connect
from hetdep.interrupts import is_interrupt
from hetdep.learn._weights import half_full_size
from hetdep.learn.perceptron import IterationReport, Learner, TrainOptions, TrainResult, close_iteration
from hetdep.learn.weights import WeightEntries, Weights

_learners: dict = {}  # a worker process's prepared learners, by training run
_lock = threading.Lock()


def _learner(run: str, make: Callable[[], Learner]) -> Learner:
    with _lock:
        if run not in _learners:
            _learners.clear()  # one run at a time keeps a worker's memory to one copy of the data
            _learners[run] = make()
        return _learners[run]


def shard_epoch(run: str, make: Callable[[], Learner], shard: int, shards: int, epoch: int, seed: int,
                mixed: WeightEntries | None) -> tuple[WeightEntries, int, int]:
    """A worker's task: one pass over a shard from the mixed weights; its weights, how many updates
    it made and how many examples it saw."""
    learner = _learner(run, make)
    weights = learner.weights
    if mixed is None:
        weights.__init__(weights.n_actions)
    else:
        weights.reset(mixed.keys, mixed.actions, mixed.w)
    dealt = deal(np.random.default_rng([seed, epoch]).permutation(learner.examples), learner.sizes, shards)[shard]
    order = np.random.default_rng([seed, epoch, shard]).permutation(dealt)
    updates = 0
    for index in order:
        updates += bool(learner.learn(int(index)))
        weights.counter += 1
    return weights.entries(), updates, len(order)


def deal(order: np.ndarray, sizes: list[int], shards: int) -> list[list[int]]:
    """The examples in this order, each to the shard with the fewest words so far (the lowest on a
    tie): shards of nearly equal work, so that no worker waits long for the others at the mix."""
    dealt: list[list[int]] = [[] for _ in range(shards)]
    loads = [0] * shards
    for index in order.tolist():
        shard = loads.index(min(loads))
        dealt[shard].append(index)
        loads[shard] += sizes[index]
    return dealt


def mix(parts: list[WeightEntries]) -> WeightEntries:
    """The uniform mean of the shards' weights (raw and averaged), by (feature, action), in shard order."""
    share = [1.0 / len(parts)] * len(parts)
    keys, actions, (w, averaged) = _weighted_sums(parts, ("w", "averaged"), share)
    return WeightEntries(keys, actions, w, averaged)


def running_mean(total: WeightEntries | None, new: WeightEntries, epoch: int) -> WeightEntries:
    """The mean of the pass averages of epochs 1..epoch, given their mean over 1..epoch-1 (``total``)."""
    if total is None:
        return new
    keys, actions, (averaged,) = _weighted_sums([total, new], ("averaged",), [(epoch - 1) / epoch, 1 / epoch])
    return WeightEntries(keys, actions, averaged, averaged)


def _weighted_sums(parts: list[WeightEntries], fields: tuple[str, ...], factors: list[float]):
    """Per (feature, action) over the parts: sum of factor * value, for each field (float32, parts
    in order; :mod:`hetdep.cluster._mixing`). Returns keys, actions and one array per field."""
    total = sum(len(part.keys) for part in parts)
    slots = np.full(half_full_size(total), -1, dtype=np.int64)
    keys = np.zeros(total, dtype=np.uint64)
    actions = np.zeros(total, dtype=np.int32)
    sums = np.zeros((len(fields), total), dtype=np.float32)
    n = np.zeros(1, dtype=np.int64)
    for part, factor in zip(parts, factors):
        values = np.stack([getattr(part, field) for field in fields])
        _mixing.accumulate(slots, n, keys, actions, sums, part.keys, part.actions, values, np.float32(factor))
    used = int(n[0])
    return keys[:used].copy(), actions[:used].copy(), [row[:used].copy() for row in sums]


def train_mixed(make: Callable[[], Learner], local: Learner, options: TrainOptions, cluster: ClusterChoice, shards: int,
                progress: Callable | None = None) -> TrainResult:
    """Train by iterative parameter mixing: ``make`` builds the learner on a worker (a picklable
    callable over the training data), ``local`` is the same learner here, whose ``evaluate_model``
    scores dev. ``progress``: as the serial loop's (one bar an epoch, in examples).

    Each epoch's model is scored on dev here while the workers already train the next epoch from
    its mixed weights (which scoring does not change); an epoch's seconds run from the end of the
    one before.
    """
    history: list[IterationReport] = []
    best = None
    run = f"hetdep-train-{time.time_ns()}"
    with connect(cluster) as client:
        maker = client.scatter(make, broadcast=True)

        def start_epoch(epoch: int, mixed: WeightEntries | None) -> list:
            shipped = client.scatter(mixed, broadcast=True) if mixed is not None else None
            return [client.submit(shard_epoch, run, maker, shard, shards, epoch, options.seed, shipped, pure=False,
                                  key=f"{run}-epoch{epoch}-shard{shard}") for shard in range(shards)]

        total = None
        futures = start_epoch(1, None)
        started = time.perf_counter()
        for epoch in range(1, options.iterations + 1):
            bar = progress(total=local.examples, desc=f"iteration {epoch}", unit="sent") if progress else None
            try:
                results = []
                for future in futures:
                    results.append(future.result())
                    if bar:
                        bar.update(results[-1][2])
                mixed = mix([entries for entries, _, _ in results])
                futures = start_epoch(epoch + 1, mixed) if epoch < options.iterations else []  # the workers go on at once
                total = running_mean(total, mixed, epoch)
                averaged = Weights.trained(local.weights.n_actions, total.keys, total.actions, total.averaged)
                model, uas, las, detail = local.evaluate_model(averaged)
            except BaseException as error:
                client.cancel(futures)
                if bar:
                    bar.close()
                if best is None or not is_interrupt(error):
                    raise
                return TrainResult(best[1], best[0].iteration, history, interrupted=True)
            report = IterationReport(epoch, time.perf_counter() - started, sum(updates for _, updates, _ in results),
                                     averaged.features, uas, las, detail)
            started = time.perf_counter()
            best, stop = close_iteration(history, best, report, model, bar, options)
            if stop:
                client.cancel(futures)
                break
    return TrainResult(best[1], best[0].iteration, history)
