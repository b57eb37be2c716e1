"""The experiment commands: each reruns one paper's experiment and writes its report."""

from __future__ import annotations

from pathlib import Path

import click

from hetdep.cli.app import FiniteFloat, t_values
from hetdep.learn import MAX_BEAM
from hetdep.transition.features import GUIDES


@click.group("experiment")
def experiment_group():
    """Rerun the papers' experiments; each writes a Markdown report with tables and plots."""
    from hetdep.extras import require

    require("experiments", "hetdep experiment")


@experiment_group.command("joint")
@click.option("--treebank", required=True, type=click.Path(file_okay=False, exists=True), help="Folder with {train,dev,test}.{A,B}.conllu, e.g. ../shared/data/fr-sequoia.")
@click.option("--scheme-a", default="sud", show_default=True, help="File infix of scheme a (function heads in the paper).")
@click.option("--scheme-b", default="ud", show_default=True, help="File infix of scheme b.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for models, plots and report.md (rerunning reuses its models).")
@click.option("--ts", default=",".join(("1", "2", "3", "4", "inf", "-1", "-2", "-3", "-4", "-inf")), show_default=True, help="Comma-separated values of t to train.")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=64, show_default=True, help="Beam size.")
@click.option("--iterations", type=click.IntRange(1), default=15, show_default=True, help="Most training iterations.")
@click.option("--tag-column", type=click.Choice(["upos", "xpos"]), default="upos", show_default=True, help="POS tag column.")
@click.option("--update", type=click.Choice(["early", "max-violation"]), default="max-violation", show_default=True, help="Perceptron update, for baselines and joint models alike.")
@click.option("--guide", type=click.Choice([name for name in GUIDES if name != "none"]), default="rich", show_default=True, help="The joint models' guided features (see 'hetdep train --help'); with 'rich' the paper's guide is trained too, for Table 3.")
@click.option("--train-only", is_flag=True, help="Train the baselines and the models of --ts that OUT lacks, then stop; lets several processes share one OUT, a last run without it writes the report.")
def experiment_joint(treebank, scheme_a, scheme_b, out, ts, beam, iterations, tag_column, update, guide, train_only):
    """zhang2014 Tables 2-5 and Figure 3: baselines, joint model for each t, ablation, test and significance."""
    from hetdep.experiments.joint import run_joint_experiment
    from hetdep.learn.perceptron import TrainOptions

    values = t_values(ts)
    report = run_joint_experiment(Path(treebank), Path(out), scheme_a=scheme_a, scheme_b=scheme_b, ts=values,
                                  options=TrainOptions(beam=beam, iterations=iterations, tag_column=tag_column, update=update),
                                  guide=guide, log=lambda message: click.echo(message, err=True), train_only=train_only)
    click.echo(f"models trained in {out}/models" if train_only else f"report written to {report}", err=True)


