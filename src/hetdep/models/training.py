"""Training any kind of model from one description: which options combine is decided here, once.

The command line (``hetdep train``) and library users describe what they want with a
:class:`ModelChoice` and the perceptron's :class:`~hetdep.learn.perceptron.TrainOptions`;
:func:`check` refuses the combinations no parser has (a DP beam for the joint model, a beam
size for a graph-based parser, ...) before any file is read, and :func:`train_model` dispatches.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from hetdep.errors import HetdepError
from hetdep.joint.schedule import INFINITE
from hetdep.learn.perceptron import TrainOptions, TrainResult
from hetdep.models import CONSTITUENCY, GRAPH_KINDS, NEURAL, NEURAL_CONSTITUENCY, PARSER_KINDS
from hetdep.models.names import check_part_name
from hetdep.transition.features import GUIDES
from hetdep.treebank.conllu import Sentence, read_conllu
from hetdep.treebank.pairs import pairs_of, read_pairs


@dataclass(frozen=True)
class ModelChoice:
    """Which model to train: a parser kind, and whether a second treebank makes it joint or concatenated.

    ``second_treebank``: the training data has a second file (``--train-b``): the same sentences in
    another scheme (the joint model) or, with ``concatenate``, another treebank. ``beam_given`` /
    ``update_given``: the user asked for a beam size / an update rule (graph parsers have neither).
    """

    parser: str = "arc-standard"
    second_treebank: bool = False
    concatenate: bool = False
    feature_copies: bool = False
    names: tuple[str, str] = ("a", "b")
    helper: Path | None = None
    t: int = INFINITE
    guide: str = "rich"
    beam_given: bool = False
    update_given: bool = False

    @property
    def joint(self) -> bool:
        return self.second_treebank and not self.concatenate


@dataclass(frozen=True)
class TrainingKind:
    """What ``hetdep train`` needs to know of a parser kind, so that the command line maps options
    and asks no kind's name: its defaults, how it learns and reads, the options it refuses."""

    iterations: int = 15  # most iterations (epochs)
    patience: int = 4  # iterations without a better dev score before it stops
    gradient: bool = False  # learns by gradient descent: epochs, PyTorch, the shipped pretrained vectors by default
    bracketed: bool = False  # learns from bracketed phrase-structure trees, not CoNLL-U
    treebanks_beside: bool = False  # --treebank's treebanks train beside --train/--dev's, not instead of them
    refuses: frozenset[str] = frozenset()  # options it does not take (the command line's names)
    refused_because: str = ""  # what the refusal says it is


@dataclass(frozen=True)
class TrainingRun:
    """One ``hetdep train``: its files and every option, by the command line's names for them (None:
    not given, the kind's default); each kind's trainer (:mod:`hetdep.models.trainers`) reads the
    fields it takes, the others refused before."""

    parser_kind: str
    model_dir: str
    train_path: str | None
    train_b_path: str | None
    dev_path: str | None
    dev_b_path: str | None
    treebanks: tuple  # (name, scheme, train file, dev file) of each --treebank
    iterations: int | None
    patience: int | None
    seed: int
    threads: int | None
    # The perceptron parsers'
    beam: int | None
    update: str | None
    t: str
    guide: str
    no_guided: bool
    tag_column: str
    projective_encoding: str
    lattice: bool
    lattice_weight: float
    dp: bool
    tagger_dir: str | None
    gold_tags: bool
    folds: int
    helper_dir: str | None
    concatenate: bool
    feature_copies: bool
    names: str
    workers: int | None
    scheduler: str | None
    shards: int | None
    schemes: str | None
    # A pipeline's tokenizer; the neural parsers'
    no_tokenizer: bool
    tokenizer_texts: tuple
    tokenizer_treebanks: tuple
    embeddings: str | None
    decoder: str | None
    final_epochs: int | None
    sharing: str | None
    temperature: float | None
    feats_head: bool
    enhanced: bool
    encoder: str | None
    fine_tune: bool
    # Phrase structure's
    rules: str | None
    dependency_rules: str | None
    template_set: str | None


