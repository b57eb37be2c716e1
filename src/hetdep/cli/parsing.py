"""Commands that run or describe trained models: parse, tag, info."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from itertools import chain, islice
from pathlib import Path
from typing import Iterator

import click

from hetdep.cli.app import MODEL, MODEL_HELP, NAMED_MODEL, FiniteFloat, SectionedCommand, counted, shipped_or
from hetdep.errors import HetdepError
from hetdep.learn import MAX_BEAM
from hetdep.short_runs import is_short_file, prefer_arrays, prefer_references
from hetdep.threads import limit_blas_threads, tune_malloc
from hetdep.treebank.conllu import MISC, Sentence, read_conllu, write_conllu
from hetdep.treebank.inputs import read_raw_text, read_tokenized_text, sniff_format
from hetdep.treebank.outputs import output_files
from hetdep.treebank.urls import fetched, is_url, temporary_file

INPUT_FORMAT = click.option(
    "--format", "input_format", type=click.Choice(["auto", "conllu", "raw", "tokenized", "text"]), default="auto",
    show_default=True, help="--input format: 'conllu'; 'raw' text, split into sentences and tokens by the model's tokenizer; "
    "'tokenized' text (or 'text'): one sentence a line, tokens separated by spaces. auto: CoNLL-U when the first line that is "
    "not a comment is tab-separated with a word ID first; other input is raw text when the model has a tokenizer, tokenized "
    "text when it has none.")
STDIN = "<stdin>"
STDOUT = "standard output"


CLUSTER_OPTIONS = (
    click.option("--threads", type=click.IntRange(1, 256), default=1, show_default=True, help="Sentences done at once, sharing one copy of the model (the perceptron parsers: about 2x faster on 2 cores; a neural model computes that many batches of its network at once, and its FEATS and LEMMA taggers run on them too); the output is the same for any number. More threads than cores do not help. With --workers: each worker's threads."),
    click.option("--workers", type=click.IntRange(1, 256), default=None, help="Run on a local Dask cluster of this many worker processes of --threads threads each: the input is cut into chunks of whole sentences that travel to the workers through Dask, each worker loads the model once and works through whole chunks with all its threads, and the output is the same as one process's (a neural model in int8, the shipped ones' default, rounds each batch its own way: a few sentences' trees may differ; --precision float32 gives one process's exactly) (by default one process, no Dask). One worker a machine is the natural layout."),
    click.option("--scheduler", help="Run on an existing Dask cluster, reached at this address (tcp://HOST:PORT): the chunks and their trees travel through Dask, so its workers need no folder shared with this machine; each worker uses the threads it was started with (dask worker --nthreads N)."),
)


def cluster_options(command):
    for option in reversed(CLUSTER_OPTIONS):
        command = option(command)
    return command


def local_input(path: str) -> tuple[str, str | None]:
    """``--input`` as a local file that can be read again, and the name messages give it: standard
    input, a pipe and a URL copied first (None: the file's own name)."""
    if path == "-":
        return _spooled(sys.stdin.buffer), STDIN
    if _is_pipe(path):  # a shell's <(...) or a named pipe: read once, so copied before sniffing like standard input
        with open(path, "rb") as stream:
            return _spooled(stream), path
    if is_url(path):
        return fetched(path), path
    return path, None


def read_input(path: str, input_format: str, tokenizer=None, model_dir: str = "", name: str | None = None) -> Iterator[Sentence]:
    """The sentences of ``--input`` (``-``: standard input) in the format ``--format`` names or the
    sniffing finds; a short input is read by the plain-Python loops (:mod:`hetdep.short_runs`);
    ``name``: a file :func:`local_input` made, named so."""
    if name is None:
        path, name = local_input(path)
    prefer_references(is_short_file(path))
    if input_format == "auto":
        input_format = sniff_format(path)
        if input_format == "text":
            input_format = "raw" if tokenizer is not None else "tokenized"
    if input_format == "raw":
        if tokenizer is None:
            raise HetdepError(f"{model_dir or 'the model'} has no tokenizer for raw text: give tokenized text "
                              "(--format tokenized: one sentence a line) or CoNLL-U, or train the model on a treebank with '# text'")
        return tokenizer.tokenize_document(read_raw_text(path, name))
    if input_format in ("tokenized", "text"):
        return read_tokenized_text(path, name)
    return read_conllu(path, name=name)


def _spooled(stream) -> str:
    """A stream that can be read only once (standard input, a pipe) copied to a temporary file
    (removed at exit), so it can be sniffed and read like a file."""
    import shutil

    spool = temporary_file(".hetdep-stdin.")
    with open(spool, "wb") as out:
        shutil.copyfileobj(stream, out)
    return spool


def _is_pipe(path: str) -> bool:
    import stat

    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):  # no such file: said by the reader, naming it
        return False


