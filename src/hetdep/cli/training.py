"""Commands that train models: train (every parser kind), train-tagger, jackknife."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import click

from hetdep.cli.app import TAG_COLUMN_CHOICE, WORD_COLUMN_CHOICE, FiniteFloat, SectionedCommand, read_all, refuse_options
from hetdep.errors import HetdepError
from hetdep.learn import MAX_BEAM
from hetdep.models import PARSER_KINDS
from hetdep.models.training import QUICK, TRAINING_KINDS, default_kind
from hetdep.transition.features import GUIDES
from hetdep.treebank.conllu import write_conllu

PERCEPTRON_OPTIONS = ("t", "guide", "no_guided", "beam", "update", "tagger_dir", "gold_tags", "folds", "lattice", "lattice_weight",
                      "dp", "helper_dir", "concatenate", "feature_copies", "names", "workers", "scheduler", "shards", "tag_column",
                      "projective_encoding")


def _default_parser(context: click.Context) -> str:
    """The parser when --parser is not given (:func:`hetdep.models.training.default_kind`)."""
    source = context.get_parameter_source
    return default_kind(any(source(name) is not click.core.ParameterSource.DEFAULT for name in PERCEPTRON_OPTIONS))


@click.command("train", cls=SectionedCommand, later=PERCEPTRON_OPTIONS + ("rules", "template_set"),
               later_heading="Options of the perceptron and phrase-structure parsers (the papers' experiments)")
@click.option("--train", "train_path", required=False, type=click.Path(dir_okay=False), help="Training treebank (CoNLL-U or CoNLL-X); scheme a of a joint model.")
@click.option("--train-b", "train_b_path", type=click.Path(dir_okay=False), help="The same training sentences in scheme b: trains a joint model.")
@click.option("--dev", "dev_path", required=False, type=click.Path(dir_okay=False), help="Dev treebank: picks the best iteration.")
@click.option("--dev-b", "dev_b_path", type=click.Path(dir_okay=False), help="The dev sentences in scheme b (joint model).")
@click.option("--model", "model_dir", required=False, type=click.Path(file_okay=False), help="Directory to write the model to.")
@click.option("--parser", "parser_kind", type=click.Choice(list(PARSER_KINDS)), default=None, help="The parser  [default: neural, the most accurate, its scores, speed and training time in docs/models.md; arc-standard when an option of the perceptron parsers is given (--beam, --t, --gold-tags, --dp, ...), so scripts written for it keep their meaning]. The arc-standard beam-search parser (the fast option to train), or a graph-based parser of first (dep1) or second order with siblings (dep2); they decode exactly, so --beam and --update are refused with them. constituency: the shift-reduce phrase-structure parser (mi-huang2015), trained from bracketed trees (--train/--dev: a .mrg file, a folder of them or a .zip; beam 16 by default). neural: a BiLSTM encoder with biaffine arc and label scorers and its own tag heads (UPOS, XPOS), trained by gradient descent on every core (with --train-b one encoder for both schemes), trees decoded exactly. constituency-neural: that encoder with a span scorer (Stern et al. 2017), trained from bracketed trees, phrase-structure trees decoded exactly (CKY), its own XPOS tags; with --dependency, the dependency trees too.")
@click.option("--rules", default=None, help="--parser constituency: head rules that binarize the training trees: collins (the default, measured better than penn2malt on the WSJ sample), penn2malt, zhang-clark-2008 (Chinese) or a table file.")
@click.option("--dependency", "dependency_rules", default=None, help="--parser constituency-neural: the encoder also learns the dependency trees these head rules derive from the training trees (penn2malt, collins, zhang-clark-2008 or a table file), and the model writes both trees of each sentence: phrase structure to --output, dependencies to --output-b.")
@click.option("--templates", "template_set", type=click.Choice(["zpar", "zhu2013"]), default=None, help="--parser constituency: feature templates, ZPar's 59 (the default: +1.2 F1 on the WSJ sample's test) or Zhu et al.'s 43 (parses about 1.3x faster)  [default: zpar]")
@click.option("--t", "t", default="inf", show_default=True, help="Joint model: interleaving of the two schemes' actions: a non-zero integer (t > 0: a leads by t actions; t < 0: b leads), 'inf' (a's tree first) or '-inf' (b's tree first).")
@click.option("--guide", type=click.Choice(list(GUIDES)), default="rich", show_default=True, help="Joint model: its guided features, which read the other scheme's tree: the paper's 18 templates; 'rich': those and 21 more (how S0 and S1 relate there as siblings or grandparent too, where their heads lie, whether they have dependents still in the queue; fired only where the other scheme has shifted S0 or S1); 'none': the paper's '/wo' ablation.")
@click.option("--no-guided", is_flag=True, help="Joint model without the guided features: the same as --guide none.")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=None, help="Beam size (1 is greedy)  [default: 64]")
@click.option("--iterations", type=click.IntRange(1), default=None, help="Most training iterations (a neural model's epochs)  [default: 15; neural: 30]")
@click.option("--patience", type=click.IntRange(1), default=None, help="Stop after this many iterations without a better dev UAS (neural: LAS)  [default: 4; neural: 8]")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the training order.")
@click.option("--tag-column", type=click.Choice(["upos", "xpos"]), default="upos", show_default=True, help="Column holding the POS tags the parser reads.")
@click.option("--projective-encoding", type=click.Choice(["head", "head+path"]), default="head", show_default=True, help="Label encoding of the pseudo-projective transform.")
@click.option("--update", type=click.Choice(["early", "max-violation"]), default=None, help="Perceptron update: early update (Collins & Roark 2004) or max-violation (Huang et al. 2012), which trains better parsers  [default: max-violation]")
@click.option("--tagger", "tagger_dir", type=click.Path(file_okay=False, exists=True), help="Bundle this trained tagger ('hetdep train-tagger') instead of training one; the training file's tags are used as they are (jackknife them to match: 'hetdep jackknife'). With --parser constituency: an XPOS tagger, or a neural model trained on the trees' dependency conversion (its network tags, more accurately than the perceptron tagger: docs/archive.md), bundled; the parser still learns from jackknifed perceptron tags.")
@click.option("--gold-tags", is_flag=True, help="Train no tagger: the parser learns from the training file's own tags, and its input must carry tags. By default a tagger is trained (UPOS, and XPOS with --tag-column xpos), bundled, and the parser learns from jackknifed tags.")
@click.option("--folds", type=click.IntRange(2), default=10, show_default=True, help="Folds of the jackknifing that tags the parser's training sentences.")
@click.option("--threads", type=click.IntRange(1, 256), default=None, help="Jackknifing folds trained at once (the same model for any number; jackknifing fr-sequoia train on 2 cores: 1.6x faster); --parser neural: the network's threads (a fixed seed gives the same model for the same number)  [default: 1; neural: every core]")
@click.option("--tokenizer-text", "tokenizer_texts", multiple=True, type=click.Path(dir_okay=False, exists=True), help="Another treebank (CoNLL-U with '# text') whose text, tokens and sentence ends the tokenizer learns from too; repeat for several. The parser and taggers do not see it. (fr-sequoia: fr-gsd's sentences raise dev Sentences F1 from 87.05 to 88.51.)")
@click.option("--no-tokenizer", is_flag=True, help="Train no tokenizer (by default one is trained when the training file has '# text' comments, so the model parses raw text).")
@click.option("--lattice", is_flag=True, help="Arc-standard parser or joint model: train and parse over tag lattices: each word's candidate tags from MISC TagKBest ('hetdep jackknife --k' for training, 'hetdep tag --k' or the bundled tagger for parsing), the tag column holding the gold tags; the parser chooses tags with the tree.")
@click.option("--lattice-weight", type=FiniteFloat(), default=0.0, show_default=True, help="With --lattice: weight of the tagger's log-probability of each chosen candidate (0: the parser's features alone choose).")
@click.option("--dp", is_flag=True, help="Arc-standard parser: beam search with dynamic programming (Huang & Sagae 2010): beam items with equal feature kernels are merged, so the beam holds more distinct analyses; the model parses that way too.")
@click.option("--helper", "helper_dir", type=click.Path(file_okay=False, exists=True), help="With --parser dep1/dep2: a graph-based model trained on another treebank; the new parser learns agreement features from its 16-best trees on the training sentences (learned consensus), and parses with it beside ('hetdep parse --with').")
@click.option("--concatenate", is_flag=True, help="With --parser dep1/dep2: --train-b/--dev-b is another treebank (other sentences, another scheme); train one parser on both, labels kept apart (parse with --treebank).")
@click.option("--feature-copies", is_flag=True, help="With --concatenate: every feature gets an unlabeled copy shared by the treebanks and a labeled copy per treebank (Daume 2007).")
@click.option("--names", default="a,b", show_default=True, help="With --concatenate: names of the --train and --train-b treebanks (for 'hetdep parse --treebank').")
@click.option("--workers", type=click.IntRange(1, 256), default=None, help="Train the parser (arc-standard or joint) by iterative parameter mixing on a local Dask cluster of this many worker processes: each epoch every shard of the training set trains from the mixed weights, then the weights are averaged (McDonald et al. 2010); the same model for a fixed seed and shard count.")
@click.option("--scheduler", help="The same on an existing Dask cluster, reached at this address (tcp://HOST:PORT).")
@click.option("--shards", type=click.IntRange(2, 1024), default=None, help="With --workers/--scheduler: shards of the training set  [default: the number of workers, at least 2]")
@click.option("--embeddings", default=None, help="--parser neural: pretrained word vectors, read beside the trained embeddings and kept as they are, so a form the treebank never had still has its vector (the model keeps them; the tokenizer reads their words' clusters too): a word2vec or fastText text file (a word and its numbers a line; bench/vectors_from_spacy.py writes one from a spaCy package), or a neural model that carries such vectors (its directory or installed name), or 'none'  [default: the vectors of the shipped model of the training text's language (French: fastText, 200,000 forms; English: spaCy's en_core_web_md, 342,930 forms), else none]")
@click.option("--decoder", type=click.Choice(["eisner", "mst"]), default=None, help="--parser neural: Eisner's algorithm (projective trees) or Chu-Liu-Edmonds (any tree), both exact with one word on the root  [default: eisner, better on fr-sequoia dev]")
@click.option("--final-epochs", type=click.IntRange(0), default=None, help="--parser neural: epochs at a tenth of the learning rate once the dev score stops rising (--patience) or --iterations are done, from the best weights so far (0: none)  [default: 5]")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False), help="Go on with the training of this model directory that was interrupted (Ctrl-C, SIGTERM), with the options it was started with (give no other but --threads): finished stages are kept, and the parser goes on after its last finished iteration, so the model is the one an uninterrupted run gives (with another --threads, a neural network's the same but for its floats' rounding).")
@click.option("--treebank", "treebanks", nargs=4, multiple=True, metavar="NAME SCHEME TRAIN DEV", help="--parser neural: one scheme of a named treebank, its training and dev file; repeat for more treebanks and for the second scheme of a pair (the same NAME, the same sentences). One encoder learns from all of them, the tokenizer and taggers from all their text; parse as any with 'hetdep parse --treebank NAME' (default: the one that fits the text, else the first). Instead of --train/--dev/--train-b/--dev-b; with --parser constituency-neural, dependency treebanks its encoder learns from beside the bracketed trees of --train/--dev (it parses as those).")
@click.option("--tokenizer-treebank", "tokenizer_treebanks", nargs=3, multiple=True, metavar="NAME TRAIN DEV", help="With --treebank: the tokenizer learns treebank NAME's text from TRAIN and fits its sentence ends on DEV instead of that treebank's own files (when part of its dev file trains the parser, the tokenizer can still learn the training split alone and tune on all of the dev file); repeat for other treebanks.")
@click.option("--sharing", type=click.Choice(["per-treebank", "per-scheme"]), default=None, help="With --treebank: arc and label scorers per treebank and scheme, or one per scheme name shared by the treebanks of that scheme (each sentence's input carries its treebank's embedding in both)  [default: per-scheme, measured better: docs/archive.md]")
@click.option("--temperature", type=FiniteFloat(min=0, min_open=True), default=None, help="With --treebank: each treebank's share of an epoch's batches goes as its size to the power 1/temperature (1: as the sizes are; higher: small treebanks more often)  [default: 1]")
@click.option("--feats-head", is_flag=True, help="--parser neural: a FEATS head on the encoder beside UPOS and XPOS, mixed with the FEATS tagger (which reads the network's UPOS) at a weight fitted on dev, where the training file has FEATS; docs/models.md says what it gives.")
@click.option("--enhanced", is_flag=True, help="--parser neural: a graph head learning the enhanced UD graphs of the training file's DEPS column (the first scheme with them; a sentence without one teaches the trees alone), written in that scheme's DEPS when parsing.")
@click.option("--encoder", type=click.Path(file_okay=False, exists=True), default=None, help="--parser neural and constituency-neural: a pretrained transformer of the BERT family (BERT, RoBERTa, XLM-R, CamemBERT, DistilBERT, MiniLM) in Hugging Face's layout (config.json, *.safetensors, tokenizer.json): each word's states at every layer, mixed by learned weights, read beside the rest (frozen, unless --fine-tune); the model carries it (in 8 bits in hetdep compact's copy) and parses with NumPy.")
@click.option("--fine-tune", is_flag=True, help="With --encoder: the transformer is trained with the rest, not only read, at a learning rate of its own (5e-5, rising linearly through the first epoch); the model carries the weights it learned. An epoch takes several times a frozen one's on CPU.")
@click.option("--quick", is_flag=True, help="A small model fast, to try hetdep on your treebank: the arc-standard parser (a joint one with --train-b) at beam 8, at most 10 iterations, taggers jackknifed in 5 folds (the shipped 200-sentence sample: about a minute on 2 cores); the default neural model is the accurate one (docs/guide.md).")
@click.option("--schemes", help="Names of the schemes, comma-separated (a joint model: scheme a's, then b's), kept in the model and shown by 'hetdep info'; default: from the file names (train.sud.conllu: sud).")
def train_command(train_path, train_b_path, dev_path, dev_b_path, model_dir, parser_kind, rules, dependency_rules, template_set, t, guide, no_guided, beam, iterations, patience, seed,
                  tag_column, projective_encoding, update, tagger_dir, lattice, lattice_weight, dp, helper_dir, concatenate,
                  feature_copies, names, workers, scheduler, shards, schemes, gold_tags, folds, threads, no_tokenizer,
                  tokenizer_texts, embeddings, decoder, final_epochs, resume_dir, treebanks, tokenizer_treebanks, sharing,
                  temperature, feats_head, enhanced, encoder, fine_tune, quick):
    """Train a model that parses raw text: by default the neural parser (one BiLSTM encoder, with
    --train-b shared by two schemes' scorers) with its tokenizer and FEATS/LEMMA taggers; with
    --parser arc-standard (or any of its options: --beam, --t, --gold-tags, ...) the arc-standard
    beam-search parser, with --train-b the joint model of two schemes; --parser dep1/dep2 a
    graph-based one (--concatenate: one parser on two treebanks); --parser constituency.

    The perceptron parsers: global averaged perceptron (max-violation update for beam search),
    non-projective trees through the pseudo-projective transform, a tokenizer and a tagger bundled
    by default. The best dev iteration is kept (mean score of both schemes for a joint model).
    """

    from hetdep.models.trainers import prepare, report_line
    from hetdep.models.training import TrainingRun

    context = click.get_current_context()
    if resume_dir:
        params = _resumed(context, resume_dir)
        return context.invoke(train_command, **params)
    if treebanks and not (parser_kind and TRAINING_KINDS[parser_kind].treebanks_beside):
        refuse_options({"--train": train_path, "--dev": dev_path, "--train-b": train_b_path, "--dev-b": dev_b_path,
                        "--schemes": schemes}, "--treebank (each names its files and scheme)")
        if not model_dir:
            raise click.UsageError("give --model")
    elif not (train_path and dev_path and model_dir):
        raise click.UsageError("give --train, --dev and --model, or --treebank (or --resume MODEL_DIR to go on with an "
                               "interrupted training)")
    if (sharing or temperature) and not treebanks:
        raise HetdepError(f"{'--sharing' if sharing else '--temperature'} is for several treebanks (--treebank)")
    if quick:  # kept in the options --resume goes on with, as what it stands for
        if parser_kind not in (None, QUICK["parser_kind"]):
            raise HetdepError(f"--quick trains --parser {QUICK['parser_kind']}: drop --parser {parser_kind}")
        context.params.update(parser_kind=QUICK["parser_kind"], beam=beam or QUICK["beam"],
                              iterations=iterations or QUICK["iterations"], folds=QUICK["folds"] if folds == 10 else folds)
    if context.params["parser_kind"] is None:
        context.params["parser_kind"] = _default_parser(context)  # kept so --resume goes on with it
    run = TrainingRun(**{name: value for name, value in context.params.items() if name not in ("resume_dir", "quick")})
    trained, start = prepare(run)
    with _kept_for_resume(context, model_dir):
        result = start()
    for report in result.history:
        click.echo(report_line(trained, report), err=True)
    parts = [name for name, present in (("tokenizer", (Path(model_dir) / "tokenizer").is_dir()),
                                         ("tagger", (Path(model_dir) / "tagger").is_dir())) if present]
    click.echo(f"best iteration {result.best_iteration}; model written to {model_dir}"
               + (f" with its {' and '.join(parts)}" if parts else ""), err=True)
    if result.interrupted:
        click.echo(f"hetdep: interrupted during iteration {len(result.history) + 1}: the model of iteration "
                   f"{result.best_iteration}, the best finished one, was written; go on with: hetdep train --resume "
                   f"{model_dir}", err=True)
        sys.exit(130)


RESUMING = "hetdep.resuming"
PATH_OPTIONS = ("train_path", "train_b_path", "dev_path", "dev_b_path", "model_dir", "tagger_dir", "helper_dir", "embeddings",
                "encoder")
PATH_LIST_OPTIONS = ("tokenizer_texts",)


@contextmanager
def _kept_for_resume(context: click.Context, model_dir: str) -> Iterator[None]:
    """Training inside this block can be resumed: its options are kept in the model directory
    (where --resume finds them; a new training there first drops what an interrupted one left),
    an interrupt says how to go on, and any other failure of a new training takes the kept state
    away. A resumed training that fails leaves it as it was (each save replaced the last whole):
    a refused state, say one kept by another version of hetdep, is hours of training that
    version can still go on with."""
    import json
    import shutil

    from hetdep.interrupts import is_interrupt
    from hetdep.learn.checkpoint import STATE

    directory = Path(model_dir)
    created = not directory.exists()
    state = directory / STATE
    resuming = context.meta.get(RESUMING, False)
    if not resuming:
        shutil.rmtree(state, ignore_errors=True)
        state.mkdir(parents=True)
        params = {name: (str(Path(value).resolve()) if name in PATH_OPTIONS and value and Path(value).exists() else
                         [str(Path(v).resolve()) for v in value] if name in PATH_LIST_OPTIONS else
                         [[name_, scheme, str(Path(t).resolve()), str(Path(d).resolve())] for name_, scheme, t, d in value]
                         if name == "treebanks" else
                         [[name_, str(Path(t).resolve()), str(Path(d).resolve())] for name_, t, d in value]
                         if name == "tokenizer_treebanks" else value)
                  for name, value in context.params.items() if name not in ("resume_dir", "quick")}
        (state / "run.json").write_text(json.dumps(params, indent=1), encoding="utf-8")
    try:
        yield
    except BaseException as error:
        if is_interrupt(error):
            click.echo(f"go on with: hetdep train --resume {model_dir}", err=True)
        elif not resuming:
            shutil.rmtree(state, ignore_errors=True)
            if created and directory.is_dir() and not any(directory.iterdir()):
                directory.rmdir()
        raise


RESUME_MAY_CHANGE = ("threads",)  # how many cores go on with it, not what is trained


def _resumed(context: click.Context, model_dir: str) -> dict:
    """The options an interrupted training of ``model_dir`` was started with (no other may be
    given but RESUME_MAY_CHANGE: a training stopped on one machine goes on on another)."""
    import json

    from click.core import ParameterSource

    from hetdep.learn.checkpoint import STATE

    options = {param.name: param for param in context.command.params}
    changed = {name: context.params[name] for name in RESUME_MAY_CHANGE
               if context.get_parameter_source(name) == ParameterSource.COMMANDLINE}
    given = [options[name].opts[0] for name in context.params if name not in ("resume_dir", *changed)
             and context.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if given:
        raise click.UsageError(f"--resume goes on with the options the training was started with: drop {', '.join(given)}")
    run = Path(model_dir) / STATE / "run.json"
    if not run.is_file():
        raise HetdepError(f"{model_dir}: no interrupted training to go on with here (none kept its state there: it "
                          "finished, or was interrupted before it began, or was started by another version of hetdep, "
                          "or in another directory): train it again")
    try:
        params = json.loads(run.read_text(encoding="utf-8"))
        if not isinstance(params, dict) or not set(params) <= set(options) - {"resume_dir"}:
            raise ValueError("options this hetdep does not have")
        params = {name: options[name].type_cast_value(context, value) for name, value in params.items()}
    except (ValueError, TypeError, UnicodeDecodeError, click.BadParameter) as error:
        raise HetdepError(f"{run}: damaged record of the interrupted training ({error})") from None
    # The folder given, wherever the interrupted training's folder now lies (moved or copied): the
    # state kept there is what goes on, and nothing is written into the folder it was started in.
    params["model_dir"] = model_dir
    params.update(changed)
    if params.get("workers") or params.get("scheduler"):
        raise HetdepError(f"{model_dir}: a training by parameter mixing on a cluster cannot be resumed: train it again")
    context.meta[RESUMING] = True
    return params


@click.command("train-tagger")
@click.option("--train", "train_path", required=False, type=click.Path(dir_okay=False), help="Training file (CoNLL-U) with gold tags.")
@click.option("--dev", "dev_path", type=click.Path(dir_okay=False), help="Dev file: picks the best iteration (without it, the last is kept).")
@click.option("--model", "model_dir", required=False, type=click.Path(file_okay=False), help="Directory to write the tagger(s) to: one subdirectory per column.")
@click.option("--column", "columns", type=WORD_COLUMN_CHOICE, multiple=True, default=("upos",), show_default=True, help="Column to learn (lemma: as edit scripts of the form); repeat for several.")
@click.option("--reads", type=click.Choice(["upos", "xpos"]), default=None, help="Each word's tag in this column is a feature too (gold in training; at tagging time the column must be filled, by a tagger run before: 'hetdep train' makes its FEATS, LEMMA and XPOS taggers read UPOS).")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=8, show_default=True, help="Beam size (1 is greedy).")
@click.option("--iterations", type=click.IntRange(1), default=20, show_default=True, help="Most training iterations.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the training order.")
def train_tagger_command(train_path, dev_path, model_dir, columns, reads, beam, iterations, seed):
    """Train a tagger (averaged perceptron, beam search) for UPOS, XPOS, FEATS and/or LEMMA."""
    from tqdm import tqdm

    from hetdep.tagger.training import TaggerOptions, tag_accuracy, train_tagger

    train_sentences = read_all(train_path)
    dev_sentences = read_all(dev_path) if dev_path else []
    for column in dict.fromkeys(columns):
        if reads == column:
            raise HetdepError(f"a {column} tagger cannot read its own column: --reads {reads}")
        options = TaggerOptions(column=column, beam=beam, iterations=iterations, seed=seed, reads=reads)
        result = train_tagger(train_sentences, dev_sentences, options, progress=lambda **kw: tqdm(disable=None, **kw))
        best = result.history[result.best_iteration - 1]
        result.parser.save(Path(model_dir) / column, history=[vars(r) for r in result.history],
                           best_iteration=result.best_iteration)
        score = ""
        if dev_sentences:
            score = f", dev accuracy {tag_accuracy(dev_sentences, result.parser.tag(dev_sentences), column):.2f}%"
            if result.parser.backward is not None:
                score += (f" (left to right alone {best.dev_uas:.2f}%, right-to-left weight "
                          f"{result.parser.backward_weight:g})")
        click.echo(f"{column}: iteration {result.best_iteration} kept{score}; saved to {Path(model_dir) / column}", err=True)


@click.command("jackknife")
@click.option("--train", "train_path", required=False, type=click.Path(dir_okay=False), help="Training file with gold tags.")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False), help="The same file with predicted tags (every other column kept).")
@click.option("--folds", type=click.IntRange(2), default=10, show_default=True, help="Number of folds.")
@click.option("--column", "columns", type=TAG_COLUMN_CHOICE, multiple=True, default=("upos",), show_default=True, help="Column to tag; repeat for both.")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=8, show_default=True, help="Tagger beam size.")
@click.option("--iterations", type=click.IntRange(1), default=10, show_default=True, help="Training iterations of each fold's tagger.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the training order.")
@click.option("--k", "kbest", type=click.IntRange(0), default=0, show_default=True, help="Keep the gold tags in the column and write each word's k best tags to MISC (TagKBest), for 'hetdep train --lattice'.")
@click.option("--threshold", type=FiniteFloat(0, 1), default=0.0, show_default=True, help="With --k: drop candidates whose probability is below this (the best is kept).")
@click.option("--threads", type=click.IntRange(1, 256), default=1, show_default=True, help="Folds trained at once (the same output for any number).")
def jackknife_command(train_path, output_path, folds, columns, beam, iterations, seed, kbest, threshold, threads):
    """Tag a training file by jackknifing: each fold by a tagger trained on the others."""
    from hetdep.tagger.training import TaggerOptions, jackknife, tag_accuracy

    sentences = read_all(train_path)
    tagged = jackknife(sentences, folds, list(dict.fromkeys(columns)), TaggerOptions(beam=beam, iterations=iterations, seed=seed),
                       progress=lambda message: click.echo(message, err=True), k=kbest, threshold=threshold,
                       threads=threads)
    write_conllu(tagged, output_path)
    if not kbest:
        for column in dict.fromkeys(columns):
            click.echo(f"{column}: {tag_accuracy(sentences, tagged, column):.2f}% of the gold tags kept", err=True)


@click.command("train-tokenizer")
@click.option("--train", "train_path", required=False, type=click.Path(dir_okay=False), help="A UD treebank whose sentences have '# text' comments (and SpaceAfter=No, multiword-token lines as UD has them).")
@click.option("--dev", "dev_path", type=click.Path(dir_okay=False), help="Dev treebank: picks the sentence-end bias (by the CoNLL 2018 Sentences F1 there) and whether training sentences lose their final punctuation (so headings and captions end sentences; by the F1 of token ends plus Sentences F1). The last iteration is kept: dev chose iterations by chance as much as by merit.")
@click.option("--model", "model_dir", required=False, type=click.Path(file_okay=False), help="Directory to write the tokenizer to.")
@click.option("--tokenizer-text", "tokenizer_texts", multiple=True, type=click.Path(dir_okay=False, exists=True), help="Another treebank whose text, tokens and sentence ends are learned too; repeat for several.")
@click.option("--iterations", type=click.IntRange(1), default=10, show_default=True, help="Training iterations.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the training order.")
@click.option("--embeddings", type=click.Path(dir_okay=False, exists=True), help="Word vectors (word2vec or fastText text format) whose words' clusters the tokenizer reads where a chunk ends: the words before, at and after it (a name after a noun rarely starts a sentence); kept in the tokenizer (sentence ends found more often: docs/archive.md).")
def train_tokenizer_command(train_path, dev_path, model_dir, tokenizer_texts, iterations, seed, embeddings):
    """Train a tokenizer alone: sentence segmentation, tokenization and multiword-token expansion
    ('hetdep train' trains one into every model whose training file has '# text')."""
    from hetdep.learn.clusters import WordClusters
    from hetdep.tokenizer.learning import TokenizerOptions
    from hetdep.tokenizer.tokenizer import Tokenizer

    train = read_all(train_path) + [sentence for path in tokenizer_texts for sentence in read_all(path)]
    clusters = WordClusters.read(embeddings, seed) if embeddings else None
    tokenizer = Tokenizer.train(train, read_all(dev_path) if dev_path else None,
                                TokenizerOptions(iterations=iterations, seed=seed), log=lambda line: click.echo(line, err=True),
                                clusters=clusters)
    tokenizer.save(model_dir)
    record = tokenizer.record
    click.echo(f"iteration {record['best_iteration']} kept; {record['multiword_forms']} multiword forms learned; "
               f"{record['skipped_sentences']} sentences without a usable '# text' skipped; saved to {model_dir}", err=True)
