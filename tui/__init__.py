"""papertray's front ends, one sub-package each: the command line (:mod:`tui.cli`) and the
Textual browser (:mod:`tui.browser`); :mod:`tui.glyphs` is what both draw, :mod:`tui.actions`
the actions a key can do and :mod:`tui.keymap` the keys the reader gives them (``keys.toml``).

Neither writes SQL: both call :class:`db.Library`. The command line imports the browser only to
start it.
"""
