"""UD (content heads) to SUD (surface-syntactic UD, function heads), following SUD's guidelines.

SUD (Gerdes, Guillaume, Kahane & Perrier 2018, 2019) makes adpositions (UD ``case``),
subordinators (``mark``), auxiliaries (``aux``, ``aux:*``) and copulas (``cop``) the heads of the
word they attach to in UD. Conversion, for every content word ``c`` with such function words:

1. **Chain.** The function words of ``c`` and ``c`` itself form a chain, highest first: the
   subordinator, then auxiliaries and copula, then adpositions; among equals the one farther from
   ``c`` is higher (``a été mangé``: *a* > *été* > *mangé*). Each element heads the next, by the
   upper one's relation: auxiliary -> ``comp:aux`` (``aux:pass`` -> ``comp:aux@pass``), copula ->
   ``comp:pred``, adposition and subordinator -> ``comp:obj``. The top of the chain takes the
   place of ``c``: its head and its relation.
2. **Dependents.** ``c``'s other dependents stay on ``c`` when they are its complements or
   belong to its phrase (objects, clitics, determiners, adjectives, flat names, relative
   clauses, ...). The clause- or phrase-level ones move up, with their own chains: subjects to
   the highest auxiliary or copula; anything before the whole chain (a coordinating
   conjunction, a comma, ``ne``) to its top; modifiers and punctuation after an auxiliary or
   copula to the highest one before them.
3. **Coordination, fixed and flat expressions** become chains: each conjunct hangs from the
   one before (from its top when the conjunct has function words of its own or the conjuncts
   are clauses with auxiliaries), each ``fixed``/``flat`` word from the word before it; words
   after a fixed expression hang from its last word.
4. **Relations.** UD relations map to SUD's: ``nsubj`` -> ``subj``; ``obj``, ``ccomp`` and
   verbal ``xcomp`` -> ``comp:obj`` (other ``xcomp`` -> ``comp:pred``; either, introduced by an
   adposition -> ``comp:obl``); ``obl:arg`` and ``iobj`` -> ``comp:obl``; ``amod``, ``advmod``,
   ``obl:mod``, ``advcl``, ``acl`` -> ``mod`` (``acl`` introduced by an adposition -> ``udep``);
   ``nummod`` -> ``det`` before its noun, ``mod`` after; ``nmod`` -> ``udep`` with an
   adposition, ``mod`` without; bare ``obl`` -> ``udep``; ``conj`` -> ``conj:coord``; ``appos``
   -> ``conj:appos``; ``fixed`` -> ``unk``. UD subtypes that SUD treats as deep features become
   ``@`` extensions (``nsubj:pass`` -> ``subj@pass``, ``flat:name`` -> ``flat@name``,
   ``acl:relcl`` -> ``mod@relcl``).

The result is checked against the real SUD release on French (``bench/accuracy_ud2sud.py``).
"""

from __future__ import annotations

from typing import Iterable, Iterator

from hetdep.errors import InputError
from hetdep.treebank.conllu import UPOS, Sentence, find_cycle

FUNCTION_RANK = {"mark": 0, "aux": 1, "cop": 1, "case": 2}  # higher in the chain first

CHAIN_RELATION = {"mark": "comp:obj", "case": "comp:obj", "cop": "comp:pred", "aux": "comp:aux"}

# Dependents of the content word that stay on it (its complements and its phrase's own words).
STAYS = {
    "obj", "iobj", "obl:arg", "obl:agent", "ccomp", "xcomp", "expl:pv", "expl:comp", "expl:pass",
    "det", "amod", "nummod", "nmod", "flat", "fixed", "compound", "appos", "acl", "acl:relcl",
    "clf", "goeswith", "obj:agent", "iobj:agent", "obj:lvc", "dep:comp", "orphan",
}
SUBJECTS = {"nsubj", "csubj"}

RELATION = {
    "nsubj": "subj", "csubj": "subj", "expl:subj": "subj@expl", "nsubj:pass": "subj@pass",
    "csubj:pass": "subj@pass", "nsubj:caus": "subj@caus", "nsubj:outer": "subj",
    "obj": "comp:obj", "ccomp": "comp:obj", "iobj": "comp:obl", "obl:arg": "comp:obl",
    "obl:agent": "comp:obl@agent", "obj:agent": "comp:obj@agent", "iobj:agent": "comp:obl@agent",
    "obj:lvc": "comp:obj@lvc", "dep:comp": "comp",
    "obl": "udep", "nmod": "udep", "obl:mod": "mod", "advmod": "mod", "amod": "mod", "acl": "mod",
    "advcl": "mod", "nummod": "mod", "acl:relcl": "mod@relcl", "advcl:cleft": "comp:cleft",
    "expl:pv": "comp@expl", "expl:comp": "comp@expl", "expl:pass": "comp@pass",
    "conj": "conj:coord", "appos": "conj:appos", "fixed": "unk", "dep": "unk",
    "flat:name": "flat@name", "flat:foreign": "flat@foreign", "flat": "flat",
    "compound": "compound", "discourse": "discourse", "dislocated": "dislocated",
    "parataxis": "parataxis", "parataxis:insert": "parataxis:insert", "vocative": "vocative",
    "orphan": "orphan", "goeswith": "goeswith", "punct": "punct", "cc": "cc", "det": "det",
    "clf": "clf", "list": "conj:coord", "reparandum": "reparandum", "root": "root",
}


def function_type(relation: str) -> str | None:
    """``mark``, ``aux``, ``cop`` or ``case`` for function-word relations (subtypes included)."""
    base = relation.split(":")[0]
    return base if base in FUNCTION_RANK else None


