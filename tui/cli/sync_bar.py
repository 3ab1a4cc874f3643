"""The sync's progress bar on the command line, drawn on standard error while papers are parsed.

``reading seed files ━━━━━━━━━━━━━━━╸━━━━━━━━━━ 41,210 of 87,409 papers · 3,862/s · 12 s left``
(:class:`tui.progress.ProgressFigures`), then ``writing the index`` while the last papers and
the FTS index are written. It appears only when standard error is a terminal, at the first
paper parsed (a sync with nothing to parse draws nothing), and is cleared when the sync ends,
so a script, a pipe or ``--json`` sees none of it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import TextIO

from tui.progress import ProgressFigures


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal (a pipe, a file, a closed stream: False)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False


@contextlib.contextmanager
def sync_bar(show: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback (papers; :data:`db.index.sync.Progress`) for
    :meth:`db.Library.sync` that draws the bar on standard error, or None when ``show`` is
    false; the bar is removed on leaving."""
    if not show:
        yield None
        return
    # Rich (Textual's) is loaded only here: the other commands start without it
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn

    console = Console(file=sys.stderr, no_color="NO_COLOR" in os.environ or None)
    bar = Progress(TextColumn("{task.description}"), BarColumn(),
                   TextColumn("{task.fields[figures]}"), console=console, transient=True,
                   refresh_per_second=8)
    task = bar.add_task("reading seed files", total=None, figures="")
    figures = ProgressFigures(time.monotonic())

    def progress(done: int, total: int) -> None:
        if not bar.live.is_started:
            bar.start()
        label = "writing the index" if done >= total else "reading seed files"
        # drawn at once: each count is shown, however short the sync (a few per second)
        bar.update(task, completed=done, total=max(total, 1), description=label,
                   figures=figures.text(done, total, time.monotonic()), refresh=True)

    try:
        yield progress
    finally:
        bar.stop()
