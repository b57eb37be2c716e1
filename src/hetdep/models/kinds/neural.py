"""The neural model: one network for every scheme and tag column (:mod:`hetdep.neural`), with the
bundled FEATS and LEMMA taggers that tag after it and, for a model of several treebanks, each
treebank's own taggers; with a span head (``constituency-neural``), its phrase-structure tree
first, or that tree by head rules (``to_dependency``)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from hetdep.errors import HetdepError
from hetdep.learn.model_config import ModelFileError
from hetdep.models import NEURAL, NEURAL_CONSTITUENCY, TREEBANK_TAGGERS
from hetdep.models.kinds.constituency import refuse_conllu
from hetdep.models.own_taggers import OwnTaggers
from hetdep.models.parsing import (
    OpenModels,
    ParseChoice,
    bundled_parts,
    bundled_taggers,
    import_bundled_modules,
    recorded_treebanks,
)
from hetdep.models.tag_mixing import helper
from hetdep.tagger.dictionary import import_lemmatizer
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.feature_maps import FeatureMap
from hetdep.treebank.tags import WORD_COLUMNS

if TYPE_CHECKING:
    from hetdep.learn.perceptron import TrainResult
    from hetdep.models.training import TrainingRun


# --treebank auto: the lead (mean log-probability of a word's likeliest head, hetdep.neural.fitting.fits) another
# treebank needs over the default, and how many sentences of the input it is judged on. The shipped
# fr on the first 50 sentences of each dev file from raw text: fr-gsd's conventions led fr-sequoia's on
# both written treebanks' text (by 0.0064 on fr-gsd's, by 0.0030 on fr-sequoia's: the measure does not
# tell them apart), fr-parisstories' own led on its text by 0.0316 (100 sentences: 0.0076, 0.0023,
# 0.025). A lead below the written treebanks' is not trusted, so spoken text switches and written text
# stays with the default (parsing fr-sequoia test as GSD would cost UD LAS 90.06 -> 88.28).
AUTO_MARGIN = 0.01
AUTO_SENTENCES = 50


@dataclass
class NeuralModels(OpenModels):
    """A neural model: its network tags (UPOS, and others its training file had) as it parses,
    ``choice.threads`` batches at once; the bundled taggers of other columns tag after it, on as many threads."""

    # A model of several treebanks: name -> its own taggers by column (hetdep.models.own_taggers:
    # checked when the model opens, read when first parsed as), shared by the copies :meth:`for_treebank` makes.
    own_taggers: Mapping = field(default_factory=dict)
    feats_b: FeatureMap | None = None  # scheme a's FEATS (its FEATS tagger's) to scheme b's, learned from the training pairs

    table: object = None  # a phrase-structure model's: head rules its trees are converted by (``to_dependency``)

    TAKES = {NEURAL: frozenset({"treebank", "precision"}), NEURAL_CONSTITUENCY: frozenset({"to_dependency", "precision"})}

    @classmethod
    def open(cls, model_dir: Path, config: dict, choice: ParseChoice, tag_input: bool) -> "NeuralModels":
        from hetdep.neural.parser import NeuralParser  # NumPy alone: parsing needs no PyTorch

        if choice.beam is not None:
            raise HetdepError(f"{model_dir} is a neural model: it finds the best tree exactly, with no beam (drop --beam)")
        # With threads, the taggers and the lexicons they read are read (and the treebanks' own taggers
        # checked) on others while this one reads the network, then the tokenizer: most of each is
        # inflating, hashing and NumPy, which let go of Python's lock (a one-sentence parse 0.1 s
        # sooner, of 0.7). Those threads import nothing, their modules imported first: two threads
        # compiling modules at once trip CPython 3.11's AST recursion check ("AST constructor
        # recursion depth mismatch"), as the treebanks' taggers read beside the network once did in
        # a fresh clone.
        import_bundled_modules()
        with ThreadPoolExecutor(2, thread_name_prefix="hetdep-open") as pool:
            beside = choice.threads > 1 and tag_input
            taggers = pool.submit(bundled_taggers, config, model_dir, choice.threads, choice.short) if beside else None
            own_taggers = pool.submit(OwnTaggers, config, model_dir) if beside else None  # their files' digests checked
            parser = NeuralParser.load(model_dir, config)
            if taggers is not None and "lemma" in ((config.get("pipeline") or {}).get("taggers") or []):
                import_lemmatizer(config.get("language"))  # while the taggers are read, for the first unseen form
            bundled = bundled_parts(config, model_dir, tag_input, taggers)
        parser.threads = choice.threads
        opened = cls(model_dir, str(config["kind"]), parser, choice, config=config, tokenizer=bundled.tokenizer,
                     feats_b=bundled.feats_b)
        own = "float32" if choice.short else config.get("precision", "float32")
        refused = _precision(parser, model_dir, choice.precision or own)
        if refused:
            opened.warnings.append(refused)
        if choice.to_dependency:
            from hetdep.convert.headrules import load_table

            opened.table = load_table(choice.to_dependency)
        if tag_input:
            opened.taggers = _with_tag_helpers(parser, bundled.taggers, config, model_dir)
            opened.own_taggers = own_taggers.result() if own_taggers is not None else OwnTaggers(config, model_dir)
            unknown = sorted(set(opened.own_taggers) - set(parser.treebank_names))
            if unknown:
                raise ModelFileError(f"{model_dir / TREEBANK_TAGGERS / unknown[0]}: taggers of a treebank the model "
                                     "does not have (a damaged model directory)")
        return opened.for_treebank(choice.treebank) if choice.treebank is not None else opened

    def for_treebank(self, name: str) -> "NeuralModels":
        """The same model parsing as its treebank ``name``: that treebank's heads, embedding and own
        taggers (FEATS), the rest shared."""
        if name not in self.treebanks:
            raise HetdepError(f"no treebank {name!r} in {self.model_dir}: it has " + (", ".join(self.treebanks) or "one treebank"))
        own = self.own_taggers.get(name, {})
        parser = self.parser.for_treebank(name)
        for column, (_, weight) in self.parser.tag_helpers.items():  # a helper of the network's (FEATS) of its own
            if column in own:
                parser.tag_helpers[column] = (helper(own[column], _tag_names(parser, column)), weight)
        chosen = copy.copy(self)  # the rest shared as it is (not rebuilt: the model's folder is not handed round again)
        chosen.parser, chosen.choice = parser, replace(self.choice, treebank=name)
        chosen.taggers = [own.get(tagger.column, tagger) for tagger in self.taggers]
        chosen.tokenizer = self.tokenizer.for_treebank(name) if self.tokenizer is not None else None
        chosen.__dict__.pop("_maps_feats", None)  # of its own taggers, not this one's
        return chosen

    @property
    def treebanks(self) -> list[str]:
        return list(self.parser.treebank_names)

    def fitting(self, sentences: list[Sentence]) -> "NeuralModels":
        """The same model parsing as the treebank whose conventions fit ``sentences`` best (``--treebank
        auto``; ``choice.treebank`` names it): the one under which the network is surest of the heads
        (:func:`hetdep.neural.fitting.fits`), among those of the default's schemes; the default unless
        another leads it by AUTO_MARGIN. Parsing as the default, it reads on from their encodings."""
        from hetdep.neural.fitting import fits as judged

        default = self.treebanks[0]
        same = [name for name in self.treebanks if sorted(self._schemes_as(name)) == sorted(self.schemes)]
        as_default = self.for_treebank(default)
        fits = judged(as_default.parser, sentences, same)  # its parser keeps their encodings as the default
        best = max(fits, key=fits.get)
        return self.for_treebank(best) if fits[best] > fits[default] + AUTO_MARGIN else as_default

    @property
    def pairs(self) -> bool:
        return self.parser.schemes == 2 and self.table is None

    @property
    def schemes(self) -> tuple[str, ...]:
        """A model of several treebanks: the schemes of the one it parses as, in the order of its
        first treebank's where they are the same two (fr parses spoken French as ParisStories, UD
        first in its network, and writes SUD first as for every treebank); phrase structure
        converted by head rules: theirs."""
        if self.table is not None:
            return (self.choice.to_dependency,)
        own = self._network_schemes
        treebanks = recorded_treebanks(self.config)
        first = tuple(treebanks[0].get("schemes", ["a"]))[:2] if treebanks else own
        return first if sorted(first) == sorted(own) else own

    def _schemes_as(self, name: str) -> tuple[str, ...]:
        """The schemes parsed as the treebank ``name``, without its own taggers read (:meth:`for_treebank`)."""
        chosen = copy.copy(self)
        chosen.choice = replace(self.choice, treebank=name)
        return chosen.schemes

    @property
    def _network_schemes(self) -> tuple[str, ...]:
        """The schemes in the order the network gives the trees of the treebank it parses as."""
        treebanks = recorded_treebanks(self.config)
        if treebanks and not self.parser.vocabularies.phrases:  # phrase structure's: those its config names
            chosen = next((t for t in treebanks if t.get("name") == self.choice.treebank), treebanks[0])
            return tuple(chosen.get("schemes", ["a"]))[:2]
        return super().schemes

    @property
    def two_schemes(self) -> bool:
        """A phrase-structure tree and a dependency tree are no pair of schemes to write in one file."""
        return self.pairs and not self.parser.vocabularies.phrases

    @property
    def dependency_trees(self) -> bool:
        """Whether its first tree is a dependency tree (else its span head's phrase structure, unconverted)."""
        return not self.parser.vocabularies.phrases or self.table is not None

    @property
    def has_tagger(self) -> bool:
        return True  # its own tag heads

    def is_known(self, form: str) -> bool:
        return form.lower() in self.parser.encoder.word_index

    def tag(self, sentences: Iterable[Sentence]) -> Iterable[Sentence]:
        """The network's tags first (the bundled FEATS and LEMMA taggers read its UPOS), then the
        bundled taggers', written into the input (its trees, if any, kept). A FEATS tagger that
        reads the tree reads the network's parse, as in parsing: without it, fr-sequoia dev FEATS
        fell from 96.85% to 95.50%, below a tagger that never read a tree (96.49%)."""
        if not any(tagger.reads_tree for tagger in self.taggers):
            return super().tag(self.parser.tag(sentences))
        from hetdep.neural.parser import with_parses

        columns = [WORD_COLUMNS[column] for column in self.parser.vocabularies.tag_columns]
        columns += [WORD_COLUMNS[tagger.column] for tagger in self.taggers if WORD_COLUMNS[tagger.column] not in columns]
        return (_with_columns(sentence, parsed[0] if isinstance(parsed, tuple) else parsed, columns)
                for sentence, parsed in with_parses(sentences, self.network_trees))

    def parse_trees(self, sentences: Iterable[Sentence]) -> Iterator:
        """:meth:`network_trees`, a pair in the order of :attr:`schemes`."""
        parsed = self.network_trees(sentences)
        if self.table is None and self.pairs and self.schemes != self._network_schemes:
            return ((second, first) for first, second in parsed)
        return parsed

    def network_trees(self, sentences: Iterable[Sentence]) -> Iterator:
        """The network's trees (it tags as it parses, over batches of sentences on its own threads),
        with the bundled taggers' columns added by the thread that parsed each batch: their work,
        Python's mostly, then runs beside the other threads' products, which let go of Python's
        lock (fr-sequoia test from raw text, 2 threads: 3.94 s against 4.49 s, medians of eight
        in turns, when every batch was parsed before any sentence was tagged); in input order."""
        if self.table is not None:  # the phrase-structure tree (the first of a pair) by the head rules
            from hetdep.convert.headrules import tree_sentence

            return (tree_sentence(tree.root, self.table, tree.comments, tree.sentence.path, tree.sentence.line)
                    for tree in (trees[0] if isinstance(trees, tuple) else trees for trees in self.parser.parse(sentences)))
        return self.parser.parse(sentences, finish=self._tag_trees if self.taggers or self._maps_feats else None)

    def _tag_trees(self, trees):
        """One parse with the bundled taggers' columns, tagged once (on the first scheme's tree,
        which carries the network's UPOS) and copied to every tree; the FEATS tagger learned the
        first scheme's FEATS, so the second's tree gets them mapped to its own (fr-sequoia's SUD
        writes ``ExtPos`` on numerals and ``Shared`` on shared dependents, its UD neither)."""
        if not isinstance(trees, tuple):
            return next(iter(super().tag([trees])))
        first = next(iter(super().tag([trees[0]])))
        others = []
        for tree in trees[1:]:
            for column in (WORD_COLUMNS[tagger.column] for tagger in self.taggers):
                tree = tree.with_column(column, first.column(column))
            others.append(self.feats_b.sentence(tree) if self._maps_feats else tree)
        return (first, *others)

    @cached_property
    def _maps_feats(self) -> bool:
        """Whether scheme b's trees get their FEATS mapped from scheme a's (a FEATS tagger's, or the network's head's)."""
        return self.feats_b is not None and (any(tagger.column == "feats" for tagger in self.taggers)
                                             or "feats" in self.parser.vocabularies.tag_columns)


def _with_columns(sentence: Sentence, tagged: Sentence, columns: list[int]) -> Sentence:
    for column in columns:
        sentence = sentence.with_column(column, tagged.column(column))
    return sentence


def _tag_names(parser, column: str) -> list[str]:
    return parser.vocabularies.tags[parser.vocabularies.tag_columns.index(column)]


def _with_tag_helpers(parser, taggers: list, config: dict, model_dir: Path) -> list:
    """A neural model's bundled taggers that tag after its network (FEATS, LEMMA); those of its
    network's tag columns become the network's helpers at the weights its training fitted
    (:mod:`hetdep.models.tag_mixing`)."""
    weights = (config.get("pipeline") or {}).get("tag_weights") or {}
    where = Path(model_dir) / "config.json"
    if not isinstance(weights, dict) or not all(
            column in parser.vocabularies.tag_columns and isinstance(weight, (int, float)) and 0 <= weight < float("inf")
            for column, weight in weights.items()):
        raise ModelFileError(f"{where}: damaged tag weights (pipeline.tag_weights): {weights!r}")
    after = []
    for tagger in taggers:
        if weights.get(tagger.column):  # its column is one of the network's (checked above)
            parser.tag_helpers[tagger.column] = (helper(tagger, _tag_names(parser, tagger.column)), float(weights[tagger.column]))
        else:
            after.append(tagger)
    missing = [column for column, weight in weights.items() if weight and column not in parser.tag_helpers]
    if missing:
        raise ModelFileError(f"{where}: the network's {', '.join(missing).upper()} tags are mixed with a tagger that "
                             f"{Path(model_dir) / 'tagger'} does not have")
    return after


def _precision(parser, model_dir: Path, precision: str) -> str | None:
    """Run the parser's network in ``precision`` where this machine can; else what it runs in and why."""
    if precision == "float32":  # NumPy's, as the network is: the runtime's module not even imported
        return None
    from hetdep.neural import int8

    if precision not in int8.PRECISIONS:
        raise HetdepError(f"precision {precision!r}: choose {' or '.join(int8.PRECISIONS)}")
    if (reason := int8.unavailable()) is not None:
        return f"{model_dir} parses in float32, not int8: {reason}"
    int8.run_in_int8(parser, model_dir)
    return None


def train_neural_phrases(run: TrainingRun) -> Callable[[], TrainResult]:
    """The encoder with its span head from bracketed trees (``--parser constituency-neural``), and
    with ``--dependency`` the trees those head rules derive too; with ``--treebank``, dependency
    treebanks of other sentences beside."""
    from hetdep.constituency.neural_pipeline import train_neural_constituency
    from hetdep.models.pipeline import treebank_files
    from hetdep.models.vectors import DEFAULT_VECTORS
    from hetdep.neural.training import NeuralOptions

    refuse_conllu(run)
    default = NeuralOptions()
    options = NeuralOptions(epochs=run.iterations, patience=run.patience, seed=run.seed, threads=run.threads or default.threads,
                            final_epochs=default.final_epochs if run.final_epochs is None else run.final_epochs,
                            sharing=run.sharing or default.sharing, temperature=run.temperature or default.temperature,
                            encoder=run.encoder, fine_tune=run.fine_tune)
    beside = treebank_files(run.treebanks)  # refused now if their names and schemes cannot be told apart
    return lambda: train_neural_constituency(run.model_dir, run.train_path, run.dev_path, options, run.dependency_rules,
                                             run.embeddings or DEFAULT_VECTORS, beside=beside)
