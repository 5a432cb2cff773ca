"""What every ``arena bench`` shares: the machine header, repeat-until-stable, compare.

A figure measured on a busy machine, or once, says little: the same code measured twice
can differ by 30 % when other processes share the cores. So every benchmark

* prints (and puts in its JSON, under ``machine``) the core count and the load average
  when it ran, and what idle cores do (:mod:`arena.cpu_idle`: on a virtual machine whose
  cores halt when idle, a latency figure can double) (:func:`machine` /
  :func:`header_line`), so a reader can judge the figure;
* repeats a measurement until it is stable (:func:`until_stable`): the relative spread
  of the running medians of the last ``window`` repeats must fall under ``threshold``,
  within ``max_repeats`` repeats, and the JSON says whether it did (``stable``);
* can be compared with an earlier run's JSON (``--compare FILE``, :func:`compare`): every
  numeric figure found in both, with its relative change.
"""

from __future__ import annotations

import json
import os
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from arena import cpu_idle
from arena.errors import UserError

WINDOW = 3
"""Running medians compared to decide stability."""
THRESHOLD = 0.05
"""Largest relative spread (max - min) / median of the last ``WINDOW`` running medians."""
MAX_REPEATS = 9
"""Repeats after which a still-moving figure is reported as not stable."""


def machine() -> dict[str, Any]:
    """The core count, 1/5/15-minute load averages and what idle cores do, now."""
    one, five, fifteen = os.getloadavg()
    return {
        "cpus": os.cpu_count() or 1,
        "load_average": [one, five, fifteen],
        "cpu_idle": cpu_idle.cpu_idle(),
    }


def header_line(info: Mapping[str, Any]) -> str:
    """One line for the top of a benchmark's text output.

    >>> header_line({"cpus": 2, "load_average": [0.52, 1.0, 1.25]})
    'machine: 2 cores, load average 0.52 / 1.00 / 1.25 (1 / 5 / 15 min)'
    >>> header_line({"cpus": 2, "load_average": [0.52, 1.0, 1.25], "cpu_idle": {
    ...     "driver": "haltpoll", "wakeup_limit_us": 0, "wakeup_limit_known": True}}).split("; ")[1]
    'idle cores: haltpoll, wake-up limit 0 us'
    """
    one, five, fifteen = info["load_average"]
    line = (
        f"machine: {info['cpus']} cores, load average {one:.2f} / {five:.2f} / {fifteen:.2f}"
        " (1 / 5 / 15 min)"
    )
    idle = info.get("cpu_idle")  # (not in the JSON of runs before it was measured)
    return line if idle is None else f"{line}; {cpu_idle.describe(idle)}"


@dataclass(frozen=True)
class Stability:
    """How a repeated figure settled (goes into the JSON as it is)."""

    median: float
    """The median of every repeat: the figure reported."""
    repeats: int
    """Measurements taken."""
    spread: float
    """Relative spread of the last ``window`` running medians (inf with too few repeats)."""
    stable: bool
    """Whether ``spread`` fell under the threshold within the repeat bound."""

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        if out["spread"] == float("inf"):
            out["spread"] = None  # JSON has no infinity
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Stability:
        """The inverse of :meth:`as_json` (a null spread is infinite).

        >>> Stability.from_json({"median": 2.0, "repeats": 1, "spread": None, "stable": False})
        Stability(median=2.0, repeats=1, spread=inf, stable=False)
        """
        spread = data["spread"]
        return cls(
            float(data["median"]),
            int(data["repeats"]),
            float("inf") if spread is None else float(spread),
            bool(data["stable"]),
        )

    def note(self) -> str:
        """Text for the output: empty when stable, a warning when not."""
        if self.stable:
            return ""
        spread = "n/a" if self.spread == float("inf") else f"{100 * self.spread:.0f}%"
        return f" [NOT STABLE after {self.repeats} repeats: spread {spread}]"