def sud_relation(relation: str, upos: str = "") -> str:
    """SUD name of a UD relation held by a content word (subtypes kept when SUD has no name)."""
    if relation in RELATION:
        mapped = RELATION[relation]
    else:
        base, _, sub = relation.partition(":")
        mapped = RELATION.get(base, base) + (f"@{sub}" if sub else "")
    if relation == "xcomp":
        mapped = "comp:obj" if upos in ("VERB", "AUX") else "comp:pred"
    return mapped


def chain_relation(relation: str) -> str:
    """Relation from a function word down the chain (``aux:pass`` -> ``comp:aux@pass``)."""
    kind = function_type(relation)
    assert kind is not None
    sub = relation.partition(":")[2]
    return CHAIN_RELATION[kind] + (f"@{sub}" if kind == "aux" and sub else "")


def top_relation(relation: str, upos: list[str], content: int, top: int, head: int) -> str:
    """SUD relation of the word that now stands for ``content`` (``top``: its chain's top, 1-based)."""
    mapped = sud_relation(relation, upos[top - 1])
    introduced = top != content and upos[top - 1] == "ADP"  # by a preposition
    if relation == "nmod" and top == content:
        return "mod"
    if relation == "acl" and introduced:
        return "udep"
    if relation in ("xcomp", "ccomp") and introduced:
        return "comp:obl"
    if relation == "nummod" and content < head:
        return "det"
    return mapped


def convert_tree(heads: list[int], relations: list[str], upos: list[str]) -> tuple[list[int], list[str]]:
    """SUD heads and relations of one UD tree (1-based heads, 0 = root)."""
    n = len(heads)
    dependents: list[list[int]] = [[] for _ in range(n + 1)]
    for word, head in enumerate(heads, 1):
        dependents[head].append(word)
    new_heads = list(heads)
    new_relations = [sud_relation(relation, tag) for relation, tag in zip(relations, upos)]
    top = list(range(n + 1))  # word -> top of its chain (itself when it has no function words)
    chains: dict[int, list[int]] = {}
    for content in range(1, n + 1):
        functions = [d for d in dependents[content] if function_type(relations[d - 1])]
        if functions:
            functions.sort(key=lambda d: (FUNCTION_RANK[function_type(relations[d - 1])], -abs(d - content)))
            chains[content] = functions + [content]
            top[content] = functions[0]

    # Each chain's top takes its content word's place; each element heads the next.
    function_words = {word for chain in chains.values() for word in chain[:-1]}
    for content in range(1, n + 1):
        if content in function_words:
            continue
        first = top[content]
        new_relations[first - 1] = top_relation(relations[content - 1], upos, content, first, heads[content - 1])
        if content not in chains:
            continue
        chain = chains[content]
        new_heads[first - 1] = heads[content - 1]
        for upper, lower in zip(chain, chain[1:]):
            new_heads[lower - 1] = upper
            new_relations[lower - 1] = chain_relation(relations[upper - 1])

    # Clause- and phrase-level dependents move up the chain (the whole chain of each moves).
    for content, chain in chains.items():
        in_chain = set(chain)
        verbal = [f for f in chain[:-1] if function_type(relations[f - 1]) in ("aux", "cop")]
        for d in dependents[content]:
            relation = relations[d - 1]
            if d in in_chain or relation in STAYS or relation.split(":")[0] in ("flat", "fixed", "compound"):
                continue
            if relation.split(":")[0] in SUBJECTS or relation == "expl:subj":
                if verbal:
                    new_heads[top[d] - 1] = verbal[0]
            elif d < min(chain):
                new_heads[top[d] - 1] = chain[0]
            elif relation != "conj":  # conjuncts are chained below
                preceding = [f for f in verbal if f < d]
                if preceding:
                    new_heads[top[d] - 1] = preceding[0]

    # Conjuncts form a chain too, each hanging from the one before: from its top when the
    # conjunct has function words of its own or the one before is a verb's chain (whole
    # clauses coordinated), else from its content word (a shared preposition stays outside).
    for word in range(1, n + 1):
        previous = word
        for d in dependents[word]:
            if relations[d - 1] != "conj":
                continue
            verbal_before = previous in chains and function_type(relations[top[previous] - 1]) in ("aux", "cop")
            new_heads[top[d] - 1] = top[previous] if (d in chains or verbal_before) else previous
            previous = d

    # A fixed expression is a chain, left to right; what follows it hangs from its last word.
    for word in range(1, n + 1):
        fixed = [d for d in dependents[word] if relations[d - 1] == "fixed"]
        flat = [d for d in dependents[word] if relations[d - 1].split(":")[0] == "flat"]
        for upper, lower in zip([word] + flat, flat):
            new_heads[lower - 1] = upper
        if not fixed:
            continue
        for upper, lower in zip([word] + fixed, fixed):
            new_heads[lower - 1] = upper
        last = fixed[-1]
        for d in range(1, n + 1):
            if d > last and new_heads[d - 1] == word and relations[d - 1] != "fixed":
                new_heads[d - 1] = last
    return new_heads, new_relations


def convert_sentences(sentences: Iterable[Sentence]) -> Iterator[Sentence]:
    """SUD version of every UD sentence, one out per one in (without UD's enhanced graph, as SUD's
    releases have none); trees with cycles are refused."""
    for sentence in sentences:
        heads = sentence.heads
        if any(head < 0 for head in heads):
            raise InputError(sentence.path, sentence.line, f"sentence {sentence.describe()} has words without a HEAD; UD to SUD needs trees")
        cycle = find_cycle(heads)
        if cycle:
            raise InputError(sentence.path, sentence.word_line(cycle[0] - 1), f"cycle through words {cycle}")
        new_heads, new_relations = convert_tree(list(heads), sentence.deprels, sentence.column(UPOS))
        yield sentence.with_tree(new_heads, new_relations).without_enhanced()  # UD's enhanced graph is no SUD graph
