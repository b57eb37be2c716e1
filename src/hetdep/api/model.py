"""``hetdep.load``: any model directory as one callable, from raw text or tokens to a :class:`Document`.

It opens the model as ``hetdep parse`` does (:func:`hetdep.models.opening.open_models`), so the
same rules hold: a bundled tokenizer splits raw text, a bundled tagger tags, a model without a
tagger refuses untagged words rather than parsing them wrongly. A loaded model may be shared
between threads, which then parse at once (the compiled searches release the GIL); ``threads``
parses the sentences of one call on that many threads.
"""

from __future__ import annotations

import copy
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from hetdep.api.document import Document, Sentence
from hetdep.errors import HetdepError
from hetdep.models.names import find_model
from hetdep.models.opening import open_models
from hetdep.models.parsing import ParseChoice
from hetdep.short_runs import SHORT_INPUT, prefer_references
from hetdep.threads import limit_blas_threads
from hetdep.treebank.conllu import NO_HEAD
from hetdep.treebank.conllu import Sentence as TreebankSentence
from hetdep.treebank.tags import WORD_COLUMNS


def _unicode(text: str, what: str) -> str:
    """``text``, refused if it holds a lone surrogate (a string decoded with 'surrogateescape', or
    cut between the halves of a pair): no output could be written as UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise HetdepError(f"{what} holds a lone surrogate (U+{ord(text[error.start]):04X} at character {error.start + 1}), "
                          "which is not Unicode text: decode the input as UTF-8 without 'surrogateescape'") from None
    return text


def _from_tokens(tokens: Sequence[Sequence[str]]) -> list[TreebankSentence]:
    sentences = []
    for number, words in enumerate(tokens, 1):
        if isinstance(words, str) or not all(isinstance(w, str) and w and not any(c.isspace() for c in w) for w in words):
            raise HetdepError(f"tokens: sentence {number} must be a list of words, each a non-empty string without "
                              "white space (a whole string is raw text: call the model on it)")
        for word in words:
            _unicode(word, f"tokens: sentence {number}")
        rows = [[str(i), word] + ["_"] * 8 for i, word in enumerate(words, 1)]
        sentences.append(TreebankSentence([f"# sent_id = {number}", "# text = " + " ".join(words)], rows,
                                          list(range(len(rows))), [NO_HEAD] * len(rows), "<tokens>", number))
    return sentences


class UnknownWordsWarning(UserWarning):
    """Most words of a text were unknown to the model: is it in the language the model was trained on?"""


class ModelWarning(UserWarning):
    """What opening a model said it does otherwise than asked (a model asked for int8 parsing in float32 here)."""


class Model:
    """A model directory ready to parse: ``model(text)``, ``model.parse(tokens=...)``, ``model.pipe(texts)``."""

    def __init__(self, path: str | Path | None = None, *, beam: int | None = None, helper: str | Path | None = None, threads: int = 1,
                 quiet: bool = False, treebank: str | None = None, to_dependency: str | None = None,
                 precision: str | None = None):
        if not isinstance(threads, int) or threads < 1:
            raise HetdepError(f"threads must be a whole number from 1, not {threads!r}")
        if threads > 1:  # a neural model's batches each on its thread: their products on one BLAS thread each, as 'hetdep parse'
            limit_blas_threads(1)
        self.path = find_model(path)
        self.quiet = quiet  # no UnknownWordsWarning (a document still lists it in its .warnings)
        self.helper = Path(helper) if helper is not None else None
        self._options = {"beam": beam, "helper": helper, "treebank": treebank, "to_dependency": to_dependency,
                         "precision": precision}
        consensus = None
        if self.helper is not None:
            from hetdep.graph.consensus import ConsensusOptions

            consensus = ConsensusOptions()
        self._models = open_models(self.path, ParseChoice(beam=beam, helper=self.helper, consensus=consensus,
                                                          threads=threads, treebank=treebank,
                                                          to_dependency=to_dependency, precision=precision))
        self.warnings: tuple[str, ...] = tuple(self._models.warnings)  # what opening it said
        for warning in self.warnings:
            warnings.warn(warning, ModelWarning, stacklevel=3)
        # A phrase-structure model that learned dependency trees too (--dependency) gives those, and each
        # sentence's phrase-structure tree beside them (Sentence.phrase_tree).
        self._phrases = not self._models.dependency_trees
        if self._phrases and not self._models.pairs:
            raise HetdepError(f"{self.path} gives phrase-structure trees: hetdep.load gives dependency trees, so name the "
                              "head rules that derive them (to_dependency='penn2malt'); 'hetdep parse' writes its bracketed trees")
        self.kind = self._models.kind
        self.schemes = self._models.schemes[1:] if self._phrases else self._models.schemes

    @property
    def treebank(self) -> str | None:
        """The treebank a model of several parses as (None: its first)."""
        return self._models.choice.treebank

    @property
    def treebanks(self) -> list[str]:
        """The treebanks a neural model was trained on, when several ([] otherwise): :meth:`for_treebank`."""
        return self._models.treebanks

    def for_treebank(self, name: str) -> "Model":
        """The same model (its arrays shared, not loaded again) parsing as the treebank ``name``."""
        chosen = copy.copy(self)
        chosen._models = self._models.for_treebank(name)
        chosen._options = {**self._options, "treebank": name}
        chosen.schemes = chosen._models.schemes
        return chosen

    @property
    def precision(self) -> str:
        """The arithmetic of a neural model's network, int8 or float32 (:mod:`hetdep.neural.int8`); float32 for other kinds."""
        return getattr(getattr(getattr(self._models, "parser", None), "network", None), "precision", "float32")

    @property
    def has_tokenizer(self) -> bool:
        return self._models.tokenizer is not None

    @property
    def has_tagger(self) -> bool:
        """Whether the model tags its input (a bundled tagger, or a neural model's own tag heads)."""
        return self._models.has_tagger

    def __call__(self, text: str) -> Document:
        """Parse raw text: the model's tokenizer splits it into sentences, tokens and words (a short
        text by the plain-Python loops while numba is not loaded: :mod:`hetdep.short_runs`)."""
        if not isinstance(text, str):
            raise HetdepError(f"text must be a string, not {type(text).__name__} (tokens go to model.parse(tokens=...))")
        prefer_references(len(text.encode("utf-8", "surrogatepass")) <= SHORT_INPUT)
        return self._parse(self.tokenize(text))

    def parse(self, tokens: Sequence[Sequence[str]]) -> Document:
        """Parse sentences already split into words (a list of lists of strings)."""
        return self._parse(_from_tokens(tokens))

    def tokenize(self, text: str, presegmented: bool = False, ranges: bool = False) -> list[TreebankSentence]:
        """Raw text split by the model's tokenizer into CoNLL-U sentences of words (no tags, no
        trees); ``presegmented``: one sentence a line; ``ranges``: ``TokenRange=START:END`` in MISC."""
        if self._models.tokenizer is None:
            raise HetdepError(f"{self.path} has no tokenizer: give tokens, model.parse(tokens=[['Le', 'chat', 'dort', '.']])")
        return list(self._models.tokenizer.tokenize_document(_unicode(text, "text"), presegmented=presegmented,
                                                             ranges=ranges))

    def tag(self, sentences: Iterable[TreebankSentence]) -> list[TreebankSentence]:
        """CoNLL-U sentences tagged by the model's tagger (unchanged if it has none)."""
        return list(self._models.tag(sentences))

    def parse_sentences(self, sentences: Iterable[TreebankSentence], keep_tags: bool = False) -> Document:
        """Parse CoNLL-U sentences (:mod:`hetdep.treebank.conllu`), tagged first by the model's
        tagger; ``keep_tags``: the trees keep the input's UPOS, XPOS, FEATS and LEMMA (as UDPipe 2
        does when no tagger is asked for; the parse still reads the model's own tags)."""
        return self.parse_parts([list(sentences)], keep_tags)[0]

    def parse_parts(self, parts: Sequence[Sequence[TreebankSentence]], keep_tags: bool = False) -> list[Document]:
        """:meth:`parse_sentences` of several documents at once, one Document each, with its own
        warnings and counts: their sentences share the network's batches (the service parses the
        small requests that arrive together this way)."""
        sentences = [sentence.without_enhanced() for part in parts for sentence in part]  # only the graphs it predicts
        parsed = list(self._models.parse_trees(sentences))  # the language guard is asked below, per part
        phrases = [None] * len(parsed)
        if self._phrases:
            phrases, parsed = [pair[0] for pair in parsed], [pair[1] for pair in parsed]
        if keep_tags:
            parsed = [_with_columns_of(given, result) for given, result in zip(sentences, parsed, strict=True)]
        documents, start = [], 0
        for part in parts:
            documents.append(self._document(parsed[start:start + len(part)], phrases[start:start + len(part)]))
            start += len(part)
        return documents

    def _parse(self, sentences: Iterable[TreebankSentence]) -> Document:
        return self.parse_parts([list(sentences)])[0]

    def _document(self, parsed: list, phrases: list) -> Document:
        """The Document of parses (trees, or pairs of trees, and their phrase-structure trees or
        None), with the language guard's warning."""
        pairs = self._models.pairs and not self._phrases
        firsts = [pair[0] if pairs else pair for pair in parsed]
        words = sum(map(len, firsts))
        unknown = sum(not self._models.is_known(form) for sentence in firsts for form in sentence.forms)
        foreign = self._models.guard.foreign_words(firsts)  # counted here: one guard serves concurrent calls
        warning = self._models.guard.warning(foreign, words)
        found = [warning] if warning else []
        if warning and not self.quiet:
            warnings.warn(warning, UnknownWordsWarning, stacklevel=4)
        sentences = ([Sentence(dict(zip(self.schemes, pair))) for pair in parsed] if pairs
                     else [Sentence({self.schemes[0]: tree}, phrase.root if phrase else None) for tree, phrase in zip(parsed, phrases)])
        return Document(sentences, self.schemes if pairs else self.schemes[:1], found, unknown, foreign)

    def foreign_text_warning(self, foreign: Mapping[str, int], words: int) -> str | None:
        """The warning parsing gives when so many words are in sentences that look like another
        language than the model's (``foreign``: their words by that language, what a caller that
        parses in parts adds up from each :attr:`Document.foreign`)."""
        return self._models.guard.warning(foreign, words)

    def pipe(self, texts: Iterable[str], batch_size: int = 64, n_process: int = 1) -> Iterator[Document]:
        """One document per text, in order; ``n_process`` > 1 parses batches of ``batch_size``
        texts in that many processes, each loading the model once."""
        if n_process <= 1:
            for text in texts:
                yield self(text)
            return
        with ProcessPoolExecutor(n_process, initializer=_load_in_worker, initargs=(str(self.path), self._options)) as pool:
            batch: list[str] = []
            pending = []
            for text in texts:
                batch.append(text)
                if len(batch) == batch_size:
                    pending.append(pool.submit(_parse_in_worker, batch))
                    batch = []
                    if len(pending) > 2 * n_process:  # keep memory bounded: collect the oldest first
                        yield from pending.pop(0).result()
            if batch:
                pending.append(pool.submit(_parse_in_worker, batch))
            for future in pending:
                yield from future.result()

    def __repr__(self) -> str:
        parts = ["tokenizer" if self.has_tokenizer else "", "tagger" if self.has_tagger else ""]
        return f"Model({str(self.path)!r}, kind={self.kind!r}, schemes={self.schemes}, with={[p for p in parts if p]})"


