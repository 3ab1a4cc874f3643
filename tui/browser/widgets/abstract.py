"""The abstract panel: the cursor paper's label, status, sources and its rendered abstract."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.signal import Signal
from textual.widgets import Static

from db.models import Paper
from tui.browser.display import paper_text


class _Body(Static):
    """The panel's text. Its size changes with each paper; the panel, not the text, scrolls.

    Textual lays the screen out a second time, in a second frame, when a widget's scrollable
    size changes during a layout (``Widget._size_updated``); the text scrolls nothing, and
    the panel around it is laid out with the new text already: the second layout (5-20 ms
    at each keystroke at 87k papers) would change nothing. It takes the new size without it.
    """

    def _size_updated(self, size, virtual_size, container_size,  # (textual_private)
                      layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class AbstractPanel(VerticalScroll, can_focus=False):
    """A scrollable view of one paper; the app scrolls it (space/J/K) while the table has focus.

    Not focusable, so that Tab moves between the search bar and the table only. Each change of
    what it shows is published on :attr:`shown_signal` (the reading view shows the same).
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "abstract--label", "abstract--meta", "abstract--highlight", "abstract--math",
        "abstract--new", "abstract--to-read", "abstract--read", "abstract--dismissed",
        "abstract--tag", "abstract--note",
    }

    def __init__(self, glyphs: Mapping[str, str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs
        self.paper: Paper | None = None
        """The paper shown, or None when the panel shows a message."""
        self.terms: tuple[str, ...] = ()
        """Folded query words to highlight in the abstract."""
        self.message: Text | None = None
        """The message shown instead of a paper (when :attr:`paper` is None)."""
        self.shown_signal: Signal[AbstractPanel] = Signal(self, "shown")
        """Published with the panel after each change of the paper, its status or the message
        shown."""

    def compose(self) -> ComposeResult:
        yield _Body(id="abstract-body")

    def show_paper(self, paper: Paper, terms: Sequence[str]) -> None:
        """Show ``paper`` from its top, highlighting ``terms``."""
        same = self.paper is not None and self.paper.id == paper.id
        self.paper, self.terms = paper, tuple(terms)
        self._draw()
        if not same:
            self.scroll_home(animate=False)

    def set_status(self, paper_id: str, status: str) -> None:
        """Show a new status for ``paper_id`` if it is the paper shown."""
        if self.paper is not None and self.paper.id == paper_id and self.paper.status != status:
            self.paper = dataclasses.replace(self.paper, status=status)
            self._draw()

    def show_message(self, message: Text) -> None:
        """Show ``message`` instead of a paper."""
        self.paper, self.message = None, message
        self.query_one("#abstract-body", Static).update(message)
        self.scroll_home(animate=False)
        self.shown_signal.publish(self)

    def _draw(self) -> None:
        assert self.paper is not None
        style = self.get_component_rich_style
        styles = {name: style(f"abstract--{name}", partial=True)
                  for name in ("label", "meta", "highlight", "math", "new", "to-read", "read",
                               "dismissed", "tag", "note")}
        body = paper_text(self.paper, self.terms, self.glyphs, styles)
        self.message = None
        self.query_one("#abstract-body", Static).update(body)
        self.shown_signal.publish(self)
