"""The saved-searches screen (``B``): each saved search with its hits, how many are new and how
many arrived since it was last opened; Enter opens one, Delete removes one."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from db.library.saved import SavedCounts
from db.text import one_line
from tui.browser.closing import ClosesOnce

#: What the screen gives back: ("open" or "remove", the saved search's name), or None.
Choice = tuple[str, str] | None


def saved_line(c: SavedCounts, width: int) -> Text:
    """``diffusion watch      12 hits   3 new   2 arrived   diffusion policy is:new``."""
    s = c.search
    line = Text(f"{one_line(s.name):<{width}}  ", style="bold", end="")
    line.append(f"{c.total:>5} hits {c.new:>5} new ")
    line.append(f"{c.arrived:>4} arrived", "bold" if c.arrived else "")
    extra = "".join((f" is:{s.status}" if s.status != "all" else "",
                     f" (by {s.sort})" if s.sort != "relevance" else ""))
    line.append(f"   {one_line(s.query) or '(every paper)'}{extra}", "italic")
    return line


class SavedSearchesScreen(ModalScreen[Choice], ClosesOnce):
    """The saved searches, one line each (:func:`saved_line`), by name."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,B", "close", "close", id="saved.close", tooltip="Close the list"),
        Binding("delete,x", "remove", "remove", id="saved.remove",
                tooltip="Remove the saved search under the cursor"),
    ]

    def __init__(self, searches: list[SavedCounts]) -> None:
        super().__init__()
        self.searches = searches

    def compose(self) -> ComposeResult:
        with Vertical(id="saved-box"):
            if not self.searches:
                yield Static(Text("no saved searches yet: b saves the query shown, with its "
                                  "filter and sort", end=""), id="saved-empty")
                return
            width = max(len(c.search.name) for c in self.searches)
            yield OptionList(*(Option(saved_line(c, width), id=c.search.name)
                               for c in self.searches), id="saved-list")

    def on_mount(self) -> None:
        box = self.query_one("#saved-box")
        box.border_title = "saved searches"
        box.border_subtitle = "enter open · x remove · esc close"
        for found in self.query("#saved-list").results(OptionList):
            found.highlighted = 0
            found.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(("open", str(event.option.id)))

    def action_remove(self) -> None:
        """Close, giving back the saved search under the cursor to remove."""
        for found in self.query("#saved-list").results(OptionList):
            if found.highlighted is not None:
                option = found.get_option_at_index(found.highlighted)
                self.dismiss(("remove", str(option.id)))

    def action_close(self) -> None:
        """Close, choosing nothing."""
        self.dismiss(None)