@click.command("parse", cls=SectionedCommand, later=(
    "gold_a_path", "gold_b_path", "beam", "with_model", "edge", "root", "sibling", "grand", "consensus_k", "consensus_iterations",
    "temperature", "lattice_k", "lattice_weight", "to_dependency"))
@click.option("--model", "model_dir", type=NAMED_MODEL, help=f"The model: {MODEL_HELP}, or such a name with a treebank or scheme after it as the service names them (fr-ud, fr-parisstories, fr-parisstories-sud); by default the model shipped with hetdep (French, SUD + UD).")
@click.option("--input", "input_path", type=click.Path(dir_okay=False, allow_dash=True), help="What to parse ('-': standard input): raw text, tokenized text or CoNLL-U/CoNLL-X (HEAD and DEPREL may be '_'); see --format.")
@click.option("--output", "output_path", required=True, help="CoNLL-U file to write ('-': standard output), or SCHEME=FILE: that scheme's trees (--output ud=text.ud.conllu, any case). A plain FILE gets the model's first scheme ('hetdep info' lists them in order: fr SUD, en UD), whatever treebank it parses as.")
@click.option("--output-b", "output_b_path", help="A model of two schemes: where to write the other scheme's trees (FILE or SCHEME=FILE).")
@click.option("--scheme", "scheme", help="A model of two schemes written to --output alone (no --output-b): the scheme to write, by its name in any case ('hetdep info'), or a/b; 'both': the first scheme's trees with the second's head and label in MISC (HeadB=, DeprelB=). Default: the first.")
@click.option("--quiet", is_flag=True, help="Leave out the warning that most words are unknown to the model (text in another language?).")
@click.option("--gold-a", "gold_a_path", type=click.Path(dir_okay=False), help="Joint model: a file whose trees are scheme a's; keep them and parse scheme b given them (treebank conversion).")
@click.option("--gold-b", "gold_b_path", type=click.Path(dir_okay=False), help="Joint model: a file whose trees are scheme b's; keep them and parse scheme a given them.")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=None, help="Beam size (default: the model's).")
@click.option("--with", "with_model", type=click.Path(file_okay=False), help="Joint inference (zhou-zhao2013): a second graph-based model (dep1 or dep2), trained on another treebank; each parser re-parses with consensus scores from the other's k-best trees. --output gets --model's trees, --output-b (optional) --with's.")
@click.option("--edge", type=FiniteFloat(), default=5.0, show_default=True, help="Joint inference: weight of the other parser's arc posterior mass.")
@click.option("--root", type=FiniteFloat(), default=5.0, show_default=True, help="Joint inference: weight of the other parser's root posterior mass.")
@click.option("--sibling", type=FiniteFloat(), default=0.0, show_default=True, help="Joint inference: weight of the other parser's adjacent-sibling posterior mass (non-zero: second-order search).")
@click.option("--grand", type=FiniteFloat(), default=0.0, show_default=True, help="Joint inference: weight of the other parser's grandparent-chain posterior mass (non-zero: second-order search).")
@click.option("--k", "consensus_k", type=click.IntRange(1), default=16, show_default=True, help="Joint inference: k-best list size.")
@click.option("--consensus-iterations", type=click.IntRange(1), default=4, show_default=True, help="Joint inference: rounds of exchange.")
@click.option("--temperature", type=FiniteFloat(min=0, min_open=True), default=1.0, show_default=True, help="Joint inference: posteriors are the softmax of k-best scores divided by this.")
@INPUT_FORMAT
@click.option("--lattice-k", type=click.IntRange(1), default=3, show_default=True, help="A model trained with --lattice and bundled with a tagger: how many candidate tags the tagger gives each word.")
@click.option("--lattice-weight", type=FiniteFloat(), default=None, help="A model trained with --lattice: weight of the tagger's log-probabilities (default: the model's).")
@click.option("--treebank", "treebank", help="A model trained on several treebanks: parse as this one. A neural model ('train --treebank'): its schemes, scorers and conventions ('hetdep info' lists them; default, auto: the one whose conventions fit the input best, judged on its first 50 sentences, and said; the first treebank unless another fits clearly better). A graph-based model trained with --concatenate: its scheme and labels (without it, any label of either, written with its treebank's prefix).")
@cluster_options
@click.option("--to-dependency", "to_dependency", help="A constituency model: write CoNLL-U dependency trees derived from its phrase-structure trees by these head rules (penn2malt, collins, zhang-clark-2008 or a table file) instead of brackets.")
@click.option("--precision", type=click.Choice(["int8", "float32"]), default=None, help="A neural model's arithmetic: int8 runs its LSTMs' and linear layers' products in 8-bit integers through onnxruntime (a model compacted with 'hetdep compact --precision int8' carries what it needs), float32 in NumPy, the reference; the trees may differ in a few sentences (docs/speed.md). A machine that cannot run int8 parses in float32 and says so  [default: the model's own; an input file of at most 1,000 bytes in float32, the runtime's start-up costing more than int8 saves on it]")
def parse_command(model_dir, input_path, output_path, output_b_path, gold_a_path, gold_b_path, beam, with_model, edge, root,
                  sibling, grand, consensus_k, consensus_iterations, temperature, input_format, lattice_k, lattice_weight,
                  treebank, threads, workers, scheduler, to_dependency, precision, scheme, quiet):
    """Parse raw text, tokenized text or CoNLL-U with a trained model: exactly one output tree per
    input sentence (per scheme); raw text is split into sentences, tokens and words by the model's
    tokenizer and tagged by its tagger first. A constituency model writes one bracketed tree a
    line (or, with --to-dependency, CoNLL-U)."""
    from hetdep.cluster.connect import ClusterChoice
    from hetdep.models.kinds.neural import AUTO_SENTENCES
    from hetdep.models.names import model_name
    from hetdep.models.opening import open_models
    from hetdep.models.parsing import ParseChoice
    from hetdep.progress import counted_on_terminal

    cluster = ClusterChoice(workers or 0, scheduler, threads)
    cluster.check()
    named = model_dir or model_name(None)
    model_dir = str(named.path)
    sources = [path for path in (input_path, gold_a_path, gold_b_path) if path]
    if not sources:
        raise click.UsageError("give --input FILE (raw text, tokenized text or CoNLL-U; '-': standard input)")
    if len(sources) != 1:
        raise click.UsageError("give one of --input, --gold-a and --gold-b")
    given = 0 if gold_a_path else 1 if gold_b_path else None
    consensus = None
    if with_model:
        from hetdep.graph.consensus import ConsensusOptions

        consensus = ConsensusOptions(edge=edge, root=root, sibling=sibling, grand=grand, k=consensus_k,
                                     iterations=consensus_iterations, temperature=temperature)
    choice = ParseChoice(given=given, helper=Path(with_model) if with_model else None, consensus=consensus,
                         treebank=None if treebank == "auto" else treebank,
                         lattice_weight=lattice_weight, beam=beam, lattice_k=lattice_k, threads=threads,
                         to_dependency=to_dependency, precision=precision,
                         short=bool(input_path) and workers is None and scheduler is None and is_short_file(input_path))
    tune_malloc(threads)  # before the model's reading and the parse start threads
    models = open_models(model_dir, choice, tag_input=bool(input_path))
    if named.suffix:  # fr-parisstories-sud: the treebank and scheme the name asks for
        asked, scheme_asked = named.choose(models.treebanks, lambda treebank: (
            models.for_treebank(treebank) if treebank else models).schemes)
        if asked and treebank and asked != treebank:
            raise HetdepError(f"--model {named.shown} parses as {asked}, not as --treebank {treebank}")
        if asked and not treebank:
            models, choice = models.for_treebank(asked), replace(choice, treebank=asked)
        if scheme_asked and not _is_named(output_path) and not output_b_path:
            output_path = f"{scheme_asked}={output_path}"
    limit_blas_threads(1)
    # One input, then the command ends: a small one decoded without loading numba, unless bundled
    # taggers load it anyway (then the compiled decoder, which lets go of Python's lock, is faster).
    prefer_arrays(not models.taggers)
    output_path, output_b_path, scheme = _by_scheme(models, named.shown, output_path, output_b_path, scheme)
    for option, path in (("--output", output_path), ("--output-b", output_b_path)):
        if path and Path(path).is_dir():
            raise HetdepError(f"{option} {path} is a folder: give a file")
    written = _scheme_written(models, named.shown, scheme, output_b_path)
    models.check_outputs(bool(output_b_path) or written is not None)
    for warning in models.warnings:
        click.echo(f"warning: {warning}", err=True)
    if output_path == "-" and output_b_path == "-":
        raise click.UsageError("--output and --output-b cannot both be standard output ('-')")
    if input_path:
        input_path, shown_input = local_input(input_path)
    auto = (treebank in (None, "auto") and not (named.suffix and choice.treebank) and len(models.treebanks) > 1
            and input_path and hasattr(models, "fitting"))
    # --treebank auto judges the input's first sentences as the default treebank's tokenizer reads
    # them: the default chosen, the input is read on from there, else read again by the chosen one's.
    default = models.for_treebank(models.treebanks[0]) if auto else models
    sentences = (read_input(input_path, input_format, default.tokenizer, model_dir, shown_input or input_path) if input_path
                 else read_conllu(sources[0], require_heads=True))  # --gold-a/--gold-b: CoNLL-U trees
    if auto:
        first = list(islice(sentences, AUTO_SENTENCES))
        models = models.fitting(first)
        chosen = models.choice.treebank
        choice = replace(choice, treebank=chosen)
        sentences = (chain(first, sentences) if chosen == default.choice.treebank
                     else read_input(input_path, input_format, models.tokenizer, model_dir, shown_input or input_path))
        click.echo(f"parsing as {chosen}, the treebank whose conventions fit this text best (--treebank NAME chooses "
                   "one)", err=True)
    if cluster.wanted:
        from hetdep.models.opening import ParseJob

        if written is not None:
            raise HetdepError("--scheme writes one file in this process: give --output-b on a cluster")
        if with_model and scheduler:
            raise HetdepError("--with needs a second model on every worker; an existing cluster's workers get --model's "
                              "files alone: use a local cluster (--workers) or one process")
        outputs = [output_path, output_b_path] if models.pairs else [output_path]
        count, stats = _on_cluster(ParseJob(str(model_dir), choice), sentences, outputs, cluster)
    else:
        parsed = models.parse(counted_on_terminal(sentences))
        if written is not None:
            count = write_conllu((_one_scheme(pair, written) for pair in parsed), output_path)
        else:
            count = _write_pairs(parsed, output_path, output_b_path) if models.pairs else write_conllu(parsed, output_path)
        stats = models.stats
    if count == 0:
        _say_empty(sources[0])
        return
    if not quiet:
        warning = models.guard.warning(stats.foreign, stats.words)
        if warning:
            click.echo(f"warning: {warning} (--quiet leaves this out)", err=True)
    taggers = models.taggers
    tagged = f"; tagged by the model's tagger ({', '.join(t.column for t in taggers)})" if taggers else ""
    click.echo(f"parsed {counted(count, 'sentence')}, {counted(stats.words, 'word')} ({counted(stats.unknown_words, 'unknown word')})"
               f"{tagged}", err=True)
    if models.two_schemes:
        click.echo(_where_written(models, written, output_path, output_b_path), err=True)
    if stats.unknown_labels:
        click.echo(f"warning: {stats.unknown_labels} words of the given trees have labels the model never saw; "
                   "their base relation stood in for them", err=True)
    if stats.lattice_words:
        click.echo(f"{stats.lattice_words} words had several candidate tags; the tags chosen with the tree are in the "
                   "tag column", err=True)
    if stats.first_order_only:
        from hetdep.graph.parser import SECOND_ORDER_MAX_WORDS

        click.echo(f"warning: {stats.first_order_only} sentences are longer than {SECOND_ORDER_MAX_WORDS} words: "
                   "dep2 parsed them with its arc scores only (the second-order decoder needs O(n^3) memory)", err=True)
    _warn_unknown_tags(stats)