PERCEPTRON_DEFAULT = "arc-standard"  # the kind trained when an option only the perceptron parsers take is given
# train --quick: a small model within a minute or two, to try hetdep on one's treebank (the shipped
# sample's two schemes: 32 s on 2 cores, dev UAS 75.31).
QUICK = {"parser_kind": PERCEPTRON_DEFAULT, "beam": 8, "iterations": 10, "folds": 5}
TRAINING_KINDS = {kind: TrainingKind() for kind in PARSER_KINDS} | {
    NEURAL: TrainingKind(30, 8, gradient=True, refuses=frozenset({
        "--tagger", "--folds", "--gold-tags", "--lattice", "--dp", "--t", "--guide", "--no-guided", "--rules", "--templates",
        "--tag-column", "--projective-encoding"}), refused_because="--parser neural (it predicts its own tags, UPOS and XPOS "
        "where the treebank has them, and decodes trees exactly)"),
    CONSTITUENCY: TrainingKind(bracketed=True, refuses=frozenset({
        "--train-b", "--dev-b", "--t", "--guide", "--no-guided", "--helper", "--concatenate", "--feature-copies", "--schemes",
        "--projective-encoding", "--workers", "--scheduler", "--shards", "--tag-column"}),
        refused_because="--parser constituency (it reads the treebank's own tags, XPOS)"),
    NEURAL_CONSTITUENCY: TrainingKind(30, 8, gradient=True, bracketed=True, treebanks_beside=True, refuses=frozenset({
        "--train-b", "--dev-b", "--t", "--guide", "--no-guided", "--helper", "--concatenate", "--feature-copies", "--schemes",
        "--projective-encoding", "--workers", "--scheduler", "--shards", "--tag-column", "--tagger", "--folds", "--gold-tags",
        "--lattice", "--dp", "--decoder", "--feats-head", "--tokenizer-text", "--tokenizer-treebank", "--no-tokenizer", "--beam", "--update"}),
        refused_because="--parser constituency-neural (it tags its own words and decodes trees exactly; it learns from "
        "bracketed trees, with no text to train a tokenizer on)"),
}
# Options some kinds alone take, and those kinds (--treebank, the neural model's too, has its own refusal).
ONE_KIND_OPTIONS = {"--embeddings": (NEURAL, NEURAL_CONSTITUENCY), "--decoder": (NEURAL,), "--encoder": (NEURAL, NEURAL_CONSTITUENCY), "--fine-tune": (NEURAL, NEURAL_CONSTITUENCY), "--enhanced": (NEURAL,), "--final-epochs": (NEURAL, NEURAL_CONSTITUENCY),
                    "--feats-head": (NEURAL,), "--rules": (CONSTITUENCY,), "--templates": (CONSTITUENCY,),
                    "--dependency": (NEURAL_CONSTITUENCY,)}


def default_kind(perceptron_option_given: bool) -> str:
    """The parser trained when ``--parser`` is not given: the neural one (measured more accurate,
    docs/models.md), unless an option only the perceptron parsers take was given: then the
    arc-standard parser, which those options were written for."""
    return PERCEPTRON_DEFAULT if perceptron_option_given else NEURAL


def check_training_options(kind: str, given: dict[str, object]) -> TrainingKind:
    """The kind's training record, after refusing in one line the options it does not take (``given``:
    option name -> its value, set or not)."""
    if given.get("--treebank") and kind != NEURAL and not TRAINING_KINDS[kind].treebanks_beside:
        raise HetdepError(f"several treebanks (--treebank) train a neural model (--parser neural, or constituency-neural "
                          f"beside its bracketed trees), not --parser {kind}")
    trained = TRAINING_KINDS[kind]
    used = sorted(name for name in trained.refuses if given.get(name))
    if used:
        raise HetdepError(f"{', '.join(used)} {'does' if len(used) == 1 else 'do'} not apply to {trained.refused_because}")
    for name, takers in ONE_KIND_OPTIONS.items():
        if given.get(name) and kind not in takers:
            raise HetdepError(f"{name} is for --parser {' or '.join(takers)}")
    return trained


