"""Replacing a database file's contents while no other process can use it.

Renaming a new file over a database that another process has open (or is about to open: it
may be waiting for a lock) leaves that process writing to the old file under its new name.
So a file SQLite can read is replaced *in place*: :func:`held` takes SQLite's exclusive lock
on it (``locking_mode=EXCLUSIVE``), which no other connection in any process can share, and
:meth:`Held.replace` copies the new contents into it with SQLite's backup API, keeping a copy
of the old contents aside first. A process that tries to open the file meanwhile waits its
busy timeout, then reads the new contents.

A file SQLite cannot read at all (no database, or a missing one) is replaced by name, while
:func:`held` holds the lock bytes SQLite's readers take (a process that had opened the file
before it was damaged holds them: the file is then in use). The old file is linked aside before
the new one is renamed over it, so the name is never missing, not even after a ``kill -9``.

Replacements are one at a time: each holds a ``flock`` on the file's folder (never on a
database file) from the first check to the last rename, so a second one waits, then finds the
file sound. The files it writes are named ``<name>.new-*`` and
``*.partial`` until whole; the next replacement removes any that a kill left behind.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from db.store.files import COMPANIONS, free_name, is_damage, make_private, register

#: Seconds to wait for another connection to close before saying the file is in use (a short
#: command, like ``papertray mark``, is done well within it).
WAIT_S = 2.0
#: Seconds to wait for another replacement of the file to end (a repair of 150,000 marks takes
#: ~5 s on a loaded machine).
TURN_WAIT_S = 60.0
#: SQLite's lock bytes of a database file (os_unix.c): a reader holds a read lock on some of
#: the 510 bytes from SHARED_FIRST; in WAL mode, for as long as its connection is open.
PENDING_BYTE = 0x40000000
SHARED_FIRST, SHARED_SIZE = PENDING_BYTE + 2, 510


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
    fd: int | None = None  # with no ``conn``: the descriptor holding the reader lock bytes

    def raw(self) -> bytes:
        """The file's bytes, read through :attr:`fd` (opening it again and closing that would
        drop the lock held through ``fd``); b"" when there is no file."""
        if self.fd is None:
            return b""
        return os.pread(self.fd, os.fstat(self.fd).st_size, 0)

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

    Raises :class:`InUse` when another connection keeps the file open for ``wait_s`` seconds
    (or another replacement runs for :data:`TURN_WAIT_S`), and :class:`sqlite3.OperationalError`
    or :class:`OSError` when it cannot be locked for another reason (a disk error).
    """
    with _turn(path):
        if not path.exists():
            yield Held(path, None, "the file does not exist")
            return
        if path.stat().st_size == 0:  # (SQLite would write a header into it)
            with _readers_kept_out(path, wait_s) as fd:
                yield Held(path, None, "the file is empty", fd)
            return
        register(path)
        conn = sqlite3.connect(path, timeout=wait_s, isolation_level=None,
                               check_same_thread=False)
        try:
            error = _lock(conn)
        except BaseException:
            conn.close()
            raise
        if not error:
            try:
                yield Held(path, conn)
            finally:
                conn.close()
            return
        conn.close()
        with _readers_kept_out(path, wait_s) as fd:
            yield Held(path, None, error, fd)


def _lock(conn: sqlite3.Connection) -> str:
    """Take the exclusive lock for good (``locking_mode=EXCLUSIVE``); returns "" or the damage
    that keeps SQLite from reading the file. Raises :class:`InUse` when it is busy."""
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
    try:
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("COMMIT")  # the exclusive lock stays: locking_mode=EXCLUSIVE
    except sqlite3.DatabaseError as exc:
        if str(getattr(exc, "sqlite_errorname", "")).startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
            raise InUse(str(exc)) from None
        if not is_damage(exc):
            raise
        return str(exc)
    return ""


@contextlib.contextmanager
def _turn(path: Path) -> Iterator[None]:
    """One replacement in ``path``'s folder at a time (``flock`` on the folder); leftovers of a
    killed one are removed."""
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        end = time.monotonic() + TURN_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > end:
                    raise InUse("another papertray is repairing or restoring it") from None
                time.sleep(0.05)
        for left in [*path.parent.glob(f"{path.name}.new-*"),
                     *path.parent.glob(f"{path.name}.*.partial")]:
            left.unlink(missing_ok=True)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _readers_kept_out(path: Path, wait_s: float) -> Iterator[int]:
    """Hold a write lock on SQLite's reader lock bytes of ``path`` (which SQLite cannot open),
    so that no papertray starts reading it meanwhile; raises :class:`InUse` when one holds
    them (it opened the file before it was damaged). This process has no connection to the
    file here, so its own descriptor cannot drop a lock of SQLite's."""
    fd = os.open(path, os.O_RDWR)
    try:
        end = time.monotonic() + wait_s
        while True:
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, SHARED_SIZE, SHARED_FIRST)
                break
            except OSError:
                if time.monotonic() > end:
                    raise InUse("another papertray has it open") from None
                time.sleep(0.05)
        yield fd
    finally:
        os.close(fd)


def _copy(conn: sqlite3.Connection, target: Path) -> None:
    """A copy of ``conn``'s database in the new file ``target`` (mode 0600, no -wal), whole or
    absent (written as ``<target>.partial`` first): SQLite copies pages, so a damaged page is
    copied as it is."""
    partial = Path(f"{target}.partial")
    fd = os.open(partial, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
    os.close(fd)
    dest = sqlite3.connect(partial)
    try:
        conn.backup(dest)
        dest.execute("PRAGMA journal_mode=DELETE")
    finally:
        dest.close()
    os.replace(partial, target)
