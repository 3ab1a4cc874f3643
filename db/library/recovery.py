"""What the library does when a file it reads turns out damaged.

The index is a cache: a read that meets a damaged index sets it aside, syncs a new one from the
seeds and tries again, saying so in one notice. The marks file is the reader's: it is never
rebuilt over; a damaged one is repaired beside itself (:mod:`db.marks.repair`) when the browser or
``papertray stats`` opens the library, and any other read that meets it stops with the hint.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from db.index import health
from db.index.schema import expected_schema, move_aside
from db.marks import repair
from db.models import LibraryError, SearchResult
from db.store.files import is_damage, quick_check

if TYPE_CHECKING:
    from db.library.api import Library


def recovering(method):
    """Reads and writes that meet a damaged index set it aside, rebuild it and retry
    (:func:`set_index_aside`; the notice goes to ``Library.notices``). The index is checked
    before the read when another connection wrote to it meanwhile
    (:meth:`~db.library.connections.Connections.index_problem`), and an error is damage when
    the index file then fails :func:`db.index.health.diagnose` (:func:`index_damaged`).
    One that meets a damaged marks file stops with the repair hint. A write is retried only
    after its transaction was rolled back."""

    @functools.wraps(method)
    def wrapper(library: Library, *args, **kwargs):
        try:
            damage = library._db.index_problem()  # (another process wrote it: checked first)
            if damage is None:
                return method(library, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            damage = index_damaged(library, exc)
            if damage is None:
                raise
        set_index_aside(library, damage)
        report = library.sync(force=True)
        with library._lock:
            library.notices += report.notices
        return method(library, *args, **kwargs)

    return wrapper


def checked_search(library: Library, query: str,
                   run: Callable[[], SearchResult]) -> SearchResult:
    """``run()``, a search of ``query``: a query FTS5 cannot run gives no hits and says so,
    unless the index is damaged (then the error goes on to :func:`recovering`)."""
    try:
        return run()
    except sqlite3.OperationalError as exc:
        if ("fts5" not in str(exc) and "MATCH" not in str(exc)) or index_damaged(library, exc):
            raise
        return SearchResult(query, query, "could not run this query; showing nothing", 0, [])


def check_marks(library: Library) -> None:
    """Check the marks file (:func:`db.marks.repair.check`); a damaged one is rebuilt
    (:func:`db.marks.repair.repair`) before anything opens it, and said in the notices; one
    that cannot be rebuilt now is said too, and kept in ``library.marks_damage``. A file that
    cannot be checked now (locked, no permission) is left to opening, which says why."""
    try:
        if repair.check(library.paths.marks) == "ok":
            return
    except LibraryError:
        return
    try:
        done = repair.repair(library.paths.marks, force=False)
    except LibraryError as exc:
        library.marks_damage = str(exc)
        library.notices.append(library.marks_damage)
        return
    if done is not None:
        library.notices.append(done.notice())


def index_damaged(library: Library, exc: sqlite3.DatabaseError) -> str | None:
    """What is wrong with the index file when ``exc`` is an error damage can cause
    (:func:`db.index.health.may_be_damage`) and the file then fails
    :func:`db.index.health.diagnose`; None when it is whole or cannot be checked now (a lock,
    a full disk: no proof of damage). Raises :class:`LibraryError` when SQLite says a file is
    damaged and it is the marks file: that one is not rebuilt."""
    if not health.may_be_damage(exc):
        return None
    if is_damage(exc):
        try:
            marks_sound = quick_check(library.paths.marks) == "ok"
        except LibraryError:
            return None
        if not marks_sound:
            raise LibraryError(f"the marks file {library.paths.marks} is damaged ({exc}); "
                               "papertray will not overwrite it. Run `papertray marks repair` "
                               "to rebuild it from what can be read, the latest backup and "
                               "the history.") from None
    try:
        return health.diagnose(library.paths.index, expected_schema())
    except sqlite3.Error:
        return None


def set_aside_if_damaged(library: Library) -> bool:
    """Check the whole index file, FTS5's integrity-check included
    (:func:`db.index.health.diagnose`: it reads every block of the full-text index, so it finds
    damage inside them that the check at every opening cannot see; 10,000 abstracts ~0.3 s,
    87,409 ~2.9 s, against 0.01 s for a sync with nothing to do), and set a damaged one aside
    (:func:`set_index_aside`). True when it was set aside, so the sync must build a new one; an
    index that cannot be checked now (no file yet, locked) is left to the sync."""
    try:
        damage = health.diagnose(library.paths.index, expected_schema())
    except sqlite3.Error:
        return False
    if damage is None:
        return False
    set_index_aside(library, damage)
    return True


def set_index_aside(library: Library, damage: str) -> None:
    """Set the damaged index aside (the next connection makes a new one); ``damage`` says what
    is wrong with it. Raises :class:`LibraryError` when its folder cannot be written."""
    library._db.close()
    try:
        moved = move_aside(library.paths.index)
    except OSError as err:
        raise LibraryError(f"the index {library.paths.index} is damaged ({damage}) and cannot be "
                           f"moved aside ({err.strerror}); check that its folder can be "
                           "written") from None
    library._db.index_set_aside()
    library.notices.append(f"the index was damaged ({damage}); moved it to {moved.name}; "
                           "rebuilding")
