"""A language's lemma dictionary beside the lemma tagger, for words its treebank never had.

The tagger chooses edit scripts from the form and its context; on an unseen form it may make a
lemma that is no word (``répète`` -> ``répèter``) or fall back on a frequent whole lemma
(``suggérez`` -> ``faire``). simplemma's dictionary (MIT; 250,000 French forms in 160 KB)
knows such forms but not their part of speech (``arrêtées`` -> ``arrêté``, the adjective, where
the verb's lemma is ``arrêter``). So the dictionary's lemmas join the lemmas the tagger prefers
(:func:`hetdep.tagger.lemmas.prefer_known`: the tagger still chooses among its scripts, and
a script making a real lemma now wins), and only an unseen form that the tagger gives no real
lemma, or a lemma not made from the form, or made by changing its start (``dort`` -> ``sort``,
where inflection changes ends), takes the dictionary's, unless it is a proper noun. That last
rule moved no dev word of fr-sequoia and fr-gsd and one of fr-parisstories (92.70% -> 92.92% of
its unseen words); on test, unseen words of fr-gsd 90.93% -> 91.01%, fr-parisstories 92.21% ->
92.63%, fr-sequoia unchanged.
Whether a tagger uses it is fitted on dev. fr-sequoia test from gold tokens
(``python bench/lemma_dictionary.py --model M --gold test.ud.conllu``): the taggers of the model
shipped before, unseen words' lemmas 90.34% -> 92.62%, all words 98.71% -> 98.90%; the shipped
model's (three treebanks), 91.23% -> 93.45% and 98.84% -> 98.97%.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Container, Iterator, Sequence
from pathlib import Path

from hetdep.sorted_lines import Lines, SortedStrings, find
from hetdep.tagger.lemmas import edits
from hetdep.tagger.lexicon_lemmas import lexicon_lemmas
from hetdep.treebank.lemma_scripts import edit_script, edits_start
from hetdep.treebank.tags import lemma_of
from hetdep.user_cache import cache_folder, kept, packed_file_name

DATA = ("strategies", "dictionaries", "data")  # where in simplemma its packed dictionaries lie, a file a language
PROPER_NOUN = "PROPN"  # kept as the tagger makes it: names are not in the dictionary's sense


class LemmaDictionary:
    """simplemma's lemma dictionary of one language: its lemmas, and each known form's lemma.

    The lemmas come from the unpacked dictionary kept in the user's cache; simplemma itself (0.2 s
    to import, a fifth of a one-sentence parse) only when a form is first looked up, reading the
    kept pairs where they lie (:class:`SortedPairs`)."""

    def __init__(self, language: str):
        self.language = language
        self._forms, self._lemmas, known = kept(_kept_name(language), _read_lines, functools.partial(_unpacked, language),
                                                _write_lines)
        self.lemmas = SortedStrings(known)
        self._made = threading.Lock()

    @functools.cached_property
    def _simplemma(self) -> tuple:
        """simplemma's lookup, lemmatizer and normalization, reading this dictionary (one factory
        for both: simplemma's module functions keep factories of their own, and each would unpack
        the dictionary again)."""
        Lemmatizer, DefaultStrategy, DictionaryLookupStrategy, DictionaryFactory, MappingStrToByteString, normalize_token = (
            _lemmatizer_parts())
        pairs, language = SortedPairs(self._forms, self._lemmas), self.language

        class Kept(DictionaryFactory):
            def get_dictionary(self, lang: str) -> MappingStrToByteString:
                if lang != language:
                    raise ValueError(f"this dictionary is {language!r}'s, not {lang!r}'s")
                return MappingStrToByteString(pairs)

        factory = Kept()
        lemmatizer = Lemmatizer(lemmatization_strategy=DefaultStrategy(dictionary_factory=factory))
        return DictionaryLookupStrategy(dictionary_factory=factory), lemmatizer, normalize_token

    def lemma(self, form: str) -> str | None:
        """The dictionary's lemma of a form, or None if it does not know it (simplemma's
        ``is_known`` and ``lemmatize``, on this dictionary)."""
        with self._made:  # tagging threads may ask at once
            lookup, lemmatizer, normalized = self._simplemma
        if lookup.get_lemma(normalized(form), self.language) is None:
            return None
        return lemmatizer.lemmatize(form, lang=self.language)

    def fill_unseen(self, forms: Sequence[str], scripts: list[str], seen: Callable[[str], bool], known: Container[str],
                    upos: Sequence[str] | None = None) -> list[str]:
        """``scripts`` with the dictionary's lemma (as a script) for each unseen form it knows whose
        chosen script makes no known lemma or is not made from the form (proper nouns kept); where
        the language's lexicon knows the form as its UPOS, the lexicon decides instead
        (:mod:`hetdep.tagger.lexicon_lemmas`)."""
        out = list(scripts)
        for i, (form, script) in enumerate(zip(forms, scripts)):
            if seen(form) or (upos is not None and upos[i] == PROPER_NOUN):
                continue
            tagged = lemma_of(form, script)
            by_upos = lexicon_lemmas(self.language) if upos is not None else None  # read at the first unseen word
            if by_upos is not None and (chosen := by_upos.chosen(form, upos[i], tagged)) is not None:
                if chosen != tagged:
                    out[i] = edit_script(form, chosen)
                continue
            if edits(form, script) and not edits_start(script) and tagged in known:
                continue
            lemma = self.lemma(form)
            if lemma is not None:
                out[i] = edit_script(form, lemma)
        return out


def _lemmatizer_parts() -> tuple:
    """simplemma's classes a dictionary's lemmatizer is made of (their import: 18 ms, all of
    simplemma's languages' rules compiled)."""
    from simplemma import Lemmatizer
    from simplemma.strategies import DefaultStrategy, DictionaryLookupStrategy
    from simplemma.strategies.dictionaries.dictionary_factory import DictionaryFactory, MappingStrToByteString
    from simplemma.utils import normalize_token

    return Lemmatizer, DefaultStrategy, DictionaryLookupStrategy, DictionaryFactory, MappingStrToByteString, normalize_token


def _kept_name(language: str) -> str:
    """The user cache's folder of the unpacked dictionary of ``language`` (ImportError or OSError
    where simplemma has none)."""
    return f"{packed_file_name('simplemma', *DATA, f'{language}.plzma')}-{language}-lines"


def import_lemmatizer(language: str | None) -> None:
    """Import simplemma where its dictionary of ``language`` is kept unpacked, ahead of the first
    unseen form's lookup: a neural model's opening does it on its own thread while others read its
    taggers, which then import nothing (:meth:`hetdep.models.kinds.neural.NeuralModels.open`);
    where the dictionary is not kept yet, they import simplemma to unpack it, and this leaves it to them."""
    try:
        kept_already = bool(language) and cache_folder(_kept_name(language)).is_dir()
    except (ImportError, OSError):
        return
    if kept_already:
        _lemmatizer_parts()


class SortedPairs:
    """Forms sorted as UTF-8 bytes, a line each, beside their lemmas: the bytes-to-bytes mapping
    simplemma's dictionaries are, found by binary search where the lines lie (making a dict of
    French's 250,000 pairs took 0.1 s of a one-sentence parse)."""

    def __init__(self, forms: bytes, lemmas: bytes):
        self._forms, self._lemmas = Lines(forms), Lines(lemmas)

    def get(self, form: bytes, default: bytes | None = None) -> bytes | None:
        k = find(self._forms, form)
        return default if k is None else self._lemmas[k]

    def __iter__(self) -> Iterator[bytes]:
        return (self._forms[k] for k in range(len(self._forms)))

    def __len__(self) -> int:
        return len(self._forms)


