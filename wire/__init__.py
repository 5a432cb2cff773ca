"""The wire binding: engine JSON <-> the ``menagerie.v1`` protobuf messages.

Shared by the game server (``arena.server``) and the bot SDK (``bots.sdk``), so that
neither imports the other; like the generated code it wraps, it does no I/O and imports
nothing of ``engine``, ``bots`` or ``arena``. See :mod:`wire.convert`.
"""
