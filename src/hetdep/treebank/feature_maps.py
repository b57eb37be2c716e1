"""Scheme b's FEATS from scheme a's, for a joint model whose FEATS tagger tags once.

Two schemes of one treebank may annotate features differently: fr-sequoia's SUD file adds
``ExtPos`` to numerals (``ExtPos=DET|NumType=Card`` where UD has ``NumType=Card``) and ``Shared``
to words shared by conjuncts, 1,757 of its 50,502 training words in all. A joint model's FEATS
tagger learns scheme a's, so scheme b's trees would carry features scheme b never writes. The map
is learned from the training pairs (the same words in both schemes), no rule per scheme: each
(UPOS, scheme a's bundle) goes to scheme b's bundle most often seen with it (50,496 of those
50,502 words right), and a bundle never seen in training has each of its features mapped the
same way, one by one; a feature never seen is left out where scheme b never writes its name
(with that UPOS, or at all: ``Shared``), since the tagger may give a word a bundle training
never paired with its UPOS.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from hetdep.treebank.conllu import FEATS, UPOS, Sentence
from hetdep.treebank.tags import UNANNOTATED


@dataclass(frozen=True)
class FeatureMap:
    bundles: dict[str, str]  # "UPOS FEATS_A" -> FEATS_B, every pair seen in training
    features: dict[str, str]  # "UPOS Name=Value" -> "Name=Value" or "" (left out), where they differ
    absent: frozenset[str] = frozenset()  # "UPOS Name" and "Name": scheme a writes them, scheme b never

    @classmethod
    def learn(cls, pairs: Iterable[tuple[Sentence, Sentence]]) -> "FeatureMap | None":
        """From each word's FEATS in both schemes; None when the schemes never differ."""
        bundles: dict[str, Counter] = {}
        features: dict[str, Counter] = {}
        written_a: set[str] = set()
        written_b: set[str] = set()
        for a, b in pairs:
            for upos, feats_a, feats_b in zip(a.column(UPOS), a.column(FEATS), b.column(FEATS)):
                bundles.setdefault(f"{upos} {feats_a}", Counter())[feats_b] += 1
                names_b = dict(_pairs(feats_b))
                written_b.update(names_b)
                written_b.update(f"{upos} {name}" for name in names_b)
                for name, value in _pairs(feats_a):
                    written_a.update((name, f"{upos} {name}"))
                    mapped = f"{name}={names_b[name]}" if name in names_b else ""
                    features.setdefault(f"{upos} {name}={value}", Counter())[mapped] += 1
        found = cls({key: seen.most_common(1)[0][0] for key, seen in bundles.items()}, _differing(features),
                    frozenset(written_a - written_b))
        if all(value == key.split(" ", 1)[1] for key, value in found.bundles.items()) and not found.features:
            return None
        return found

    def apply(self, upos: str, feats: str) -> str:
        """Scheme b's FEATS for a word of this UPOS that has ``feats`` in scheme a."""
        known = self.bundles.get(f"{upos} {feats}")
        if known is not None:
            return known
        mapped = []
        for name, value in _pairs(feats):
            feature = f"{name}={value}"
            feature = self.features.get(f"{upos} {feature}", "" if self._never_in_b(upos, name) else feature)
            if feature:
                mapped.append(feature)
        return "|".join(sorted(mapped, key=str.lower)) or UNANNOTATED

    def _never_in_b(self, upos: str, name: str) -> bool:
        return f"{upos} {name}" in self.absent or name in self.absent

    def sentence(self, sentence: Sentence) -> Sentence:
        """The sentence with its FEATS mapped."""
        return sentence.with_column(FEATS, [self.apply(upos, feats) for upos, feats in
                                            zip(sentence.column(UPOS), sentence.column(FEATS))])

    def record(self) -> dict:
        return {"bundles": self.bundles, "features": self.features, "absent": sorted(self.absent)}

    @classmethod
    def from_record(cls, record: dict) -> "FeatureMap":
        """The map :meth:`record` wrote (ValueError if it is not one)."""
        maps = record["bundles"], record["features"]
        if not all(isinstance(m, dict) and all(isinstance(x, str) for item in m.items() for x in item) for m in maps):
            raise ValueError("a map of FEATS must map strings to strings")
        absent = record.get("absent", [])  # a model trained before it kept every feature never seen
        if not isinstance(absent, list) or not all(isinstance(name, str) for name in absent):
            raise ValueError("the features scheme b never writes must be a list of strings")
        return cls(*maps, frozenset(absent))


def _pairs(feats: str) -> list[tuple[str, str]]:
    return [tuple(item.split("=", 1)) for item in feats.split("|") if "=" in item] if feats != UNANNOTATED else []


def _differing(counts: dict[str, Counter]) -> dict[str, str]:
    """Each "UPOS feature" key's most frequent value (the first seen on ties), where it is not the feature itself."""
    out = {}
    for key, seen in counts.items():
        value = seen.most_common(1)[0][0]
        if value != key.split(" ", 1)[1]:
            out[key] = value
    return out
