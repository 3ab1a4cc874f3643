"""The ``papertray`` command line (click): :mod:`tui.cli.main` holds the group, the entry point
and the commands on papers and the index; :mod:`~tui.cli.reader`, :mod:`~tui.cli.marks` and
:mod:`~tui.cli.export` add the others. Plain ``papertray`` starts the browser
(:mod:`tui.browser`), imported only then: a command never loads Textual.
"""
