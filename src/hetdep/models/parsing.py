"""Parsing with any kind of model from one description: which options a model takes is decided here.

:func:`open_models` reads a model directory (and a second one for joint inference), refuses
the options its kind does not have, and returns :class:`OpenModels`, whose ``parse`` gives one
tree per input sentence (a single-scheme model) or one pair of trees (a joint model, or two
graph-based parsers helping each other); a bundled tagger tags the input first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Iterable, Iterator

from hetdep.errors import HetdepError, InputError
from hetdep.learn.model_config import ModelFileError
from hetdep.learn.model_files import read_config, read_kind
from hetdep.learn.vocab import ParseStats
from hetdep.models import GRAPH_KINDS, NEURAL, TREEBANK_TAGGERS
from hetdep.models.language import LanguageGuard
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import MISC, Sentence
from hetdep.treebank.feature_maps import FeatureMap
from hetdep.treebank.tags import KBEST_KEY, TAG_COLUMNS, WORD_COLUMNS


@dataclass(frozen=True)
class ParseChoice:
    """How to parse: ``given`` 0 (1) keeps the input's trees as scheme a's (b's) and parses the
    other scheme (a joint model); ``helper``: a second graph-based model for joint inference,
    with ``consensus`` its options (a ``ConsensusOptions``); ``treebank``: the treebank a
    concatenated model parses as; ``lattice_weight``: overrides a lattice model's; ``beam``:
    overrides the model's; ``lattice_k``: candidate tags a bundled tagger gives a lattice model;
    ``threads``: sentences parsed at once (:mod:`hetdep.threads`; the output is the same)."""

    given: int | None = None
    helper: Path | None = None
    consensus: object = None
    treebank: str | None = None
    lattice_weight: float | None = None
    beam: int | None = None
    lattice_k: int = 3
    threads: int = 1


@dataclass
class OpenModels:
    """A loaded model ready to parse, with what the caller needs to know about it."""

    model_dir: Path
    kind: str
    parser: object
    choice: ParseChoice
    helper: object = None
    taggers: list = field(default_factory=list)
    tokenizer: object = None  # the bundled tokenizer, for raw text
    lattice: bool = False
    warnings: list[str] = field(default_factory=list)
    feats_b: FeatureMap | None = None  # a joint model's map from scheme a's FEATS (its tagger's, or given trees') to b's
    language: str | None = None  # the language the model was trained on, where its training recorded it
    treebank_taggers: dict = field(default_factory=dict)  # a model of several treebanks: name -> column -> its own tagger

    def for_treebank(self, name: str) -> "OpenModels":
        """The same model parsing as its treebank ``name`` (a neural model of several): that
        treebank's heads, embedding and own taggers (FEATS), the rest shared."""
        own = self.treebank_taggers.get(name, {})
        return replace(self, parser=self.parser.for_treebank(name), choice=replace(self.choice, treebank=name),
                       taggers=[own.get(tagger.column, tagger) for tagger in self.taggers],
                       tokenizer=self.tokenizer.for_treebank(name) if self.tokenizer is not None else None)

    @cached_property
    def guard(self) -> LanguageGuard:
        """Tells sentences that look like another language than the model's (:mod:`hetdep.models.language`)."""
        return LanguageGuard(self.language, self.is_known)

    @property
    def pairs(self) -> bool:
        """Whether ``parse`` gives a pair of trees per sentence (else one tree)."""
        return (self.helper is not None or (self.kind == "joint" and self.choice.given is None)
                or (self.kind == NEURAL and self.parser.schemes == 2))

    @property
    def stats(self):
        return self.parser.stats

    def is_known(self, form: str) -> bool:
        """Whether the model learned a word of this form (else it is an unknown word to it)."""
        if self.kind == NEURAL:
            return form.lower() in self.parser.encoder.word_index
        return form in self.parser.words.index

    def check_outputs(self, second_output: bool) -> None:
        """Refuse a second output where the model writes one tree per sentence (a joint model
        without one writes scheme a, or the scheme asked for, to the first)."""
        if not self.pairs and second_output:
            if self.kind == "joint":
                raise HetdepError("given the trees of one scheme (--gold-a/--gold-b), a joint model writes the other "
                                  "scheme's trees alone, to --output: drop --output-b")
            raise HetdepError(f"{self.model_dir} is a single-scheme ('{self.kind}') model: it writes no --output-b")

    def tag(self, sentences: Iterable[Sentence]) -> Iterable[Sentence]:
        """The input tagged by the model's bundled taggers (with candidates for a lattice model), if it
        has them, and a neural model's by its network's tag heads too."""
        if self.kind == NEURAL:  # the network's UPOS first: the bundled FEATS and LEMMA taggers read it
            return self._bundled(self.parser.tag(sentences))
        for tagger in self.taggers:
            sentences = tagger.tag(sentences, k=self.choice.lattice_k if self.lattice and tagger.column == self.parser.tag_column
                                   else 0)
        return sentences

    def _bundled(self, sentences: Iterable[Sentence]) -> Iterable[Sentence]:
        for tagger in self.taggers:
            sentences = tagger.tag(sentences)
        return sentences

    def _with_bundled_tags(self, parsed: Iterable) -> Iterator:
        """A neural model's parses with the bundled taggers' columns, on ``choice.threads`` threads
        (their compiled searches release Python's lock; the output is in input order)."""
        return ordered_map(self._tag_trees, parsed, self.choice.threads)

    def _tag_trees(self, trees):
        """One parse with the bundled taggers' columns, tagged once (on the first scheme's tree,
        which carries the network's UPOS) and copied to every tree."""
        if not isinstance(trees, tuple):
            return next(iter(self._bundled([trees])))
        first = next(iter(self._bundled([trees[0]])))
        others = []
        for tree in trees[1:]:
            for column in (WORD_COLUMNS[tagger.column] for tagger in self.taggers):
                tree = tree.with_column(column, first.column(column))
            others.append(tree)
        return (first, *others)

    def require_tags(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """The sentences, refusing one with an untagged word: a parser reading no tags gives wrong
        trees, so without a bundled tagger the input must carry them (MISC TagKBest will do for a
        lattice model)."""
        column = TAG_COLUMNS[self.parser.tag_column]
        for sentence in sentences:
            for k, (tag, misc) in enumerate(zip(sentence.column(column), sentence.column(MISC))):
                if tag == "_" and not (self.lattice and KBEST_KEY in misc):
                    raise InputError(sentence.path, sentence.line,
                                     f"word {k + 1} ({sentence.forms[k]!r}) of the sentence starting here has no {self.parser.tag_column.upper()} tag, "
                                     f"and {self.model_dir} has no tagger to give it one: tag the input first "
                                     "('hetdep tag'), or train the model with its tagger (the default, without --gold-tags)")
            yield sentence

    def parse(self, sentences: Iterable[Sentence]) -> Iterator:
        """:meth:`parse_trees`, counting in ``stats.foreign`` the words of sentences that look like
        another language than the model's."""
        for parsed in self.parse_trees(sentences):
            first = parsed[0] if isinstance(parsed, tuple) else parsed
            language = self.guard.looks_like(first)
            if language is not None:
                self.parser.stats.count_foreign(language, len(first))
            yield parsed

    def parse_trees(self, sentences: Iterable[Sentence]) -> Iterator:
        """One tree, or one pair of trees, per input sentence, in order (the input tagged first if a
        tagger is bundled; refused at its first untagged word if not); on ``choice.threads`` threads
        (a neural model: its network's threads, over batches of sentences; it tags as it parses, and
        its bundled taggers of FEATS and LEMMA tag after it)."""
        if self.kind == NEURAL:
            parsed = self.parser.parse(sentences)
            parsed = self._with_bundled_tags(parsed) if self.taggers else parsed
        elif self.choice.threads > 1:
            parsed = ordered_map(self._parse_one, sentences, self.choice.threads)
        else:
            parsed = self._parse_in_turn(sentences)
        if self.feats_b is None or self.choice.given == 1:  # given scheme b's trees, the output is scheme a's
            return parsed
        if self.choice.given == 0:  # given scheme a's trees (and FEATS), the output is scheme b's
            return (self.feats_b.sentence(tree) for tree in parsed)
        if not any(tagger.column == "feats" for tagger in self.taggers):  # the input's FEATS, of no known scheme
            return parsed
        return ((trees[0], self.feats_b.sentence(trees[1])) if isinstance(trees, tuple) else trees for trees in parsed)

    def _parse_one(self, sentence: Sentence):
        return next(iter(self._parse_in_turn([sentence])))

    def _parse_in_turn(self, sentences: Iterable[Sentence]) -> Iterator:
        sentences = self.tag(sentences) if self.taggers else self.require_tags(sentences)
        choice = self.choice
        if self.helper is not None:
            from hetdep.graph.consensus import joint_parse

            return joint_parse(self.parser, self.helper, sentences, choice.consensus, choice.consensus)
        if self.kind == "joint" and choice.given is not None:
            return (pair[1 - choice.given] for pair in self.parser.parse(sentences, choice.beam, choice.given))
        return self.parser.parse(sentences, choice.beam)


def recorded_treebanks(config: dict) -> list[dict]:
    """The treebanks a neural model of several treebanks records in its config (each a dict with
    its ``name`` and ``schemes``, the first the default output), else none; the one reading of that
    record for the schemes, the tokenizer and ``info``."""
    treebanks = (config.get("vocabularies") or {}).get("treebanks") or []
    return [t for t in treebanks if isinstance(t, dict)] if isinstance(treebanks, list) else []


def scheme_names(model_dir: str | Path, kind: str, helper: str | Path | None = None,
                 treebank: str | None = None) -> tuple[str, ...]:
    """The names of the schemes a model writes, in order (``train --schemes``, else from the training
    files' names; a, b when neither), with a helper's (``--with``) second; a neural model of several
    treebanks: those of ``treebank`` (default: its first)."""
    config = read_config(model_dir)
    vocabularies = config.get("vocabularies", {})
    treebanks = recorded_treebanks(config)
    if kind == NEURAL and treebanks:
        chosen = next((t for t in treebanks if t.get("name") == treebank), treebanks[0])
        return tuple(chosen.get("schemes", ["a"]))[:2]
    two = kind == "joint" or (kind == NEURAL and len(vocabularies.get("labels", [])) == 2)
    names = list(config.get("schemes") or (["a", "b"] if two else ["a"]))
    if helper is not None:
        other = (read_config(helper).get("schemes") or ["b"])[0]
        names = [names[0], other if other != names[0] else f"{other}-helper"]
    return tuple(names[:2])


def load_tokenizer(model_dir: str | Path):
    """The tokenizer bundled in a model directory (or the directory itself, a tokenizer), else None;
    one the model was trained with (its record ``pipeline.tokenizer``) must be there. A model of
    several treebanks: ending sentences as its first treebank does (``OpenModels.for_treebank``: another's)."""
    from hetdep.tokenizer.tokenizer import KIND, Tokenizer

    directory = Path(model_dir)
    config = read_config(directory) if (directory / "config.json").is_file() else {}
    if (directory / "tokenizer").exists():  # there, it must load: else raw text would be read as tokenized text
        tokenizer = Tokenizer.load(directory / "tokenizer")
        treebanks = recorded_treebanks(config)
        first = treebanks[0].get("name") if treebanks else None
        return tokenizer.for_treebank(first) if isinstance(first, str) else tokenizer
    if config.get("kind") == KIND:
        return Tokenizer.load(directory)
    if (config.get("pipeline") or {}).get("tokenizer"):
        raise ModelFileError(f"{directory / 'tokenizer'}: the tokenizer the model was trained with is missing "
                             "(a damaged model directory)")
    return None


def open_models(model_dir: str | Path, choice: ParseChoice = ParseChoice(), tag_input: bool = True) -> OpenModels:
    """The model in ``model_dir`` loaded for ``choice``, refusing options its kind does not have
    (``tag_input``: use the model's bundled tagger, if any, on the input)."""
    from hetdep.graph.parser import GraphParser
    from hetdep.joint.parser import JointParser
    from hetdep.joint.schedule import INFINITE, t_text
    from hetdep.transition.parser import ArcStandardParser

    config = read_config(model_dir)
    kind = str(config["kind"])
    if kind != "joint" and choice.given is not None:
        raise HetdepError(f"{model_dir} is a single-scheme ('{kind}') model: --gold-a/--gold-b need a joint model")
    if choice.treebank is not None and choice.helper is not None:
        raise HetdepError("--treebank and --with do not combine: joint inference parses with each model's own labels")
    if choice.treebank is not None and kind not in GRAPH_KINDS and kind != NEURAL:
        raise HetdepError(f"{model_dir} is a '{kind}' model: --treebank is for models trained on several treebanks "
                          "(neural, or graph-based with --concatenate)")
    taggers = _bundled_taggers(config, model_dir) if tag_input else []
    lattice = kind in ("arc-standard", "joint") and bool(config.get("lattice"))
    opened = OpenModels(Path(model_dir), kind, None, choice, taggers=taggers, lattice=lattice,
                        tokenizer=load_tokenizer(model_dir) if tag_input else None,
                        feats_b=_feats_b(config, model_dir), language=config.get("language"))
    if choice.helper is not None:
        from hetdep.graph.consensus import check_compatible

        helper_kind = read_kind(choice.helper)
        if kind not in GRAPH_KINDS or helper_kind not in GRAPH_KINDS:
            raise HetdepError(f"joint inference (--with) needs two graph-based models (dep1 or dep2: their k-best "
                              f"lists), not '{kind}' and '{helper_kind}'")
        opened.parser, opened.helper = GraphParser.load(model_dir, kind), GraphParser.load(choice.helper, helper_kind)
        check_compatible(opened.parser, opened.helper, str(model_dir), str(choice.helper))
        return opened
    if kind == NEURAL:
        if choice.given is not None or choice.helper is not None:
            raise HetdepError(f"{model_dir} is a neural model: --gold-a/--gold-b and --with are for the perceptron parsers")
        from hetdep.neural.parser import NeuralParser  # NumPy alone: parsing needs no PyTorch

        opened.parser = NeuralParser.load(model_dir)
        if tag_input:
            opened.taggers = _with_tag_helpers(opened.parser, taggers, config, model_dir)
            opened.treebank_taggers = _treebank_taggers(config, model_dir, opened.parser.treebank_names)
        return opened.for_treebank(choice.treebank) if choice.treebank is not None else opened
    if kind == "joint":
        opened.parser = JointParser.load(model_dir)
        if choice.given is not None and opened.parser.t == (-INFINITE if choice.given == 0 else INFINITE):
            given, t = choice.given, opened.parser.t
            opened.warnings.append(f"{model_dir} parses scheme {'ab'[1 - given]} wholly before scheme {'ab'[given]} "
                                   f"(t = {t_text(t)}), so the given trees cannot guide it: the output is a plain parse. "
                                   f"A model trained with --t {t_text(-t)} converts from scheme {'ab'[given]}.")
    elif kind in GRAPH_KINDS:
        opened.parser = GraphParser.load(model_dir, kind)
        if choice.treebank is not None:
            opened.parser = opened.parser.for_treebank(choice.treebank)
    else:
        opened.parser = ArcStandardParser.load(model_dir)
    if choice.lattice_weight is not None and kind not in GRAPH_KINDS and choice.given is None:
        opened.parser.lattice_weight = choice.lattice_weight
    return opened


def _bundled_taggers(config: dict, model_dir: str | Path) -> list:
    """The taggers bundled in ``tagger/``, refused unless they are those the training kept (its record
    ``pipeline.taggers``; a model from before it: at least the tag columns it was jackknifed on), so
    a model missing one of its taggers is not taken for a model that has none."""
    pipeline = config.get("pipeline") or {}
    kept = pipeline.get("taggers")
    return _recorded_taggers(Path(model_dir) / "tagger", set(kept if kept is not None else pipeline.get("columns") or []),
                             exactly=kept is not None)


def _treebank_taggers(config: dict, model_dir: str | Path, treebanks: list[str]) -> dict:
    """A model of several treebanks: each treebank's own taggers (``treebank-taggers/NAME/``), refused
    unless they are those its training recorded (``pipeline.treebank_taggers``)."""
    recorded = (config.get("pipeline") or {}).get("treebank_taggers") or {}
    folder = Path(model_dir) / TREEBANK_TAGGERS
    found = sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []
    if (not isinstance(recorded, dict) or sorted(recorded) != found or not set(recorded) <= set(treebanks)
            or not all(isinstance(columns, list) for columns in recorded.values())):
        raise ModelFileError(f"{folder}: the treebanks' own taggers are not those the model was trained with "
                             f"({', '.join(found) or 'none'} found, {', '.join(recorded) or 'none'} recorded; a damaged model directory)")
    return {name: {tagger.column: tagger for tagger in _recorded_taggers(folder / name, set(columns), exactly=True)}
            for name, columns in recorded.items()}


def _recorded_taggers(folder: Path, wanted: set[str], exactly: bool) -> list:
    """The taggers of ``folder``, refused unless they tag the ``wanted`` columns (``exactly``:
    those and no other)."""
    from hetdep.tagger.tagger import load_taggers

    taggers = load_taggers(folder) if folder.exists() else []
    found = {tagger.column for tagger in taggers}
    missing, extra = wanted - found, (found - wanted if exactly else set())
    if missing or extra:
        raise ModelFileError(f"{folder}: " + (f"the {', '.join(sorted(missing)).upper()} tagger the model was trained with "
                                              "is missing" if missing else
                                              f"a {', '.join(sorted(extra)).upper()} tagger the model was not trained with")
                             + " (a damaged model directory)")
    return taggers


def _with_tag_helpers(parser, taggers: list, config: dict, model_dir: str | Path) -> list:
    """A neural model's bundled taggers that tag after its network (FEATS, LEMMA); those of its
    network's tag columns become the network's helpers at the weights its training fitted
    (:mod:`hetdep.models.tag_mixing`)."""
    from hetdep.models.tag_mixing import helper

    weights = (config.get("pipeline") or {}).get("tag_weights") or {}
    where = Path(model_dir) / "config.json"
    if not isinstance(weights, dict) or not all(
            column in parser.vocabularies.tag_columns and isinstance(weight, (int, float)) and 0 <= weight < float("inf")
            for column, weight in weights.items()):
        raise ModelFileError(f"{where}: damaged tag weights (pipeline.tag_weights): {weights!r}")
    after = []
    for tagger in taggers:
        if weights.get(tagger.column):  # its column is one of the network's (checked above)
            names = parser.vocabularies.tags[parser.vocabularies.tag_columns.index(tagger.column)]
            parser.tag_helpers[tagger.column] = (helper(tagger, names), float(weights[tagger.column]))
        else:
            after.append(tagger)
    missing = [column for column, weight in weights.items() if weight and column not in parser.tag_helpers]
    if missing:
        raise ModelFileError(f"{where}: the network's {', '.join(missing).upper()} tags are mixed with a tagger that "
                             f"{Path(model_dir) / 'tagger'} does not have")
    return after


def _feats_b(config: dict, model_dir: str | Path) -> FeatureMap | None:
    """A joint model's map of FEATS to scheme b's, if its training learned one."""
    record = (config.get("pipeline") or {}).get("feats_b")
    if record is None:
        return None
    try:
        return FeatureMap.from_record(record)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ModelFileError(f"{Path(model_dir) / 'config.json'}: damaged map of scheme b's FEATS (pipeline.feats_b)") from None


@dataclass(frozen=True)
class ParseJob:
    """Parse with the model in ``model_dir``, opened as ``choice``: a job for Dask workers
    (:mod:`hetdep.cluster.chunks`), each opening the model once."""

    model_dir: str
    choice: ParseChoice

    def open(self, threads: int = 1, directory: str | None = None):
        """The models, parsing on ``threads`` threads (``directory``: where this worker has the model folder)."""
        return open_models(directory or self.model_dir, replace(self.choice, threads=threads))

    def run(self, models, sentences: list[Sentence]) -> tuple[Iterator[tuple[Sentence, ...]], ParseStats]:
        models.parser.stats = ParseStats()
        parsed = models.parse(sentences)
        return (pair if models.pairs else (pair,) for pair in parsed), models.parser.stats


@dataclass(frozen=True)
class TagJob:
    """Tag with the tagger(s) of ``model_dir`` (a tagger, or a model with its tagger), as ``hetdep tag`` does."""

    model_dir: str
    beam: int | None = None
    k: int = 0
    threshold: float = 0.0

    def open(self, threads: int = 1, directory: str | None = None):
        """The taggers, and the threads to tag on (``directory``: where this worker has the model folder)."""
        from hetdep.tagger.tagger import load_taggers

        model_dir = Path(directory or self.model_dir)
        bundled = model_dir / "tagger"
        return load_taggers(bundled if bundled.is_dir() else model_dir), threads

    def run(self, opened, sentences: list[Sentence]) -> tuple[Iterator[tuple[Sentence, ...]], ParseStats]:
        taggers, threads = opened
        tagged = tag_sentences(taggers, sentences, threads, self.beam, self.k, self.threshold)
        return ((sentence,) for sentence in tagged), ParseStats(sentences=len(sentences),
                                                                 words=sum(len(sentence) for sentence in sentences))


def tag_sentences(taggers: list, sentences: Iterable[Sentence], threads: int = 1, beam: int | None = None, k: int = 0,
                  threshold: float = 0.0) -> Iterator[Sentence]:
    """Each sentence tagged by the taggers in turn (``k`` best tags of the first in MISC), in input
    order, on ``threads`` threads (the taggers' searches release Python's lock)."""
    def tag(sentence: Sentence) -> Sentence:
        tagged: Iterable[Sentence] = [sentence]
        for tagger in taggers:
            tagged = tagger.tag(tagged, beam, k if tagger is taggers[0] else 0, threshold)
        return next(iter(tagged))

    return ordered_map(tag, sentences, threads)
