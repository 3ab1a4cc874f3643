"""Opening and syncing the library, and seeing what other papertrays did: the seed files
polled, a sync run in a worker, the counts in the header, the marks and the index of other
windows shown when this one is idle."""

from __future__ import annotations

from collections.abc import Iterable

from textual import on

from db.text import one_line
from tui.browser.base import BrowserBase
from tui.browser.messages import (
    Follow,
    IndexChanged,
    LibraryNotices,
    LibraryOpened,
    MarksChanged,
    SeedsChanged,
    SyncFinished,
    SyncProgressed,
    while_running,
)
from tui.browser.widgets import FOLLOW_CURSOR, SyncProgress


class SyncingApp(BrowserBase):
    """The library's life in the app: opened, synced, watched.

    The other parts of the app provide ``lib``, the workers (``sync_library``,
    ``check_seeds``), ``is_settled``, the search (``_search``) and ``_freeze_heap_soon``
    (frames).
    """

    def _init_sync(self) -> None:
        self.opening = True
        """Whether the library is being opened (keys for the table wait for it)."""
        self._syncing = False
        self._marks_version: int | None = None  # the marks file's version this window shows
        self._index_version: int | None = None  # the index's version this window shows
        self._counts: dict[str, int] = {}
        self._reported: set[tuple[str, str]] = set()  # seed file problems notified

    @on(LibraryOpened)
    @while_running
    def _library_opened(self, message: LibraryOpened) -> None:
        self.lib, self.opening = message.lib, False
        self._index_version, self._marks_version = message.index_version, message.marks_version
        self._show_counts(message.counts, message.collections)
        for notice in message.notices:
            self.notify(one_line(notice), severity="warning", markup=False, timeout=15)
        self._report_problems((p["file"], p["reason"] or "") for p in message.problems
                              if p["file"] != str(self.lib.paths.marks))  # (a notice above)
        empty = not message.counts["all"]
        if message.stale or empty:  # an empty index is synced anyway: it says what went wrong
            self._start_sync(building=empty)
        self.load_query_history()
        self._search(focus=self.restored_cursor)

    def _start_sync(self, building: bool = False) -> None:
        if self._syncing or self.lib is None:
            return
        self._syncing = True
        self.main_screen.query_one(SyncProgress).start("building the index" if building
                                           else "syncing seed files")
        self.sync_library()

    @on(SyncProgressed)
    @while_running
    def _sync_progressed(self, message: SyncProgressed) -> None:
        self.main_screen.query_one(SyncProgress).advance(message.done, message.total)

    @on(SyncFinished)
    @while_running
    def _sync_finished(self, message: SyncFinished) -> None:
        self._syncing = False
        self.main_screen.query_one(SyncProgress).stop()
        shown = self._index_version
        if message.index_version is not None:
            self._index_version = message.index_version
        if message.counts:
            self._show_counts(message.counts, message.collections)
        if message.error:
            self.notify(f"could not sync the seed files: {one_line(message.error)}",
                        severity="error", markup=False)
        report = message.report
        if report is not None:
            for notice in report.notices:
                self.notify(one_line(notice), severity="warning", markup=False)
            self._report_problems((f.path, f.reason or f.status) for f in report.problems)
        if (report is None or report.did_change or shown != self._index_version
                or not self.table.row_count):
            # the index is not the one shown (this sync, or another papertray's sync that
            # this one found done): the cursor stays on its paper (or its edited version)
            self._search_again()
        self._freeze_heap_soon()

    def _search_again(self) -> None:
        """Search again in a changed index, the cursor on the paper it is on, or on its edited
        version (whichever papertray synced), or when it is gone on the nearest paper left: the
        next rows first, then those above (:class:`Follow`)."""
        table = self.table
        cursor = table.current_id
        if cursor is None or table.moving:
            self._search(focus=FOLLOW_CURSOR, offset=table.window_offset)
            return
        ids = table.paper_ids
        row = ids.index(cursor) if cursor in ids else table.cursor_row
        paper = self.panel.paper
        text = (paper.abstract_markup or paper.title or "") if paper and paper.id == cursor else ""
        wanted = tuple(dict.fromkeys([cursor, *ids[row + 1:], *reversed(ids[:row])]))
        self._search(focus=Follow(wanted, text), offset=table.window_offset,
                     fallback=table.cursor_row)

    def _report_problems(self, problems: Iterable[tuple[str, str]]) -> None:
        """One notification per seed file that failed to load (once per file and reason)."""
        for path, reason in problems:
            if (path, reason) not in self._reported:
                self._reported.add((path, reason))
                self.notify(f"seed file {one_line(path)} not loaded: {one_line(reason)}",
                            severity="warning", markup=False, timeout=8)

    def _poll_seeds(self) -> None:
        if self.lib is not None and not self._syncing:
            self.check_seeds(self._marks_version, self._index_version)

    @on(SeedsChanged)
    @while_running
    def _seeds_changed(self) -> None:
        self._start_sync()

    @on(IndexChanged)
    @while_running
    def _index_changed(self, message: IndexChanged) -> None:
        """Another papertray synced the seed files first: show the library as it is now."""
        if self._syncing or not self.is_settled:
            return  # the app is busy (a sync of its own, keys, a search): the next poll sees it
        self._index_version = message.version
        self._show_counts(message.counts, message.collections)
        self._search_again()

    @on(LibraryNotices)
    @while_running
    def _library_notices(self, message: LibraryNotices) -> None:
        for notice in message.notices:
            self.notify(one_line(notice), severity="warning", markup=False, timeout=15)

    @on(MarksChanged)
    @while_running
    def _marks_changed(self, message: MarksChanged) -> None:
        """Another window (or the CLI) marked papers on this data folder: show its marks."""
        if message.version == self._marks_version or not self.is_settled:
            return  # ours, or the app is busy (keys, marks, a search): the next poll sees it
        self._marks_version = message.version
        self._show_counts(message.counts)
        self._search(focus=FOLLOW_CURSOR, offset=self.table.window_offset)

    def _show_counts(self, counts: dict[str, int], collections: dict[str, int] | None = None):
        self._counts = dict(counts)
        self.header.counts = dict(counts)
        if collections is not None:
            self.header.collections = collections
