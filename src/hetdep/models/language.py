"""The language guard: does the text look like the language the model was trained on?

A model parses text of another language to nonsense without a word, so parsing says when much of
its input looks foreign. Words unknown to the model alone cannot tell: a model trained on 50,000
words knows a few thousand forms, and short everyday sentences of its own language are often half
unknown to it. So a sentence is taken for another language only when two witnesses agree: a
language identifier (py3langid's character n-grams, which need no trained words) puts another
language ahead of the model's by ``MARGIN``, and more than ``UNKNOWN`` of its words are unknown to
the model. A model whose language is not recorded (trained before hetdep recorded it) is judged
by its unknown words alone, sentence by sentence. The thresholds were chosen on the dev sets of
fr-sequoia, fr-gsd, fr-parisstories, en-ewt and zh-beginner, and measured on their test sets by
``python bench/language_guard.py`` (docs/archive.md).
"""

from __future__ import annotations

import functools
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from hetdep.user_cache import kept

MARGIN = 3.0  # log-probability by which the identifier must put another language ahead of the model's
UNKNOWN = 0.3  # share of a sentence's words, unknown to the model, above which it may be foreign
UNKNOWN_ALONE = 0.4  # above UNKNOWN: the same for a model of no recorded language, judged by its unknown words alone (as before)
WARN_SHARE = 0.4  # share of the input's words in foreign-looking sentences above which parsing warns
SAMPLE = 400  # training sentences the model's language is told from
UNDETERMINED = "und"  # ISO 639's code: what a sentence looks like to a model of no recorded language, by its unknown words


IDENTIFIER_ARRAYS = ("ptc", "pc", "classes", "nextmove", "nextmove_row", "out_feat")  # py3langid's model's arrays


@functools.cache
def _identifier():
    """py3langid's identifier, its model kept unpacked in the user's cache (:mod:`hetdep.user_cache`):
    unpacking it takes 0.6 s, its arrays mapped from there a few milliseconds (and only the pages
    a sentence reads are read). Asked only when a sentence may be foreign."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier
    from py3langid.modelio import load_model

    def unpacked():
        return dict(zip(IDENTIFIER_ARRAYS, map(np.asarray, load_model(MODEL_DIR / MODEL_FILE))))

    arrays = kept(identifier_cache_name(), _read_arrays, unpacked, _write_arrays)
    row = array("H" if arrays["nextmove_row"].dtype.itemsize == 2 else "I", arrays["nextmove_row"].tolist())
    return LanguageIdentifier(arrays["ptc"], arrays["pc"], arrays["classes"].tolist(), arrays["nextmove"],
                              arrays["out_feat"].tolist(), tk_row=row)


def identifier_cache_name() -> str:
    from importlib.metadata import version

    return f"py3langid-{version('py3langid')}"


def _read_arrays(folder: Path) -> dict[str, np.ndarray]:
    """The identifier's arrays, the two large ones mapped from disk."""
    return {name: np.load(folder / f"{name}.npy", mmap_mode="r" if name in ("ptc", "nextmove") else None,
                          allow_pickle=False) for name in IDENTIFIER_ARRAYS}


def _write_arrays(arrays: dict[str, np.ndarray], folder: Path) -> None:
    for name, values in arrays.items():
        np.save(folder / f"{name}.npy", values, allow_pickle=False)


def language_of(texts: Iterable[str]) -> str | None:
    """The language most of ``texts`` are in (ISO 639-1, as py3langid names them), or None without text."""
    from collections import Counter

    votes = Counter(_identifier().classify(text)[0] for text in texts if text.strip())
    return votes.most_common(1)[0][0] if votes else None


def training_language(sentences: Sequence) -> str | None:
    """The language of a treebank's sentences, told from (up to ``SAMPLE`` of) their text."""
    step = max(1, len(sentences) // SAMPLE)
    return language_of(" ".join(sentence.forms) for sentence in sentences[::step])


class LanguageGuard:
    """Tells the sentences that look foreign to a model of ``language`` whose known words
    ``is_known`` tells. It keeps no count of its own: callers add up what it tells (one guard
    serves the service's concurrent requests)."""

    def __init__(self, language: str | None, is_known: Callable[[str], bool]):
        self.language = language
        self.is_known = is_known

    @functools.cached_property
    def _languages(self) -> set[str]:
        """The languages the identifier knows: asked only for a sentence with many unknown words, so
        that text of the model's language never loads its model (0.2 to 0.7 s of a short parse)."""
        return {name for name, _ in _identifier().rank(" ")} if self.language else set()

    def looks_like(self, sentence) -> str | None:
        """The other language than the model's that a sentence
        (:class:`hetdep.treebank.conllu.Sentence`) looks like (``UNDETERMINED`` when only its unknown
        words tell), or None; its text as written (``# text``) is what the identifier reads."""
        from hetdep.tokenizer.text import sentence_text

        forms = sentence.forms
        words = [form for form in forms if any(char.isalpha() for char in form)]
        unknown = sum(not self.is_known(form) for form in words) / len(words) if words else 0.0
        if unknown <= UNKNOWN:  # below both thresholds (UNKNOWN < UNKNOWN_ALONE)
            return None
        if self.language not in self._languages:  # no identifier to ask: unknown words decide, as they did alone
            return UNDETERMINED if unknown > UNKNOWN_ALONE else None
        scores = dict(_identifier().rank(sentence_text(sentence) or " ".join(forms)))
        best = max(scores, key=scores.__getitem__)
        return best if scores[best] - scores[self.language] > MARGIN else None

    def foreign_words(self, sentences: Iterable) -> Counter[str]:
        """The words of the sentences that look foreign, by the language each looks like."""
        foreign: Counter[str] = Counter()
        for sentence in sentences:
            language = self.looks_like(sentence)
            if language is not None:
                foreign[language] += len(sentence)
        return foreign

    def warning(self, foreign: Mapping[str, int], words: int) -> str | None:
        """The warning when more than ``WARN_SHARE`` of the input's ``words`` are in foreign-looking
        sentences (``foreign``: their words by the language they look like, as :meth:`foreign_words`
        counts), proposing the shipped model of the language most of them look like, if one is."""
        total = sum(foreign.values())
        if not words or total / words <= WARN_SHARE:
            return None
        language = f" ({self.language})" if self.language else ""
        warning = (f"{100 * total / words:.0f}% of the {words:,} words are in sentences that look like another language "
                   f"than the model's{language} and are mostly unknown to it: is the text in the language it was trained on?")
        from hetdep.models.names import shipped_model_of

        looks = max(foreign, key=foreign.__getitem__)
        shipped = shipped_model_of(looks)
        return warning + (f" They look like {looks}: hetdep ships a model of {looks}, --model {shipped.name} "
                          f"(hetdep.load({shipped.name!r}))" if shipped else "")
