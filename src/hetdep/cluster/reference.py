"""Parameter mixing's weighted sums in plain Python: the specification :mod:`hetdep.cluster._mixing` is tested against."""

from __future__ import annotations

import numpy as np


def weighted_sums(parts, fields: tuple[str, ...], factors: list[float]) -> dict[tuple[int, int], list[np.float32]]:
    """(feature, action) -> for each field, the float32 sum of factor * value over the parts, in part order."""
    sums: dict[tuple[int, int], list[np.float32]] = {}
    for part, factor in zip(parts, factors):
        factor = np.float32(factor)
        for i, (key, action) in enumerate(zip(part.keys.tolist(), part.actions.tolist())):
            products = [factor * getattr(part, field)[i] for field in fields]
            if (key, action) in sums:
                sums[key, action] = [total + product for total, product in zip(sums[key, action], products)]
            else:
                sums[key, action] = products
    return sums
