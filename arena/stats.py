"""Small statistics shared by the analysis commands and the benchmarks.

One percentile convention everywhere (``arena stats``/``export`` move times, ``arena
bench grpc`` latencies, ``arena bench strength`` move times): linear interpolation
between the closest ranks, ``q`` in percent (0..100). It is numpy's default
(``method="linear"``, Hyndman & Fan's type 7), and ``percentile(xs, 50)`` is the
median (``statistics.median``). The bootstrap intervals of the ratings
(``arena.tournament.ratings``) take numpy's vectorised ``np.percentile`` over many
columns at once: the same convention.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The linear-interpolated percentile ``q`` (0..100) of ``values`` (non-empty).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50)
    2.5
    >>> percentile([5.0], 90)
    5.0
    >>> percentile([4.0, 1.0, 3.0, 2.0], 100)
    4.0
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be 0..100, got {q}")
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)
