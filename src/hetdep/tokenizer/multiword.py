"""Multiword tokens: which tokens hold several syntactic words (French "du" = "de le", English
"don't" = "do n't"), and what the words are, all learned from a treebank's range lines.

What a token expands to comes from a lexicon of the expansions seen in training (the most frequent
one per lower-cased form) and, for a form never seen, from rules the lexicon yields: a prefix rule
(French "aux" + "quels" = "à" + "les" + "quels": a token starting with "aux" gives "à", "les" and
the rest) and a suffix rule (English "would" + "n't": a token ending in "n't" gives the start and
"n't"), each kept when several distinct forms support it. Whether a token is expanded at all is a
choice in context ("des" is "de les" after a verb but a determiner before a noun), made by a
binary averaged perceptron over the token, its rule and its neighbours, asked only of tokens the
lexicon or a rule could expand. It learns what a rule is worth from the forms training saw once,
taken as unseen (their rule, not the lexicon, asked): otherwise a rule would only ever meet the
forms it should not expand, and English possessives of unseen names ("Wei's" = "Wei" + "'s")
would never be split.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from typing import Sequence

MIN_RULE_FORMS = 2  # distinct training forms a rule needs before it expands unseen ones

Token = tuple[str, "list[str] | None"]  # surface form, and its words when it is a multiword token


def _common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _common_suffix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _rules(expansion: dict[str, list[str]]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Prefix and suffix rules supported by at least MIN_RULE_FORMS forms of the lexicon."""
    prefix_forms, suffix_forms = defaultdict(Counter), defaultdict(Counter)
    for form, words in expansion.items():
        shared = _common_suffix(form, words[-1])
        if shared < len(form):
            key = form[:len(form) - shared]
            prefix_forms[key][tuple(words[:-1] + [words[-1][:len(words[-1]) - shared]])] += 1
        shared = _common_prefix(form, words[0])
        if shared < len(form):
            key = form[shared:]
            suffix_forms[key][tuple([words[0][shared:]] + words[1:])] += 1
    pick = lambda forms: {key: list(c.most_common(1)[0][0]) for key, c in forms.items() if sum(c.values()) >= MIN_RULE_FORMS}  # noqa: E731
    return pick(prefix_forms), pick(suffix_forms)


def _with_case(surface: str, words: list[str]) -> list[str]:
    """Lower-cased words given the case of their surface form: cut from it when they spell it."""
    if "".join(words) == surface.lower():
        out, at = [], 0
        for word in words:
            out.append(surface[at:at + len(word)])
            at += len(word)
        return out
    if len(surface) > 1 and surface.isupper():
        return [word.upper() for word in words]
    if surface[:1].isupper():
        return [words[0][:1].upper() + words[0][1:]] + words[1:]
    return list(words)


