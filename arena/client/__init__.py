"""Client tools: talk to a game server as a person or a script, not as a bot.

Modules: ``connection`` (the channel, the admin token, gRPC errors as clear
:class:`ClientError` messages), ``matches`` (CreateMatch, GetMatch, ListMatches, and
the local list of created matches for servers without ListMatches), ``watch`` (the Watch
stream shown in the terminal: the public view or a seat's), ``render`` (a view as
text), ``protos`` (the packaged ``.proto`` files). The commands are ``arena match ...``,
``arena watch`` and ``arena proto`` (``arena.cli.match``, ``arena.cli.watch``); a seat
played by hand is ``bots.human``.

Imports nothing of ``arena.server``: everything goes over the wire, as it would from
another machine.
"""
