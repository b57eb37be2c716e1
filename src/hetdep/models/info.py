"""What a model directory holds, in words: ``hetdep info MODEL``."""

from __future__ import annotations

from pathlib import Path

from hetdep.constituency.features import recorded_template_set
from hetdep.learn.model_files import read_config
from hetdep.models.opening import open_models
from hetdep.models.parsing import recorded_treebanks
from hetdep.progress import figure
from hetdep.treebank.tags import WORD_COLUMNS

DESCRIPTIONS = {"arc-standard": "arc-standard beam-search parser", "joint": "joint model of two schemes",
                "dep1": "first-order graph-based parser", "dep2": "second-order graph-based parser", "tagger": "POS tagger",
                "constituency": "shift-reduce constituency parser", "tokenizer": "tokenizer",
                "neural": "neural parser (BiLSTM encoder, biaffine scorers, its own tag heads)",
                "constituency-neural": "neural phrase-structure parser (BiLSTM encoder, span scorer, its own tag heads)"}


def check_parts(directory: Path, kind: str) -> None:
    """Load every part of a model directory as parsing would, so that ``info`` describes only a
    model that passes the same checks (each part's config fields, its weights' sha256 and arrays)."""
    from hetdep.tagger.tagger import Tagger
    from hetdep.tokenizer.tokenizer import KIND as TOKENIZER
    from hetdep.tokenizer.tokenizer import Tokenizer

    if kind == "tagger":
        Tagger.load(directory)
    elif kind == TOKENIZER:
        Tokenizer.load(directory)
    else:
        open_models(directory)


def summary(model_dir: str | Path) -> dict:
    """The facts ``hetdep info`` prints: kind, schemes, what the model reads, how it was trained, its best dev scores."""
    directory = Path(model_dir)
    config = read_config(directory)
    check_parts(directory, str(config["kind"]))
    kind = str(config["kind"])
    history = config.get("history") or []
    best = config.get("best_iteration")
    best_report = next((report for report in history if report.get("iteration") == best), None)
    labels = ([len(config.get("labels_a", [])), len(config.get("labels_b", []))] if kind == "joint"
              else [len(config.get("labels", config.get("tags", [])))])
    if kind == "constituency":
        labels = [len(config["labels"]), len(config["unaries"])]
    neural = kind in ("neural", "constituency-neural")
    if neural:  # its vocabularies hold every list; it tags with its own heads and learned with gradient descent
        vocabularies = config.get("vocabularies") or {}
        labels = ([len(vocabularies["phrases"])] if vocabularies.get("phrases") else []) + [
            len(names) for names in vocabularies.get("labels", [])]
        config = {**config, "words": vocabularies.get("words", [])[3:], "training_options": config.get("neural_options"),
                  "pipeline": {**(config.get("pipeline") or {}), "tagger": "own heads"}}
    if kind == "tokenizer":
        labels = []
        config = {**config, "pipeline": {"tokenizer": {"dev": best_report.get("dev") if best_report else None}}}
    facts = {
        "model": str(directory), "kind": kind, "description": DESCRIPTIONS.get(kind, kind),
        "language": config.get("language"),
        "treebanks": {t["name"]: t["schemes"] for t in recorded_treebanks(config)} if neural else None,
        "schemes": config.get("schemes") or (["a", "b"] if kind == "joint" or len(labels) == 2 and neural else []),
        "tag_column": None if neural else config.get("tag_column", config.get("column")), "labels": labels,
        "tag_heads": (config.get("vocabularies") or {}).get("tag_columns") if neural else None,
        "tag_weights": (config.get("pipeline") or {}).get("tag_weights") if neural else None,
        "words": len(config.get("words", config.get("strings", []))),
        "pretrained": _pretrained_vectors(directory, config) if neural else None,
        "transformer": _transformer(directory, config) if neural else None,
        "enhanced": _enhanced(config) if neural else None,
        "precision": config.get("precision", "float32") if neural else None,
        "int8_first_layer": bool(config.get("int8_first_layer")) if neural else None,
        "beam": config.get("beam"), "t": config.get("t"), "guide": config.get("guide"),
        "lattice": config.get("lattice"), "dp": config.get("dp"),
        "features": (f"{recorded_template_set(config)} templates ({config['templates']}); training trees binarized by "
                     f"the {config.get('head_table')} head table") if kind == "constituency" and "templates" in config else None,
        "tagger": sorted((p.name for p in (directory / "tagger").iterdir()), key=_column_order)
        if (directory / "tagger").is_dir() else [],
        "tokenizer": (config.get("pipeline") or {}).get("tokenizer") or ({"present": True} if (directory / "tokenizer").is_dir() else None),
        "training_tags": _training_tags(config.get("pipeline")),
        "training_options": config.get("training_options"), "training_files": config.get("training_files", []),
        "best_iteration": best, "iterations": len(history),
        "training_seconds": round(sum(report.get("seconds", 0.0) for report in history), 1),
        "dev": (_dev_scores(kind, best_report) if best_report else None),
        "weights_bytes": (directory / "weights.npz").stat().st_size if (directory / "weights.npz").exists() else None,
    }
    return {key: value for key, value in facts.items() if value not in (None, [], {})}


