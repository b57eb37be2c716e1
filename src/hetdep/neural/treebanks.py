"""Several treebanks in one network: each its own sentences, schemes and guidelines, one encoder.

A treebank is named and holds one scheme or a same-sentence pair. Its trees train scheme heads
of their own (``per-treebank``) or the heads of their scheme shared with every treebank of that
scheme (``per-scheme``, Stymne et al. 2018); in both, each sentence's input carries an embedding
of its treebank, so the encoder can tell their conventions apart. An epoch draws each treebank's
batches in proportion to its size to the power 1 / temperature (1: as the sizes are; higher:
small treebanks drawn more often, some of their batches twice)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from hetdep.errors import HetdepError
from hetdep.treebank.conllu import Sentence

SHARINGS = ("per-treebank", "per-scheme")


@dataclass
class Treebank:
    name: str
    schemes: tuple[str, ...]
    train: list[list[Sentence]]  # per scheme, the same sentences
    dev: list[list[Sentence]]  # per scheme (may be empty lists)
    # Phrase-structure trees of the same sentences (cleaned roots, hetdep.treebank.ptb.clean), for a span
    # head: one per training sentence and one per dev sentence, or none. Then ``train`` and ``dev`` hold the
    # sentences (words, tags) even when no dependency scheme is trained (``schemes`` empty).
    phrases: list = field(default_factory=list)
    dev_phrases: list = field(default_factory=list)


def check_treebanks(treebanks: Sequence[Treebank]) -> None:
    """Refuse what cannot be told apart: a treebank named twice, a scheme named twice in one treebank."""
    names = [treebank.name for treebank in treebanks]
    for name in names:
        if not name or names.count(name) > 1:
            raise HetdepError(f"treebank {name!r} is named twice: give each treebank its own name" if name
                              else "a treebank needs a name")
    for treebank in treebanks:
        if len(set(treebank.schemes)) != len(treebank.schemes) or not all(treebank.schemes):
            raise HetdepError(f"treebank {treebank.name!r}: its schemes {', '.join(treebank.schemes)} cannot be told "
                              "apart: give each scheme its own name")
        if not treebank.train or not treebank.train[0]:
            raise HetdepError(f"treebank {treebank.name!r} has no training sentences")


def scheme_heads(treebanks: Sequence[Treebank], sharing: str) -> list[list[int]]:
    """Per treebank, the scheme head each of its schemes trains: a head of its own per scheme, or
    one head per scheme name shared by every treebank of that scheme."""
    if sharing not in SHARINGS:
        raise HetdepError(f"unknown head sharing {sharing!r}: choose from {', '.join(SHARINGS)}")
    heads: list[list[int]] = []
    shared: dict[str, int] = {}
    count = 0
    for treebank in treebanks:
        mine = []
        for scheme in treebank.schemes:
            if sharing == "per-scheme":
                if scheme not in shared:
                    shared[scheme] = len(shared)
                mine.append(shared[scheme])
            else:
                mine.append(count)
                count += 1
        heads.append(mine)
    return heads


def epoch_batches(batches: Sequence[Sequence[list[int]]], temperature: float,
                  rng: np.random.Generator) -> list[tuple[int, list[int]]]:
    """One epoch's batches, as (treebank, sentence indices), in random order. Treebank i gives
    its share n_i^(1/T) / sum_j n_j^(1/T) of as many batches as all treebanks hold (n: its batch
    count): with T = 1 each batch once; with more, small treebanks' batches repeat, each as often
    as the others or once more (drawn in whole permutations)."""
    counts = np.array([len(own) for own in batches], dtype=float)
    # In logarithms, scaled by the largest: n^(1/T) itself overflows for small T (0.005 with a few
    # hundred batches), and shares of inf would draw no batch at all.
    powers = np.log(np.maximum(counts, 1.0)) / temperature
    shares = np.exp(powers - powers.max())
    wanted = np.rint(shares / shares.sum() * counts.sum()).astype(int)
    drawn: list[tuple[int, list[int]]] = []
    if (wanted == counts).all():  # each batch once (one treebank, or T = 1): one permutation of them all
        every = [(treebank, chosen) for treebank, own in enumerate(batches) for chosen in own]
        return [every[k] for k in rng.permutation(len(every))]
    for treebank, (own, count) in enumerate(zip(batches, wanted)):
        count = max(int(count), 1)  # every treebank drawn at least once, however small its share
        order: list[int] = []
        while len(order) < count:
            order.extend(rng.permutation(len(own)).tolist())
        drawn.extend((treebank, own[k]) for k in order[:count])
    return [drawn[k] for k in rng.permutation(len(drawn))]
