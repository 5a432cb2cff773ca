"""Bots: the in-process bot interface, the reference bots and the gRPC bot SDK."""

from bots.base import Bot, BotFailure, BotSpecError, Turn

__all__ = ["Bot", "BotFailure", "BotSpecError", "Turn"]
