"""One model from raw text to trees: a tokenizer, taggers and the parser trained on jackknifed tags.

This is what ``hetdep train`` builds by default, the papers' setting: the parser learns from
tags as noisy as the ones its own tagger will give it at parsing time (each training sentence
tagged by a tagger that never saw it), picks its iteration on dev tagged by that tagger, and
the model directory holds all the parts (``tokenizer/``, ``tagger/``, the parser's files), so
``hetdep parse`` can start from raw text. Where the treebank fills XPOS, FEATS and LEMMA, taggers
for them join the UPOS one (the parser does not read them, so they are not jackknifed), so the
output is the whole CoNLL-U; a joint model's second scheme gets its own FEATS from the tagger's
through a map learned from the training pairs (:mod:`hetdep.treebank.feature_maps`).
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence, TextIO

from hetdep import interrupts
from hetdep.errors import HetdepError
from hetdep.learn import checkpoint
from hetdep.learn.clusters import WordClusters
from hetdep.learn.model_files import read_config
from hetdep.learn.perceptron import TrainOptions, TrainResult
from hetdep.models import NEURAL, TREEBANK_TAGGERS
from hetdep.models.names import check_part_name
from hetdep.models.training import ModelChoice, train_model, training_record, treebanks_record
from hetdep.models.vectors import DEFAULT_VECTORS, NO_VECTORS, default_vectors, read_vectors
from hetdep.progress import RunDisplay, Stage
from hetdep.treebank.conllu import Sentence, read_conllu
from hetdep.treebank.feature_maps import FeatureMap
from hetdep.treebank.pairs import pairs_of
from hetdep.treebank.tags import TAG_COLUMNS, annotated, malformed

TAGGER_CHOICES = ("train", "gold")  # or a directory holding a trained tagger
RESUMED = " (finished by the interrupted training, kept)"
# The beam the XPOS, FEATS and LEMMA taggers tag with (trained with 8): on fr-sequoia test, given
# UPOS, FEATS 97.49% / LEMMA 98.91% at beam 8 and 97.50% / 98.90% at 2, in a third of the time.
MORPHOLOGY_BEAM = 2


@dataclass(frozen=True)
class PipelineChoice:
    """Which parts to train beside the parser.

    ``tokenizer``: train one when the training file has ``# text`` comments (on it and on the
    treebanks of ``tokenizer_texts``, which nothing else reads). ``tagger``: "train"
    (a tagger for the parser's tag column, UPOS and also XPOS when the parser reads XPOS, and the
    parser trained on ``folds``-fold jackknifed tags), "gold" (the parser learns from the file's
    tags and the model has no tagger: its input must carry tags), or the directory of a trained
    tagger to bundle (the training file's tags are then used as they are).
    """

    tokenizer: bool = True
    tokenizer_texts: tuple[str, ...] = ()  # further treebanks the tokenizer alone learns from
    tokenizer_treebanks: tuple[tuple[str, str, str], ...] = ()  # (name, train, dev): a treebank's text the tokenizer learns instead
    tagger: str = "train"
    folds: int = 10
    fold_iterations: int = 10
    threads: int = 0  # jackknifing folds trained at once (0: one), a neural model's threads (0: every core)
    cluster: object = None  # a ClusterChoice: the parser trained by parameter mixing there (hetdep.cluster.mixing)
    shards: int = 0  # its shards (0: as many as local workers, at least 2)
    # A neural model's pretrained word vectors (hetdep.models.vectors): a vectors file or a neural
    # model carrying them; DEFAULT_VECTORS: the shipped model's where the training text is in its language.
    embeddings: str | None = None
    decoder: str | None = None  # a neural model's tree decoder (eisner or mst)
    final_epochs: int | None = None  # a neural model's epochs at a lower learning rate (None: its default)
    sharing: str | None = None  # a neural model of several treebanks: its scheme heads (hetdep.neural.treebanks)
    temperature: float | None = None  # and how its batches are drawn from them
    feats_head: bool = False  # a neural model's FEATS head, mixed with its FEATS tagger at a weight fitted on dev
    encoder: str | None = None  # a neural model's pretrained transformer (its folder), read frozen beside the rest
    fine_tune: bool = False  # and trained with the rest (hetdep.neural.fine_tune)
    enhanced: bool = False  # a neural model's graph head, learning the training files' enhanced graphs (DEPS)


@dataclass(frozen=True)
class TreebankFiles:
    """One named treebank of a neural model trained on several: per scheme its name, training and dev file."""

    name: str
    schemes: tuple[str, ...]
    train: tuple[str | Path, ...]
    dev: tuple[str | Path, ...]


@dataclass
class TrainingFiles:
    """The training files: ``train`` (and ``train_b``, the same sentences in scheme b), or
    ``treebanks``, several named ones (a neural model; the others then stay None)."""

    train: str | Path | None
    dev: str | Path | None
    train_b: str | Path | None = None
    dev_b: str | Path | None = None
    treebanks: tuple[TreebankFiles, ...] = ()


MAX_SCHEMES = 2  # a treebank's schemes: one, or a same-sentence pair (a model writes at most two trees)


def treebank_files(given: Sequence[tuple[str, str, str, str]]) -> tuple[TreebankFiles, ...]:
    """``hetdep train --treebank NAME SCHEME TRAIN DEV`` (repeated) as treebanks, in the order
    their names first come; one line for what cannot be told apart, before any file is read."""
    grouped: dict[str, list[tuple[str, str, str]]] = {}
    for name, scheme, train, dev in given:
        check_part_name("--treebank", name)
        check_part_name(f"--treebank {name}", scheme)
        if any(scheme == other for other, _, _ in grouped.get(name, [])):
            raise HetdepError(f"--treebank {name} {scheme} is given twice: each treebank's schemes need names of their own")
        grouped.setdefault(name, []).append((scheme, train, dev))
    for name, schemes in grouped.items():
        if len(schemes) > MAX_SCHEMES:
            raise HetdepError(f"--treebank {name}: {len(schemes)} schemes; a treebank has one, or two for the same "
                              "sentences in two schemes")
    return tuple(TreebankFiles(name, tuple(s for s, _, _ in schemes), tuple(t for _, t, _ in schemes),
                               tuple(d for _, _, d in schemes)) for name, schemes in grouped.items())


def read_treebanks(files: Sequence[TreebankFiles]) -> list:
    """Every treebank read (a file's error names it and its line), a pair's files checked to be the same sentences."""
    from hetdep.neural.treebanks import Treebank

    treebanks = []
    for given in files:
        train, dev = [_read(path) for path in given.train], [_read(path) for path in given.dev]
        if len(train) == 2:
            pairs_of(train[0], train[1])
            pairs_of(dev[0], dev[1])
        treebanks.append(Treebank(given.name, given.schemes, train, dev))
    return treebanks


def _read(path: str | Path | None) -> list[Sentence] | None:
    """A training or dev file's sentences, refused in one line when it holds none (an empty dev file
    would otherwise score nothing, or fail once the training is done)."""
    if path is None:
        return None
    sentences = list(read_conllu(path, require_heads=True))
    if not sentences:
        raise HetdepError(f"{path}: no sentence in this file: training and dev files need sentences")
    return sentences


def _copy_tags(tagged: Sequence[Sentence], into: Sequence[Sentence], columns: Sequence[str]) -> list[Sentence]:
    """Scheme b's sentences with scheme a's predicted tags (the same words, so the same tagging)."""
    out = []
    for source, target in zip(tagged, into, strict=True):
        for column in columns:
            target = target.with_column(TAG_COLUMNS[column], source.column(TAG_COLUMNS[column]))
        out.append(target)
    return out


def _morphology_columns(train: Sequence[Sentence], path: str | Path, tags: Sequence[str],
                        neural: bool) -> tuple[list[str], list[str]]:
    """The columns beside the parser's tags that the pipeline learns (XPOS where neither the parser
    reads it nor a neural model predicts it, FEATS, LEMMA: those the training file fills, well
    formed), and a line for each of FEATS and LEMMA left out, saying why (a treebank without XPOS
    is common and goes unsaid). A neural model gets these taggers too: FEATS and LEMMA heads on its
    encoder did worse than them on fr-sequoia dev (SUD file: 94.50% / 96.38% against the taggers'
    96.36% / 98.81% reading the gold UPOS, 95.11% / 97.75% without it) and cost its trees 0.2-0.6 LAS;
    ``--feats-head`` adds the FEATS head back beside the tagger, mixed (docs/models.md)."""
    columns, left_out = [], []
    if not neural and "xpos" not in tags and annotated(train, "xpos"):
        columns.append("xpos")
    for column in ("feats", "lemma"):
        problem = malformed(train, column)
        if not annotated(train, column):
            left_out.append(f"no {column.upper()} tagger: {path} leaves {column.upper()} empty")
        elif problem:
            left_out.append(f"no {column.upper()} tagger: {problem}")
        else:
            columns.append(column)
    return columns, left_out


def _fit_tag_weights(parser, helpers: list, dev: Sequence[Sentence], log: Callable[[str], None],
                     feats_dev: Sequence[Sentence] | None = None) -> dict[str, float]:
    """Each tag column's weight of its perceptron tagger beside the network's head
    (:mod:`hetdep.models.tag_mixing`), fitted on dev (``feats_dev``: the FEATS tagger's, the first
    treebank's dev where each treebank has a FEATS tagger of its own); a tagger of weight 0 is not kept."""
    from hetdep.models.tag_mixing import fit_weight

    weights = {}
    for tagger in helpers:
        weight, accuracy = fit_weight(parser, tagger, feats_dev if tagger.column == "feats" and feats_dev is not None else dev)
        weights[tagger.column] = weight
        log(f"{tagger.column.upper()}: the network's tags" + (f" and its tagger's at weight {weight:g}" if weight else " alone")
            + f", dev accuracy {accuracy[weight]:.2f}% (the network alone: {accuracy[0.0]:.2f}%)")
    return weights


def _stages(choice: ModelChoice, pipeline: PipelineChoice, options: TrainOptions, train: list, train_b: list | None,
            tokenizer: bool, columns: list[str], morphology: list[str]) -> list[Stage]:
    from hetdep.tagger.training import TaggerOptions
    from hetdep.tokenizer.learning import TokenizerOptions

    stages = [Stage("tokenizer", TokenizerOptions().passes_with_dev, "iterations", fine=False)] if tokenizer else []
    passes = 2 * TaggerOptions().iterations * len(train)  # both directions, at most
    stages += [Stage(f"tagger ({column})", passes, "sentence passes", stops_early=True) for column in columns + morphology]
    if columns:
        stages.append(Stage("jackknifing", pipeline.folds * len(columns), "folds", fine=False))
    examples = len(train) + (len(train_b) if choice.concatenate else 0)
    epochs = options.iterations
    if choice.parser == NEURAL:  # and its final epochs at a lower rate
        from hetdep.neural.training import NeuralOptions

        epochs += NeuralOptions().final_epochs if pipeline.final_epochs is None else pipeline.final_epochs
    stages.append(Stage("parser", epochs * examples, "sentence passes", stops_early=True))
    return stages


def train_pipeline(model_dir: str | Path, choice: ModelChoice, pipeline: PipelineChoice, options: TrainOptions,
                   files: TrainingFiles, schemes: tuple[str, ...] | None = None, stream: TextIO | None = None,
                   interactive: bool | None = None) -> TrainResult:
    """Train the parts ``pipeline`` asks for and the parser, and write them all to ``model_dir``;
    progress goes to ``stream`` (standard error by default) as one display for the whole run."""
    from hetdep.models.language import training_language
    from hetdep.tagger.inflections import has_inflections
    from hetdep.tagger.tagger import Tagger, load_taggers
    from hetdep.tagger.training import TaggerOptions, fit_dictionary, jackknife, tag_accuracy, train_tagger
    from hetdep.tokenizer.learning import TokenizerOptions
    from hetdep.tokenizer.text import sentence_text
    from hetdep.tokenizer.tokenizer import TREEBANK_BIASES, TREEBANK_SHARES, Tokenizer

    given_tagger = pipeline.tagger not in TAGGER_CHOICES
    if given_tagger:
        load_taggers(pipeline.tagger)  # refuse a wrong directory before any training
    if (files.train_b is None) != (files.dev_b is None) or choice.second_treebank != (files.train_b is not None):
        raise HetdepError("a second treebank needs both --train-b and --dev-b")
    separate_treebanks = choice.concatenate
    treebanks = read_treebanks(files.treebanks) if files.treebanks else None
    if treebanks is not None:  # the tokenizer and the taggers learn from every treebank's sentences
        if choice.parser != NEURAL:
            raise HetdepError(f"several treebanks (--treebank) train a neural model, not --parser {choice.parser}")
        train = [sentence for treebank in treebanks for sentence in treebank.train[0]]
        dev = [sentence for treebank in treebanks for sentence in treebank.dev[0]]
        train_b = dev_b = None
    else:
        train, dev = _read(files.train), _read(files.dev)
        train_b, dev_b = _read(files.train_b), _read(files.dev_b)
    tokenizer_own = {name: (_read(own_train), _read(own_dev)) for name, own_train, own_dev in pipeline.tokenizer_treebanks}
    if choice.joint:  # refuse files that are not the same sentences before training anything
        pairs_of(train, train_b)
        pairs_of(dev, dev_b)
    first_file = files.train if treebanks is None else files.treebanks[0].train[0]
    with_tokenizer = pipeline.tokenizer and not separate_treebanks and any(sentence_text(s) for s in train)
    trains_taggers = pipeline.tagger == "train" and not separate_treebanks
    neural = choice.parser == NEURAL
    columns = (["upos"] + (["xpos"] if options.tag_column == "xpos" else [])  # a neural model tags as it parses
               if trains_taggers and not neural else [])
    morphology, left_out = _morphology_columns(train, first_file, columns, neural) if trains_taggers else ([], [])
    helpers = [column for column in TAG_COLUMNS if annotated(train, column)] if trains_taggers and neural else []
    mixed = helpers + (["feats"] if pipeline.feats_head and "feats" in morphology else [])  # the FEATS tagger: trained below
    if columns and len(train) < pipeline.folds:
        raise HetdepError(f"{files.train}: {len(train)} sentences are too few for {pipeline.folds}-fold jackknifing "
                          "(train with --gold-tags)")
    several = treebanks is not None and len(treebanks) > 1
    separate_feats = several and "feats" in morphology
    extra = [f"feats, {treebank.name}" for treebank in treebanks[1:]] if separate_feats else []
    display = RunDisplay(_stages(choice, pipeline, options, train, train_b, with_tokenizer, columns,
                                 helpers + morphology + extra), stream, interactive)
    for line in left_out:
        display.log(line)
    if pipeline.enhanced:  # what the graph head learns from, or a refusal before any training
        from hetdep.neural.enhanced import graphs_taught

        groups = [(t.name, t.train) for t in treebanks] if treebanks else [("", [s for s in (train, train_b) if s is not None])]
        display.log(graphs_taught(groups, first_file))
    record: dict = {"tokenizer": None, "tagger": pipeline.tagger if not given_tagger else "given"}
    paired = ([(a, b) for treebank in treebanks if len(treebank.train) == 2 for a, b in zip(*treebank.train)]
              if treebanks else list(zip(train, train_b)) if choice.joint else [])
    feats_b = FeatureMap.learn(paired) if paired and "feats" in morphology else None
    if feats_b is not None:  # scheme b's trees get scheme b's FEATS (hetdep.treebank.feature_maps)
        record["feats_b"] = feats_b.record()
    language = training_language(train)  # the guard's, the default vectors', the lemma dictionary's
    source = pipeline.embeddings
    if source == DEFAULT_VECTORS:  # the shipped model's, for a neural model of its language
        source = default_vectors(language) if neural else None
        if source:
            display.log(f"pretrained vectors: the shipped model's, {source} (--embeddings none trains without them)")
    source = None if source == NO_VECTORS else source
    vectors = read_vectors(source) if source else None
    tokenizer = None
    state = Path(model_dir) / checkpoint.STATE
    if with_tokenizer:
        display.start("tokenizer")
        resumed = (state / "tokenizer" / "config.json").is_file()
        if resumed:
            tokenizer = Tokenizer.load(state / "tokenizer")
        else:
            texts = [sentence for path in pipeline.tokenizer_texts for sentence in read_conllu(path)]
            clusters = WordClusters.from_vectors(*vectors, seed=options.seed) if vectors else None
            if clusters:
                display.log(f"tokenizer: the clusters of {len(clusters)} words of {source}")
            learned = {t.name: tokenizer_own.get(t.name, (t.train[0], t.dev[0])) for t in treebanks or ()}
            tokenizer_train, tokenizer_dev = train, dev
            if tokenizer_own:  # some treebanks' text from other files (--tokenizer-treebank)
                tokenizer_train = [sentence for own in learned.values() for sentence in own[0]]
                tokenizer_dev = [sentence for own in learned.values() for sentence in own[1]]
            tokenizer = Tokenizer.train(tokenizer_train + texts, tokenizer_dev, TokenizerOptions(seed=options.seed), log=display.log,
                                       step=lambda: display.advance("tokenizer"), clusters=clusters,
                                       treebank_devs={name: own[1] for name, own in learned.items()} if several else None)
            tokenizer.save(state / "tokenizer")
            if several:
                shares, trained = tokenizer.record.get(TREEBANK_SHARES, {}), tokenizer.record.get("unpunctuated", 0.0)
                display.log("tokenizer: each treebank's share of sentences without final punctuation and sentence-end "
                            "bias, chosen on its dev text: " + ", ".join(f"{name} {shares.get(name, trained):g}, {bias:+g}"
                                                                         for name, bias in tokenizer.record[TREEBANK_BIASES].items()))
        best = tokenizer.record["history"][tokenizer.record["best_iteration"] - 1]
        share = tokenizer.record.get("unpunctuated", 0.0)
        record["tokenizer"] = {"best_iteration": tokenizer.record["best_iteration"], "dev": best.get("dev"),
                               "unpunctuated": share}
        display.finish("tokenizer", f"iteration {tokenizer.record['best_iteration']} kept" +
                       (f", {share:g} of the sentences without their final punctuation" if share else "") +
                       (RESUMED if resumed else ""))
    elif pipeline.tokenizer and not separate_treebanks:
        display.log(f"no tokenizer: {first_file} has no '# text' comments; the model parses tokenized input only")
    taggers = []
    jobs = [(column, f"tagger ({column})", state / "tagger" / column, train, dev) for column in columns + helpers + morphology]
    if separate_feats:  # FEATS conventions differ between treebanks: a tagger each, the first's in tagger/
        first = treebanks[0]
        jobs = [(c, stage, where, first.train[0], first.dev[0]) if c == "feats" else (c, stage, where, t, d)
                for c, stage, where, t, d in jobs]
        jobs += [("feats", f"tagger (feats, {treebank.name})", state / TREEBANK_TAGGERS / treebank.name / "feats",
                  treebank.train[0], treebank.dev[0]) for treebank in treebanks[1:]]
    # A neural model's FEATS tagger tags after the network has parsed, so it reads the tree (agreement:
    # hetdep.tagger.tree_context), but not one mixed into the network's own FEATS, which comes before the tree.
    reads_tree = {"feats"} if neural and not pipeline.feats_head else set()
    # FEATS taggers read the language's inflection lexicon where hetdep ships one (unseen nouns' gender).
    inflections = language if has_inflections(language) else None
    treebank_taggers: dict[str, list] = {}
    for column, stage, where, tagger_train, tagger_dev in jobs:
        display.start(stage)
        resumed = (where / "config.json").is_file()
        if resumed:
            tagger = Tagger.load(where)
            if tagger.column != column or tagger.reads_tree != (column in reads_tree):
                raise HetdepError(f"{where}: the interrupted training kept a tagger this training does not make "
                                  "(a damaged training state): train the model again")
            record_of = read_config(where)  # its training history, kept if the dictionary is fitted again below
            history, best_iteration = record_of.get("history"), record_of.get("best_iteration")
        else:
            result = train_tagger(tagger_train, tagger_dev, TaggerOptions(column=column, seed=options.seed,
                                                                          reads="upos" if column in morphology else None,
                                                                          reads_tree=column in reads_tree,
                                                                          inflections=inflections if column == "feats" else None),
                                  progress=display.perceptron_progress(stage, score="accuracy", log_iterations=False))
            if column in morphology:
                result.parser.set_beam(MORPHOLOGY_BEAM)
            tagger = result.parser
            history, best_iteration = [vars(r) for r in result.history], result.best_iteration
        chosen = tagger.dictionary
        if column == "lemma":  # unseen forms' lemmas from the language's dictionary, where dev says it helps
            read = taggers[0].tag(tagger_dev) if tagger.reads and taggers and taggers[0].column == tagger.reads else tagger_dev
            display.log(f"{stage}: " + fit_dictionary(tagger, list(read), language))
        if not resumed or tagger.dictionary != chosen:  # a kept tagger is written again only if the choice changed
            tagger.save(where, history=history, best_iteration=best_iteration)
        if where.parent.parent.name == TREEBANK_TAGGERS:
            treebank_taggers.setdefault(where.parent.name, []).append(tagger)
        else:
            taggers.append(tagger)
        if tagger.reads and taggers[0].column == tagger.reads:  # dev as parsing will give it: the UPOS tagger's tags
            accuracy = tag_accuracy(tagger_dev, tagger.tag(taggers[0].tag(tagger_dev)), column)
            display.finish(stage, f"dev accuracy {accuracy:.2f}% (after the UPOS tagger)" + (RESUMED if resumed else ""))
        else:
            accuracy = tag_accuracy(tagger_dev, tagger.tag(tagger_dev), column)
            display.finish(stage, f"dev accuracy {accuracy:.2f}%" + (" (given the gold UPOS)" if tagger.reads else "")
                           + (RESUMED if resumed else ""))
    if columns:
        tag_taggers = taggers[:len(columns)]
        display.start("jackknifing")
        gold_train = train
        jackknifed = state / "jackknifed.conllu"
        resumed = jackknifed.is_file()
        if resumed:
            train = list(read_conllu(jackknifed))
        else:
            train = jackknife(train, pipeline.folds, columns, TaggerOptions(iterations=pipeline.fold_iterations,
                                                                            seed=options.seed),
                              progress=lambda _: display.advance("jackknifing"), threads=pipeline.threads or 1)
            state.mkdir(parents=True, exist_ok=True)
            jackknifed.write_text("".join(sentence.to_text() for sentence in train), encoding="utf-8")
        for tagger in tag_taggers:
            dev = list(tagger.tag(dev))
        kept = {c: round(tag_accuracy(gold_train, train, c), 2) for c in columns}
        record.update(columns=columns, jackknife_folds=pipeline.folds, jackknifed_tags_kept=kept)
        display.finish("jackknifing", ", ".join(f"{c}: {v:.2f}% of the training tags as in the gold" for c, v in kept.items())
                       + (RESUMED if resumed else ""))
        if train_b is not None:
            train_b, dev_b = _copy_tags(train, train_b, columns), _copy_tags(dev, dev_b, columns)
    display.start("parser")
    with checkpoint.kept_in(state / "parser"):
        result = train_model(choice, options, train, dev, train_b, dev_b, progress=display.perceptron_progress("parser"),
                             cluster=pipeline.cluster, shards=pipeline.shards, threads=pipeline.threads,
                             embeddings=source, vectors=vectors, decoder=pipeline.decoder, final_epochs=pipeline.final_epochs,
                             treebanks=treebanks, sharing=pipeline.sharing, temperature=pipeline.temperature, encoder=pipeline.encoder,
                             feats_head=pipeline.feats_head, enhanced=pipeline.enhanced, fine_tune=pipeline.fine_tune)
    display.finish("parser", f"iteration {result.best_iteration} kept"
                   + (", the best finished one, written for now" if result.interrupted else ""), interrupted=result.interrupted)
    if mixed and result.interrupted:  # fitting parses dev: on an interrupt the best finished network is written at once
        record["tag_weights"] = {column: 0.0 for column in mixed}
        display.log("interrupted: the network's tags are written alone (--resume fits its taggers' weights)")
    elif mixed:
        record["tag_weights"] = _fit_tag_weights(result.parser, [t for t in taggers if t.column in mixed], dev, display.log,
                                                 feats_dev=treebanks[0].dev[0] if separate_feats else None)
    if mixed:
        taggers = [tagger for tagger in taggers if record["tag_weights"].get(tagger.column, 1.0) > 0]
    if record.get("tag_weights", {}).get("feats") == 0:  # the FEATS head alone: no treebank's own FEATS tagger helps it
        treebank_taggers = {name: kept for name, own in treebank_taggers.items()
                            if (kept := [tagger for tagger in own if tagger.column != "feats"])}
    if not result.interrupted:
        interrupts.check()  # a signal some stage let pass: nothing is written
    record["taggers"] = [tagger.column for tagger in (load_taggers(pipeline.tagger) if given_tagger else taggers)]
    if treebank_taggers:
        record["treebank_taggers"] = {name: [tagger.column for tagger in own] for name, own in treebank_taggers.items()}
    facts = (treebanks_record(files.treebanks) if treebanks else
             training_record(choice, files.train, files.dev, files.train_b, files.dev_b, schemes))
    facts["language"] = language  # what the language guard compares parsed text with
    model_dir = Path(model_dir)
    result.parser.save(model_dir, history=[vars(r) for r in result.history], best_iteration=result.best_iteration,
                       **({} if choice.parser == NEURAL else {"training_options": vars(options)}),
                       pipeline={**record, "choice": asdict(pipeline)}, **facts)
    for part in ("tokenizer", "tagger", TREEBANK_TAGGERS):
        if (model_dir / part).is_dir():  # left by an earlier training in this directory: none of it may stay
            shutil.rmtree(model_dir / part)
    if tokenizer is not None:
        shutil.copytree(state / "tokenizer", model_dir / "tokenizer", dirs_exist_ok=True)
    for tagger in taggers:
        shutil.copytree(state / "tagger" / tagger.column, model_dir / "tagger" / tagger.column, dirs_exist_ok=True)
    for name, own in treebank_taggers.items():
        for tagger in own:
            shutil.copytree(state / TREEBANK_TAGGERS / name / tagger.column, model_dir / TREEBANK_TAGGERS / name / tagger.column)
    if given_tagger:
        shutil.copytree(pipeline.tagger, model_dir / "tagger", dirs_exist_ok=True)
    interrupts.wrote()
    if not result.interrupted:  # an interrupted run keeps its state for --resume
        shutil.rmtree(state, ignore_errors=True)
    return result
