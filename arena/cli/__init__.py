"""The ``arena`` command line: one Typer app, one module per command group.

==========================  ===========================================
``arena.cli.play``          ``games``, ``play``, ``verify``
``arena.cli.tournament``    ``tournament``, ``ratings``, ``sync``
``arena.cli.replay``        ``replay``, ``stats``, ``export``, ``viewers``
``arena.cli.server``        ``serve``
``arena.cli.bench``         ``bench engine|grpc|arena|strength``
``arena.cli.bot``           ``bot check``
``arena.cli.common``        user errors (``USER_ERRORS``), ``--options``, output
``arena.cli.app``           the Typer app of them all, ``main``
==========================  ===========================================

``arena.cli.app`` puts the app together (``arena.cli.app:main`` is the console script;
``python -m arena.cli`` runs it too).
"""