def check(choice: ModelChoice, options: TrainOptions) -> None:
    """Refuse an option the chosen model does not have, naming it; silence is never the answer."""
    graph = choice.parser in GRAPH_KINDS
    if choice.parser not in PARSER_KINDS:
        raise HetdepError(f"unknown parser {choice.parser!r}: choose from {', '.join(PARSER_KINDS)}")
    if choice.guide not in GUIDES:
        raise HetdepError(f"unknown guide {choice.guide!r}: choose from {', '.join(GUIDES)}")
    if choice.second_treebank and graph and not choice.concatenate:
        raise HetdepError(f"the joint model is transition-based: --parser {choice.parser} trains a single scheme "
                          "(or, with --concatenate, one parser on two treebanks)")
    if choice.concatenate and (not graph or not choice.second_treebank):
        raise HetdepError("--concatenate needs --parser dep1 or dep2 and a second treebank in --train-b/--dev-b")
    if options.lattice and graph:
        raise HetdepError("--lattice is for the arc-standard parser and the joint model (the graph-based parsers "
                          "do not have it yet)")
    if options.dp and (choice.joint or graph):
        raise HetdepError("--dp is for the single-scheme arc-standard parser (the joint model and the graph-based "
                          "parsers do not have it)")
    if options.lattice and options.dp:
        raise HetdepError("tag lattices and the dynamic-programming beam do not combine yet: choose one")
    if graph and (choice.beam_given or choice.update_given):
        raise HetdepError(f"--parser {choice.parser} decodes exactly and learns with the standard perceptron update: "
                          "--beam and --update are for the arc-standard parser and the joint model")
    if choice.helper is not None and (not graph or choice.concatenate):
        raise HetdepError("--helper is for a single-treebank graph-based parser (--parser dep1 or dep2)")
    if choice.parser == NEURAL and (choice.beam_given or choice.update_given or options.dp or options.lattice
                                    or choice.helper is not None or choice.concatenate):
        raise HetdepError("--parser neural learns by gradient descent and decodes exactly: --beam, --update, --dp, "
                          "--lattice, --helper and --concatenate are for the perceptron parsers")
    if choice.feature_copies and not choice.concatenate:
        raise HetdepError("--feature-copies applies to --concatenate only")
    if choice.concatenate and (len(choice.names) != 2 or len(set(choice.names)) != 2):
        raise HetdepError(f"--names {','.join(choice.names)!r}: give two different names separated by a comma")
    for name in choice.names if choice.concatenate else ():
        check_part_name("--names", name)


def train_model(choice: ModelChoice, options: TrainOptions, train: str | Path | list, dev: str | Path | list,
                train_b: str | Path | list | None = None, dev_b: str | Path | list | None = None,
                progress: Callable | None = None, cluster=None, shards: int = 0, threads: int = 0,
                embeddings: str | None = None, vectors: tuple | None = None, decoder: str | None = None,
                final_epochs: int | None = None,
                treebanks: list | None = None, sharing: str | None = None, temperature: float | None = None,
                feats_head: bool = False, encoder: str | None = None, enhanced: bool = False,
                fine_tune: bool = False) -> TrainResult:
    """Train the model ``choice`` describes (checked before any file is read) on treebank files or
    lists of sentences; with ``cluster`` (a ``ClusterChoice``), by iterative parameter mixing over
    ``shards`` shards on it (:mod:`hetdep.cluster.mixing`); ``threads``: a neural model's (0: all cores),
    ``embeddings``: its pretrained word vectors (a word2vec / fastText text file, or what ``vectors``,
    their words and vectors already read, came from), ``decoder``: its trees',
    ``final_epochs``: its epochs at a lower learning rate (None: the default); ``treebanks``: several
    named treebanks (:class:`hetdep.neural.treebanks.Treebank`) a neural model learns from instead of
    ``train``/``dev``, with ``sharing`` and ``temperature`` (None: the defaults); ``feats_head``: a
    neural model's FEATS head; ``encoder``: the pretrained transformer's folder it reads (``fine_tune``:
    and trains); ``enhanced``: its graph head."""
    check(choice, options)
    mixing = cluster is not None and cluster.wanted
    if mixing and (choice.parser != "arc-standard" or choice.concatenate):
        raise HetdepError("training on a cluster (--workers, --scheduler) is for the arc-standard parser and the joint "
                          f"model, not --parser {choice.parser}" + (" --concatenate" if choice.concatenate else ""))
    if (train_b is None) != (dev_b is None) or choice.second_treebank != (train_b is not None):
        raise HetdepError("a second treebank needs both --train-b and --dev-b")
    if treebanks is not None and choice.parser != NEURAL:
        raise HetdepError(f"several treebanks (--treebank) train a neural model, not --parser {choice.parser}")

    def read(source) -> list[Sentence]:
        return list(source) if isinstance(source, (list, tuple)) else list(read_conllu(source, require_heads=True))

    def pairs(a, b) -> list:
        if isinstance(a, (list, tuple)):
            return pairs_of(read(a), read(b))
        return read_pairs(a, b, require_heads=True)

    if choice.concatenate:
        from hetdep.graph.parser import KINDS, train_concatenated

        treebanks = {choice.names[0]: (read(train), read(dev)), choice.names[1]: (read(train_b), read(dev_b))}
        return train_concatenated(treebanks, options, progress=progress, order=KINDS[choice.parser],
                                  augmented=choice.feature_copies)
    if mixing:
        from functools import partial

        from hetdep.cluster.mixing import train_mixed

        if choice.joint:
            from hetdep.joint.training import joint_learner

            train_pairs, dev_pairs = pairs(train, train_b), pairs(dev, dev_b)
            make = partial(joint_learner, train_pairs, [], options, t=choice.t, guide=choice.guide)
            local = joint_learner(train_pairs, dev_pairs, options, t=choice.t, guide=choice.guide)
        else:
            from hetdep.transition.training import learner

            train_sentences = read(train)
            make, local = partial(learner, train_sentences, [], options), learner(train_sentences, read(dev), options)
        return train_mixed(make, local, options, cluster, shards or max(cluster.workers, 2), progress=progress)
    if choice.parser == NEURAL:
        from hetdep.neural import torch_module

        torch_module()  # one clear line where PyTorch is not installed
        from hetdep.neural.training import NeuralOptions, train_neural, train_treebanks

        default = NeuralOptions()
        neural = NeuralOptions(epochs=options.iterations, patience=options.patience, seed=options.seed,
                               threads=threads or default.threads, embeddings=embeddings,
                               decoder=decoder or default.decoder,
                               final_epochs=default.final_epochs if final_epochs is None else final_epochs,
                               sharing=sharing or default.sharing, temperature=temperature or default.temperature,
                               feats_head=feats_head, encoder=encoder, enhanced=enhanced, fine_tune=fine_tune)
        if treebanks is not None:
            return train_treebanks(treebanks, neural, progress=progress, vectors=vectors)
        files = [(train, dev)] + ([(train_b, dev_b)] if choice.joint else [])
        return train_neural([read(t) for t, _ in files], [read(d) for _, d in files], neural, progress=progress,
                            vectors=vectors)
    if choice.joint:
        from hetdep.joint.training import train_joint

        return train_joint(pairs(train, train_b), pairs(dev, dev_b),
                           options, t=choice.t, guide=choice.guide, progress=progress)
    if choice.parser in GRAPH_KINDS:
        from hetdep.graph.parser import KINDS, GraphParser, train_graph
        from hetdep.learn.model_files import read_kind

        helper = None
        if choice.helper is not None:
            helper_kind = read_kind(choice.helper)
            if helper_kind not in KINDS:
                raise HetdepError(f"--helper {choice.helper} is a '{helper_kind}' model: give a dep1 or dep2 model")
            helper = GraphParser.load(choice.helper, helper_kind)
        return train_graph(read(train), read(dev), options, progress=progress, order=KINDS[choice.parser], helper=helper)
    from hetdep.transition.training import train as train_arc_standard

    return train_arc_standard(read(train), read(dev), options, progress=progress)


