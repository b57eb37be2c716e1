"""Scoring a system that tokenized and segmented raw text itself, as the CoNLL 2018 shared task did.

Gold and system words cannot be paired by position when the system chose its own tokens and
sentences. Both files are read as one stream of characters (their tokens' forms, with space
characters dropped), which must be the same text; every token, word and sentence is then a span
of that stream. Tokens and sentences count as found when their spans are equal. Words of plain
tokens align when their tokens' spans are equal; words inside multiword tokens align inside the
smallest stretch of text that no multiword token (of either file) crosses, by the longest
common subsequence of their lower-cased forms. Tags and trees are scored on aligned words: a
head is right when it is the aligned partner of the gold head (or both are the root), a label
when its part before the colon matches. Every word counts, punctuation included, and each
figure is an F1 of precision over the system's words and recall over the gold's.

UFeats compares the universal features alone (the shared task's list), AllTags UPOS, XPOS and
those features together; a lemma is right when it equals the gold one or the gold has none
("_"). CLAS, MLAS and BLEX count content words only (those whose relation is a content one: the
gold word's for what is right, each file's own for its total): CLAS asks for head and relation,
MLAS also for UPOS, universal features and the same functional children (aux, cop, mark, det,
clf, case, cc) with their heads, relations, UPOS and features, BLEX for head, relation and lemma.

ELAS and EULAS score the enhanced graphs of the DEPS column as the IWPT 2020 and 2021 shared tasks
did: each edge into an aligned word is right when a system edge into its partner has the same
head (aligned, or both the root) and the same relation (ELAS: whole, with its case marker, as in
``obl:in``; EULAS: each step's part before the colon); an F1 over every edge of either file.
Edges from empty nodes, and into them, are left out, as that scorer does when empty nodes were
not collapsed first. They are given when the gold file has enhanced graphs.

This follows the shared task's evaluation script (``conll18_ud_eval.py``, kept as
``udtools.udeval``); the tests check both give the same counts on real files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from hetdep.errors import InputError
from hetdep.treebank.conllu import DEPREL, DEPS, FEATS, FORM, ID, LEMMA, UPOS, XPOS, Sentence, enhanced_edges, read_conllu

# Unicode's space separators (category Zs): the shared task drops them from forms before matching text.
_SPACES = re.compile("[\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS",
           "BLEX")
CONTENT_RELATIONS = frozenset({
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated", "advcl", "advmod",
    "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed", "flat", "compound", "list", "parataxis",
    "orphan", "goeswith", "reparandum", "root", "dep"})
FUNCTIONAL_RELATIONS = frozenset({"aux", "cop", "mark", "det", "clf", "case", "cc"})
UNIVERSAL_FEATURES = frozenset({
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number", "Case", "Definite",
    "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person", "Polite"})
ENHANCED_METRICS = ("ELAS", "EULAS")  # scored when the gold file has enhanced graphs (DEPS)
NO_LEMMA = "_"


def universal_features(feats: str) -> str:
    """FEATS with only the universal features kept, sorted ("" for none)."""
    return "|".join(sorted(feat for feat in feats.split("|") if feat.split("=", 1)[0] in UNIVERSAL_FEATURES))


@dataclass(frozen=True)
class Score:
    """Counts of one metric: gold items, system items, and those the system got right."""

    gold: int
    system: int
    correct: int
    aligned: int | None = None  # aligned words, for the metrics scored on them

    @property
    def precision(self) -> float:
        return 100.0 * self.correct / self.system if self.system else 0.0

    @property
    def recall(self) -> float:
        return 100.0 * self.correct / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        total = self.gold + self.system
        return 200.0 * self.correct / total if total else 0.0

    @property
    def aligned_accuracy(self) -> float | None:
        return 100.0 * self.correct / self.aligned if self.aligned else None

    def as_dict(self) -> dict:
        cell = {"gold": self.gold, "system": self.system, "correct": self.correct,
                "precision": round(self.precision, 2), "recall": round(self.recall, 2), "f1": round(self.f1, 2)}
        if self.aligned is not None:
            cell["aligned"] = self.aligned
            cell["aligned_accuracy"] = round(self.aligned_accuracy or 0.0, 2)
        return cell


@dataclass
class _Text:
    """One file flattened: its characters, and its tokens, sentences and words as spans of them."""

    path: str
    no_head: int  # what a word without a head (HEAD "_": a tokenizer's output) points to; never right
    pieces: list[str] = field(default_factory=list)
    length: int = 0
    tokens: list[tuple[int, int]] = field(default_factory=list)
    token_lines: list[int] = field(default_factory=list)
    sentences: list[tuple[int, int]] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # per word: its token's span
    ends: list[int] = field(default_factory=list)
    multiword: list[bool] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)  # lower-cased
    upos: list[str] = field(default_factory=list)
    xpos: list[str] = field(default_factory=list)
    feats: list[str] = field(default_factory=list)  # universal features only
    lemmas: list[str] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)  # index of the head word in the file, -1 for the root
    labels: list[str] = field(default_factory=list)  # before the colon
    functional_children: dict[int, list[int]] = field(default_factory=dict)  # word -> its functional dependents
    # per word, its enhanced edges: (head word in the file, -1 for the root; the relation's steps)
    enhanced: list[list[tuple[int, tuple[str, ...]]]] = field(default_factory=list)

    def add_token(self, form: str, line: int) -> tuple[int, int]:
        text = _SPACES.sub("", form)
        span = (self.length, self.length + len(text))
        self.pieces.append(text)
        self.length = span[1]
        self.tokens.append(span)
        self.token_lines.append(line)
        return span

    def add_sentence(self, sentence: Sentence) -> None:
        base = len(self.forms)
        first = self.length
        words_left, span = 0, (0, 0)
        for offset, row in enumerate(sentence.rows):
            token_id = row[ID]
            line = sentence.line + len(sentence.comments) + offset
            if "-" in token_id:
                low, high = token_id.split("-")
                words_left, span = int(high) - int(low) + 1, self.add_token(row[FORM], line)
                continue
            if "." in token_id:
                continue  # empty nodes have no text
            if words_left:
                words_left -= 1
                in_token = True
            else:
                span, in_token = self.add_token(row[FORM], line), False
            self.starts.append(span[0])
            self.ends.append(span[1])
            self.multiword.append(in_token)
            self.forms.append(row[FORM].lower())
            self.upos.append(row[UPOS])
            self.xpos.append(row[XPOS])
            self.feats.append(universal_features(row[FEATS]))
            self.lemmas.append(row[LEMMA])
            self.labels.append(row[DEPREL].split(":")[0])
            self.enhanced.append([(base + int(head) - 1 if head != "0" else -1, tuple(relation.split(">")))
                                  for head, relation in enhanced_edges(row[DEPS]) if "." not in head])
        self.heads.extend(base + head - 1 if head > 0 else -1 if head == 0 else self.no_head for head in sentence.heads)
        for word in range(base, len(self.forms)):
            if self.heads[word] >= 0 and self.labels[word] in FUNCTIONAL_RELATIONS:
                self.functional_children.setdefault(self.heads[word], []).append(word)
        if self.length > first:
            self.sentences.append((first, self.length))


def _read(path: str | Path, sentences: Iterable[Sentence], no_head: int) -> _Text:
    text = _Text(str(path), no_head)
    for sentence in sentences:
        text.add_sentence(sentence)
    return text


def _check_same_text(gold: _Text, system: _Text) -> None:
    """Both files must spell the same characters; otherwise name the first system token that differs."""
    gold_chars, system_chars = "".join(gold.pieces), "".join(system.pieces)
    if gold_chars == system_chars:
        return
    at = next((i for i, (a, b) in enumerate(zip(gold_chars, system_chars)) if a != b), min(len(gold_chars), len(system_chars)))
    token = next((i for i, (_, end) in enumerate(system.tokens) if end > at), len(system.tokens) - 1)
    line = system.token_lines[token] if system.tokens else 1
    raise InputError(system.path, line, f"the text differs from the gold file's ({gold.path}) at character {at}: "
                     f"gold {gold_chars[at:at + 20]!r}, system {system_chars[at:at + 20]!r} (spaces aside, both files "
                     f"must hold the same text)")


def _spans_score(gold: list[tuple[int, int]], system: list[tuple[int, int]]) -> Score:
    correct = g = s = 0
    while g < len(gold) and s < len(system):
        if system[s][0] < gold[g][0]:
            s += 1
        elif gold[g][0] < system[s][0]:
            g += 1
        else:
            correct += gold[g][1] == system[s][1]
            g += 1
            s += 1
    return Score(len(gold), len(system), correct)


def _past(text: _Text, i: int, end: int) -> bool:
    """Is word ``i`` outside a multiword stretch ending at character ``end``?"""
    if i >= len(text.forms):
        return True
    return text.starts[i] >= end if text.multiword[i] else text.ends[i] > end


def _multiword_stretch(gold: _Text, system: _Text, g: int, s: int) -> tuple[int, int, int, int]:
    """The smallest stretch holding the multiword token at ``g`` or ``s`` that no multiword token
    crosses: its first and one-past-last words in each file."""
    if gold.multiword[g]:
        end = gold.ends[g]
        if not system.multiword[s] and system.starts[s] < gold.starts[g]:
            s += 1
    else:
        end = system.ends[s]
        if not gold.multiword[g] and gold.starts[g] < system.starts[s]:
            g += 1
    first_g, first_s = g, s
    while not _past(gold, g, end) or not _past(system, s, end):
        if g < len(gold.forms) and (s >= len(system.forms) or gold.starts[g] <= system.starts[s]):
            text, i = gold, g
            g += 1
        else:
            text, i = system, s
            s += 1
        if text.multiword[i]:
            end = max(end, text.ends[i])
    return first_g, first_s, g, s


def _common_subsequence(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of ``a`` and ``b``."""
    n, m = len(a), len(b)
    best = [[0] * (m + 1) for _ in range(n + 1)]  # best[i][j]: LCS of a[i:] and b[j:]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            best[i][j] = best[i + 1][j + 1] + 1 if a[i] == b[j] else max(best[i + 1][j], best[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def align_words(gold: _Text, system: _Text) -> dict[int, int]:
    """System word -> its aligned gold word."""
    partner: dict[int, int] = {}
    g = s = 0
    while g < len(gold.forms) and s < len(system.forms):
        if gold.multiword[g] or system.multiword[s]:
            first_g, first_s, g, s = _multiword_stretch(gold, system, g, s)
            for i, j in _common_subsequence(gold.forms[first_g:g], system.forms[first_s:s]):
                partner[first_s + j] = first_g + i
        elif gold.starts[g] == system.starts[s] and gold.ends[g] == system.ends[s]:
            partner[s] = g
            g, s = g + 1, s + 1
        elif gold.starts[g] <= system.starts[s]:
            g += 1
        else:
            s += 1
    return partner


