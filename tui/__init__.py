"""papertray's front ends: the Textual browser (:mod:`tui.app`) and the command line
(:mod:`tui.cli`).

Neither writes SQL: both call :class:`db.Library`.
"""
