"""Compiled hot path of dep2's grandparent parts and its decoder (arcs + adjacent siblings + grandparents).

A grandparent part scores the chain g -> h -> m (Koo et al. 2008; Carreras 2007). With
siblings as well, the exact projective decoder is Koo & Collins (2010)'s "model 1" dynamic
program, O(n^4): every span also records the parent g of its head, which lies outside it.

Items (``e`` > ``h``: a span to the right of its head, ``e`` < ``h``: to the left)::

    complete[g, h, e]    h heads the words between h and e; h's parent is g
    incomplete[g, h, m]  as complete, with the arc h -> m, m's own far side not yet attached
    sibling[h, x, y]     x < y adjacent modifiers of h: x's right half and y's left half

    incomplete[g, h, m] = arc(h, m) + grand(g, h, m) + max(
        sib(h, none, m) + complete[h, m, h +- 1],                        m is h's closest modifier
        max_s incomplete[g, h, s] + sibling[h, s, m] + sib(h, s, m))     s the next one in
    complete[g, h, e]   = max_m incomplete[g, h, m] + complete[h, m, e]
    sibling[h, x, y]    = max_r complete[h, x, r] + complete[h, y, r + 1]

One word hangs from the root (index 0), whose only part is its arc. Part scores are unlabeled
(weight column ``column``, shared with the sibling parts); labels come from the arc scores.
"""

from __future__ import annotations

import heapq
import itertools

import numpy as np
from numba import njit

from hetdep.graph._eisner import BOUNDARY, NEG, _key, add_domain_copies, push
from hetdep.learn import _weights

N_GRAND_KEYS = 5
MAX_GRAND_KEYS = 2 * N_GRAND_KEYS  # with domain copies (see hetdep.graph._eisner)
COMPLETE, INCOMPLETE, SIBLING = 0, 1, 2


@njit(cache=True, inline="always")
def grand_keys(words, tags, g, h, m, domain, out):
    """Keys of the chain g -> h -> m (g = 0: h hangs from the root); returns how many."""
    directions = (2 if g < h else 0) + (1 if h < m else 0)
    gp = tags[g] if g else BOUNDARY
    gw = words[g] if g else BOUNDARY
    hp, mp, mw = tags[h], tags[m], words[m]
    out[0] = _key(50, gp, hp, mp, 0, directions)
    out[1] = _key(51, gp, mp, 0, 0, directions)
    out[2] = _key(52, gw, mp, 0, 0, directions)
    out[3] = _key(53, gp, mw, 0, 0, directions)
    out[4] = _key(54, gw, hp, mp, 0, directions)
    return add_domain_copies(out, N_GRAND_KEYS, domain)


@njit(cache=True, nogil=True)
def grand_scores(words, tags, n, table, rows, column, domain):
    """score[g, h, m] of every chain a projective tree can hold (g outside the span of h and m)."""
    scores = np.zeros((n + 1, n + 1, n + 1), dtype=np.float64)
    keys = np.zeros(MAX_GRAND_KEYS, dtype=np.uint64)
    acc = np.zeros(column + 1, dtype=np.float32)
    for h in range(1, n + 1):
        for m in range(1, n + 1):
            if m == h:
                continue
            low, high = min(h, m), max(h, m)
            for g in range(n + 1):
                if low <= g <= high:
                    continue
                count = grand_keys(words, tags, g, h, m, domain, keys)
                acc[column] = 0.0
                for t in range(count):
                    payload = _weights.lookup(table, keys[t])
                    if payload:
                        _weights.add_scores(payload, rows, acc, True, -1)
                scores[g, h, m] = acc[column]
    return scores


