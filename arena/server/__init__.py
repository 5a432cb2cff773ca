"""The gRPC game server: tables (matches), remote seats, the GameService, ``arena serve``.

Modules: ``app`` (GameServer: start/stop, health, reflection, hosting; RecordJournal),
``hub`` (tables and credentials, ServerConfig, ``drive``), ``table`` (one match),
``seats`` (RemoteSeat, the Bot adapter of a remote seat, and SeatTable, what it needs of
its table), ``service`` (RPC handlers), ``messages`` (engine values -> wire messages),
``streams`` (outbound queues, rate limit), ``probe`` (LoadProbe: event-loop delay,
collector pauses, CPU). ``arena serve`` is ``arena.cli.server``.

The server plays matches with ``arena.match`` and converts with ``wire``; it imports
nothing of ``bots``.
"""