def _pretrained_vectors(directory: Path, config: dict) -> tuple[int, int] | None:
    """A neural model's pretrained vectors: how many forms have one, and their dimensions."""
    network = config.get("network") or {}
    if not network.get("pretrained"):
        return None
    import numpy as np

    from hetdep.neural.data import PRETRAINED_ROWS

    with np.load(directory / "weights.npz", allow_pickle=False) as arrays:  # checked whole by check_parts
        return len(arrays[PRETRAINED_ROWS]), network["pretrained_dim"]


def _transformer(directory: Path, config: dict) -> dict | None:
    """A neural model's pretrained transformer: its architecture (and whether training tuned it), its
    states mixed, their size."""
    from hetdep.neural.parser import TRANSFORMER
    from hetdep.neural.transformer import Architecture

    network = config.get("network") or {}
    if not network.get("encoder_layers"):
        return None
    kind = Architecture.read(directory / TRANSFORMER).kind  # the reading (and checks) of its opening
    tuned = bool((config.get("neural_options") or {}).get("fine_tune"))
    return {"architecture": kind + (", fine-tuned" if tuned else ""), "states": network["encoder_layers"],
            "size": network["encoder_dim"]}


def _enhanced(config: dict) -> str:
    """Which of a neural model's schemes get an enhanced graph in DEPS, or that none does."""
    vocabularies = config.get("vocabularies") or {}
    graph_heads = vocabularies.get("graph_heads") or []
    if not graph_heads:
        return "none (its network has no graph head: DEPS is written '_')"
    treebanks = vocabularies.get("treebanks") or []
    names = sorted({scheme for treebank in treebanks for scheme, head in zip(treebank["schemes"], treebank["heads"])
                    if head in graph_heads} if treebanks else
                   {(config.get("schemes") or [])[head] if head < len(config.get("schemes") or []) else str(head + 1)
                    for head in graph_heads})
    return f"yes, in the DEPS of {', '.join(names)} ({len(vocabularies.get('enhanced', []))} labels learned)"


def _dev_scores(kind: str, report: dict) -> dict:
    """A best iteration's dev scores: UAS and LAS (and a joint model's per scheme), or a constituency parser's bracket scores."""
    if kind in ("constituency", "constituency-neural"):  # F1 (and a scheme's UAS, LAS) in its detail
        return dict(report.get("dev_detail", {}))
    return {"UAS": report.get("dev_uas"), "LAS": report.get("dev_las"), **report.get("dev_detail", {})}


def _training_tags(pipeline: dict | None) -> str | None:
    """Which tags the parser learned from, in words."""
    if not pipeline or pipeline.get("tagger") in (None, "own heads"):
        return None
    if pipeline.get("tagger") == "train":
        kept = ", ".join(f"{column} {value}% as in the gold" for column, value in pipeline.get("jackknifed_tags_kept", {}).items())
        return f"jackknifed by its tagger ({pipeline.get('jackknife_folds')} folds; {kept})"
    return "the training file's own tags"