def _say_empty(input_path: str) -> None:
    """The one line for an input without a sentence (the outputs are written, empty: exit 0)."""
    click.echo(f"hetdep: no sentence in {STDIN if input_path == '-' else input_path}; the output is empty", err=True)


def _warn_unknown_tags(stats) -> None:
    if stats.unknown_tags:
        examples = ", ".join(sorted(stats.unknown_tag_examples)[:10])
        click.echo(f"warning: {stats.unknown_tags} words have tags the model never saw ({examples}); "
                   "they were parsed as unknown tags", err=True)


def _on_cluster(job, sentences, outputs: list, cluster) -> tuple[int, object]:
    """Run a job on the cluster with a progress bar; report the workers' memory."""
    from tqdm import tqdm

    from hetdep.cluster.chunks import run_on_cluster

    with tqdm(unit="sent", mininterval=1.0, disable=None) as bar:
        run = run_on_cluster(job, sentences, outputs, cluster, progress=bar.update)
    click.echo(f"{len(run.memory)} Dask workers, peak memory "
               + ", ".join(f"{peak / 2**20:,.0f} MB" for peak in run.memory.values()), err=True)
    click.echo(run.timing_line(), err=True)
    return run.sentences, run.stats


def _is_named(output: str | None) -> bool:
    """Whether an output is given as SCHEME=FILE (a scheme's name: letters, digits and . + - _)."""
    from hetdep.models.names import PART_NAME

    return output is not None and "=" in output and bool(PART_NAME.fullmatch(output.partition("=")[0]))