def scheme_name(path: str | Path, default: str) -> str:
    """A treebank file's scheme as its name gives it (``train.sud.conllu`` -> ``sud``), else ``default``."""
    parts = Path(path).name.split(".")
    return parts[-2] if len(parts) >= 3 and parts[-2] else default


def check_schemes(choice: ModelChoice, schemes: tuple[str, ...] | None) -> None:
    """Refuse scheme names that do not fit the model: two for a joint model, else one (none: from the files)."""
    wanted = 2 if choice.second_treebank else 1
    if schemes is not None and (len(schemes) != wanted or not all(schemes) or len(set(schemes)) != len(schemes)):
        raise HetdepError(f"--schemes {','.join(schemes)!r}: give "
                          + ("two different names, scheme a's first" if wanted > 1 else "one name"))
    for name in schemes or ():
        check_part_name("--schemes", name)


def training_record(choice: ModelChoice, train: str | Path, dev: str | Path, train_b: str | Path | None = None,
                    dev_b: str | Path | None = None, schemes: tuple[str, ...] | None = None) -> dict:
    """What a model keeps of how it was trained, beside its options and history: its schemes'
    names (given, or from the file names) and each training file's path, sentence count and sha256."""
    files = [("train", train), ("dev", dev), ("train-b", train_b), ("dev-b", dev_b)]
    if schemes is None:
        schemes = (scheme_name(train, "a"), scheme_name(train_b, "b")) if choice.joint else (scheme_name(train, "a"),)
        if choice.concatenate:
            schemes = choice.names
    return {"schemes": list(schemes), "training_files": [_described(role, path) for role, path in files if path is not None]}


def _described(role: str, path: str | Path) -> dict:
    """A training file as the model records it: its role, path, sentence count and sha256."""
    import hashlib

    data = Path(path).read_bytes()
    return {"role": role, "path": str(Path(path).resolve()), "sentences": len(list(read_conllu(path))),
            "sha256": hashlib.sha256(data).hexdigest()}


def treebanks_record(treebanks: Sequence) -> dict:
    """What a model of several treebanks (:class:`hetdep.models.pipeline.TreebankFiles`) keeps of
    its training: its first treebank's schemes (what it writes by default) and each file."""
    return {"schemes": list(treebanks[0].schemes),
            "training_files": [_described(f"{role}:{treebank.name}:{scheme}", path) for treebank in treebanks
                               for role, paths in (("train", treebank.train), ("dev", treebank.dev))
                               for scheme, path in zip(treebank.schemes, paths)]}
