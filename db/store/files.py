"""The rule for papertray's database files: while a process has a SQLite connection to a file,
nothing in that process opens the file by any other means.

SQLite keeps its locks as POSIX advisory locks, which belong to the process and are all
released when the process closes *any* descriptor of the file, even one SQLite never saw. A
process that lost its locks looks to every other papertray as if it had closed its connection:
the next one to close checkpoints and deletes the ``-wal`` and ``-shm`` that this process still
writes to, and its marks go into a deleted file. SQLite itself shares one descriptor per file
within a process and defers closing it while a lock is held, so any number of SQLite
connections (read-only, ``immutable``, a backup) are safe.

So this module is the one place that looks at a database file, and it does so by ``stat`` or
through SQLite only:

* :func:`looks_like_sqlite` and :func:`make_private` never open the file;
* :func:`quick_check` reads it through SQLite, :func:`set_aside` renames it;
* :func:`refuse_database` guards every path a user names (a seed file, an export's target, a
  marks file to import): a database file this process holds is refused with a one-line
  :class:`~db.models.LibraryError` instead of being opened.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import threading
from datetime import datetime
from pathlib import Path

from db.errors import LibraryError

#: Seconds a connection waits for another process's lock before giving up (SQLite's
#: busy timeout): a long write (a first build of 87k abstracts) holds the index's for ~15 s,
#: but marks are only ever locked for a few milliseconds.
BUSY_TIMEOUT_S = 10.0
#: The files SQLite keeps beside a database in WAL mode (and in rollback mode, the journal).
COMPANIONS = ("", "-wal", "-shm", "-journal")
#: The smallest size of a database file: one page of the smallest page size (SQLite's
#: file format, section 1.3). A shorter file that is not empty is no database.
MIN_DATABASE_BYTES = 512

_databases: set[str] = set()  # the database files of every library this process opened
_databases_lock = threading.Lock()


def register(path: Path) -> None:
    """Record ``path`` as a database file of this process (before its first connection), so
    that :func:`refuse_database` protects it. Kept for the life of the process: a library's
    files are never a seed file, an export's target or a marks file to import."""
    with _databases_lock:
        _databases.add(str(Path(path).absolute()))


def registered() -> list[Path]:
    """The database files recorded by :func:`register`."""
    with _databases_lock:
        return [Path(p) for p in sorted(_databases)]


def database_of(path: str | os.PathLike[str]) -> Path | None:
    """The registered database file that ``path`` is (or is a ``-wal``/``-shm``/
    ``-journal`` of): same file by inode, through links and symlinks; None if none. Only
    ``stat`` is used."""
    try:
        target = os.stat(path)
    except (OSError, ValueError):
        return None
    for database in registered():
        for suffix in COMPANIONS:
            with contextlib.suppress(OSError):
                st = os.stat(f"{database}{suffix}")
                if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
                    return database
    return None


def refuse_database(path: str | os.PathLike[str], what: str) -> None:
    """Raise :class:`LibraryError` when ``path`` is a registered database file (or one of its
    companions); ``what`` names the use, as in "a seed file". Call it before opening any
    path a user names."""
    database = database_of(path)
    if database is not None:
        raise LibraryError(f"{path} is papertray's own {database.name}, not {what}; "
                           "name another file")


def looks_like_sqlite(path: Path) -> bool:
    """True for a missing or empty file, or one long enough to be a database (SQLite then reads
    its header and says "file is not a database" if it is none); False for a folder, or for a
    file shorter than :data:`MIN_DATABASE_BYTES`, which SQLite could take for an empty database
    and overwrite. Uses ``stat`` alone."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    return st.st_size == 0 or st.st_size >= MIN_DATABASE_BYTES


def make_private(path: Path) -> None:
    """Make ``path`` readable and writable by its owner only (0600), by ``chmod``: SQLite makes
    the ``-wal`` and ``-shm`` files with the database file's mode. Errors are ignored (a file
    of another owner keeps its mode; the folder is 0700 anyway)."""
    with contextlib.suppress(OSError):
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)


def quick_check(path: Path, pragma: str = "quick_check") -> str:
    """``PRAGMA quick_check`` of one database file, through SQLite: "ok", or the first problem
    it reports (or the error that stopped it: "file is not a database"). ``pragma``
    ``"integrity_check"`` also compares every index with its table (quick_check does not:
    an index that lost rows passes it), which costs a read of every index.

    A file in WAL mode needs its ``-shm`` file even to be read; when that cannot be made (a full
    disk, a file size limit: SQLite says "disk I/O error") the file itself is checked alone
    (``immutable``), so that a full disk is not taken for a damaged file.
    """
    result = _check(f"file:{path}?mode=ro", pragma)
    if result != "ok" and result.startswith(("disk I/O error", "unable to open")):
        alone = _check(f"file:{path}?immutable=1", pragma)
        if alone == "ok":
            return alone
    return result


def _check(uri: str, pragma: str) -> str:
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            return str(conn.execute(f"PRAGMA {pragma}(1)").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return str(exc)


def set_aside(path: Path, why: str) -> Path:
    """Rename the database file ``path`` (and its -wal and -shm) to ``<name>.<why>-<time>``, a
    name not yet taken; returns the new path. A rename opens nothing: a process with the file
    open keeps it open under its new name. Never overwrites: two calls in the same second get
    two names."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{why}-{stamp}")
    n = 1
    while any(Path(str(target) + s).exists() for s in ("", "-wal", "-shm")):
        n += 1
        target = path.with_name(f"{path.name}.{why}-{stamp}-{n}")
    for suffix in ("-wal", "-shm", ""):
        src = Path(str(path) + suffix)
        if src.exists():
            src.replace(Path(str(target) + suffix))
    return target