def _scheme_index(models, shown: str, name: str) -> int:
    """The position of the scheme ``name`` (any case; a, b) among the model's, or one line naming them."""
    names = [scheme.lower() for scheme in models.schemes]
    if name.lower() in names:
        return names.index(name.lower())
    if name.lower() in ("a", "b")[:len(names)]:
        return "ab".index(name.lower())
    raise HetdepError(f"no scheme {name!r}: {shown} has {', '.join(models.schemes)}")


def _by_scheme(models, shown: str, output: str, output_b: str | None, scheme: str | None) -> tuple[str, str | None, str | None]:
    """--output and --output-b given as SCHEME=FILE, turned into the files of the first and second
    scheme (and --scheme, when one file gets one scheme): no scheme can land in a file named for another."""
    if not (_is_named(output) or _is_named(output_b)):
        return output, output_b, scheme
    given = [(None, path) if not _is_named(path) else (_scheme_index(models, shown, path.partition("=")[0]), path.partition("=")[2])
             for path in (output, output_b) if path is not None]
    if len(given) == 1:
        index, path = given[0]
        if scheme is not None and _scheme_index(models, shown, scheme) != index:
            raise HetdepError(f"--output {output} and --scheme {scheme} name two schemes: give one of them")
        return path, None, models.schemes[index] if models.two_schemes else None
    if not models.two_schemes:
        raise HetdepError(f"{shown} is a single-scheme model: it writes no --output-b")
    (first, first_path), (second, second_path) = given
    first = 1 - second if first is None else first
    second = 1 - first if second is None else second
    if first == second:
        raise HetdepError(f"--output and --output-b both name the scheme {models.schemes[first]}: give each its own")
    return (first_path, second_path, scheme) if first == 0 else (second_path, first_path, scheme)


