"""The ladder's errors: each says in one line what is wrong and, where it can, what to do.

All are ``ValueError``s (``LadderError``), which the command line reports as user errors
(``arena.cli.common.USER_ERRORS``): one line and exit status 2, never a traceback.
"""

from __future__ import annotations


class LadderError(ValueError):
    """Anything the ladder refuses."""


class UnknownLadder(LadderError):
    """No ladder of that name."""


class UnknownBot(LadderError):
    """No bot, version or match of that name or id."""


class DuplicateError(LadderError):
    """A ladder name, or a bot's version number, that already exists."""


class StatusError(LadderError):
    """A state change that the entity's status does not allow (e.g. starting a done match)."""


class LeaseHeld(LadderError):
    """Another runner drives the ladder and its lease has not expired."""


class LeaseLost(LadderError):
    """This runner's lease expired and was taken over (or released): stop driving."""


class StaleMatch(LadderError):
    """A result for a match that is no longer running under this lease: not counted."""


class SubmissionError(LadderError):
    """A submission that cannot be packed or unpacked (too large, unsafe path, corrupt)."""


class LadderDatabaseError(LadderError):
    """The database stayed locked or unreachable through every retry."""