@njit(cache=True, nogil=True)
def inside(arcs, siblings, grands, n):
    """Best score of every item (complete, incomplete, sibling) and its split (c_split, i_split, s_split).

    ``siblings[h, s, m]``: h's modifier m with s the next one closer to h (0: none);
    ``grands[g, h, m]``: the chain g -> h -> m.
    """
    size = n + 1
    complete = np.full((size, size, size), NEG)
    incomplete = np.full((size, size, size), NEG)
    sibling = np.full((size, size, size), NEG)
    c_split = np.zeros((size, size, size), dtype=np.int32)
    i_split = np.zeros((size, size, size), dtype=np.int32)  # -1: m is h's closest modifier
    s_split = np.zeros((size, size, size), dtype=np.int32)
    gathered = np.zeros(size)
    for g in range(size):
        for h in range(1, size):
            complete[g, h, h] = 0.0
    for length in range(1, n):
        for x in range(1, n - length + 1):  # sibling items of this width, for longer spans
            y = x + length
            for h in range(1, size):
                if x <= h <= y:
                    continue
                best, split = NEG, x
                for r in range(x, y):
                    value = complete[h, x, r] + complete[h, y, r + 1]
                    if value > best:
                        best, split = value, r
                sibling[h, x, y], s_split[h, x, y] = best, split
        for h in range(1, size):
            for side in range(2):
                m = h + length if side == 1 else h - length
                if m < 1 or m > n:
                    continue
                step = 1 if side == 1 else -1
                low, high = min(h, m), max(h, m)
                # What does not depend on g, gathered once so that the loops over g read contiguously.
                for s in range(h + step, m, step):
                    gathered[s] = sibling[h, min(s, m), max(s, m)] + siblings[h, s, m]
                first = complete[h, m, h + step] + siblings[h, 0, m]
                for g in range(size):
                    if low <= g <= high:
                        continue
                    best, split = first, -1
                    for s in range(h + step, m, step):
                        value = incomplete[g, h, s] + gathered[s]
                        if value > best:
                            best, split = value, s
                    incomplete[g, h, m] = best + arcs[h, m] + grands[g, h, m]
                    i_split[g, h, m] = split
                for k in range(h + step, m + step, step):
                    gathered[k] = complete[h, k, m]
                for g in range(size):
                    if low <= g <= high:
                        continue
                    best, split = NEG, m
                    for k in range(h + step, m + step, step):
                        value = incomplete[g, h, k] + gathered[k]
                        if value > best:
                            best, split = value, k
                    complete[g, h, m], c_split[g, h, m] = best, split
    return complete, incomplete, sibling, c_split, i_split, s_split


@njit(cache=True, nogil=True)
def decode(arcs, siblings, grands, n):
    """Heads of the best projective tree under arc + adjacent-sibling + grandparent scores (see
    :func:`inside`), and its score."""
    complete, _, _, c_split, i_split, s_split = inside(arcs, siblings, grands, n)
    size = n + 1
    root, total = 1, NEG
    for c in range(1, size):
        value = arcs[0, c] + complete[0, c, 1] + complete[0, c, n]
        if value > total:
            root, total = c, value
    heads = np.zeros(size, dtype=np.int64)
    heads[root] = 0
    stack = np.zeros((6 * n + 8, 4), dtype=np.int64)  # (kind, g or h, h or x, e or m or y)
    top = push(stack, 0, COMPLETE, 0, root, 1)
    top = push(stack, top, COMPLETE, 0, root, n)
    while top > 0:
        top -= 1
        kind, a, b, c = stack[top, 0], stack[top, 1], stack[top, 2], stack[top, 3]
        if kind == COMPLETE:
            if b == c:
                continue
            k = c_split[a, b, c]
            top = push(stack, top, INCOMPLETE, a, b, k)
            top = push(stack, top, COMPLETE, b, k, c)
        elif kind == INCOMPLETE:
            heads[c] = b
            s = i_split[a, b, c]
            if s < 0:
                top = push(stack, top, COMPLETE, b, c, b + (1 if c > b else -1))
            else:
                top = push(stack, top, INCOMPLETE, a, b, s)
                top = push(stack, top, SIBLING, b, min(s, c), max(s, c))
        else:
            r = s_split[a, b, c]
            top = push(stack, top, COMPLETE, a, b, r)
            top = push(stack, top, COMPLETE, a, c, r + 1)
    return heads, total


@njit(cache=True)
def update(words, tags, n, domain, gold_heads, heads, table, n_used, rows, sums, counts, counter, column):
    """Perceptron update of the grandparent parts: gold +1, predicted -1 (equal chains cancel)."""
    keys = np.zeros(MAX_GRAND_KEYS, dtype=np.uint64)
    c = np.float32(counter)
    for m in range(1, n + 1):
        gold_h, h = gold_heads[m], heads[m]
        if gold_h == 0 and h == 0:
            continue
        gold_g = gold_heads[gold_h] if gold_h else -1
        g = heads[h] if h else -1
        if gold_h == h and gold_g == g:
            continue
        for side in range(2):
            hh = gold_h if side == 0 else h
            gg = gold_g if side == 0 else g
            if hh == 0:
                continue
            count = grand_keys(words, tags, gg, hh, m, domain, keys)
            delta = np.float32(1.0) if side == 0 else np.float32(-1.0)
            for t in range(count):
                slot = _weights.insert(table, n_used, keys[t])
                _weights.add(table, slot, rows, sums, counts, column, delta, c)


