"""Replacing a database file's contents while no other process can use it.

Renaming a new file over a database that another process has open (or is about to open: it
may be waiting for a lock) leaves that process writing to the old file under its new name.
So a file SQLite can read is replaced *in place*: :func:`held` takes SQLite's exclusive lock
on it (``locking_mode=EXCLUSIVE``), which no other connection in any process can share, and
:meth:`Held.replace` copies the new contents into it with SQLite's backup API, keeping a copy
of the old contents aside first. A process that tries to open the file meanwhile waits its
busy timeout, then reads the new contents.

Only a file SQLite cannot read at all (no database, or a missing one) is replaced by name;
no process can hold such a file open. The old file is linked aside before the new one is
renamed over it, so the name is never missing, not even after a ``kill -9`` midway.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from db.store.files import COMPANIONS, free_name, is_damage, make_private, register

#: Seconds to wait for another connection to close before saying the file is in use (a short
#: command, like ``papertray mark``, is done well within it).
WAIT_S = 2.0


class InUse(Exception):
    """Another connection (in any process) has the database file open."""


@dataclass(slots=True)
class Held:
    """A database file held for replacing: ``conn`` holds its exclusive lock, or is None when
    SQLite cannot read the file at all (``error`` says why: "file is not a database", "the
    file does not exist")."""

    path: Path
    conn: sqlite3.Connection | None
    error: str = ""

    def check(self) -> str:
        """The first line of ``PRAGMA integrity_check`` ("ok" when sound), or ``error``."""
        if self.conn is None:
            return self.error
        try:
            return str(self.conn.execute("PRAGMA integrity_check(1)").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            return str(exc)

    def staged(self) -> Path:
        """A new, empty, private file beside ``path`` to build the replacement in."""
        fd, name = tempfile.mkstemp(prefix=self.path.name + ".new-", dir=self.path.parent)
        os.close(fd)
        return Path(name)

    def replace(self, staged: Path, why: str) -> Path | None:
        """Put the database file ``staged`` in place of ``path`` (``staged`` is then removed);
        returns where the old contents were kept (``<name>.<why>-<time>``), None when there was
        no file. Raises :class:`sqlite3.Error` or :class:`OSError`; ``path`` is unchanged then.
        """
        if self.conn is None:
            return self._replace_by_name(staged, why)
        aside = free_name(self.path, why)
        try:
            _copy(self.conn, aside)
            self.conn.execute("PRAGMA journal_mode=DELETE")  # WAL cannot take another page size
            source = sqlite3.connect(f"file:{staged}?mode=ro", uri=True)
            try:
                source.backup(self.conn)
            finally:
                source.close()
        except BaseException:
            for suffix in COMPANIONS:
                Path(f"{aside}{suffix}").unlink(missing_ok=True)
            raise
        staged.unlink(missing_ok=True)
        return aside

    def _replace_by_name(self, staged: Path, why: str) -> Path | None:
        make_private(staged)
        if not self.path.exists():
            try:
                os.link(staged, self.path)  # never over a file made meanwhile
            finally:
                staged.unlink(missing_ok=True)
            return None
        aside = free_name(self.path, why)
        os.link(self.path, aside)
        for suffix in COMPANIONS[1:]:  # a -wal left beside the new file would be replayed on it
            companion = Path(f"{self.path}{suffix}")
            if companion.exists():
                os.replace(companion, f"{aside}{suffix}")
        os.replace(staged, self.path)
        return aside


@contextlib.contextmanager
def held(path: Path, wait_s: float = WAIT_S) -> Iterator[Held]:
    """Hold the database file ``path`` for replacing (see :class:`Held`) until the block ends.

    Raises :class:`InUse` when another connection keeps the file open for ``wait_s`` seconds,
    and :class:`sqlite3.OperationalError` when it cannot be locked for another reason (no
    permission, a disk error).
    """
    if not path.exists():
        yield Held(path, None, "the file does not exist")
        return
    register(path)
    conn: sqlite3.Connection | None = sqlite3.connect(
        path, timeout=wait_s, isolation_level=None, check_same_thread=False)
    error = ""
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        try:
            conn.execute("BEGIN EXCLUSIVE")
            conn.execute("COMMIT")  # the exclusive lock stays: locking_mode=EXCLUSIVE
        except sqlite3.DatabaseError as exc:
            if str(getattr(exc, "sqlite_errorname", "")).startswith(("SQLITE_BUSY",
                                                                      "SQLITE_LOCKED")):
                raise InUse(str(exc)) from None
            if not is_damage(exc):
                raise
            error = str(exc)
        if error:
            conn.close()
            conn = None
        yield Held(path, conn, error)
    finally:
        if conn is not None:
            conn.close()


def _copy(conn: sqlite3.Connection, target: Path) -> None:
    """A copy of ``conn``'s database in the new file ``target`` (mode 0600, no -wal): SQLite
    copies pages, so a damaged page is copied as it is."""
    fd = os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    os.close(fd)
    dest = sqlite3.connect(target)
    try:
        conn.backup(dest)
        dest.execute("PRAGMA journal_mode=DELETE")
    finally:
        dest.close()
