"""The reading view (Enter on a row): one paper full screen, with the keys to read the list
paper by paper and mark each.

The view shows what the abstract panel of the main screen shows, as the panel shows it
(:func:`tui.browser.display.paper_text`: the name or title, every field, the note and tags,
the whole abstract, the links), so a field the panel gains the view shows too. It is a view of
the results table's cursor paper: its keys for the list (``j``/``k``) and the mark keys run the
app's actions on the cursor paper (:mod:`tui.browser.reading`), and the view follows the panel
(:attr:`~tui.browser.widgets.AbstractPanel.shown_signal`). Its own keys scroll the paper and
close it: the cursor is then on the paper last shown.

A modal screen: the keys of the results (``/``, the filters, ``v``...) do not act under it;
the priority keys that work anywhere (``ctrl+q``, ``ctrl+z``, ``ctrl+p``) do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.screen import ModalScreen

from tui.actions import APP_ACTIONS, READING_ACTIONS, KeyAction
from tui.browser.bindings import bindings_of
from tui.browser.closing import ClosesOnce
from tui.browser.widgets import AbstractPanel, KeysFooter
from tui.browser.widgets.line import CutLine
from tui.glyphs import ASCII_GLYPHS


def shared_actions() -> list[KeyAction]:
    """The app's actions whose keys work in the reading view too (the marks, undo, help, the
    links and copies)."""
    return [action for action in APP_ACTIONS if action.reading]


def reading_bindings() -> list[Binding]:
    """The view's bindings: its own (:data:`~tui.actions.READING_ACTIONS`) and the app's
    actions' that work there, each with the id of the app's binding, so that ``keys.toml``
    (Textual's keymap, by id) gives the mark keys the same keys in both places. In the footer's
    order: the papers of the list (the first two of its own), the marks and undo, help, back."""
    own = bindings_of(READING_ACTIONS)
    shared = [Binding(",".join(a.keys), f"app.{a.reading}", a.label, show=a.show, id=a.id,
                      tooltip=a.tooltip)
              for a in sorted(shared_actions(), key=lambda a: a.name == "help")]
    return [*own[:2], *shared, *own[2:]]


class ReadingScreen(ModalScreen[None], ClosesOnce):
    """One paper full screen: a line with its place in the list, the paper as the abstract
    panel shows it (scrolled here), and the footer."""

    BINDINGS: ClassVar[list[BindingType]] = reading_bindings()

    def __init__(self, source: AbstractPanel, place: Callable[[], Text]) -> None:
        """``source``: the main screen's abstract panel, whose paper the view shows;
        ``place``: the top line (the paper's place in the list, the query, the filter)."""
        super().__init__()
        self.source, self.place = source, place

    @property
    def paper_id(self) -> str | None:
        """The id of the paper the view shows (None: it shows a message)."""
        paper = self.query_one("#reading-paper", AbstractPanel).paper
        return paper.id if paper is not None else None

    def compose(self) -> ComposeResult:
        glyphs = self.source.glyphs
        yield CutLine(glyphs["more"] if glyphs is ASCII_GLYPHS else None, id="reading-place")
        with Container(id="reading-column"):  # centres the paper on a wide terminal
            yield AbstractPanel(glyphs, id="reading-paper")
        yield KeysFooter()

    def on_mount(self) -> None:
        self._mirror(self.source)
        self.source.shown_signal.subscribe(self, self._mirror, immediate=True)

    def on_unmount(self) -> None:
        self.source.shown_signal.unsubscribe(self)

    def _mirror(self, source: AbstractPanel) -> None:
        """Show what ``source`` shows now: the same paper keeps its place in the text."""
        self.query_one("#reading-place", CutLine).update(self.place())
        panel = self.query_one("#reading-paper", AbstractPanel)
        if source.paper is not None:
            panel.show_paper(source.paper, source.terms)
        else:
            panel.show_message(source.message or Text(""))

    async def action_scroll(self, how: str) -> None:
        """Scroll the paper: ``page-down`` (at its end: the next paper, as in mutt's pager),
        ``page-up``, a line ``down`` or ``up``, to the ``top`` or the ``end``."""
        panel = self.query_one("#reading-paper", AbstractPanel)
        if how == "page-down" and panel.scroll_y >= panel.max_scroll_y:
            await self.app.run_action("read_step(1)")
            return
        scroll = {"page-down": panel.scroll_page_down, "page-up": panel.scroll_page_up,
                  "down": panel.scroll_down, "up": panel.scroll_up,
                  "top": panel.scroll_home, "end": panel.scroll_end}[how]
        scroll(animate=False)

    def action_close(self) -> None:
        """Back to the list: the cursor is on the paper shown."""
        self.source.shown_signal.unsubscribe(self)
        self.dismiss(None)
