"""Each thread's pair of connections to the two files, leased from a pool.

A front end calls the library from worker threads, and Textual may run every worker in a new
thread: a pair of connections per thread that stayed open for ever would leak three file
handles per keystroke. So a thread leases a pair, and when the thread ends (its thread-local
data is dropped) the pair goes back to an idle pool for the next thread.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import weakref
from collections.abc import Callable
from typing import TypeVar

from db.index import health
from db.index.schema import expected_schema, open_index
from db.marks.schema import open_marks
from db.models import LibraryError
from db.store.files import identity
from db.store.paths import DataPaths

T = TypeVar("T")


def open_pair(paths: DataPaths, quiet_missing: bool = False
              ) -> tuple[sqlite3.Connection, sqlite3.Connection, list[str]]:
    """Open both files; returns ``(index, marks, notices)``, both in autocommit mode.

    ``index`` has the marks file attached as ``m`` (for reads that join statuses); ``marks`` is
    a connection to the marks file alone, for writes. The index is opened whatever state it is
    in (:func:`db.index.schema.open_index`, which says what it did in ``notices``); a marks file
    that cannot be read raises :class:`LibraryError` and is left untouched. ``quiet_missing``:
    the caller itself just set a damaged index aside, so a missing index is no news.
    """
    try:
        paths.make_dirs()
    except OSError as exc:
        raise LibraryError(f"cannot create the data folder: {exc}") from None
    had_marks = paths.marks.exists() and paths.marks.stat().st_size > 0
    marks = open_marks(paths.marks)
    index, notices = open_index(paths.index, quiet_missing, had_marks)
    index.execute("ATTACH DATABASE ? AS m", (str(paths.marks),))
    return index, marks, notices


class _Lease:
    """One thread's pair of connections (index with marks attached, and marks alone), and the
    index's ``data_version`` when it was last checked (None: not yet)."""

    __slots__ = ("__weakref__", "checked", "generation", "index", "marks")

    def __init__(self, index: sqlite3.Connection, marks: sqlite3.Connection, generation: int):
        self.index, self.marks, self.generation = index, marks, generation
        self.checked: int | None = None


def _give_back(pool_ref: weakref.ReferenceType, pair: tuple, generation: int) -> None:
    """A lease ended (its thread ended, or it was replaced): pool the pair, or close it when the
    pool was closed or is gone. Runs in the thread that held the lease (or at collection)."""
    pool = pool_ref()
    if pool is not None and pool._take_back(pair, generation):
        return
    for conn in pair:
        with contextlib.suppress(sqlite3.Error):
            conn.close()


class Connections:
    """The pool of connection pairs of one library (:func:`open_pair` makes them);
    ``quiet_missing``: the index is a new library's, so its first build is no news."""

    def __init__(self, paths: DataPaths, quiet_missing: bool = False) -> None:
        self.paths = paths
        self._local = threading.local()
        self._lock = threading.Lock()
        self._idle: list[tuple[sqlite3.Connection, sqlite3.Connection]] = []
        self._generation = 0  # bumped by close(): older leases are closed, not pooled
        # the next open follows a damaged index set aside, or is a new library's first
        self._quiet_missing = quiet_missing
        self._files: tuple = (None, None)  # (index, marks) as last connected to: identity()
        self._notices: list[str] = []

    def index(self) -> sqlite3.Connection:
        """This thread's connection to the index (the marks file attached as ``m``)."""
        return self._lease().index

    def marks(self) -> sqlite3.Connection:
        """This thread's connection to the marks file alone (for writes)."""
        return self._lease().marks

    def beside(self, work: Callable[[sqlite3.Connection], T]) -> Callable[[], T]:
        """Start ``work(connection to the index)`` in a thread of its own, on that thread's
        connection (leased from the pool, given back when the thread ends), and return a
        function that waits for what it returns (and raises what it raised). SQLite runs a
        statement without holding Python's GIL, so one search's count runs on a second core
        while the calling thread ranks its hits in Python (a partial-match title query at 87k
        papers: ~5 ms of counting off its time, for ~0.1 ms to start the thread)."""
        done: list = []

        def target() -> None:
            try:
                done.append((True, work(self.index())))
            except BaseException as exc:  # (raised again in the caller's thread)
                done.append((False, exc))

        thread = threading.Thread(target=target, name="papertray-beside", daemon=True)
        thread.start()

        def result() -> T:
            thread.join()
            ok, value = done[0]
            if not ok:
                raise value
            return value

        return result

    def index_problem(self) -> str | None:
        """What is wrong with the index (:func:`db.index.health.problem`) if another connection
        wrote to it since this thread's connection last looked, else None. SQLite's
        ``data_version`` says so without reading the file, so only a read after another
        process's (or thread's) commit pays for the check (~0.5 ms on 10,000 abstracts).
        Raises :class:`sqlite3.DatabaseError` when the index cannot be read.

        A file that another papertray replaced (it set the damaged index aside first) is
        followed first: the damage of the old file is not the new one's."""
        self.follow_replaced_files()
        lease = self._lease()
        version = lease.index.execute("PRAGMA main.data_version").fetchone()[0]
        if version == lease.checked:
            return None
        found = health.problem(lease.index, expected_schema())
        lease.checked = version
        return found

    def take_notices(self) -> list[str]:
        """What opening the files did on its own (rebuilt an empty index...); emptied."""
        with self._lock:
            taken, self._notices = self._notices, []
        return taken

    def index_set_aside(self) -> None:
        """The caller set the damaged index aside: close, and say nothing of it missing."""
        self.close()
        self._quiet_missing = True

    def follow_replaced_files(self) -> None:
        """Reopen on the files if another papertray replaced one by name (set a damaged index
        aside and built a new one, the cache was deleted, a marks file SQLite could not read
        was rebuilt): stat only."""
        if self._current_files() != self._files:
            self.close()

    def _current_files(self) -> tuple:
        return identity(self.paths.index), identity(self.paths.marks)

    def close(self) -> None:
        """Close the connections of this thread and the idle ones; a connection that another
        thread is using right now is closed by that thread when it is done with it (closing it
        under a running query would crash the process). The pool opens anew when used again.
        """
        with self._lock:
            self._generation += 1
            idle, self._idle = self._idle, []
        self._local.lease = None  # this thread's pair: given back, and closed (old generation)
        for pair in idle:
            for conn in pair:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()

    def _lease(self) -> _Lease:
        lease = getattr(self._local, "lease", None)
        if lease is None or lease.generation != self._generation:
            lease = self._open()
        return lease

    def _open(self) -> _Lease:
        with self._lock:
            pair = self._idle.pop() if self._idle else None
            generation = self._generation
        checked = None
        if pair is None:
            index, marks, notices = open_pair(self.paths, quiet_missing=self._quiet_missing)
            self._quiet_missing = False
            self._files = self._current_files()
            pair = (index, marks)
            checked = index.execute("PRAGMA main.data_version").fetchone()[0]  # (by opening)
            with self._lock:
                self._notices += notices
        lease = _Lease(*pair, generation)
        lease.checked = checked
        finalizer = weakref.finalize(lease, _give_back, weakref.ref(self), pair, generation)
        finalizer.atexit = False  # at exit a daemon thread may still be in a query: leave it be
        self._local.lease = lease  # replacing an older lease gives that one back
        return lease

    def _take_back(self, pair: tuple, generation: int) -> bool:
        with self._lock:
            if generation != self._generation:
                return False
            self._idle.append(pair)
            return True