@experiment_group.command("predicted-tags")
@click.option("--treebank", required=True, type=click.Path(file_okay=False, exists=True), help="Folder with {train,dev,test}.{A,B}.conllu, e.g. ../shared/data/fr-sequoia.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for tagged files, models and report.md (rerunning reuses them).")
@click.option("--scheme-a", default="sud", show_default=True, help="File infix of scheme a.")
@click.option("--scheme-b", default="ud", show_default=True, help="File infix of scheme b.")
@click.option("--t", "t", default="inf", show_default=True, help="Interleaving of the joint model; several, comma-separated (e.g. --t=inf,3,-1), are each trained and the best on tagged dev is tested.")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=64, show_default=True, help="Beam size.")
@click.option("--iterations", type=click.IntRange(1), default=15, show_default=True, help="Most training iterations of each parser.")
@click.option("--update", type=click.Choice(["early", "max-violation"]), default="max-violation", show_default=True, help="Perceptron update.")
@click.option("--folds", type=click.IntRange(2), default=10, show_default=True, help="Jackknifing folds over train.")
@click.option("--tagger-iterations", type=click.IntRange(1), default=10, show_default=True, help="Training iterations of each tagger.")
@click.option("--lattice-k", type=click.IntRange(0), default=3, show_default=True, help="Also train and test arc-standard and joint parsers over each word's k best tags (0: no lattice parsers).")
@click.option("--lattice-reference", type=click.Choice(["gold", "predicted"]), default="gold", show_default=True, help="Tags the lattice parsers learn to choose: gold (where the tagger offered them) or the tagger's best, as the 1-best parsers read.")
@click.option("--lattice-weight", type=FiniteFloat(), default=0.0, show_default=True, help="Weight of the tagger's log-probabilities while the lattice parsers train (the weight they parse with is chosen on dev).")
@click.option("--train-only", is_flag=True, help="Tag, train the baselines and the joint models of --t that OUT lacks, then stop; lets several processes share one OUT.")
def experiment_predicted_tags(treebank, out, scheme_a, scheme_b, t, beam, iterations, update, folds, tagger_iterations, lattice_k,
                              lattice_reference, lattice_weight, train_only):
    """Baseline and joint parsers trained on jackknifed tags and tested on predicted tags."""
    from hetdep.experiments.predicted_tags import run_predicted_tags_experiment
    from hetdep.learn.perceptron import TrainOptions

    values = t_values(t)
    report = run_predicted_tags_experiment(Path(treebank), Path(out), scheme_a=scheme_a, scheme_b=scheme_b, ts=values,
                                           options=TrainOptions(beam=beam, iterations=iterations, update=update),
                                           folds=folds, tagger_iterations=tagger_iterations, lattice_k=lattice_k,
                                           lattice_reference=lattice_reference, lattice_weight=lattice_weight,
                                           log=lambda message: click.echo(message, err=True), train_only=train_only)
    click.echo(f"models trained in {out}/models" if train_only else f"report written to {report}", err=True)


@experiment_group.command("consensus")
@click.option("--setting", type=click.Choice(["fr", "en"]), required=True, help="fr: fr-sequoia UD with fr-gsd SUD; en: en-ewt UD with the WSJ sample in Penn2Malt style (see 'hetdep.experiments.consensus.consensus_setting').")
@click.option("--data", type=click.Path(file_okay=False, exists=True), default="../shared/data", show_default=True, help="Folder holding the treebanks.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for models and report.md (rerunning reuses its models).")
@click.option("--iterations", type=click.IntRange(1), default=10, show_default=True, help="Most training iterations of each parser.")
@click.option("--k", type=click.IntRange(1), default=16, show_default=True, help="k-best list size.")
@click.option("--rounds", type=click.IntRange(1), default=4, show_default=True, help="Rounds of exchange between the parsers.")
@click.option("--parsers", default="dep1,dep2", show_default=True, help="Comma-separated parser kinds to run (dep1, dep2).")
def experiment_consensus(setting, data, out, iterations, k, rounds, parsers):
    """zhou-zhao2013 Tables 1 and 4: baselines, consensus features, concatenation, sign tests."""
    from hetdep.experiments.consensus import run_consensus_experiment
    from hetdep.graph.parser import KINDS
    from hetdep.learn.perceptron import TrainOptions

    kinds = tuple(kind.strip() for kind in parsers.split(",") if kind.strip())
    if not kinds or any(kind not in KINDS for kind in kinds):
        raise click.UsageError(f"--parsers {parsers!r}: give dep1, dep2 or both, separated by a comma")
    report = run_consensus_experiment(setting, Path(data), Path(out), kinds=kinds,
                                      options=TrainOptions(iterations=iterations, patience=3), k=k, iterations=rounds,
                                      log=lambda message: click.echo(message, err=True))
    click.echo(f"report written to {report}", err=True)