def _scheme_written(models, shown: str, scheme: str | None, output_b_path: str | None) -> int | str | None:
    """Which scheme a model of two schemes writes to --output alone (0, 1 or "both"), or None when
    it writes both files (or the model has one scheme). Without --scheme and --output-b a joint
    model writes its first scheme, as a model of one scheme would."""
    if scheme is None and not (models.two_schemes and not output_b_path):
        return None
    if not models.two_schemes:
        raise HetdepError(f"--scheme is for a model of two schemes; {shown} writes one tree per sentence")
    if output_b_path:
        raise HetdepError("--scheme writes one scheme (or both, in one file) to --output: drop --output-b")
    if scheme is None:
        return 0
    if scheme.lower() == "both":
        return "both"
    return _scheme_index(models, shown, scheme)


def _where_written(models, written: int | str | None, output_path: str, output_b_path: str | None) -> str:
    """The line saying which scheme went to which file, for a model of two schemes."""
    shown = [STDOUT if path == "-" else path for path in (output_path, output_b_path)]
    first, second = models.schemes
    if written == "both":
        return f"{first} trees, with {second}'s heads and labels in MISC, in {shown[0]}"
    if written is not None:
        return f"{models.schemes[written]} trees in {shown[0]}"
    return f"{first} trees in {shown[0]}" + (f", {second} trees in {shown[1]}" if output_b_path else f" ({second} not written)")


def _one_scheme(pair, written):
    """One output sentence from a pair of trees: one scheme's, or scheme a's with b's tree in MISC."""
    if written != "both":
        return pair[written]
    tree_a, tree_b = pair
    misc = [("" if value == "_" else value + "|") + f"HeadB={head}|DeprelB={label}"
            for value, head, label in zip(tree_a.column(MISC), tree_b.heads, tree_b.deprels)]
    return tree_a.with_column(MISC, misc)


def _write_pairs(pairs, output_path: str, output_b_path: str | None) -> int:
    """Write the first tree of each pair to output_path and the second to output_b_path (if given), both or neither."""
    count = 0
    with output_files(output_path, output_b_path) as (out_a, out_b):
        for tree_a, tree_b in pairs:
            out_a.write(tree_a.to_text())
            out_b.write(tree_b.to_text())
            count += 1
    return count


