"""Constituency trees to dependency trees by head rules (Penn2Malt, Collins, Zhang & Clark 2008).

Each phrase has one head child, found by its label's rules in a head table; the lexical head
of the head child heads the phrase, and the lexical heads of the other children depend on it.
Tables are data (``head_tables/*.txt``, format described in ``penn2malt.txt``), so another
table is one file away: ``load_table("my-rules.txt")``.

Labels. The reference WSJ dependency files are unlabeled, so labels follow one documented
scheme rather than a reference: ``penn2malt`` gives the CoNLL-2007 English labels Penn2Malt
derives from phrase categories and function tags (SBJ, OBJ, PRD, NMOD, VMOD, AMOD, PMOD, VC,
SBAR, P, DEP, ROOT); ``phrase`` gives the category of the dependent's maximal projection
(``NP``, ``ADVP``, or the POS tag of a bare word), language-neutral, used for Chinese.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Iterable, Iterator

from hetdep.errors import HetdepError, InputError
from hetdep.treebank.conllu import Sentence
from hetdep.treebank.ptb import Node, Tree, clean

TABLES = {"penn2malt": "penn2malt.txt", "collins": "collins.txt", "zhang-clark-2008": "zhang-clark-2008.txt"}

PUNCTUATION_TAGS = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "PU"}

# Penn tag -> UPOS by the usual many-to-one mapping (approximate: IN is ADP even when it
# introduces a clause, VB* is VERB even when auxiliary); it gives CoNLL-U files a UPOS column so
# that evaluation can recognise punctuation. Tags not listed become X.
PTB_TO_UPOS = {
    "CC": "CCONJ", "CD": "NUM", "DT": "DET", "EX": "PRON", "FW": "X", "IN": "ADP", "JJ": "ADJ",
    "JJR": "ADJ", "JJS": "ADJ", "LS": "X", "MD": "AUX", "NN": "NOUN", "NNS": "NOUN",
    "NNP": "PROPN", "NNPS": "PROPN", "PDT": "DET", "POS": "PART", "PRP": "PRON", "PRP$": "PRON",
    "RB": "ADV", "RBR": "ADV", "RBS": "ADV", "RP": "ADP", "SYM": "SYM", "TO": "PART", "UH": "INTJ",
    "VB": "VERB", "VBD": "VERB", "VBG": "VERB", "VBN": "VERB", "VBP": "VERB", "VBZ": "VERB",
    "WDT": "DET", "WP": "PRON", "WP$": "PRON", "WRB": "ADV", "$": "SYM", "#": "SYM",
    ",": "PUNCT", ".": "PUNCT", ":": "PUNCT", "``": "PUNCT", "''": "PUNCT", "-LRB-": "PUNCT",
    "-RRB-": "PUNCT", "PU": "PUNCT",
}


@dataclass(frozen=True)
class Rule:
    direction: str  # "l": leftmost child first; "r": rightmost first
    labels: tuple[frozenset[str], ...]  # groups in priority order; any label of a group matches


@dataclass
class HeadTable:
    """Head rules per phrase label; counts the phrase labels it had to serve with DEFAULT."""

    name: str
    rules: dict[str, tuple[Rule, ...]]
    unknown: Counter = field(default_factory=Counter)

    def head_child(self, node: Node) -> int:
        """Index of the head child of a phrase."""
        rules = self.rules.get(node.label)
        if rules is None:
            self.unknown[node.label] += 1
            rules = self.rules["DEFAULT"]
        labels = [child.label for child in node.children]
        candidates = [i for i, child in enumerate(node.children) if not _is_punctuation(child)]
        if not candidates:  # only punctuation: it heads itself
            candidates = list(range(len(labels)))
        for rule in rules:
            order = candidates if rule.direction == "l" else candidates[::-1]
            if not rule.labels:
                return order[0]
            for group in rule.labels:
                for i in order:
                    if labels[i] in group:
                        return i
        return candidates[0] if rules[0].direction == "l" else candidates[-1]


def _is_punctuation(node: Node) -> bool:
    return node.is_leaf and node.label in PUNCTUATION_TAGS


def load_table(name_or_path: str) -> HeadTable:
    """A bundled table by name (``penn2malt``, ``collins``, ``zhang-clark-2008``) or a table file by path."""
    if name_or_path in TABLES:
        text = resources.files("hetdep.convert").joinpath("head_tables", TABLES[name_or_path]).read_text("utf-8")
        where = name_or_path
    else:
        path = Path(name_or_path)
        if not path.is_file():
            raise HetdepError(f"no head table {name_or_path!r}: give one of {', '.join(TABLES)} or a table file")
        text, where = path.read_text("utf-8"), str(path)
    return parse_table(text, where)


def parse_table(text: str, where: str = "<memory>") -> HeadTable:
    rules: dict[str, tuple[Rule, ...]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        label, _, body = line.strip().partition("\t")
        parsed = []
        for part in body.split(";"):
            words = part.split()
            if not words or words[0] not in ("l", "r"):
                raise InputError(where, number, f"rule {part.strip()!r} of {label} must start with a direction, l or r")
            parsed.append(Rule(words[0], tuple(frozenset(group.split("|")) for group in words[1:])))
        rules[label] = tuple(parsed)
    if "DEFAULT" not in rules:
        raise InputError(where, None, "head table has no DEFAULT rule for unlisted phrase labels")
    return HeadTable(where, rules)


@dataclass
class Dependencies:
    forms: list[str]
    tags: list[str]
    heads: list[int]  # 1-based, 0 = root
    labels: list[str]
    phrases: list[str]  # category of the phrase each word attaches in ("" for the root word)


def to_dependencies(root: Node, table: HeadTable, labels: str = "penn2malt") -> Dependencies:
    """Heads and labels of a cleaned tree's words (see ``ptb.clean``)."""
    leaves = root.leaves()
    index = {id(leaf): i + 1 for i, leaf in enumerate(leaves)}
    heads = [0] * len(leaves)
    deprels = ["ROOT" if labels == "penn2malt" else "root"] * len(leaves)
    phrases = [""] * len(leaves)
    label_of = _penn2malt_label if labels == "penn2malt" else _phrase_label

    def lexical_head(node: Node) -> int:
        """Attach the non-head children of ``node`` below its lexical head; return that head."""
        if node.is_leaf:
            return index[id(node)]
        child_heads = [lexical_head(child) for child in node.children]
        chosen = table.head_child(node)
        head = child_heads[chosen]
        for i, (child, word) in enumerate(zip(node.children, child_heads)):
            if i != chosen:
                heads[word - 1] = head
                deprels[word - 1] = label_of(node, child, node.children[chosen])
                phrases[word - 1] = node.label
        return head

    lexical_head(root)
    return Dependencies([leaf.word for leaf in leaves], [leaf.label for leaf in leaves], heads, deprels, phrases)