def evaluate_conll18(gold_path: str | Path, system_path: str | Path, *, single_root: bool = True) -> dict[str, Score]:
    """Every metric of :data:`METRICS` of ``system_path`` against ``gold_path``, and those of
    :data:`ENHANCED_METRICS` where the gold file has enhanced graphs."""
    gold = _read(gold_path, read_conllu(gold_path, single_root=single_root), no_head=-3)
    system = _read(system_path, read_conllu(system_path, single_root=single_root), no_head=-4)
    _check_same_text(gold, system)
    partner = align_words(gold, system)
    aligned = len(partner)

    def on_aligned(right) -> Score:
        return Score(len(gold.forms), len(system.forms), sum(1 for s, g in partner.items() if right(g, s)), aligned)

    def content(text: _Text, word: int) -> bool:
        return text.labels[word] in CONTENT_RELATIONS

    def on_content(right) -> Score:
        """Scored on content words: right ones among the aligned words whose gold relation is content."""
        return Score(sum(content(gold, g) for g in range(len(gold.forms))),
                     sum(content(system, s) for s in range(len(system.forms))),
                     sum(1 for s, g in partner.items() if content(gold, g) and right(g, s)),
                     sum(1 for g in partner.values() if content(gold, g)))

    def head_right(g: int, s: int) -> bool:
        head = system.heads[s]
        return gold.heads[g] == (head if head < 0 else partner.get(head, -2))

    def labelled(g: int, s: int) -> bool:
        return head_right(g, s) and gold.labels[g] == system.labels[s]

    def lemma_right(g: int, s: int) -> bool:
        return gold.lemmas[g] == NO_LEMMA or gold.lemmas[g] == system.lemmas[s]

    def morphology(g: int, s: int) -> bool:
        """UPOS, features and the functional children right (each the partner of the gold one, in order,
        with its relation, UPOS and features; their head is the word itself in both files)."""
        if gold.upos[g] != system.upos[s] or gold.feats[g] != system.feats[s]:
            return False
        gold_children = gold.functional_children.get(g, [])
        system_children = system.functional_children.get(s, [])
        return len(gold_children) == len(system_children) and all(
            partner.get(c, -2) == d and gold.labels[d] == system.labels[c]
            and gold.upos[d] == system.upos[c] and gold.feats[d] == system.feats[c]
            for d, c in zip(gold_children, system_children))

    def enhanced(universal: bool) -> Score:
        """Edges of aligned words right (every pair of a gold and a system edge that agree counts, as
        the IWPT scorer counts them)."""
        def relation(steps: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(step.split(":")[0] for step in steps) if universal else steps

        correct = 0
        for s, g in partner.items():
            for head, steps in gold.enhanced[g]:
                correct += sum(1 for system_head, system_steps in system.enhanced[s]
                               if relation(system_steps) == relation(steps)
                               and (head == partner.get(system_head, -2) if system_head >= 0 else head == -1))
        return Score(sum(map(len, gold.enhanced)), sum(map(len, system.enhanced)), correct)

    scores = {
        "Tokens": _spans_score(gold.tokens, system.tokens),
        "Sentences": _spans_score(gold.sentences, system.sentences),
        "Words": Score(len(gold.forms), len(system.forms), aligned),
        "UPOS": on_aligned(lambda g, s: gold.upos[g] == system.upos[s]),
        "XPOS": on_aligned(lambda g, s: gold.xpos[g] == system.xpos[s]),
        "UFeats": on_aligned(lambda g, s: gold.feats[g] == system.feats[s]),
        "AllTags": on_aligned(lambda g, s: (gold.upos[g], gold.xpos[g], gold.feats[g]) == (system.upos[s], system.xpos[s], system.feats[s])),
        "Lemmas": on_aligned(lemma_right),
        "UAS": on_aligned(head_right),
        "LAS": on_aligned(labelled),
        "CLAS": on_content(labelled),
        "MLAS": on_content(lambda g, s: labelled(g, s) and morphology(g, s)),
        "BLEX": on_content(lambda g, s: labelled(g, s) and lemma_right(g, s)),
    }
    if any(gold.enhanced):
        scores.update(ELAS=enhanced(universal=False), EULAS=enhanced(universal=True))
    return scores