def _with_columns_of(given: TreebankSentence, parsed):
    """A parse (one tree, or one per scheme) with the given sentence's word columns put back."""
    def kept(tree: TreebankSentence) -> TreebankSentence:
        for index in WORD_COLUMNS.values():
            tree = tree.with_column(index, given.column(index))
        return tree

    return kept(parsed) if isinstance(parsed, TreebankSentence) else tuple(kept(tree) for tree in parsed)


_WORKER: Model | None = None


def _load_in_worker(path: str, options: dict) -> None:
    global _WORKER
    _WORKER = Model(path, **options)


def _parse_in_worker(texts: list[str]) -> list[Document]:
    return [_WORKER(text) for text in texts]


def load(path: str | Path | None = None, *, beam: int | None = None, helper: str | Path | None = None, threads: int = 1,
         quiet: bool = False, treebank: str | None = None, to_dependency: str | None = None,
         precision: str | None = None) -> Model:
    """Open a model: a directory from ``hetdep train`` (any kind), an installed model package's
    name, or (no argument) the model shipped with hetdep; ``helper``: a second graph-based
    model for joint inference (zhou-zhao2013); ``beam``: parse with another beam than the model's;
    ``threads``: sentences parsed at once (the same trees, faster on several cores; a neural model
    computes that many batches at once, so above 1 NumPy's products keep one thread each, for the
    whole process, as in ``hetdep parse``); ``quiet``: no
    :class:`UnknownWordsWarning` when most words of a text are unknown to the model; ``treebank``:
    a model trained on several treebanks parses as this one (its schemes and conventions);
    ``to_dependency``: a constituency model's trees turned into dependency trees by these head rules
    (penn2malt, collins, zhang-clark-2008 or a table file), its one scheme; ``precision``: a neural
    model's arithmetic, int8 or float32 (None: the model's own; where int8 cannot run, float32
    and a :class:`ModelWarning` saying why)."""
    return Model(path, beam=beam, helper=helper, threads=threads, quiet=quiet, treebank=treebank, to_dependency=to_dependency,
                 precision=precision)
