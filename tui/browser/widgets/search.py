"""The search bar: a prompt, the query input, and what the last search found."""

from __future__ import annotations

import functools

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.geometry import Region
from textual.message import Message
from textual.widgets import Input, Static

from tui.browser.display import pasted_query, query_safe
from tui.browser.widgets.line import CutLine

PLACEHOLDER = 'search: words "a phrase" -not word* OR is:to-read has:code in:file'


class QueryInput(Input):
    """The query input: one line of clean text, edited by keys in the order they were typed.

    * Every value is made :func:`~tui.browser.display.query_safe` (no control or escape
      characters), and a paste becomes one line (:func:`~tui.browser.display.pasted_query`): a
      line break in a paste never acts as Enter.
    * Editing keys (Backspace, ctrl+u, arrows…) are bindings, and Textual runs a binding when
      the key has bubbled up to the app, after the letters typed behind it are inserted
      (``/``, Backspace, ``xyz`` in one burst would give ``xy``). Here the input runs its
      bindings as the key reaches it, so keys edit the query in the order they were typed.
    """

    def validate_value(self, value: str) -> str:
        """The value with unsafe characters made spaces (same length: the cursor stays put)."""
        return query_safe(value)

    def insert_query(self, text: str) -> None:
        """Insert pasted ``text`` (cleaned to one line) at the cursor, over any selection."""
        text = pasted_query(text)
        if not text:
            return
        selection = self.selection
        if selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *selection)

    def on_paste(self, event: events.Paste) -> None:
        """Pasted text goes into the query, cleaned; Input's own handler is skipped (it keeps
        the first line with its control characters)."""
        event.stop()
        event.prevent_default()
        self.insert_query(event.text)

    def on_resize(self) -> None:
        """Keep the cursor in view when the input narrows (the search status beside it grows,
        "only the first 32 words are used"): Input scrolls to its cursor only as it moves."""
        self.call_after_refresh(self._show_cursor)

    def _show_cursor(self) -> None:
        cursor = cell_len(self.value[:self.cursor_position]) + (1 if self.cursor_at_end else 0)
        self.scroll_to_region(Region(cursor, 0, width=1, height=1), force=True, animate=False)

    async def on_key(self, event: events.Key) -> None:
        """Run the input's own binding of a non-printable key here and now.

        Not through ``Screen.active_bindings``: that follows the focus, and after ``⏎`` in a
        burst the focus is on the table while the keys typed before it still reach the input.
        """
        if event.is_printable:
            return  # Input inserts it, in order
        for binding in _own_bindings(type(self)):
            if event.key in binding.key.split(","):
                if await self.app.run_action(binding.action, self):
                    event.stop()
                return


@functools.cache
def _own_bindings(cls: type[Input]) -> list[Binding]:
    """The bindings ``cls`` and its bases declare, the nearest class first."""
    found: list[Binding] = []
    for klass in cls.__mro__:
        found += Binding.make_bindings(klass.__dict__.get("BINDINGS", []))
    return found


class SearchBar(Horizontal):
    """``/ query…                    12/35``. Posts :class:`QueryChanged` on every edit.

    The keys that enter and leave it (``/``; Enter, Down, Esc) and walk the query history
    (Up, Down: :mod:`tui.actions`) are the app's priority bindings,
    so that keys typed ahead over a slow link land where they were meant (see ``tui.browser.app``).
    """

    class QueryChanged(Message):
        """The query text changed (every keystroke; the app debounces)."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    _status: Text | None = None  # the status shown (show_status)

    def __init__(self, cut_mark: str | None = None, **kwargs) -> None:
        """``cut_mark`` ends the status where it is cut (None: the .tcss's ellipsis)."""
        super().__init__(**kwargs)
        self.cut_mark = cut_mark

    def compose(self) -> ComposeResult:
        yield Static("/", id="search-prompt")
        yield QueryInput(placeholder=PLACEHOLDER, id="query", compact=True)
        yield CutLine(self.cut_mark, id="search-status")

    @property
    def input(self) -> QueryInput:
        """The query input."""
        return self.query_one("#query", QueryInput)

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

    def paste(self, text: str) -> None:
        """Put the keyboard in the query and paste ``text`` there, as ``/`` and a paste would:
        over the query, which the input selects as it gets the focus."""
        self.focus_query()
        self.input.call_later(self.input.insert_query, text)  # after the input's Focus event

    def show_status(self, status: Text) -> None:
        """Show what the last search found (hits, position, a correction…).

        The same status again is not redrawn: every update lays the whole screen out anew
        (about 10 ms at 87k papers), and the cursor's highlight event repeats the status
        its search has just shown."""
        if _same_text(status, self._status):
            return
        self._status = status.copy()
        self.query_one("#search-status", CutLine).update(status)

    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        # a query keeps the status at a steady width (the .tcss): no second layout at each key
        self.set_class(bool(event.value), "-query")
        self.post_message(self.QueryChanged(event.value))


def _same_text(a: Text | None, b: Text | None) -> bool:
    """Whether two ``Text`` are drawn alike: same characters, spans and style."""
    if a is None or b is None:
        return a is b
    return (a.plain == b.plain and a.spans == b.spans and a.style == b.style
            and a.overflow == b.overflow and a.no_wrap == b.no_wrap)
