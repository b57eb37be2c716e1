"""The training loop's state after each finished iteration, so an interrupted training resumes
where it stopped and ends with the model an uninterrupted run gives (``hetdep train --resume``).

What is kept: the weights being trained with their averaging sums (every array of
:class:`~hetdep.learn.weights.Weights`), the random generator's state (the next iteration's
order), the history, and the averaged weights of the best iteration so far. The loop finds the
folder to keep them in through :func:`kept_in`, set by the pipeline around the parser's
training alone (a tagger's or a jackknifing fold's loop keeps nothing). Each save replaces the
last one whole (written beside it, then renamed), so an interrupt while saving leaves the
previous iteration's state.
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from hetdep.learn.model_config import ModelFileError
from hetdep.learn.weights import TrainedWeights, Weights

STATE = ".training-state"  # in a model directory: an interrupted training's finished stages and loop, for --resume
_ARRAYS = ("table", "n_used", "n_entries", "enext", "eact", "ew", "eu", "n_dense", "dense", "dense_u")
_folder: ContextVar[Path | None] = ContextVar("checkpoint_folder", default=None)


@contextmanager
def kept_in(folder: Path) -> Iterator[None]:
    """The training loops run inside this block keep their state in ``folder`` (and resume from it)."""
    token = _folder.set(Path(folder))
    try:
        yield
    finally:
        _folder.reset(token)


def active() -> Path | None:
    return _folder.get()


@dataclass
class LoopState:
    """Where a loop stands after its last finished iteration."""

    iteration: int
    rng_state: dict
    history: list[dict]
    best_iteration: int | None
    best_weights: TrainedWeights | None


def save(folder: Path, weights: Weights, state: LoopState) -> None:
    """Keep the loop's state (replacing the last one whole)."""
    folder.mkdir(parents=True, exist_ok=True)
    fresh = folder / "loop.partial"
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir()
    arrays = {f"w_{name}": getattr(weights, name) for name in _ARRAYS}
    if state.best_weights is not None:
        best = state.best_weights
        arrays.update(best_table=best.table, best_packed=best.packed, best_dense=best.dense)
    np.savez(fresh / "state.npz", **arrays)
    record = {"iteration": state.iteration, "rng_state": state.rng_state, "history": state.history,
              "best_iteration": state.best_iteration, "counter": weights.counter, "n_actions": weights.n_actions}
    (fresh / "state.json").write_text(json.dumps(record), encoding="utf-8")
    kept = folder / "loop"
    old = folder / "loop.old"
    if kept.exists():
        os.replace(kept, old)
    os.replace(fresh, kept)
    shutil.rmtree(old, ignore_errors=True)


def restore(folder: Path, weights: Weights) -> LoopState | None:
    """The kept state, with ``weights`` set back in place to what they were then (the learner's
    closures hold that object); None when nothing is kept."""
    kept = folder / "loop"
    if not (kept / "state.json").is_file():
        kept = folder / "loop.old"  # interrupted between the two renames of a save
        if not (kept / "state.json").is_file():
            return None
    try:
        record = json.loads((kept / "state.json").read_text(encoding="utf-8"))
        with np.load(kept / "state.npz", allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
        if record["n_actions"] != weights.n_actions:
            raise ValueError(f"{record['n_actions']} actions, not {weights.n_actions}")
        for name in _ARRAYS:
            setattr(weights, name, arrays[f"w_{name}"])
        weights.counter = int(record["counter"])
        best = (TrainedWeights.from_table(*(arrays[f"best_{name}"] for name in ("table", "packed", "dense")))
                if "best_table" in arrays else None)
        return LoopState(int(record["iteration"]), record["rng_state"], list(record["history"]), record["best_iteration"],
                         best)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ModelFileError(f"{kept}: the kept training state is damaged ({error}); train again without --resume") from None
