"""Searching: the query, the status filter, which answer is shown, the window of hits in the
table and the paper in the abstract panel.

Every search gets a request number; only the answer to the newest request is shown, so a slow
answer for an old query never overwrites a newer one.
"""

from __future__ import annotations

import dataclasses

from rich.text import Text
from textual import on
from textual.timer import Timer
from textual.widgets import DataTable

from db.models import SORTS, Paper, SearchResult
from db.text import one_line
from tui.browser.base import BrowserBase
from tui.browser.display import said
from tui.browser.locate import Listing
from tui.browser.messages import (
    Follow,
    HiddenCounted,
    NoNewPaper,
    PageLoaded,
    PaperLoaded,
    while_running,
)
from tui.browser.widgets import ResultsPane, ResultsTable, SearchBar


class SearchingApp(BrowserBase):
    """Search state and its handlers.

    The other parts of the app provide ``lib``, ``glyphs``, ``debounce_seconds``, the
    workers (``load_page``, ``find_new``, ``load_paper``), the input pipeline
    (``_keys_may_go``), the frames
    (``_hold_paint``, ``_release_paint``, ``_answer_shown``), and from the marks and settings
    ``_predicted`` and ``_save_settings``.
    """

    def _init_search(self) -> None:
        self.status_filter = "all"
        """The status filter: all, new, to-read, read or dismissed."""
        self.sort_by = "relevance"
        """The order of the hits: one of :data:`db.models.SORTS`."""
        self._query = ""  # the query of the newest request (or of the armed timer)
        self._request = 0  # number of the newest search request; older answers are dropped
        self._applied = 0  # number of the answer the table shows
        self._sent = 0  # number of the newest request a worker was started for
        self._search_timer: Timer | None = None
        self._result: SearchResult | None = None
        self._paper_wanted: str | None = None
        self.cursor_paper: str | None = None
        """The id of the paper under the cursor, as last shown (kept once the table is gone)."""
        self._paper_shown: str | None = None
        #: papers the shown query finds that the filter hides, and (query, filter) they are of
        self._hidden: tuple[int, tuple[str, str]] = (0, ("", "all"))

    @property
    def _search_pending(self) -> bool:
        return self._search_timer is not None or self._applied != self._request

    @property
    def answered(self) -> tuple[str, str] | None:
        """``(query, status filter)`` the rows of the table answer, once they are the answer
        to the newest search asked for; None while a search is on its way, or before the
        first answer."""
        if self._result is None or self._search_pending:
            return None
        return self._query, self.status_filter

    @property
    def listing(self) -> Listing:
        """The status filter and sort order the table lists the query's hits in."""
        return Listing(self.status_filter, self.sort_by)

    @property
    def paper_shown(self) -> str | None:
        """Id of the paper the abstract panel shows (or says has left the library), or None."""
        return self._paper_shown

    # -- running searches --------------------------------------------------------------------
    @on(SearchBar.QueryChanged)
    def _query_changed(self) -> None:
        # The input's value, not the message's: messages of keys typed ahead arrive late.
        query = self.search_bar.value
        if query == self._query:
            if not self._search_pending:
                self._release_paint()  # a key that left the query as it was
            return
        self._query = query
        self.action_clear_selection()  # the selection is of the papers shown
        # a key that finds no search on its way searches at once (a debounce for every key would
        # add 80 ms to each keystroke); keys that come faster than searches are coalesced:
        # the newest query waits for the answer on its way (which is dropped, _page_loaded) or
        # for the debounce, whichever comes first
        busy = self._search_timer is not None or self._applied != self._request
        self._hold_paint()
        self._request += 1  # whatever is on its way is stale now
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        if self.debounce_seconds > 0 and busy:
            self._search_timer = self.set_timer(self.debounce_seconds, self._search)
        else:
            self._search()

    def _search(self, focus: str | int | Follow | None = None, offset: int = 0,
                fallback: int = 0):
        """Run the query with the filter; only the answer to this request will be shown.
        ``focus``: where the cursor goes (:meth:`ResultsTable.show_hits`), or a
        :class:`Follow`: the window that holds the paper it finds."""
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        if self.lib is None:
            return
        self._request += 1
        self._sent = self._request
        self.load_page(self._request, self._query, self.listing, offset, focus, fallback)

    @on(ResultsTable.PageWanted)
    def _page_wanted(self, message: ResultsTable.PageWanted) -> None:
        if self._search_pending or self.lib is None:
            return  # a newer search is coming; it replaces the window anyway
        self._request += 1
        self._sent = self._request
        self.load_page(self._request, self._query, self.listing, message.offset,
                       message.focus)

    @on(PageLoaded)
    @while_running
    def _page_loaded(self, message: PageLoaded) -> None:
        if message.request != self._request:  # superseded: never shown
            if message.request == self._sent and self._search_timer is not None:
                self._search()  # the newest query waited for this answer: its turn now
            return
        if message.result is None:  # skipped by a worker that was cancelled: ask again
            self._search(focus=message.focus, offset=message.offset, fallback=message.fallback)
            return
        self._applied = message.request
        result = self._result = message.result
        self.table.show_hits(result.hits, message.offset, result.total, message.focus,
                             message.fallback)
        for paper_id, status in self._predicted().items():  # marks not written when it was read
            self.table.set_status(paper_id, status)
        asked = (self._query, self.status_filter)
        if self._hidden[1] != asked:  # (the same query and filter keep theirs until recounted)
            self._hidden = (0, asked)
        if self.status_filter != "all" and self._query.strip():
            self.count_hidden(message.request, *asked)
        self.main_screen.query_one(ResultsPane).show_message(self._empty_message(result))
        self._follow_cursor(force=True, ready=message.paper)
        self._keys_may_go()
        self._release_paint()
        self._answer_shown()

    @on(HiddenCounted)
    @while_running
    def _hidden_counted(self, message: HiddenCounted) -> None:
        if message.request != self._applied or self._result is None:
            return  # another answer is shown by now
        self._hidden = (message.hidden, (self._query, self.status_filter))
        self.main_screen.query_one(ResultsPane).show_message(self._empty_message(self._result))
        self._show_position()

    @on(NoNewPaper)
    @while_running
    def _no_new_paper(self, message: NoNewPaper) -> None:
        if message.request == self._sent != self._request and self._search_timer is not None:
            self._search()  # superseded, and the newest query waited for it (_page_loaded)
        elif message.request == self._request:
            self._applied = message.request
            self.notify(f"no new paper {'below' if message.step > 0 else 'above'}", timeout=3)
            self._keys_may_go()

    def _empty_message(self, result: SearchResult) -> Text | None:
        """The line above an empty table: why it is empty."""
        if result.total:
            return None
        if not self.header.counts.get("all"):
            return Text(f"building the index{self.glyphs['more']}" if self._syncing else
                        "the library is empty: no seed file has an abstract (papertray --help "
                        "says where they are read from)", end="")
        status = "" if self.status_filter == "all" else self.status_filter
        if not result.query.strip():
            return Text(f"no {status} papers" if status else "no papers", end="")
        message = Text("no papers match ", end="")
        message.append(one_line(result.query), "bold")
        if status:
            message.append(f" among {status} papers")
        if self._hidden[0]:
            message.append(f" ({self._hidden[0]} with another status: 1 shows all)")
        return message

    def _show_position(self) -> None:
        table, result = self.table, self._result
        status = Text(end="", no_wrap=True, overflow="ellipsis")
        if result is not None:
            if table.row_count:
                status.append(f"{table.window_offset + table.cursor_row + 1}/{table.total}")
            else:
                status.append("0/0")
            if getattr(self, "selection", None):
                status.append(f"  {len(self.selection)} selected", "bold")
            # the papers the status filter hides first: the line is cut at the search bar's end
            hidden = self._hidden[0]
            notices = [f"{hidden} hidden by the filter (1: all)"] if hidden else []
            if result.notice:
                notices.append(one_line(result.notice))
            if notices:
                notice = said("; ".join(notices), getattr(self, "ascii_only", False))
                status.append("  " + notice, "italic")
        self.search_bar.show_status(status)

    # -- filters and jumps -------------------------------------------------------------------
    def action_filter(self, status: str) -> None:
        """Show only papers with ``status`` (``all`` shows every paper)."""
        self.status_filter = status
        self.header.status_filter = status
        self.action_clear_selection()  # the selection is of the papers shown
        self._save_settings()
        self._search(focus=self.table.current_id)

    def action_sort(self, order: str = "") -> None:
        """List the hits in ``order`` (one of :data:`db.models.SORTS`); "" takes the next
        order, after the last the first."""
        if order not in SORTS:
            order = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self.sort_by = self.header.sort_by = order
        self._save_settings()
        self._search(focus=self.table.current_id)

    def action_clear_query(self) -> None:
        """Clear the query: the table lists every paper the status filter shows."""
        if self.search_bar.value:
            self._run_query("")

    def _run_query(self, query: str) -> None:
        """Put ``query`` in the search bar and run it now (keys typed next wait for it)."""
        self.search_bar.input.value = query
        self._query = query
        self.action_clear_selection()
        self._search()

    def action_next_new(self, step: int) -> None:
        """Go to the next (``step`` 1) or previous (-1) new paper, loading other windows."""
        table = self.table
        row = table.find_status("new", step)
        if row is not None:
            table.move_cursor(row=row)
            return
        start = table.window_offset + table.row_count if step > 0 else table.window_offset - 1
        if not table.row_count or start < 0 or start >= table.total:
            self.notify(f"no new paper {'below' if step > 0 else 'above'}", timeout=3)
        elif not self._search_pending:
            self._request += 1
            self._sent = self._request
            self.find_new(self._request, self._query, self.listing, start, step)

    # -- the paper under the cursor ----------------------------------------------------------
    @on(DataTable.RowHighlighted, "#results")
    @while_running
    def _row_highlighted(self) -> None:
        self._follow_cursor()

    def _follow_cursor(self, force: bool = False, ready: Paper | None = None) -> None:
        """Load the cursor paper into the abstract panel (unless it is on its way); ``ready``
        is a paper read with the hits, shown at once if it is the cursor paper."""
        self._show_position()
        paper_id = self.cursor_paper = self.table.current_id
        if paper_id is None:
            self._paper_wanted = self._paper_shown = None
            hint = "press / to change the query"
            if self._query:
                hint += ", backspace to clear it"
            if self.status_filter != "all":
                hint += ", or 1 to show all papers"
            self.panel.show_message(Text(hint, style="italic"))
            return
        if force or paper_id != self._paper_wanted:
            self._paper_wanted = paper_id
            if ready is not None and ready.id == paper_id:
                self._show_paper(paper_id, ready)
            else:
                self.load_paper(paper_id)

    @on(PaperLoaded)
    @while_running
    def _paper_loaded(self, message: PaperLoaded) -> None:
        self._show_paper(message.paper_id, message.paper)

    def _show_paper(self, paper_id: str, paper: Paper | None) -> None:
        """Show ``paper`` (None: it left the library) in the panel if it is the cursor paper."""
        hit = self.table.hit(paper_id)
        if paper_id != self.table.current_id or hit is None:
            if paper_id == self._paper_wanted:
                # it came while the cursor was away for a moment; the cursor may be back on it
                # by now with no new highlight event to ask again, so ask for the cursor's paper
                self._paper_wanted = None
                self._follow_cursor()
            return
        self._paper_shown = paper_id
        self._keys_may_go()
        if paper is None:
            self.panel.show_message(
                Text(f"this paper left the library; syncing{self.glyphs['more']}"))
            return
        if paper.status != hit.status:  # the row knows best: a mark may be on its way to disk
            paper = dataclasses.replace(paper, status=hit.status)
        self.panel.show_paper(paper, self._result.terms if self._result else ())