def _unpacked(language: str) -> tuple[bytes, bytes, bytes]:
    """simplemma's dictionary of a language unpacked from its packed file (0.17 s for French), as
    its forms, sorted as bytes, and their lemmas, a line each (UTF-8); and its lemmas once each, sorted."""
    from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

    pairs = sorted(DefaultDictionaryFactory().get_dictionary(language)._dict.items())  # bytes to bytes, as simplemma 2 keeps them
    if any(b"\n" in form or b"\n" in lemma for form, lemma in pairs):
        raise ValueError("a form or lemma with a line break")  # never yet in simplemma's dictionaries
    return (b"\n".join(form for form, _ in pairs), b"\n".join(lemma for _, lemma in pairs),
            b"\n".join(sorted({lemma for _, lemma in pairs})))


KEPT_FILES = ("forms", "lemmas", "known")  # the kept folder's files, as :func:`_unpacked` gives them


def _read_lines(folder: Path) -> tuple[bytes, bytes, bytes]:
    forms, lemmas, known = ((folder / name).read_bytes() for name in KEPT_FILES)
    if forms.count(b"\n") != lemmas.count(b"\n"):
        raise ValueError(f"{folder}: as many forms as lemmas expected")
    return forms, lemmas, known


def _write_lines(lines: tuple[bytes, bytes, bytes], folder: Path) -> None:
    for name, blob in zip(KEPT_FILES, lines):
        (folder / name).write_bytes(blob)


@functools.cache
def lemma_dictionary(language: str | None) -> LemmaDictionary | None:
    """The dictionary of ``language`` (a two-letter code), or None where simplemma has none."""
    if not language:
        return None
    try:
        return LemmaDictionary(language)
    except (ImportError, ValueError, KeyError, OSError):
        return None