def describe(model_dir: str | Path) -> list[str]:
    """:func:`summary` as lines for a person."""
    from hetdep.models.names import shipped_models

    facts = summary(model_dir)
    shipped = next((model.name for model in shipped_models() if model.path.resolve() == Path(model_dir).resolve()), None)
    lines = [f"{shipped + ' (shipped with hetdep)' if shipped else facts['model']}: {facts['description']} ('{facts['kind']}')"]
    if facts.get("schemes"):
        lines.append(f"schemes: {', '.join(facts['schemes'])}" + (" (--output gets the first, --output-b the second)"
                                                                   if len(facts["schemes"]) > 1 else ""))
    if facts.get("treebanks"):
        order = facts.get("schemes") or []  # each written in the model's order where it has the same schemes
        lines.append("treebanks: " + "; ".join(f"{name} ({', '.join(order if sorted(schemes) == sorted(order) else schemes)})"
                                               for name, schemes in facts["treebanks"].items())
                     + " (parse as one with --treebank NAME; default: the one whose conventions fit the text, else the first)")
    if facts.get("language"):
        lines.append(f"language: {facts['language']} (told from its training text; the language guard compares parsed text with it)")
    reads = [f"tags from {facts['tag_column']}" if facts.get("tag_column") else "",
             f"{facts['words']:,} known words" if facts.get("words") else "",
             f"pretrained vectors of {facts['pretrained'][0]:,} forms ({facts['pretrained'][1]} dimensions)"
             if facts.get("pretrained") else "",
             "a pretrained transformer ({architecture}, {states} states of {size} mixed)".format(**facts["transformer"])
             if facts.get("transformer") else "",
             (f"{facts['labels'][0]} phrase labels, {facts['labels'][1]} unary chains" if facts["kind"] == "constituency"
              else f"{' / '.join(map(str, facts['labels']))} labels") if facts.get("labels") else ""]
    if any(reads):
        lines.append("reads: " + ", ".join(part for part in reads if part))
    if facts.get("enhanced"):
        lines.append(f"enhanced graphs: {facts['enhanced']}")
    if facts.get("precision"):
        layers = "every encoder layer in int8" if facts.get("int8_first_layer") else "the encoder's first layer in float32"
        lines.append("arithmetic: " + (f"int8 products through onnxruntime ({layers}; float32 where it cannot run; parse "
                                       "--precision float32 for NumPy's)" if facts["precision"] == "int8" else "float32 (NumPy)"))
    search = [f"beam {facts['beam']}" if facts.get("beam") else "", f"t = {facts['t']}" if facts.get("t") else "",
              f"{facts['guide']} guide" if facts.get("guide") else "", "tag lattices" if facts.get("lattice") else "",
              "dynamic programming" if facts.get("dp") else ""]
    if any(search):
        lines.append("search: " + ", ".join(part for part in search if part))
    if facts.get("features"):
        lines.append(f"features: {facts['features']}")
    tokenizer = facts.get("tokenizer")
    dev = (tokenizer or {}).get("dev") or {}
    named = [("token ends", "token_ends"), ("sentence ends", "sentence_ends"), ("sentences", "sentences")]
    dev_f1 = ", ".join(f"{name} {dev[key]:.2f}" for name, key in named if dev.get(key) is not None)
    dev_f1 = dev_f1 if all(dev.get(key) is not None for key in ("token_ends", "sentence_ends")) else ""
    lines.append("tokenizer: " + ("none (the input must be tokenized: one sentence a line, or CoNLL-U)" if not tokenizer else
                                  "yes, raw text is parsed" + (f" (dev F1 of {dev_f1})" if dev_f1 else "")))
    if facts.get("tag_heads"):
        helped = [f"{column} at weight {weight:g}" for column, weight in (facts.get("tag_weights") or {}).items() if weight]
        lines.append(f"tags: predicted by the network itself ({', '.join(facts['tag_heads'])})"
                     + (f", helped by its bundled taggers ({', '.join(helped)})" if helped else ""))
    if facts.get("tagger") or (facts["kind"] not in ("tagger", "tokenizer") and not facts.get("tag_heads")):
        lines.append("bundled taggers: " + (", ".join(facts["tagger"]) if facts.get("tagger") else "none (the input must carry tags)"))
    if facts.get("training_tags"):
        lines.append(f"parser trained on: {facts['training_tags']}")
    for record in facts.get("training_files", []):  # the file's name: the folders were the building machine's
        lines.append(f"trained on ({record['role']}): {Path(record['path']).name}, {record['sentences']:,} sentences"
                     + (f", sha256 {record['sha256'][:16]}" if record.get("sha256") else ""))
    if facts.get("training_options"):
        options = facts["training_options"]
        lines.append("training options: " + ", ".join(f"{key} {_shown(value)}" for key, value in options.items()))
    if facts.get("iterations"):
        lines.append(f"training: {facts['iterations']} iterations, {facts['training_seconds']:,} s; best iteration "
                     f"{facts.get('best_iteration')}")
    if facts.get("dev") and any(value is not None for value in facts["dev"].values()):
        lines.append("dev: " + ", ".join(f"{key} {_shown(value)}" for key, value in facts["dev"].items() if value is not None))
    return lines


def _shown(value: object) -> str:
    """An option's or a score's value for a person: a path by its file name, a number to two
    decimals (:func:`hetdep.progress.figure`)."""
    if isinstance(value, float):
        return figure(value)
    if isinstance(value, str) and "/" in value:
        return Path(value).name
    return str(value)


def _column_order(name: str) -> tuple[int, str]:
    """Bundled taggers in the order they tag: the parser's tag columns, then FEATS and LEMMA."""
    order = list(WORD_COLUMNS)
    return (order.index(name) if name in order else len(order), name)