@experiment_group.command("constituency")
@click.option("--data", type=click.Path(exists=True), default="../shared/data/en-wsj-sample", show_default=True, help="The WSJ sample: a folder holding treebank.zip (files wsj_0001..wsj_0199), or the zip itself.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for models, plot and report.md (rerunning reuses its models).")
@click.option("--beam", type=click.IntRange(1, MAX_BEAM), default=16, show_default=True, help="Beam size of the constituency parsers.")
@click.option("--iterations", type=click.IntRange(1), default=20, show_default=True, help="Most training iterations of each constituency parser.")
@click.option("--patience", type=click.IntRange(1), default=5, show_default=True, help="Stop after this many iterations without a better dev F1.")
@click.option("--dependency-iterations", type=click.IntRange(1), default=10, show_default=True, help="Most training iterations of the arc-standard parser it is compared with.")
@click.option("--folds", type=click.IntRange(2), default=10, show_default=True, help="Jackknifing folds for the predicted-tags and lattice parsers.")
@click.option("--lattice-k", type=click.IntRange(2), default=3, show_default=True, help="Candidate tags a word in the tag lattices.")
@click.option("--tagger", "tagger_model", type=click.Path(file_okay=False, exists=True), help="A model that tags XPOS (a neural model trained on the Penn2Malt conversion of wsj_0001-0159, or an XPOS tagger): one more test row, the predicted-tags parser reading its tags.")
@click.option("--neural", "neural_model", type=click.Path(file_okay=False, exists=True), help="A neural phrase-structure model trained on wsj_0001-0159 with dev wsj_0160-0179 ('hetdep train --parser constituency-neural', bench/neural_constituency.py): one more test row, reading no tags (its own), and with --dependency its dependency trees in the dependencies table.")
def experiment_constituency(data, out, beam, iterations, patience, dependency_iterations, folds, lattice_k, tagger_model,
                            neural_model):
    """mi-huang2015 Figure 4 and Table 1 on the WSJ sample: plain and DP beams, gold and predicted
    tags and tag lattices, speed, and Penn2Malt dependencies from phrase structure against the
    arc-standard parser."""
    from hetdep.experiments.constituency import run_constituency_experiment
    from hetdep.learn.perceptron import TrainOptions

    report = run_constituency_experiment(Path(data), Path(out), TrainOptions(beam=beam, iterations=iterations, patience=patience),
                                         folds=folds, lattice_k=lattice_k, dependency_iterations=dependency_iterations,
                                         log=lambda message: click.echo(message, err=True),
                                         tagger_model=Path(tagger_model) if tagger_model else None,
                                         neural_model=Path(neural_model) if neural_model else None)
    click.echo(f"report written to {report}", err=True)


@experiment_group.command("treebanks")
@click.option("--setting", type=click.Choice(["fr-gsd", "fr-partut", "en"]), required=True, help="fr-gsd: fr-sequoia UD with fr-gsd SUD (its dev file split: 1276 sentences to train, 200 to tune); fr-partut: fr-sequoia UD with fr-partut UD (other conventions); en: en-ewt UD with the WSJ sample in Penn2Malt style (see 'hetdep.experiments.treebanks').")
@click.option("--data", type=click.Path(file_okay=False, exists=True), default="../shared/data", show_default=True, help="Folder holding the treebanks.")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Folder for models, scores.json and report.md (rerunning with the same options reuses its models).")
@click.option("--iterations", type=click.IntRange(1), default=30, show_default=True, help="Most epochs of each network.")
@click.option("--threads", type=click.IntRange(1, 256), default=None, help="PyTorch's threads  [default: every core]")
@click.option("--embeddings", default=None, help="Pretrained vectors for every network, as 'hetdep train --embeddings' takes them (a vectors file or a neural model carrying them)  [default: none]")
def experiment_treebanks(setting, data, out, iterations, threads, embeddings):
    """zhou-zhao2013's setting with the neural parser: two treebanks of different sentences and
    guidelines trained together in one network against each alone, each scored on its own test set
    with significance tests."""
    from hetdep.experiments.treebanks import run_treebanks_experiment
    from hetdep.neural import torch_module

    torch_module()  # one line where PyTorch is missing
    from hetdep.neural.training import NeuralOptions

    options = NeuralOptions(epochs=iterations, embeddings=embeddings, **({"threads": threads} if threads else {}))
    report = run_treebanks_experiment(setting, Path(data), Path(out), options, log=lambda message: click.echo(message, err=True))
    click.echo(f"report written to {report}", err=True)
