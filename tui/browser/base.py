"""The base of every part of the browser (:mod:`tui.browser.app` puts the parts together): the
main screen's widgets, found the same way whatever screen is on top."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen

from tui.browser.widgets import AbstractPanel, ResultsTable, SearchBar, StatusHeader


class BrowserBase(App[None]):
    """The app's widgets, for every part of it (:class:`tui.browser.app.PapertrayApp` composes
    ``#search``, ``#results`` and ``#abstract`` on its main screen)."""

    @property
    def main_screen(self) -> Screen:
        """The screen with the search bar, table and panel (the help may be on top of it).

        Widgets are looked up here, never on ``self.screen``: a worker's answer may arrive
        while another screen is shown.
        """
        return self.screen_stack[0]

    @property
    def table(self) -> ResultsTable:
        """The results table."""
        return self.main_screen.query_one("#results", ResultsTable)

    @property
    def panel(self) -> AbstractPanel:
        """The abstract panel."""
        return self.main_screen.query_one("#abstract", AbstractPanel)

    @property
    def header(self) -> StatusHeader:
        """The top line: collections and the filters with their counts."""
        return self.main_screen.query_one(StatusHeader)

    @property
    def search_bar(self) -> SearchBar:
        """The search bar."""
        return self.main_screen.query_one("#search", SearchBar)
