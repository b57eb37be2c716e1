"""The seeds' second experiment in neural form: two treebanks with different sentences and
guidelines (zhou-zhao2013's CTB and CDT), one network trained on both against each trained alone,
each scored on its own test set (gold tokens, the network's own tags) with significance tests."""

from __future__ import annotations

import json
import os
import platform
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from hetdep.evaluation.attachment import evaluate
from hetdep.experiments.common import significance_table
from hetdep.experiments.consensus import Treebank, consensus_setting

# Each setting: its two treebanks and their scheme names (consensus_setting's fr and en, and
# fr-sequoia with fr-partut, whose own conventions differ under the same UD).
SETTINGS = {"fr-gsd": ("fr", ("ud", "sud")), "en": ("en", ("ud", "penn2malt")), "fr-partut": (None, ("ud", "partut"))}


def treebanks_setting(name: str, data: Path) -> tuple[Treebank, Treebank]:
    """The two treebanks of a setting, from ``data`` (``../shared/data``)."""
    if name not in SETTINGS:
        raise ValueError(f"unknown setting {name!r}: {', '.join(SETTINGS)}")
    if SETTINGS[name][0] is not None:
        return consensus_setting(SETTINGS[name][0], data)
    from hetdep.treebank.conllu import read_conllu

    def splits(folder: str) -> list[list]:
        return [list(read_conllu(data / folder / f"{split}.ud.conllu")) for split in ("train", "dev", "test")]

    return Treebank("fr-sequoia (UD)", *splits("fr-sequoia")), Treebank("fr-partut (UD, ParTUT's conventions)", *splits("fr-partut"))


def run_treebanks_experiment(setting: str, data: Path, out: Path, options, log: Callable[[str], None] = print,
                             treebanks: tuple[Treebank, Treebank] | None = None) -> Path:
    """Train A alone, B alone and A + B in one network (``options``: a NeuralOptions), score each
    on its own test set, and write ``out/report.md``; models are kept under ``out/models`` and
    reused by a rerun with the same options. ``treebanks`` replaces the setting's own (tests run it small)."""
    from hetdep.models.vectors import read_vectors
    from hetdep.neural.parser import NeuralParser
    from hetdep.neural.training import train_neural, train_treebanks
    from hetdep.neural.treebanks import Treebank as Named

    a, b = treebanks or treebanks_setting(setting, data)
    schemes = SETTINGS[setting][1]
    vectors = read_vectors(options.embeddings) if options.embeddings else None
    out.mkdir(parents=True, exist_ok=True)

    def trained(name: str, learned_from: tuple[Treebank, ...], train: Callable) -> NeuralParser:
        """The model under out/models/NAME, trained unless one learned with these options from
        these treebanks is there (a model of another setting under the same name is trained anew)."""
        directory = out / "models" / name
        config, record = directory / "config.json", directory / "learned-from.json"
        learned = [[t.name, len(t.train), len(t.dev)] for t in learned_from]
        if config.is_file() and record.is_file() and json.loads(record.read_text(encoding="utf-8")) == learned and json.loads(
                config.read_text(encoding="utf-8")).get("neural_options") == json.loads(json.dumps(asdict(options))):
            return NeuralParser.load(directory)
        log(f"training {name}")
        result = train().finished()
        result.parser.save(directory, history=[vars(r) for r in result.history], best_iteration=result.best_iteration)
        record.write_text(json.dumps(learned), encoding="utf-8")
        return NeuralParser.load(directory)

    alone = [trained(f"alone-{side}", (t,), lambda t=t: train_neural([t.train], [t.dev], options, vectors=vectors))
             for side, t in (("a", a), ("b", b))]
    together = trained("together", (a, b), lambda: train_treebanks([Named("a", (schemes[0],), [a.train], [a.dev]),
                                                                    Named("b", (schemes[1],), [b.train], [b.dev])],
                                                                   options, vectors=vectors))
    rows, compared, record = [], [], {}
    for side, treebank, single, scheme in zip("ab", (a, b), alone, schemes):
        scores = {name: evaluate(treebank.test, list(parser.parse(treebank.test)))  # it reads forms alone
                  for name, parser in (("alone", single), ("together", together.for_treebank(side)))}
        rows.append(f"| {treebank.name} | {len(treebank.train)} | {scores['alone'].uas:.2f} | {scores['alone'].las:.2f} "
                    f"| {scores['together'].uas:.2f} | {scores['together'].las:.2f} |")
        compared.append((treebank.name, scores["together"], scores["alone"]))
        record[treebank.name] = {name: {"UAS": round(s.uas, 2), "LAS": round(s.las, 2)} for name, s in scores.items()}
    table, significance = significance_table(compared, system="together", against="alone")
    lines = [f"# Two treebanks, one network: {a.name} and {b.name}", "",
             f"Produced by `hetdep experiment treebanks --setting {setting} --data {data} --out {out} --iterations "
             f"{options.epochs}`" + (f" with `--embeddings {options.embeddings}`" if options.embeddings else "") + ".", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores. Each model: the neural parser (`hetdep train "
             f"--parser neural`, at most {options.epochs} epochs, then {options.final_epochs} at a tenth of the rate); "
             "together: one encoder, each treebank's own arc and label scorers and an embedding of its treebank "
             f"(`--treebank`, {options.sharing}); the epoch kept by dev LAS (together: the mean over both). Test sets "
             "parsed from gold tokens, the network's own tags; punctuation excluded.", "",
             "| test set | training sentences | alone UAS | alone LAS | together UAS | together LAS |",
             "|---|---|---|---|---|---|", *rows, "", *table]
    report = out / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "scores.json").write_text(json.dumps({"scores": record, "significance": significance}, indent=1), encoding="utf-8")
    return report

