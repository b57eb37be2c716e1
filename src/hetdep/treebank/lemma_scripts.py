"""A lemma as an edit script of its form, so a tagger can predict lemmas as classes (UDPipe's and
Stanza's approach): the casing of the lemma, then how many characters to cut from the form's
start and end and what to put there (``chantaient`` -> ``chanter``: cut 4 at the end, add ``er``).

Scripts are learned from the training treebank, no rules per language; a script seen once with
``chantaient`` also lemmatizes ``dansaient``, which is what makes the classes generalize to forms
never seen. A lemma that shares nothing with its form (``est`` -> ``être``) is a script of its
own that writes the whole lemma, and so is one that keeps less than three characters of the
form and is not the whole lemma (``est`` -> ``être`` keeps a ``t``: as a suffix rule it would
make ``tester`` of ``test``). A lemma that is its form without every instance of one separator
found inside it (neither letter nor digit, between its first and last characters: ``2,000`` ->
``2000``, ``50's`` -> ``50s``) is a script that deletes that character, where cutting ends would
have to write form characters (a ``2`` for ``2,000``, a rule for that number alone): en-ewt's 108
such training lemmas then teach one class that serves every number with thousands separators.
"""

from __future__ import annotations

import functools
import json

LOWER, TITLE, UPPER, KEEP = "l", "t", "u", "k"  # the lemma's casing; KEEP: edits on the form as written
SHORTEST_KEPT = 3  # characters of the form a suffix/prefix script keeps, unless they are the whole lemma
DELETE = "-"  # the script's marker for "delete every instance of this character"
LONGEST_COMPARED = 64  # characters of form and lemma searched for a common part (longer: common prefix only)


def edit_script(form: str, lemma: str) -> str:
    """The script that turns ``form`` into ``lemma`` (``apply_script(form, edit_script(form, lemma)) == lemma``)."""
    lower = lemma.lower()
    if lemma == lower:
        casing, source, target = LOWER, form.lower(), lower
    elif lemma == lower[:1].upper() + lower[1:]:
        casing, source, target = TITLE, form.lower(), lower
    elif lemma == lemma.upper() and lower.upper() == lemma:
        casing, source, target = UPPER, form.lower(), lower
    else:
        casing, source, target = KEEP, form, lemma
    start, target_start, length = _common_part(source, target)
    if length < len(target):
        for separator in sorted(set(source[1:-1]) - set(target)):
            if not separator.isalnum() and source.replace(separator, "") == target:
                return json.dumps([casing, DELETE, separator], ensure_ascii=False)
    if length < min(SHORTEST_KEPT, len(target)) or length == 0:
        return json.dumps([casing, "=", target], ensure_ascii=False)
    cut_end = len(source) - start - length
    return json.dumps([casing, start, target[:target_start], cut_end, target[target_start + length:]], ensure_ascii=False)


def apply_script(form: str, script: str) -> str:
    """The lemma a script gives for ``form``; the form itself when the script cuts more than it has
    or leaves an empty lemma (CoNLL-U has no empty field)."""
    steps = _steps(script)
    casing = steps[0]
    source = form if casing == KEEP else form.lower()
    if steps[1] == "=":
        lemma = steps[2]
    elif steps[1] == DELETE:
        lemma = source.replace(steps[2], "")
    else:
        _, cut_start, add_start, cut_end, add_end = steps
        if cut_start + cut_end > len(source):
            return form
        lemma = add_start + source[cut_start:len(source) - cut_end] + add_end
    if not lemma:  # a script that leaves nothing (learned from a lemma as long as what it cut) gives no lemma
        return form
    if casing == TITLE:
        return lemma[:1].upper() + lemma[1:]
    if casing == UPPER:
        return lemma.upper()
    return lemma


def edits_start(script: str) -> bool:
    """Whether a script cuts or writes characters at the form's start (``dort`` -> ``sort``)."""
    steps = _steps(script)
    return steps[1] not in ("=", DELETE) and bool(steps[1] or steps[2])


def kept_characters(form: str, script: str) -> int:
    """How many characters of ``form`` the lemma a script gives keeps (0 for a script that
    writes its whole lemma)."""
    steps = _steps(script)
    if steps[1] == "=":
        return 0
    if steps[1] == DELETE:
        return len(form) - form.count(steps[2])
    return max(0, len(form) - steps[1] - steps[3])


def _common_part(source: str, target: str) -> tuple[int, int, int]:
    """(start in source, start in target, length) of the longest common substring, the earliest
    one on ties; for long strings, the common prefix alone (linear time)."""
    if len(source) > LONGEST_COMPARED or len(target) > LONGEST_COMPARED:
        length = 0
        while length < min(len(source), len(target)) and source[length] == target[length]:
            length += 1
        return 0, 0, length
    best = (0, 0, 0)
    previous = [0] * (len(target) + 1)
    for i, char in enumerate(source, 1):
        current = [0] * (len(target) + 1)
        for j, other in enumerate(target, 1):
            if char == other:
                current[j] = previous[j - 1] + 1
                if current[j] > best[2]:
                    best = (i - current[j], j - current[j], current[j])
        previous = current
    return best


@functools.lru_cache(maxsize=4096)
def _steps(script: str) -> tuple:
    """A script's steps, read once: a tagger's few hundred scripts are applied to every word (JSON's
    reading was 0.05 s of a 10,000-word text's lemmas)."""
    return tuple(json.loads(script))
