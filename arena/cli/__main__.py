"""``python -m arena.cli``: the ``arena`` command line."""

from arena.cli.app import main

main()