def _phrase_label(parent: Node, dependent: Node, head: Node) -> str:
    return "punct" if dependent.is_leaf and dependent.label in PUNCTUATION_TAGS else dependent.label


def _penn2malt_label(parent: Node, dependent: Node, head: Node) -> str:
    if dependent.is_leaf and dependent.label in PUNCTUATION_TAGS:
        return "P"
    if "SBJ" in dependent.functions:
        return "SBJ"
    if "PRD" in dependent.functions:
        return "PRD"
    category = parent.label
    if category in ("NP", "NAC", "NX", "WHNP"):
        return "NMOD"
    if category in ("ADJP", "ADVP", "QP", "WHADJP", "WHADVP"):
        return "AMOD"
    if category in ("PP", "WHPP"):
        return "PMOD"
    if category == "VP":
        if dependent.label == "NP" and not dependent.functions:
            return "OBJ"
        if dependent.label == "VP" and head.is_leaf:
            return "VC"
        return "VMOD"
    if category == "SBAR" and dependent.label in ("S", "SQ", "SINV", "SBARQ"):
        return "SBAR"
    if category in ("S", "SQ", "SINV", "SBARQ", "SBAR"):
        return "VMOD"
    return "DEP"


def convert_trees(trees: Iterable[Tree], table: HeadTable, labels: str = "penn2malt") -> Iterator[Sentence]:
    """One CoNLL-U sentence per tree, in order; a tree with no words left is an error, never skipped."""
    for tree in trees:
        root = clean(tree.root)
        if root is None:
            raise InputError(tree.path, tree.line, "tree has no words once empty elements (-NONE-) are removed")
        forms = [leaf.word for leaf in root.leaves()]
        comments = [f"# sent_id = {Path(tree.path).name}:{tree.line}", "# text = " + " ".join(forms)]
        yield tree_sentence(root, table, comments, tree.path, tree.line, labels)


def tree_sentence(root: Node, table: HeadTable, comments: list[str], path: str = "<memory>", line: int = 0,
                  labels: str = "penn2malt") -> Sentence:
    """The dependency tree of a cleaned phrase-structure tree as a CoNLL-U sentence (UPOS mapped from the tags)."""
    if root.is_leaf:
        root = Node("X", [root])
    deps = to_dependencies(root, table, labels)
    rows = [
        [str(i + 1), form, "_", PTB_TO_UPOS.get(tag, "X"), tag, "_", str(head), label, "_", "_"]
        for i, (form, tag, head, label) in enumerate(zip(deps.forms, deps.tags, deps.heads, deps.labels))
    ]
    return Sentence(list(comments), rows, list(range(len(rows))), list(deps.heads), path, line)
