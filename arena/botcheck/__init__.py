"""``arena bot check COMMAND``: a conformance kit for bot programs in any language.

The program is started exactly as the arena starts a ``cmd:`` bot (``COMMAND --address
127.0.0.1:PORT --credential SECRET``, the same values in ``MENAGERIE_ADDRESS`` and
``MENAGERIE_CREDENTIAL``; see :mod:`arena.match.cmdbots`) against the real embedded game
server on the loopback interface, seated against in-process random bots (2 players when
the game allows it). For each game (default: every registered game) it runs, with fixed
seeds so that a failure reproduces:

- **game 1** (the bot in seat 0) and then **game 2** (a fresh process in the last seat):
  complete games with the move clock ``--move-ms`` and the ``random`` failure policy, so
  one bad move does not end the check (the kit stops a program after
  :data:`MAX_FAILURES` failures in one game);
- two **server closes** mid-game, while the bot waits for its next turn: a graceful
  shutdown of the server (the bot gets GameOver with status ``aborted``, then its stream
  ends) and a lost server (its stream ends with ``UNAVAILABLE`` and no GameOver).

and reports five checks per game, in plain words:

``join``
    the program connects and joins with its credential within the join timeout;
``deadline``
    every answer arrives within the move clock (plus the server's transport margin);
``legal``
    every move is legal (an index in range, or a typed action that is one of the legal
    actions);
``game_end``
    the bot stays until GameOver, then exits by itself with status 0 within
    :data:`arena.match.cmdbots.EXIT_GRACE_S` s (the arena kills it after that), and the next
    game (game 2) works as well;
``server_close``
    after each server close the program exits by itself within ``--close-timeout`` s
    (any exit status) instead of hanging.

A check is ``pass``, ``fail`` or ``skip`` (it could not be run because of an earlier
failure, e.g. a bot that never joins). The command exits with status 1 if any check
fails (``arena bot check``, :mod:`arena.cli.bot`).

Modules: ``model`` (the config, the checks, runs and reports), ``runs`` (starting and
playing the program; ``check_bot``), ``judge`` (the checks from the runs; the report).
"""