@click.command("tag")
@click.option("--model", "model_dir", required=True, type=MODEL, help="Tagger directory from 'hetdep train-tagger', or a model from 'hetdep train' (its tagger, and its tokenizer for raw text).")
@click.option("--input", "input_path", required=True, type=click.Path(dir_okay=False, allow_dash=True), help="What to tag ('-': standard input): CoNLL-U, tokenized or raw text (see --format).")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False, allow_dash=True), help="CoNLL-U file to write ('-': standard output): the input with the tagged columns replaced.")
@click.option("--k", type=click.IntRange(0), default=0, show_default=True, help="Also write each word's k best tags of the first column (UPOS if the model has it) with probabilities to MISC (TagKBest=NOUN:0.912,...).")
@click.option("--threshold", type=FiniteFloat(0, 1), default=0.0, show_default=True, help="With --k: leave out tags below this probability (the best is always kept).")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=None, help="Beam size (default: the model's).")
@INPUT_FORMAT
@cluster_options
def tag_command(model_dir, input_path, output_path, k, threshold, beam, input_format, threads, workers, scheduler):
    """Tag a file's words with the model's taggers (UPOS, XPOS, FEATS, LEMMA): one output sentence
    per input sentence (raw text: per sentence the model's tokenizer finds)."""
    from hetdep.cluster.connect import ClusterChoice
    from hetdep.models.parsing import TagJob, load_tokenizer
    from hetdep.progress import counted_on_terminal

    cluster = ClusterChoice(workers or 0, scheduler, threads)
    cluster.check()
    job = TagJob(str(model_dir), beam, k, threshold)
    opened = job.open(threads)  # refuses what the model does not take before any input is read
    columns = ", ".join(job.columns(opened))
    if cluster.wanted:
        count, stats = _on_cluster(job, read_input(input_path, input_format, load_tokenizer(model_dir), model_dir),
                                   [output_path], cluster)
        click.echo(f"tagged {counted(count, 'sentence')}, {counted(stats.words, 'word')} with {columns}", err=True)
        return
    sentences = counted_on_terminal(read_input(input_path, input_format, load_tokenizer(model_dir), model_dir))
    words = [0]

    def with_words_counted(tagged):
        for sentence in tagged:
            words[0] += len(sentence)
            yield sentence

    count = write_conllu(with_words_counted(job.tagged(opened, sentences)), output_path)
    if count == 0:
        _say_empty(input_path)
        return
    click.echo(f"tagged {counted(count, 'sentence')}, {counted(words[0], 'word')} with {columns}", err=True)


@click.command("tokenize")
@click.option("--model", "model_dir", type=MODEL, help="By default the shipped model's tokenizer; a model from 'hetdep train' (its tokenizer) or from 'hetdep train-tokenizer'.")
@click.option("--input", "input_path", required=True, type=click.Path(dir_okay=False, allow_dash=True), help="Raw UTF-8 text ('-': standard input); a blank line always ends a sentence.")
@click.option("--output", "output_path", required=True, type=click.Path(dir_okay=False, allow_dash=True), help="CoNLL-U to write ('-': standard output): sentences with '# text', tokens, multiword tokens expanded into words, and the white space in MISC (SpaceAfter=No, SpacesAfter), so the text can be rebuilt.")
def tokenize_command(model_dir, input_path, output_path):
    """Split raw text into sentences, tokens and words (no tags, no trees)."""
    from hetdep.models.parsing import load_tokenizer

    model_dir = shipped_or(model_dir)
    tokenizer = load_tokenizer(model_dir)
    if tokenizer is None:
        raise HetdepError(f"{model_dir} has no tokenizer (a model trained from a file with '# text' comments has one)")
    count = write_conllu(read_input(input_path, "raw", tokenizer, model_dir), output_path)
    if count == 0:
        _say_empty(input_path)
        return
    click.echo(f"tokenized into {count} sentences", err=True)


@click.command("info")
@click.argument("model_dir", metavar="[MODEL]", type=MODEL, required=False)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def info_command(model_dir, as_json):
    """What a model is: its kind and schemes, what it reads, how and on what it was trained, its dev scores."""
    from hetdep.models.info import describe, summary

    model_dir = shipped_or(model_dir)
    if as_json:
        click.echo(json.dumps(summary(model_dir), ensure_ascii=False))
        return
    for line in describe(model_dir):
        click.echo(line)
