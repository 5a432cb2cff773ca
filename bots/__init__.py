"""Bots: the in-process bot interface, the reference bots and the gRPC bot SDK."""

from bots.base import Bot, BotFailure, BotSpecError, Turn
from bots.registry import make_bot

__all__ = ["Bot", "BotFailure", "BotSpecError", "Turn", "make_bot"]
