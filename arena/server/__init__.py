"""The gRPC game server: tables (matches), remote seats, the GameService, ``arena serve``.

Modules: ``app`` (GameServer: start/stop, health, reflection, hosting), ``hub``
(tables and credentials, ServerConfig, ``drive``), ``table`` (one match), ``seats``
(RemoteSeat, the Bot adapter of a remote seat), ``service`` (RPC handlers),
``messages`` (engine values -> wire messages), ``streams`` (outbound queues, rate
limit), ``cli`` (``arena serve``, ``arena bench grpc``).
"""

from arena.server.app import GameServer, ServerError
from arena.server.hub import ServerConfig, drive
from arena.server.seats import RemoteSeat
from arena.server.table import MatchAborted, Table

__all__ = [
    "GameServer",
    "MatchAborted",
    "RemoteSeat",
    "ServerConfig",
    "ServerError",
    "Table",
    "drive",
]
