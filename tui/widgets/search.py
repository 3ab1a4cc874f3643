"""The search bar: a prompt, the query input, and what the last search found."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

PLACEHOLDER = 'search: words "a phrase" -not word* OR is:to-read has:code in:file'


class SearchBar(Horizontal):
    """``/ query…                    12/35``. Posts :class:`QueryChanged` on every edit.

    The keys that enter and leave it (``/``; Enter, Down, Esc) are the app's priority bindings,
    so that keys typed ahead over a slow link land where they were meant (see ``tui.app``).
    """

    class QueryChanged(Message):
        """The query text changed (every keystroke; the app debounces)."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    def compose(self) -> ComposeResult:
        yield Static("/", id="search-prompt")
        yield Input(placeholder=PLACEHOLDER, id="query", compact=True)
        yield Static(id="search-status")

    @property
    def input(self) -> Input:
        """The query input."""
        return self.query_one("#query", Input)

    @property
    def value(self) -> str:
        """The query as typed."""
        return self.input.value

    def on_mount(self) -> None:
        # No blinking cursor: over SSH every blink is a redraw, and snapshots stay stable.
        self.input.cursor_blink = False

    def focus_query(self) -> None:
        """Put the keyboard in the query input, at once.

        ``Widget.focus()`` defers the change, and the keys a fast typist sends right after ``/``
        would still reach the table (``u`` would undo a mark); ``Screen.set_focus`` does not.
        """
        self.screen.set_focus(self.input)

    def show_status(self, status: Text) -> None:
        """Show what the last search found (hits, position, a correction…)."""
        self.query_one("#search-status", Static).update(status)

    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.QueryChanged(event.value))
