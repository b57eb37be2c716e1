"""What every kind of model is once opened: the choices a parse is made with (:class:`ParseChoice`),
the one interface to every kind (:class:`OpenModels`, whose ``parse`` gives one tree or one pair
of trees per input sentence), and the parts each kind bundles (tokenizer, taggers)."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import ClassVar, Iterable, Iterator

from hetdep.errors import HetdepError, InputError
from hetdep.learn.model_config import ModelFileError
from hetdep.learn.model_files import read_config
from hetdep.learn.vocab import ParseStats
from hetdep.models import NEURAL, NEURAL_CONSTITUENCY
from hetdep.models.language import LanguageGuard
from hetdep.threads import ordered_map
from hetdep.treebank.conllu import MISC, Sentence
from hetdep.treebank.feature_maps import FeatureMap
from hetdep.treebank.tags import KBEST_KEY, TAG_COLUMNS


@dataclass(frozen=True)
class ParseChoice:
    """How to parse: ``given`` 0 (1) keeps the input's trees as scheme a's (b's) and parses the
    other scheme (a joint model); ``helper``: a second graph-based model for joint inference,
    with ``consensus`` its options (a ``ConsensusOptions``); ``treebank``: the treebank a
    concatenated model parses as; ``lattice_weight``: overrides a lattice model's; ``beam``:
    overrides the model's; ``lattice_k``: candidate tags a bundled tagger gives a lattice model;
    ``threads``: sentences parsed at once (:mod:`hetdep.threads`; the output is the same);
    ``to_dependency``: head rules that turn a constituency model's trees into dependency trees;
    ``precision``: a neural model's arithmetic, int8 or float32 (None: the model's own,
    :mod:`hetdep.neural.int8`); ``short``: the one short input of a command that then ends, for
    which a neural model's own int8 is float32 (the runtime's start costs more than it saves)."""

    given: int | None = None
    helper: Path | None = None
    consensus: object = None
    treebank: str | None = None
    lattice_weight: float | None = None
    beam: int | None = None
    lattice_k: int = 3
    threads: int = 1
    to_dependency: str | None = None
    precision: str | None = None
    short: bool = False


@dataclass
class OpenModels:
    """A loaded model ready to parse, with what the caller needs to know about it: one interface for
    every kind. Each kind's own behaviour is a subclass in :mod:`hetdep.models.kinds`, opened by
    :func:`hetdep.models.opening.open_models`; callers use this interface and never ask the kind."""

    model_dir: Path
    kind: str
    parser: object
    choice: ParseChoice
    taggers: list = field(default_factory=list)  # bundled taggers, applied to the input in turn
    tokenizer: object = None  # the bundled tokenizer, for raw text
    warnings: list[str] = field(default_factory=list)
    config: dict = field(default_factory=dict, repr=False)  # its config.json, read once by the door

    # The ParseChoice fields (beyond ``beam``, ``threads`` and ``lattice_k``) a kind takes, by kind
    # name: a subclass's registration (:mod:`hetdep.models.opening` refuses the others in one line).
    TAKES: ClassVar[dict[str, frozenset[str]]] = {}

    @classmethod
    def open(cls, model_dir: Path, config: dict, choice: ParseChoice, tag_input: bool) -> "OpenModels":
        """The model in ``model_dir`` (its ``config`` read) loaded for ``choice``; ``tag_input``: with
        its bundled tokenizer and taggers, for input that needs them."""
        raise NotImplementedError

    @property
    def language(self) -> str | None:
        """The language the model was trained on, where its training recorded it."""
        return self.config.get("language")

    @cached_property
    def guard(self) -> LanguageGuard:
        """Tells sentences that look like another language than the model's (:mod:`hetdep.models.language`)."""
        return LanguageGuard(self.language, self.is_known)

    @property
    def pairs(self) -> bool:
        """Whether ``parse`` gives a pair of trees per sentence (else one tree)."""
        return False

    @property
    def two_schemes(self) -> bool:
        """Whether the pair is one model's two schemes (so ``--output`` alone may write either, or
        both in one file), not two models' trees (joint inference)."""
        return self.pairs

    @property
    def schemes(self) -> tuple[str, ...]:
        """The names of what ``parse`` gives per sentence, in order (``train --schemes``, else from
        the training files' names; a, b when neither)."""
        return tuple((self.config.get("schemes") or (["a", "b"] if self.pairs else ["a"]))[:2])

    @property
    def treebanks(self) -> list[str]:
        """The treebanks a model trained on several can parse as ([] for a model of one)."""
        return []

    @property
    def has_tagger(self) -> bool:
        """Whether the model tags its input (bundled taggers, or a network's own tag heads)."""
        return bool(self.taggers)

    @property
    def dependency_trees(self) -> bool:
        """Whether ``parse`` gives dependency trees (CoNLL-U sentences), else phrase-structure trees."""
        return True

    @property
    def stats(self):
        return self.parser.stats

    def reset_stats(self) -> None:
        """Count from zero again (a Dask worker counts each chunk alone)."""
        self.parser.stats = ParseStats()

    def for_treebank(self, name: str) -> "OpenModels":
        """The same model parsing as its treebank ``name`` (a model of several treebanks)."""
        raise HetdepError(f"no treebank {name!r} in {self.model_dir}: it has one treebank")

    def is_known(self, form: str) -> bool:
        """Whether the model learned a word of this form (else it is an unknown word to it)."""
        return form in self.parser.words.index

    def check_outputs(self, second_output: bool) -> None:
        """Refuse a second output where the model writes one tree per sentence."""
        if not self.pairs and second_output:
            raise HetdepError(f"{self.model_dir} is a single-scheme ('{self.kind}') model: it writes no --output-b")

    def tag(self, sentences: Iterable[Sentence]) -> Iterable[Sentence]:
        """The input tagged by the model's bundled taggers, if it has them."""
        for tagger in self.taggers:
            sentences = tagger.tag(sentences)
        return sentences

    def require_tags(self, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """The sentences, refusing one with an untagged word: a parser reading no tags gives wrong
        trees, so without a bundled tagger the input must carry them (MISC TagKBest will do for a
        lattice model)."""
        column = TAG_COLUMNS[self.parser.tag_column]
        lattice = bool(getattr(self.parser, "lattice", False))
        for sentence in sentences:
            for k, (tag, misc) in enumerate(zip(sentence.column(column), sentence.column(MISC))):
                if tag == "_" and not (lattice and KBEST_KEY in misc):
                    raise InputError(sentence.path, sentence.line,
                                     f"word {k + 1} ({sentence.forms[k]!r}) of the sentence starting here has no {self.parser.tag_column.upper()} tag, "
                                     f"and {self.model_dir} has no tagger to give it one: tag the input first "
                                     "('hetdep tag'), or train the model with its tagger (the default, without --gold-tags)")
            yield sentence

    def parse(self, sentences: Iterable[Sentence]) -> Iterator:
        """:meth:`parse_trees` of the sentences without their enhanced graphs (a parse writes only
        those its model predicts), counting in ``stats.foreign`` the words of sentences that look
        like another language than the model's."""
        for parsed in self.parse_trees(sentence.without_enhanced() for sentence in sentences):
            first = parsed[0] if isinstance(parsed, tuple) else parsed
            language = self.guard.looks_like(first)
            if language is not None:
                self.parser.stats.count_foreign(language, len(first))
            yield parsed

    def parse_trees(self, sentences: Iterable[Sentence]) -> Iterator:
        """One tree, or one pair of trees, per input sentence, in order (each written by its
        ``to_text()``), on ``choice.threads`` threads (the output is the same)."""
        raise NotImplementedError


def set_lattice_weight(parser, weight: float | None, model_dir: Path) -> None:
    """The parser's weight of its tagger's log-probabilities set to ``weight`` (``--lattice-weight``),
    refused for a parser that does not read tag lattices; None leaves the model's."""
    if weight is None:
        return
    if not parser.lattice:
        raise HetdepError(f"--lattice-weight is for a model trained with --lattice; {model_dir} was not")
    parser.lattice_weight = weight


def recorded_treebanks(config: dict) -> list[dict]:
    """The treebanks a neural model of several treebanks records in its config (each a dict with
    its ``name`` and ``schemes``, the first the default output), else none; the one reading of that
    record for the schemes, the tokenizer and ``info``."""
    treebanks = (config.get("vocabularies") or {}).get("treebanks") or []
    return [t for t in treebanks if isinstance(t, dict)] if isinstance(treebanks, list) else []


def load_tokenizer(model_dir: str | Path, config: dict | None = None):
    """The tokenizer bundled in a model directory (or the directory itself, a tokenizer), else None;
    one the model was trained with (its record ``pipeline.tokenizer``) must be there. A model of
    several treebanks: ending sentences as its first treebank does (``OpenModels.for_treebank``: another's).
    ``config``: the directory's config.json, where the caller read it already."""
    from hetdep.tokenizer.tokenizer import KIND, Tokenizer

    directory = Path(model_dir)
    if config is None:
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


def bundled_taggers(config: dict, model_dir: str | Path, threads: int = 1, plain: bool = False) -> list:
    """The taggers bundled in ``tagger/``, refused unless they are those the training kept (its record
    ``pipeline.taggers``; a model from before it: at least the tag columns it was jackknifed on), so
    a model missing one of its taggers is not taken for a model that has none."""
    pipeline = config.get("pipeline") or {}
    kept = pipeline.get("taggers")
    return recorded_taggers(Path(model_dir) / "tagger", set(kept if kept is not None else pipeline.get("columns") or []),
                             exactly=kept is not None, threads=threads, plain=plain)


def recorded_taggers(folder: Path, wanted: set[str], exactly: bool, threads: int = 1, plain: bool = False) -> list:
    """The taggers of ``folder`` (read on ``threads``, ``plain``: :func:`hetdep.tagger.tagger.load_taggers`),
    refused unless they tag the ``wanted`` columns (``exactly``: those and no other)."""
    from hetdep.tagger.tagger import load_taggers

    taggers = load_taggers(folder, threads, plain) if folder.exists() else []
    found = {tagger.column for tagger in taggers}
    missing, extra = wanted - found, (found - wanted if exactly else set())
    if missing or extra:
        raise ModelFileError(f"{folder}: " + (f"the {', '.join(sorted(missing)).upper()} tagger the model was trained with "
                                              "is missing" if missing else
                                              f"a {', '.join(sorted(extra)).upper()} tagger the model was not trained with")
                             + " (a damaged model directory)")
    return taggers


@dataclass(frozen=True)
class Bundled:
    """What a parsing model's folder carries beside its parser, read in one visit: the tokenizer
    and taggers (for input that needs them) and scheme b's FEATS map."""

    tokenizer: object = None
    taggers: list = field(default_factory=list)
    feats_b: FeatureMap | None = None


def bundled_parts(config: dict, model_dir: str | Path, tag_input: bool, taggers: Future | None = None) -> Bundled:
    """The parts every parsing kind may bundle (``tag_input``: with its tokenizer and taggers, these
    read here or, given ``taggers``, their reading on other threads, taken from it once the
    tokenizer is read)."""
    if not tag_input:
        return Bundled(feats_b=feats_b(config, model_dir))
    tokenizer = load_tokenizer(model_dir, config)
    read = bundled_taggers(config, model_dir) if taggers is None else taggers.result()
    return Bundled(tokenizer, read, feats_b(config, model_dir))


def import_bundled_modules() -> None:
    """Import every module :func:`bundled_parts` and :func:`bundled_taggers` read with, so that the
    taggers are read on threads beside the network's importing nothing
    (:meth:`hetdep.models.kinds.neural.NeuralModels.open`)."""
    import encodings.cp437  # noqa: F401 -- zipfile's, for the names of NumPy's archives (not marked UTF-8)

    import hetdep.tagger.tagger  # noqa: F401
    import hetdep.tokenizer.tokenizer  # noqa: F401


def feats_b(config: dict, model_dir: str | Path) -> FeatureMap | None:
    """A joint model's map of FEATS to scheme b's, if its training learned one."""
    record = (config.get("pipeline") or {}).get("feats_b")
    if record is None:
        return None
    try:
        return FeatureMap.from_record(record)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ModelFileError(f"{Path(model_dir) / 'config.json'}: damaged map of scheme b's FEATS (pipeline.feats_b)") from None


@dataclass(frozen=True)
class TagJob:
    """Tag with the tagger(s) of ``model_dir`` (a tagger, or a model with its tagger), as ``hetdep tag`` does."""

    model_dir: str
    beam: int | None = None
    k: int = 0
    threshold: float = 0.0

    def open(self, threads: int = 1, directory: str | None = None):
        """The taggers (a neural model: the model, whose network tags UPOS and whose FEATS tagger
        reads its parse), and the threads to tag on (``directory``: where this worker has the model folder)."""
        from hetdep.tagger.tagger import load_taggers

        model_dir = Path(directory or self.model_dir)
        if (model_dir / "config.json").is_file() and read_config(model_dir).get("kind") in (NEURAL, NEURAL_CONSTITUENCY):
            if self.k or self.beam:
                raise HetdepError(f"{model_dir} is a neural model, whose network gives the tags: "
                                  f"{'--k' if self.k else '--beam'} is for a perceptron tagger")
            from hetdep.models.opening import open_models

            return open_models(model_dir, ParseChoice(threads=threads)), threads
        bundled = model_dir / "tagger"
        return load_taggers(bundled if bundled.is_dir() else model_dir), threads

    def tagged(self, opened, sentences: Iterable[Sentence]) -> Iterator[Sentence]:
        """The sentences tagged, in input order."""
        taggers, threads = opened
        if isinstance(taggers, OpenModels):
            return iter(taggers.tag(sentences))
        return tag_sentences(taggers, sentences, threads, self.beam, self.k, self.threshold)

    @staticmethod
    def columns(opened) -> list[str]:
        """The columns the opened taggers fill, in order."""
        taggers, _ = opened
        if isinstance(taggers, OpenModels):
            return list(dict.fromkeys(taggers.parser.vocabularies.tag_columns + [t.column for t in taggers.taggers]))
        return [tagger.column for tagger in taggers]

    def run(self, opened, sentences: list[Sentence]) -> tuple[Iterator[tuple[Sentence, ...]], ParseStats]:
        tagged = self.tagged(opened, sentences)
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