def settle(
    samples: list[float], window: int = WINDOW, threshold: float = THRESHOLD, scale: float = 0.0
) -> Stability:
    """The stability of ``samples`` so far (pure: the decision rule of
    :func:`until_stable`, tested without a clock). The spread is relative to the running
    median, or to ``scale`` when that is larger: a figure near zero in a table of larger
    ones (random's mean score beside ismcts's) is judged on the table's scale, since
    relative to itself it never settles.

    >>> settle([10.0, 10.2, 10.1, 10.1]).stable
    True
    >>> settle([10.0, 20.0, 5.0]).stable
    False
    >>> settle([0.2, 0.6, 0.1, 0.5]).stable, settle([0.2, 0.6, 0.1, 0.5], scale=22.0).stable
    (False, True)
    """
    if not samples:
        raise ValueError("no samples")
    medians = [statistics.median(samples[: i + 1]) for i in range(len(samples))]
    median = medians[-1]
    if len(medians) < window:
        return Stability(median, len(samples), float("inf"), False)
    last = medians[-window:]
    centre = max(abs(statistics.median(last)), scale)
    spread = (max(last) - min(last)) / centre if centre else float("inf")
    if centre == 0 and max(last) == min(last):
        spread = 0.0
    return Stability(median, len(samples), spread, spread <= threshold)


def until_stable(
    measure: Callable[[], float],
    min_repeats: int = WINDOW,
    max_repeats: int = MAX_REPEATS,
    window: int = WINDOW,
    threshold: float = THRESHOLD,
) -> tuple[Stability, list[float]]:
    """Call ``measure`` until its running median is stable (see :func:`settle`), at
    least ``min_repeats`` and at most ``max_repeats`` times; returns the verdict and the
    samples."""
    if min_repeats < 1 or max_repeats < min_repeats:
        raise ValueError("need 1 <= min_repeats <= max_repeats")
    samples: list[float] = []
    while True:
        samples.append(measure())
        verdict = settle(samples, window, threshold)
        if len(samples) >= min_repeats and (verdict.stable or len(samples) >= max_repeats):
            return verdict, samples


