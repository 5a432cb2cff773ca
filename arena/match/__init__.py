"""Matches: one game between bots, its record, and the bots themselves.

Modules: ``runner`` (``play_match``/``match_steps``: the match runner and its failure
policy; it also names the in-process bot interface it plays, ``Bot``, ``Turn`` and
``BotFailure`` from ``bots.base``), ``records`` (the ``menagerie.record/1`` format,
reading and verification), ``specs`` (bot specs -> bots: the one spec parser),
``cmdbots`` (``cmd:`` bots: programs started per match that play over gRPC through an
embedded game server).
"""
