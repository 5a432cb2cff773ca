"""``python -m arena.cli``: the ``arena`` command line."""

from arena.cli import main

main()
