"""Bot specs -> bots, for the arena: the one place a worker builds a bot.

A bot travels to Ray workers as its spec string and is built there by
:func:`build_bot`; ``cmd:`` bots are programs started for each match that connect back
over gRPC (``arena.cmdbots``; the runner hands them to ``open_bots``).
"""

from __future__ import annotations

from bots import BotSpecError, make_bot
from bots.base import Bot, Turn
from engine import Action


def check_spec(spec: str) -> None:
    """Raise BotSpecError (a ValueError) unless ``spec`` names a bot that can be built."""
    spec = spec.strip()
    if not spec:
        raise BotSpecError("empty bot spec")
    if is_cmd(spec):
        from arena.cmdbots import command_argv

        command_argv(spec)
        return
    make_bot(spec)


def is_cmd(spec: str) -> bool:
    """A ``cmd:`` spec: a program that plays over gRPC."""
    return spec.strip().startswith("cmd:")


def build_bot(name: str, spec: str) -> Bot:
    """Build the bot ``spec`` and give it the roster ``name`` (shown in records)."""
    if is_cmd(spec):
        raise BotSpecError(f"{name}: a cmd: bot is a program, started by arena.cmdbots.open_bots")
    bot = make_bot(spec)
    try:
        bot.name = name
    except AttributeError:  # a read-only name: wrap it
        bot = _Named(bot, name)
    return bot


class _Named:
    """A bot under another name."""

    def __init__(self, bot: Bot, name: str) -> None:
        self._bot = bot
        self.name = name
        self.spec = getattr(bot, "spec", name)
        self.version = getattr(bot, "version", "1")

    def choose(self, turn: Turn) -> Action | int:
        return self._bot.choose(turn)
