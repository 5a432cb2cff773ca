"""Benchmarks, one module per ``arena bench`` command.

``engine`` (random playouts per game), ``grpc`` (the move round trip and load, with its
client processes in ``grpc_client``), ``arena`` (tournament games/s on Ray) and
``strength`` (the strength ladder of the reference bots), ``sandbox`` (what the sandbox
of command bots costs at start-up and per move).
"""
