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
``python bench/language_guard.py`` (docs/measurements.md).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

MARGIN = 3.0  # log-probability by which the identifier must put another language ahead of the model's
UNKNOWN = 0.3  # share of a sentence's words, unknown to the model, above which it may be foreign
UNKNOWN_ALONE = 0.4  # above UNKNOWN: the same for a model of no recorded language, judged by its unknown words alone (as before)
WARN_SHARE = 0.4  # share of the input's words in foreign-looking sentences above which parsing warns
SAMPLE = 400  # training sentences the model's language is told from


def _identifier():
    import py3langid  # its model loads on first use (0.2 s): only parsing or training that asks pays it

    return py3langid


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
    """Counts the words of sentences that look foreign to a model of ``language`` whose known words
    ``is_known`` tells."""

    def __init__(self, language: str | None, is_known: Callable[[str], bool]):
        self.language = language
        self.is_known = is_known
        # Words of the foreign-looking sentences since the last warning asked, by the language the
        # identifier put first: the warning proposes the shipped model of the most frequent one.
        self.seen: Counter[str] = Counter()

    @functools.cached_property
    def _languages(self) -> set[str]:
        """The languages the identifier knows: asked only for a sentence with many unknown words, so
        that text of the model's language never loads its model (0.2 to 0.7 s of a short parse)."""
        return {name for name, _ in _identifier().rank(" ")} if self.language else set()

    def foreign(self, sentence) -> bool:
        """Whether a sentence (:class:`hetdep.treebank.conllu.Sentence`) looks like another language
        than the model's; its text as written (``# text``) is what the identifier reads."""
        from hetdep.tokenizer.tokenizer import sentence_text

        forms = sentence.forms
        words = [form for form in forms if any(char.isalpha() for char in form)]
        unknown = sum(not self.is_known(form) for form in words) / len(words) if words else 0.0
        if unknown <= UNKNOWN:  # below both thresholds (UNKNOWN < UNKNOWN_ALONE)
            return False
        if self.language not in self._languages:  # no identifier to ask: unknown words decide, as they did alone
            return unknown > UNKNOWN_ALONE
        scores = dict(_identifier().rank(sentence_text(sentence) or " ".join(forms)))
        best = max(scores, key=scores.__getitem__)
        if scores[best] - scores[self.language] <= MARGIN:
            return False
        self.seen[best] += len(forms)
        return True

    def foreign_words(self, sentences: Iterable) -> int:
        """How many words are in the sentences that look foreign."""
        return sum(len(sentence) for sentence in sentences if self.foreign(sentence))

    def warning(self, foreign: int, words: int) -> str | None:
        """The warning when more than ``WARN_SHARE`` of the input's words are in foreign-looking
        sentences, proposing the shipped model of the language most of them look like, if one is
        (the languages counted since the last call: each parse asks once)."""
        looks = self.seen.most_common(1)[0][0] if self.seen else None
        self.seen.clear()
        if not words or foreign / words <= WARN_SHARE:
            return None
        language = f" ({self.language})" if self.language else ""
        warning = (f"{100 * foreign / words:.0f}% of the {words:,} words are in sentences that look like another language "
                   f"than the model's{language} and are mostly unknown to it: is the text in the language it was trained on?")
        from hetdep.models.names import shipped_model_of

        shipped = shipped_model_of(looks)
        return warning + (f" They look like {looks}: hetdep ships a model of {looks}, --model {shipped.name} "
                          f"(hetdep.load({shipped.name!r}))" if shipped else "")
