"""Typed reading of observation JSON for the games' rebuilds (``Game._from_observation``).

An observation arrives as parsed JSON: every field may have any type. The readers here
check one value and return it with its type, or raise :class:`ValueError` in one style,
``observation field {where} must be ...``, where ``where`` is the field's path as the
rebuild names it (``players[1].food``). :func:`first_difference` names the first place
where a given observation differs from the one a rebuilt state shows.

Everything here is pure: no I/O.

>>> read_int(3, "round", 1, 3)
3
>>> read_int(True, "round")
Traceback (most recent call last):
...
ValueError: observation field round must be an integer, got True
>>> first_difference({"players": [{"score": 5}]}, {"players": [{"score": 9}]})
'players[0].score is 5, but the rest of the observation implies 9'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

JSON = Any
"""A JSON-able value (dict, list, str, int, float, bool or None); ``engine.core`` exports it.
Defined here because this module is a leaf that ``engine.core`` imports."""

_SHOWN = 200
"""At most this many characters of a value are quoted in a message."""


def _bad(where: str, what: str, value: JSON) -> ValueError:
    return ValueError(f"observation field {where} must be {what}, got {_show(value)}")


def read_int(value: JSON, where: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an integer (not a bool) within ``low..high`` (either bound optional)."""
    is_int = isinstance(value, int) and not isinstance(value, bool)
    if is_int and (low is None or low <= value) and (high is None or value <= high):
        return cast(int, value)  # is_int: mypy does not narrow through a saved condition
    if low is not None and high is not None:
        raise _bad(where, f"an integer {low}..{high}", value)
    if low is not None:
        raise _bad(where, f"an integer >= {low}", value)
    if high is not None:
        raise _bad(where, f"an integer <= {high}", value)
    raise _bad(where, "an integer", value)


def read_list(value: JSON, where: str, length: int | None = None) -> list[JSON]:
    """``value`` as a list (the same object), of ``length`` entries if that is given."""
    if not isinstance(value, list):
        raise _bad(where, "a list", value)
    if length is not None and len(value) != length:
        raise ValueError(f"observation field {where} must have {length} entries, got {len(value)}")
    return value


def read_obj(value: JSON, where: str) -> Mapping[str, JSON]:
    """``value`` as a JSON object."""
    if not isinstance(value, Mapping):
        raise _bad(where, "an object", value)
    return value


def read_str(value: JSON, where: str) -> str:
    """``value`` as a string."""
    if not isinstance(value, str):
        raise _bad(where, "a string", value)
    return value


def read_bool(value: JSON, where: str) -> bool:
    """``value`` as a bool (``true`` or ``false``, not 0 or 1)."""
    if not isinstance(value, bool):
        raise _bad(where, "true or false", value)
    return value


def first_difference(got: JSON, want: JSON, where: str = "observation") -> str | None:
    """The first place where ``got`` (as given) differs from ``want`` (what the rest of it
    implies, e.g. a rebuilt state's observation), or None if they are equal.

    Objects are compared field by field in ``want``'s order (a field of ``got`` that
    ``want`` lacks comes last) and lists of equal length entry by entry; the text names the
    path below ``where``, which names the whole value:

    >>> first_difference({"a": [1, 2]}, {"a": [1, 3]})
    'a[1] is 2, but the rest of the observation implies 3'
    >>> first_difference({"a": 1, "b": 2}, {"a": 1, "c": 2})
    'c is missing'
    >>> first_difference({"a": 1, "b": 2}, {"a": 1})
    'unknown field b'
    >>> first_difference([1, 2], [1], "hand")
    'hand is [1, 2], but the rest of the observation implies [1]'
    """
    return _difference(got, want, "", where)


def _difference(got: JSON, want: JSON, path: str, where: str) -> str | None:
    if got == want:
        return None
    if isinstance(got, Mapping) and isinstance(want, Mapping):
        for key, value in want.items():
            if key not in got:
                return f"{_field(path, key)} is missing"
            found = _difference(got[key], value, _field(path, key), where)
            if found:
                return found
        for key in got:
            if key not in want:
                return f"unknown field {_field(path, key)}"
        return None  # equal as mappings, e.g. a dict and another Mapping
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            found = _difference(a, b, f"{path or where}[{i}]", where)
            if found:
                return found
        return None
    shown = f"{path or where} is {_show(got)}"
    return f"{shown}, but the rest of the observation implies {_show(want)}"


def _field(path: str, key: object) -> str:
    name = key if isinstance(key, str) and key.isidentifier() else f"[{key!r}]"
    if not path:
        return name
    return path + name if name.startswith("[") else f"{path}.{name}"


def _show(value: JSON) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