def figures(data: Any, prefix: str = "") -> dict[str, float]:
    """Every numeric leaf of a benchmark's JSON, keyed by its path (``a.b.0.c``); a list
    of rows that name a ``game`` (and ``players``) is keyed by them instead of the index,
    so runs over different game lists still line up; so is a list of rows that each name
    a different ``bot`` (and no game), whose order (best first) may change between runs.
    Booleans are left out.

    >>> figures({"machine": {"cpus": 2}, "rows": [{"game": "g", "players": 2, "x": 1.5}]})
    {'machine.cpus': 2.0, 'rows.g/2p.players': 2.0, 'rows.g/2p.x': 1.5}
    >>> figures({"rows": [{"bot": "greedy", "mean": 3}, {"bot": "random", "mean": 1}]})
    {'rows.greedy.mean': 3.0, 'rows.random.mean': 1.0}
    >>> figures({"rows": [{"bot": "go", "n": 3}, {"bot": "go", "n": 1}]})  # not unique
    {'rows.0.n': 3.0, 'rows.1.n': 1.0}
    """
    out: dict[str, float] = {}
    if isinstance(data, bool):
        return out
    if isinstance(data, int | float):
        out[prefix] = float(data)
    elif isinstance(data, Mapping):
        for key, value in data.items():
            out.update(figures(value, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(data, list):
        bots = [value.get("bot") if isinstance(value, Mapping) else None for value in data]
        by_bot = all(isinstance(b, str) for b in bots) and len(set(bots)) == len(bots)
        for i, value in enumerate(data):
            label = str(i)
            if isinstance(value, Mapping) and "game" in value:
                label = str(value["game"])
                if "players" in value:
                    label += f"/{value['players']}p"
            elif by_bot:
                label = str(bots[i])  # a table of bots, sorted by result: key by bot
            out.update(figures(value, f"{prefix}.{label}" if prefix else label))
    return out


@dataclass(frozen=True)
class Change:
    """One figure found in both runs."""

    key: str
    before: float
    after: float

    @property
    def ratio(self) -> float | None:
        """after / before (None when before is 0)."""
        return self.after / self.before if self.before else None


NOT_COMPARED = frozenset({"stability", "compared_with_earlier"})
"""Path segments left out of a comparison: how a figure settled is not a figure."""


def compare(before: Any, after: Any) -> list[Change]:
    """The figures of ``after`` that ``before`` has too, in ``after``'s order."""
    old = figures(before)
    return [
        Change(k, old[k], v)
        for k, v in figures(after).items()
        if k in old and NOT_COMPARED.isdisjoint(k.split("."))
    ]


def compare_lines(before: Any, after: Any) -> list[str]:
    """Text lines of :func:`compare`: one per figure, with its relative change.

    >>> for line in compare_lines({"x": 2.0, "y": 0}, {"x": 3.0, "y": 1, "z": 5}):
    ...     print(line)
    compared with the earlier run (2 figures in both):
      x  2 -> 3  (+50.0%)
      y  0 -> 1  (n/a)
    """
    changes = compare(before, after)
    lines = [f"compared with the earlier run ({len(changes)} figures in both):"]
    idle = [_idle_of(run) for run in (before, after)]
    if None not in idle and idle[0] != idle[1]:
        lines.append(
            f"  (the runs' idle cores differ: before {idle[0]}; now {idle[1]}: latencies are not "
            "comparable)"
        )
    for c in changes:
        r = c.ratio
        delta = "n/a" if r is None else f"{100 * (r - 1):+.1f}%"
        lines.append(f"  {c.key}  {c.before:.4g} -> {c.after:.4g}  ({delta})")
    return lines


def _idle_of(run: Any) -> str | None:
    """What a run's idle cores did, in words (None when its JSON does not say).

    >>> _idle_of({"machine": {"cpu_idle": {"driver": "haltpoll", "wakeup_limit_us": None,
    ...     "wakeup_limit_known": True}}})
    'haltpoll, no wake-up limit'
    """
    machine = run.get("machine") if isinstance(run, Mapping) else None
    idle = machine.get("cpu_idle") if isinstance(machine, Mapping) else None
    if not isinstance(idle, Mapping):
        return None
    return cpu_idle.describe(idle).removeprefix("idle cores: ")


def load_earlier(path: Path | None) -> Any:
    """The JSON of an earlier run for ``--compare`` (None without a path); a UserError
    says what is wrong with the file. Read before the benchmark runs, so a bad path fails
    in a second, not after minutes of measuring."""
    if path is None:
        return None
    try:
        return json.loads(path.read_text())
    except OSError as exc:
        raise UserError(f"--compare: cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"--compare: {path} is not JSON ({exc})") from None


def finish(out: dict[str, Any], earlier: Any, as_json: bool) -> None:
    """The end of every benchmark: with ``earlier`` (an earlier run's JSON) the change per
    figure goes into ``out["compared_with_earlier"]`` and, in text mode, is printed; in
    JSON mode ``out`` is printed."""
    if earlier is not None:
        out["compared_with_earlier"] = [
            {"figure": c.key, "before": c.before, "after": c.after, "ratio": c.ratio}
            for c in compare(earlier, out)
        ]
    if as_json:
        print(json.dumps(out, indent=1))
    elif earlier is not None:
        print("\n".join(compare_lines(earlier, out)))


def median_figures(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per key, the median over ``runs`` of a numeric figure (nested dicts too); other
    values are taken from the first run.

    >>> median_figures([{"a": 1, "b": {"c": 2.0}, "n": "x"}, {"a": 3, "b": {"c": 4.0}, "n": "x"}])
    {'a': 2.0, 'b': {'c': 3.0}, 'n': 'x'}
    """
    out: dict[str, Any] = {}
    for key, value in runs[0].items():
        if isinstance(value, dict):
            out[key] = median_figures([r[key] for r in runs])
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out[key] = float(statistics.median(r[key] for r in runs))
        else:
            out[key] = value
    return out


def window_for(max_repeats: int) -> int:
    """The stability window of a benchmark whose repeats are costly: :data:`WINDOW`, or
    fewer when at most ``max_repeats`` fit, but never 1 (one running median always agrees
    with itself, so one repeat is never called stable).

    >>> [window_for(n) for n in (1, 2, 3, 9)]
    [2, 2, 3, 3]
    """
    return max(2, min(WINDOW, max_repeats))


@dataclass(frozen=True)
class Repeated:
    """Repeats of a whole measurement (each a dict of figures) and how each headline
    figure settled: for a benchmark with several figures per repeat, of which a few
    decide when to stop (:func:`repeat_until_stable`)."""

    runs: list[dict[str, Any]]
    """Every repeat's figures, in order."""
    stability: dict[str, Stability]
    """Per headline figure (its :func:`figures` key), how its samples settled."""

    @property
    def stable(self) -> bool:
        """Whether every headline figure settled."""
        return all(s.stable for s in self.stability.values())

    def medians(self) -> dict[str, Any]:
        """The median of every numeric figure over the repeats (:func:`median_figures`)."""
        return median_figures(self.runs)

    def as_json(self) -> dict[str, Any]:
        """The stability of each headline figure, for the JSON (under ``stability``)."""
        return {key: s.as_json() for key, s in self.stability.items()}

    def note(self) -> str:
        """Empty when every headline figure settled, else a warning naming those that did
        not (for the text output)."""
        moving = [key for key, s in self.stability.items() if not s.stable]
        if not moving:
            return ""
        worst = self.stability[moving[0]]
        spread = "n/a" if worst.spread == float("inf") else f"{100 * worst.spread:.0f}%"
        return (
            f" [NOT STABLE after {len(self.runs)} repeats: {', '.join(moving)} (spread {spread})]"
        )


def repeat_until_stable(
    measure: Callable[[], dict[str, Any]],
    headline: Sequence[str],
    min_repeats: int,
    max_repeats: int,
    window: int | None = None,
    threshold: float = THRESHOLD,
    shared_scale: bool = False,
) -> Repeated:
    """Call ``measure`` (one repeat: a dict of figures) until every ``headline`` figure
    (a :func:`figures` key of its result, e.g. ``"sizes.100.median_us"``) is stable by
    :func:`settle`, at least ``min_repeats`` and at most ``max_repeats`` times. The window
    defaults to :func:`window_for` ``(max_repeats)``. A headline key missing from a
    repeat's result is a bug in the benchmark: KeyError names it. With ``shared_scale``
    the headline figures are one table in one unit (e.g. each bot's mean score), and each
    is judged against the largest of their medians (see :func:`settle`'s ``scale``)."""
    if min_repeats < 1 or max_repeats < min_repeats:
        raise ValueError("need 1 <= min_repeats <= max_repeats")
    if not headline:
        raise ValueError("no headline figure")
    size = window_for(max_repeats) if window is None else window
    runs: list[dict[str, Any]] = []
    samples: dict[str, list[float]] = {key: [] for key in headline}
    while True:
        runs.append(measure())
        found = figures(runs[-1])
        for key in headline:
            samples[key].append(found[key])
        scale = (
            max(abs(statistics.median(values)) for values in samples.values())
            if shared_scale
            else 0.0
        )
        verdicts = {key: settle(values, size, threshold, scale) for key, values in samples.items()}
        done = all(v.stable for v in verdicts.values())
        if len(runs) >= min_repeats and (done or len(runs) >= max_repeats):
            return Repeated(runs, verdicts)
