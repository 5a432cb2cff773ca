"""The Node example bot's build (``npm ci``) for the lobby tests: the fixture of
``tests/bots/conftest.py``, shared so the build happens once per session."""

from tests.bots.conftest import node_bot

__all__ = ["node_bot"]