class MultiwordExpander:
    def __init__(self, lexicon: dict[str, list[str]], weights: dict[str, float] | None = None):
        self.lexicon = lexicon
        self.prefix_rules, self.suffix_rules = _rules(lexicon)
        self.longest_rule = max(map(len, [*self.prefix_rules, *self.suffix_rules]), default=0)
        self.weights = weights or {}

    def rule(self, lower: str, unseen: bool = False) -> tuple[str, list[str]] | None:
        """How a lower-cased form would expand, and the name of what says so; None if nothing would
        (``unseen``: as if the lexicon did not hold the form)."""
        if lower in self.lexicon and not unseen:
            return "lexicon", self.lexicon[lower]
        # The longest rule first; no rule is longer than longest_rule, so a long token costs no more
        # than a short one (trying every cut of a 1 MB token would be quadratic).
        for cut in range(min(len(lower) - 1, self.longest_rule), 0, -1):
            words = self.prefix_rules.get(lower[:cut])
            if words:
                return f"prefix:{lower[:cut]}", words[:-1] + [words[-1] + lower[cut:]]
            words = self.suffix_rules.get(lower[len(lower) - cut:])
            if words:
                return f"suffix:{lower[len(lower) - cut:]}", [lower[:len(lower) - cut] + words[0]] + words[1:]
        return None

    def features(self, forms: Sequence[str], k: int, rule: str) -> list[str]:
        lower = [form.lower() for form in forms]
        before = lower[k - 1] if k > 0 else "<s>"
        before2 = lower[k - 2] if k > 1 else "<s>"
        after = lower[k + 1] if k + 1 < len(lower) else "</s>"
        after2 = lower[k + 2] if k + 2 < len(lower) else "</s>"
        next_shape = "upper" if k + 1 < len(forms) and forms[k + 1][:1].isupper() else "other"
        word = lower[k]
        return ["bias", f"f={word}", f"r={rule}", f"p={before}", f"n={after}", f"nn={after2}", f"pf={before}|{word}",
                f"fn={word}|{after}", f"pn={before}|{after}", f"ns={word}|{after[-2:]}", f"nshape={word}|{next_shape}",
                f"rn={rule}|{after}",
                # the words before, and the ends of both neighbours: "la plupart des", "près des" against
                # "mange des pommes" (with them, 44 wrong choices on the three French test sets, not 72)
                f"p2={word}|{before2}", f"p2p={word}|{before2}|{before}", f"ps2={word}|{before[-2:]}",
                f"ps3={word}|{before[-3:]}", f"ns3={word}|{after[-3:]}"]

    def _score(self, feats: list[str]) -> float:
        weights = self.weights
        return sum(weights.get(f, 0.0) for f in feats)

    def expand(self, forms: Sequence[str]) -> list[list[str] | None]:
        """For each token of a sentence: its words when it is a multiword token, else None."""
        out: list[list[str] | None] = []
        for k, form in enumerate(forms):
            found = self.rule(form.lower())
            if found is None or self._score(self.features(forms, k, found[0])) <= 0:
                out.append(None)
            else:
                out.append(_with_case(form, found[1]))
        return out

    @classmethod
    def train(cls, sentences: Sequence[Sequence[Token]], iterations: int = 5, seed: int = 1) -> "MultiwordExpander":
        """Learn the lexicon, the rules and the choice from training sentences' tokens."""
        seen: dict[str, Counter] = defaultdict(Counter)
        occurrences: Counter = Counter()
        for tokens in sentences:
            for form, words in tokens:
                lower = form.lower()
                occurrences[lower] += 1
                if words:
                    seen[lower][tuple(word.lower() for word in words)] += 1
        expander = cls({form: list(c.most_common(1)[0][0]) for form, c in sorted(seen.items())})
        examples = []
        for tokens in sentences:
            forms = [form for form, _ in tokens]
            for k, (form, words) in enumerate(tokens):
                lower = form.lower()
                found = expander.rule(lower, unseen=occurrences[lower] == 1)
                if found is not None:  # a good example when expanding gives the token's words
                    right = words is not None and (found[0] == "lexicon" or [word.lower() for word in words] == found[1])
                    examples.append((expander.features(forms, k, found[0]), 1.0 if right else -1.0))
        weights: dict[str, float] = defaultdict(float)
        sums: dict[str, float] = defaultdict(float)
        clock = 0
        order = list(range(len(examples)))
        rng = random.Random(seed)
        for _ in range(iterations):
            rng.shuffle(order)
            for i in order:
                feats, gold = examples[i]
                clock += 1
                if gold * sum(weights.get(f, 0.0) for f in feats) <= 0:
                    for f in feats:
                        weights[f] += gold
                        sums[f] += gold * clock
        expander.weights = {f: round(w - sums[f] / clock, 6) for f, w in sorted(weights.items()) if w - sums[f] / clock != 0}
        return expander

    def config(self) -> dict:
        return {"lexicon": self.lexicon, "weights": self.weights}

    @classmethod
    def from_config(cls, config: dict) -> "MultiwordExpander":
        lexicon = config["lexicon"]
        if not all(isinstance(k, str) and isinstance(v, list) and v and all(isinstance(w, str) for w in v) for k, v in lexicon.items()):
            raise ValueError("a multiword lexicon entry is not a form and a list of words")
        weights = {str(k): float(v) for k, v in config["weights"].items()}
        if not all(math.isfinite(w) for w in weights.values()):
            raise ValueError("a multiword weight is not a finite number")
        return cls(lexicon, weights)
