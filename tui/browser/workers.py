"""Thread workers: every library call the browser makes; each posts a message of
:mod:`tui.browser.messages`.

Each worker runs in a thread (``@work(thread=True, exclusive=True, exit_on_error=False)``),
calls :class:`db.Library` and posts one message; the app's handlers own every state change.
:class:`db.Library` keeps one SQLite connection per thread, so workers may run side by side
(a search while a sync writes). Marks go through a queue, so that a worker cancelled by a newer
one (``exclusive``) never loses a mark: whichever worker runs next writes what is queued.

Searches and mark writes take turns (``_mark_lock``), and each posts its message before the
other may start: so the app gets a search answer and a :class:`MarksSaved` in the order in which
they met the marks file, and an answer read before a mark was written never arrives after it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.worker import get_current_worker

from db import Library, LibraryError, MarkChange, SearchResult
from db.index.sync import SyncCancelled
from db.search.highlight import stem
from db.seeds.render import latex_to_unicode
from tui.browser.locate import Listing, locate, status_argument
from tui.browser.messages import (
    Exported,
    Follow,
    HiddenCounted,
    IndexChanged,
    LibraryNotices,
    LibraryOpened,
    MarksChanged,
    MarksSaved,
    NoNewPaper,
    PageLoaded,
    PaperLoaded,
    SeedsChanged,
    SyncFinished,
    SyncProgressed,
)
from tui.browser.widgets.results import FOLLOW_CURSOR


@dataclass(frozen=True, slots=True)
class MarkOp:
    """One queued step: ``set`` ``ids`` to ``status``; ``note`` (``status`` is the note's text);
    ``tag`` (``status`` is tag names separated by spaces, ``-name`` removes one); or ``undo``
    the latest step."""

    kind: str
    ids: tuple[str, ...] = ()
    status: str = ""


class LibraryWorkers:
    """The app's workers (a mixin for :class:`tui.browser.app.PapertrayApp`).

    The app provides ``lib`` (its :class:`db.Library`), ``seeds``, ``data_dir`` and
    ``page_size``; the workers read them and post the messages above to the app.
    """

    lib: Library | None
    _request: int  # the app's newest search request (tui.browser.searching)
    seeds: list[str] | None
    data_dir: str | None
    page_size: int

    def _init_workers(self) -> None:
        self._mark_queue: deque[MarkOp] = deque()
        self._mark_lock = threading.Lock()
        # exports asked for (query, status filter, ids) that no worker has begun yet
        #: exports asked for and not begun: (query, status, ids, file; "" for the data folder)
        self._exports_asked: deque[tuple[str, str, tuple[str, ...], str]] = deque()
        self._export_lock = threading.Lock()

    @work(thread=True, exclusive=True, exit_on_error=False, group="open")
    def open_library(self) -> None:
        """Open (not sync) the library: fast when the index exists, so the first rows come soon."""
        library = Library(self.seeds, self.data_dir, check_marks=True)
        stale = library.needs_sync()
        index_version, marks_version = library.index_version(), library.marks_version()
        problems = [] if stale else library.stats()["problems"]
        self.post_message(LibraryOpened(library, stale, library.counts(), library.collections(),
                                        problems, index_version, library.take_notices(),
                                        marks_version))

    @work(thread=True, exclusive=True, exit_on_error=False, group="sync")
    def sync_library(self) -> None:
        """Bring the index in step with the seed files, posting the papers parsed as each seed
        file (or part of a large one) is parsed."""
        library = self.lib
        assert library is not None
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            if worker.is_cancelled:  # the app is closing: stop at the next file, write nothing
                raise SyncCancelled
            self.post_message(SyncProgressed(done, total))

        try:
            report = library.sync(progress=progress)
        except SyncCancelled:
            return
        except (LibraryError, sqlite3.Error, OSError) as exc:
            self.post_message(SyncFinished(None, {}, {}, str(exc)))
            return
        self.post_message(SyncFinished(report, library.counts(), library.collections(),
                                       index_version=library.index_version()))

    @work(thread=True, exclusive=True, exit_on_error=False, group="poll")
    def check_seeds(self, known_marks: int | None, known_index: int | None = None) -> None:
        """Stat the seed files; post :class:`SeedsChanged` when a sync is due, else
        :class:`IndexChanged` when another process synced (the index is not at version
        ``known_index``), and :class:`MarksChanged` when the marks file is not at version
        ``known_marks``."""
        library = self.lib
        if library is None:
            return
        if library.needs_sync():
            self.post_message(SeedsChanged())
        elif (index := library.index_version()) != known_index:
            self.post_message(IndexChanged(index, library.counts(), library.collections()))
        version = library.marks_version()
        if version != known_marks:
            self.post_message(MarksChanged(version, library.counts()))
        notices = library.take_notices()
        if notices:
            self.post_message(LibraryNotices(notices))

    @work(thread=True, exclusive=True, exit_on_error=False, group="search")
    def load_page(self, request: int, query: str, listing: Listing, offset: int,
                  focus: str | int | Follow | None, fallback: int = 0) -> None:
        """Search ``query`` as ``listing`` filters and sorts and post the window of hits at
        ``offset`` (with a :class:`Follow` for ``focus``: the window that holds the paper it
        finds)."""
        assert self.lib is not None
        worker = get_current_worker()
        with self._mark_lock:
            if worker.is_cancelled or request != self._request:  # a newer request came
                self.post_message(PageLoaded(request, offset, None, focus, fallback))
                return
            if isinstance(focus, Follow):  # the cursor paper, its new version or a neighbour
                result, offset, focus = locate(self.lib, query, listing, self.page_size,
                                                offset, focus)
            else:
                result = listing.search(self.lib, query, self.page_size, offset)
            paper = None
            cursor = _cursor_paper(result, focus, fallback)
            if cursor is not None and not worker.is_cancelled:
                try:
                    paper = self.lib.get(cursor)
                except LibraryError:
                    paper = None
            if not _warm.is_set():
                # what the abstract panel needs once a query is typed, loaded with the first
                # page rather than in front of the first keystroke, or beside it: the
                # highlights' stemmer and the LaTeX converter (~35 ms to import)
                _warm.set()
                stem("warming")
                latex_to_unicode(r"$\alpha$")
            self.post_message(PageLoaded(request, offset, result, focus, fallback, paper))

    @work(thread=True, exclusive=True, exit_on_error=False, group="search")
    def find_new(self, request: int, query: str, listing: Listing, start: int,
                 step: int) -> None:
        """Scan the hits from position ``start`` in direction ``step`` for the first new paper;
        post the window centred on it, or :class:`NoNewPaper`."""
        library, page, worker = self.lib, self.page_size, get_current_worker()
        assert library is not None
        with self._mark_lock:
            pos = start
            while pos >= 0 and not worker.is_cancelled:
                chunk = pos if step > 0 else max(0, pos - page + 1)
                result = listing.search(library, query, page, chunk)
                indexes = (range(pos - chunk, len(result.hits)) if step > 0
                           else range(min(pos - chunk, len(result.hits) - 1), -1, -1))
                for i in indexes:
                    hit = result.hits[i]
                    if hit.status == "new":
                        window = max(0, min(chunk + i - page // 2, result.total - page))
                        if window != chunk:
                            result = listing.search(library, query, page, window)
                        self.post_message(PageLoaded(request, window, result, hit.id))
                        return
                if step > 0:
                    if not result.hits or chunk + len(result.hits) >= result.total:
                        break
                    pos = chunk + len(result.hits)
                else:
                    pos = chunk - 1
            self.post_message(NoNewPaper(request, step))

    @work(thread=True, exclusive=True, exit_on_error=False, group="hidden")
    def count_hidden(self, request: int, query: str, status: str) -> None:
        """Count the papers ``query`` finds that the status filter leaves out, after its hits
        are shown (a second pass over the index, kept off the keystroke's way)."""
        assert self.lib is not None
        if get_current_worker().is_cancelled or request != self._request:
            return
        result = self.lib.search(query, status_argument(status), 0, 0, typing=True, hidden=True)
        self.post_message(HiddenCounted(request, result.hidden))

    @work(thread=True, exclusive=True, exit_on_error=False, group="paper")
    def load_paper(self, paper_id: str) -> None:
        """Fetch the whole paper (abstract, sources, links) for the abstract panel."""
        assert self.lib is not None
        try:
            paper = self.lib.get(paper_id)
        except LibraryError:
            paper = None
        self.post_message(PaperLoaded(paper_id, paper))

    def ask_export(self, query: str, status: str, ids: tuple[str, ...] = (),
                   path: str = "") -> None:
        """Export the papers of ``query`` and the status filter, or the papers ``ids``, to
        ``path`` (its ending picks the format) or to a new Markdown file in the data folder
        (:meth:`export_papers`)."""
        with self._export_lock:
            self._exports_asked.append((query, status, ids, path))
        self.export_papers()

    @work(thread=True, exit_on_error=False, group="export")
    def export_papers(self) -> None:
        """Write the papers of the oldest export asked for to a Markdown file in the data
        folder (:meth:`db.Library.export_to_data_dir`) and post :class:`Exported`."""
        assert self.lib is not None
        with self._export_lock:
            if not self._exports_asked:
                return  # written by flush_exports as the app closed
            asked = self._exports_asked.popleft()
        try:
            path, count = self._export(*asked)
        except OSError as exc:  # the file named, not the temporary one written first
            where = asked[3] or str(self.lib.exports_folder)
            self.post_message(Exported("", 0, f"cannot write {where}: {exc.strerror or exc}"))
            return
        except (LibraryError, sqlite3.Error) as exc:
            self.post_message(Exported("", 0, str(exc)))
            return
        self.post_message(Exported(str(path), count))

    def _export(self, query: str, status: str, ids: tuple[str, ...], to: str
                ) -> tuple[str, int]:
        """Export to ``to``, else to the data folder; a file of no papers is removed (path
        "")."""
        assert self.lib is not None
        if to:
            path = Path(to)
            count = self.lib.export_file(path, query, status_argument(status), ids=ids or None,
                                         new=True)
        else:
            path, count = self.lib.export_to_data_dir(query, status_argument(status),
                                                      ids=ids or None)
        if count == 0:
            path.unlink(missing_ok=True)
            return "", 0
        return str(path), count

    def flush_exports(self) -> None:
        """Write, in this thread, the exports asked for that no worker has begun: the app calls
        it as it closes (a quit cancels a worker that has not started: ``e q`` typed together
        still writes the file)."""
        with self._export_lock:
            asked, self._exports_asked = list(self._exports_asked), deque()
        for export in asked:
            with contextlib.suppress(LibraryError, sqlite3.Error, OSError):
                self._export(*export)

    def queue_mark(self, op: MarkOp) -> None:
        """Queue a marking step and start a worker that writes the queue (in order)."""
        self._mark_queue.append(op)
        self.write_marks()

    @work(thread=True, exclusive=True, exit_on_error=False, group="marks")
    def write_marks(self) -> None:
        """Write every queued marking step, in order, then post :class:`MarksSaved`."""
        self._drain_marks(post=True)

    def flush_marks(self) -> None:
        """Write what is still queued, in this thread (the app calls it as it closes, so that a
        mark typed just before ``q`` is not lost with its cancelled worker)."""
        self._drain_marks(post=False)

    def _drain_marks(self, post: bool) -> None:
        library = self.lib
        assert library is not None
        with self._mark_lock:  # a newer worker waits here, then writes what is left
            done, touched, undone, errors = 0, {}, [], []
            annotated: list[MarkChange] = []
            before = library.marks_version() if post and self._mark_queue else 0
            written = 0  # history steps written (one per change)
            while self._mark_queue:
                op = self._mark_queue.popleft()
                done += 1
                touched.update(dict.fromkeys(op.ids))
                try:
                    changes = _write_op(library, op)
                except (LibraryError, sqlite3.Error) as exc:
                    errors.append(str(exc))
                    continue
                written += len(changes)
                if op.kind == "undo":
                    undone.append(changes)
                    touched.update(dict.fromkeys(c.paper_id for c in changes))
                annotated += [c for c in changes if c.kind != "mark"]
            if done and post:
                self.post_message(MarksSaved(done, _statuses(library, touched), undone,
                                             library.counts(), errors, library.marks_version(),
                                             annotated, before, written))


def _write_op(library: Library, op: MarkOp) -> list[MarkChange]:
    """Write one queued step; returns its changes (one history step each)."""
    if op.kind == "undo":
        return library.undo()
    if op.kind == "note":
        return library.set_note(op.ids[0], op.status)
    if op.kind == "tag":
        changes = []
        names = op.status.split()
        for remove in (False, True):
            chosen = [n.removeprefix("-") for n in names if n.startswith("-") == remove]
            if chosen:
                changes += library.tag(op.ids, chosen, remove=remove)
        return changes
    return library.set_status(op.ids, op.status)


#: Set once a worker has imported what the abstract panel needs (see ``load_page``).
_warm = threading.Event()


def _statuses(library: Library, paper_ids: dict[str, None]) -> dict[str, str]:
    """What the marks file says about each paper (ids no longer in the index are left out)."""
    statuses = {}
    for paper_id in paper_ids:
        try:
            statuses[paper_id] = library.get(paper_id).status
        except (LibraryError, sqlite3.Error):
            continue
    return statuses


def _cursor_paper(result: SearchResult, focus: str | int | None, fallback: int) -> str | None:
    """The id of the hit the table's cursor will be on once ``result`` is shown with ``focus``
    and ``fallback`` (as :meth:`tui.browser.widgets.results.ResultsTable.show_hits` places it),
    or None when that depends on the table (:data:`FOLLOW_CURSOR`) or there is no hit."""
    ids = list(dict.fromkeys(h.id for h in result.hits))
    if not ids or focus == FOLLOW_CURSOR:
        return None
    if isinstance(focus, str) and focus in ids:
        return focus
    row = (focus if focus >= 0 else len(ids) + focus) if isinstance(focus, int) else fallback
    return ids[min(max(row, 0), len(ids) - 1)]
