"""The browser's widgets. Each gets data from the app (attributes down) and reports the reader's
intentions with messages (messages up); none of them touches the library."""

from tui.browser.widgets.abstract import AbstractPanel
from tui.browser.widgets.footer import KeysFooter
from tui.browser.widgets.header import StatusHeader, SyncProgress
from tui.browser.widgets.results import FOLLOW_CURSOR, ResultsPane, ResultsTable
from tui.browser.widgets.search import SearchBar

__all__ = ["FOLLOW_CURSOR", "AbstractPanel", "KeysFooter", "ResultsPane", "ResultsTable",
           "SearchBar", "StatusHeader", "SyncProgress"]