TOP = 3


def kbest(arcs, siblings, grands, n, k):
    """The k best trees under the same scores: heads (k', n+1) and their scores, best first (k' <= k).

    Huang & Chiang (2005), Algorithm 3: each item's derivations are enumerated lazily, only as
    far as a better-placed item asks for them, from a heap of candidates (an incoming hyperedge
    and the ranks of its one or two sub-derivations) seeded with the inside scores. Plain
    Python over the compiled chart: only the few hundred items the k best trees touch are visited.
    """
    chart = inside(arcs, siblings, grands, n)[:3]  # complete, incomplete, sibling
    derivations: dict = {}  # item -> list of (score, weight, tail, tail or None, rank, rank)
    candidates: dict = {}  # item -> heap of (-score, tie-breaker, weight, tail, tail, rank, rank)
    order = itertools.count()

    def hyperedges(item):
        kind, a, b, c = item
        if kind == COMPLETE:  # g, h, e: h's last modifier k on this side, then k's own far half
            step = 1 if c > b else -1
            return [(0.0, (INCOMPLETE, a, b, m), (COMPLETE, b, m, c)) for m in range(b + step, c + step, step)]
        if kind == INCOMPLETE:  # g, h, m: m is h's closest modifier, or comes after sibling s
            step = 1 if c > b else -1
            base = arcs[b, c] + grands[a, b, c]
            return [(base + siblings[b, 0, c], (COMPLETE, b, c, b + step), None)] + [
                (base + siblings[b, s, c], (INCOMPLETE, a, b, s), (SIBLING, b, min(s, c), max(s, c)))
                for s in range(b + step, c, step)]
        if kind == SIBLING:  # h, x, y
            return [(0.0, (COMPLETE, a, b, r), (COMPLETE, a, c, r + 1)) for r in range(b, c)]
        return [(arcs[0, c], (COMPLETE, 0, c, 1), (COMPLETE, 0, c, n)) for c in range(1, n + 1)]

    def best(item):
        return 0.0 if item is None else chart[item[0]][item[1], item[2], item[3]]

    def score(weight, first, second, i, j):
        return weight + derivations[first][i][0] + (derivations[second][j][0] if second else 0.0)

    def fill(item, wanted):
        """Derive ``item``'s ranked derivations until there are ``wanted`` (or no more)."""
        found = derivations.get(item)
        if found is None:
            if item[0] == COMPLETE and item[2] == item[3]:
                derivations[item] = [(0.0, 0.0, None, None, 0, 0)]
                return
            heap = [(-(weight + best(first) + best(second)), next(order), weight, first, second, 0, 0)
                    for weight, first, second in hyperedges(item)]
            heap = [entry for entry in heap if entry[0] < -NEG / 2]
            heapq.heapify(heap)
            found, candidates[item] = derivations.setdefault(item, []), heap
        heap = candidates.get(item, [])
        while len(found) < wanted:
            if found:
                _, weight, first, second, i, j = found[-1]
                if first is None:  # a leaf has one derivation
                    break
                if second is not None:  # each rank pair is reached from one predecessor only
                    fill(second, j + 2)
                    if j + 1 < len(derivations[second]):
                        heapq.heappush(heap, (-score(weight, first, second, i, j + 1), next(order), weight, first, second,
                                              i, j + 1))
                if j == 0:
                    fill(first, i + 2)
                    if i + 1 < len(derivations[first]):
                        heapq.heappush(heap, (-score(weight, first, second, i + 1, j), next(order), weight, first, second,
                                              i + 1, j))
            if not heap:
                break
            negative, _, weight, first, second, i, j = heapq.heappop(heap)
            fill(first, i + 1)  # a seed's sub-derivations are derived only when it is taken
            if second is not None:
                fill(second, j + 1)
            found.append((-negative, weight, first, second, i, j))

    top = (TOP, 0, 0, 0)
    fill(top, k)
    trees = np.zeros((len(derivations[top]), n + 1), dtype=np.int64)
    for rank, tree in enumerate(trees):
        _read_heads(derivations, top, rank, tree)
    return trees, np.array([entry[0] for entry in derivations[top]])


def _read_heads(derivations, item, rank, heads):
    _, _, first, second, i, j = derivations[item][rank]
    if item[0] == INCOMPLETE:
        heads[item[3]] = item[2]
    elif item[0] == TOP:
        heads[first[2]] = 0
    if first is not None:
        _read_heads(derivations, first, i, heads)
    if second is not None:
        _read_heads(derivations, second, j, heads)
