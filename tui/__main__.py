"""``python -m tui``: the ``papertray`` command (``papertray serve`` starts the browser so)."""

from tui.cli.main import main

main()
