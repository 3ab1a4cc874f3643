"""What the library does when a file it reads turns out damaged.

The index is a cache: a read that meets a damaged index sets it aside, syncs a new one from the
seeds and tries again, saying so in one notice. The marks file is the reader's: it is never
rebuilt over; a damaged one is repaired beside itself (:mod:`db.marks.repair`) when the browser or
``papertray stats`` opens the library, and any other read that meets it stops with the hint.
"""

from __future__ import annotations

import functools
import sqlite3
from typing import TYPE_CHECKING

from db.index.schema import move_aside
from db.marks import repair
from db.models import LibraryError
from db.store.files import is_damage, quick_check

if TYPE_CHECKING:
    from db.library.api import Library


def recovering(method):
    """Reads and writes that meet a damaged index (a page gone bad inside the file) rebuild it
    and retry (:func:`index_damaged`, :func:`set_index_aside`); the notice goes to
    ``Library.notices``. One that meets a damaged marks file stops with the repair hint. A
    write is retried only after its transaction was rolled back."""

    @functools.wraps(method)
    def wrapper(library: Library, *args, **kwargs):
        try:
            return method(library, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            if not index_damaged(library, exc):
                raise
            set_index_aside(library, exc)
            report = library.sync(force=True)
            with library._lock:
                library.notices += report.notices
            return method(library, *args, **kwargs)

    return wrapper


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


def index_damaged(library: Library, exc: sqlite3.DatabaseError) -> bool:
    """Whether ``exc`` comes from a damaged index file: SQLite says the file is damaged
    (:func:`db.store.files.is_damage`), and a quick_check of the index confirms it. Raises
    :class:`LibraryError` when it is the marks file that is damaged: that one is not rebuilt."""
    if not is_damage(exc):
        return False
    try:
        marks_sound = quick_check(library.paths.marks) == "ok"
        index_sound = quick_check(library.paths.index) == "ok"
    except LibraryError:
        return False  # a file that cannot be checked now is no proof of damage
    if not marks_sound:
        raise LibraryError(f"the marks file {library.paths.marks} is damaged ({exc}); papertray "
                           "will not overwrite it. Run `papertray marks repair` to rebuild it "
                           "from what can be read, the latest backup and the history.") from None
    return not index_sound


def set_index_aside(library: Library, exc: Exception) -> None:
    """Set the damaged index aside (the next connection makes a new one). Raises
    :class:`LibraryError` when its folder cannot be written."""
    library._db.close()
    try:
        moved = move_aside(library.paths.index)
    except OSError as err:
        raise LibraryError(f"the index {library.paths.index} is damaged ({exc}) and cannot be "
                           f"moved aside ({err.strerror}); check that its folder can be "
                           "written") from None
    library._db.index_set_aside()
    library.notices.append(f"the index was damaged ({exc}); moved it to {moved.name}; "
                           "rebuilding")
