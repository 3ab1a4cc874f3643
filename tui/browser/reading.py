"""The reading view's steps in the app: opening it on the cursor paper (Enter), the next and
previous paper of the list (``j``/``k``), marks that stay on the paper, its top line and its
keys in the help (a mixin for :class:`tui.browser.app.PapertrayApp`; the view is
:class:`~tui.browser.reading_screen.ReadingScreen`).

The view reads the list through the results table's cursor: ``j`` moves the cursor (a window
not loaded yet is loaded as on the table, and the keys typed next wait for it:
:mod:`tui.browser.keys`), the panel loads the cursor paper and the view shows it. A mark goes
through the one queue of marks (:meth:`~tui.browser.marking.MarkingApp.mark_cursor_paper`),
written at once; the cursor stays. So Escape finds the cursor on the paper last shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from rich.text import Text
from textual.binding import Binding

from db.text import one_line
from tui.actions import READING_ACTIONS, KeyAction
from tui.browser.base import BrowserBase
from tui.browser.bindings import in_force
from tui.browser.reading_screen import ReadingScreen, shared_actions
from tui.browser.screens import KeyHelp

#: The help's section of the reading view's keys.
SECTION = "Reading a paper (Enter on a row)"


class ReadingApp(BrowserBase):
    """The reading view's actions. The other parts of the app provide the table, the panel,
    the query and filter (``_query``, ``status_filter``), ``glyphs``, the marks
    (``mark_cursor_paper``) and the input pipeline (``_keys_may_go``)."""

    def action_open_paper(self) -> None:
        """Open the reading view on the cursor paper (nothing when the list is empty)."""
        if self.table.current_id is None or isinstance(self.screen, ReadingScreen):
            return
        # the keys typed after Escape go on once the list is back
        self.push_screen(ReadingScreen(self.panel, self._reading_place),
                         lambda _: self._keys_may_go())

    def action_read_step(self, step: int) -> None:
        """Read the next (``step`` 1) or previous (-1) paper of the list: the cursor moves
        (loading the next window of hits at the window's edge); at the list's end, a notice."""
        table = self.table
        if not table.row_count:
            return
        here = table.window_offset + table.cursor_row
        if step > 0 and here + 1 >= table.total:
            self.notify("the last paper of the list", timeout=2)
        elif step < 0 and here == 0:
            self.notify("the first paper of the list", timeout=2)
        elif step > 0:
            table.action_cursor_down()
        else:
            table.action_cursor_up()

    def action_mark_shown(self, status: str) -> None:
        """Mark the paper the reading view shows (the cursor paper) ``status``; the view stays
        on it and shows its new status."""
        self.mark_cursor_paper(status)

    def _reading_place(self) -> Text:
        """The view's top line: the paper's place in the list and what the list is,
        ``12/35 · to-read papers · query: graph neural``."""
        table, sep = self.table, self.glyphs["sep"]
        line = Text(" ", end="", no_wrap=True)
        place = table.window_offset + table.cursor_row + 1 if table.row_count else 0
        line.append(f"{place}/{table.total}", "bold")
        line.append(f"{sep}{self.status_filter} papers")
        if self._query.strip():
            line.append(f"{sep}query: ")
            line.append(one_line(self._query))
        return line

    def _reading_help(self, keys: Mapping[str, tuple[str, ...]],
                      key_display: Callable[[Binding], str]) -> list[KeyHelp]:
        """The help's lines for the reading view, with the keys in force (``keys``: by action
        name): its own actions, one line for the marks, then undo and help."""
        def shown(actions: list[KeyAction]) -> str:
            return " ".join(key_display(b) for b in in_force(actions, keys))

        lines = [KeyHelp(SECTION, shown([a]), a.tooltip) for a in READING_ACTIONS]
        marks = [a for a in shared_actions() if a.reading.startswith("mark_shown(")]
        lines.append(KeyHelp(SECTION, shown(marks), "Mark the paper shown "
                             + ", ".join(a.reading.split("'")[1] for a in marks)
                             + " (the view stays on it and shows its new status)"))
        lines.extend(KeyHelp(SECTION, shown([a]), a.tooltip) for a in shared_actions()
                     if a not in marks)
        return lines
