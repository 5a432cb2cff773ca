"""The arena: matches, the game server, Ray tournaments, replay and analysis, the CLI.

Subpackages, one concern each: ``match`` (runner, records, bot specs, command bots),
``server`` (the gRPC game server), ``tournament`` (config, schedule, Ray, journal,
ratings, tracking, the run), ``replay`` (sources, replay, viewer, analysis), ``bench``
(benchmarks), ``botcheck`` (``arena bot check``) and ``cli`` (the ``arena`` command).
"""
