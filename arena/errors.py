"""User errors: reported as one clear line and a non-zero exit, never a traceback.

A leaf module (it imports nothing of the arena): any module may raise :class:`UserError`.
Which exceptions the command line reports that way is decided in ``arena.cli.common``
(``USER_ERRORS``).
"""

from __future__ import annotations


class UserError(ValueError):
    """Anything the user got wrong (a flag, a file, a config)."""
