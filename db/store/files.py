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
    ``-journal`` of): the same file by inode, through links and symlinks, or the same name
    when the file does not exist yet (a ``-journal`` SQLite may create); None if none. Only
    ``stat`` is used. (:class:`OwnFiles` checks many paths against one look at the
    databases.)"""
    return OwnFiles().database_of(path)


class OwnFiles:
    """The registered database files and their companions as they are now, by real name and
    by ``(device, inode)``: :meth:`database_of` then costs one ``stat`` and one
    ``realpath`` per path (seed discovery checks every file it finds)."""

    def __init__(self) -> None:
        self.by_name: dict[str, Path] = {}
        self.by_identity: dict[tuple[int, int], Path] = {}
        for database in registered():
            for suffix in COMPANIONS:
                companion = f"{database}{suffix}"
                with contextlib.suppress(OSError, ValueError):
                    self.by_name[os.path.realpath(companion)] = database
                found = identity(companion)
                if found:
                    self.by_identity[found] = database

    def database_of(self, path: str | os.PathLike[str]) -> Path | None:
        """As :func:`database_of`, against the files as they were when this was made."""
        if not self.by_name:
            return None
        found = identity(path)
        if found and found in self.by_identity:
            return self.by_identity[found]
        try:
            return self.by_name.get(os.path.realpath(path))
        except (OSError, ValueError):
            return None


def identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """The file or folder at ``path`` as ``(device, inode)``, or None when there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def data_folders() -> set[tuple[int, int]]:
    """The folders of the registered database files (papertray's data folders), as ``(device,
    inode)``: what is in them is papertray's own (caches, settings, backups), never a seed
    file."""
    return {found for found in map(identity, (d.parent for d in registered())) if found}


def copy_of(path: str | os.PathLike[str]) -> Path | None:
    """The registered database file whose kept copy ``path`` is: a backup (``backups/<stem>-*``
    beside it), a copy set aside or being written (``<name>.<why>-<time>``, ``<name>.new-*``);
    None if none. Names only."""
    try:
        name = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    for database in registered():
        real = os.path.realpath(database)
        backups = os.path.join(os.path.dirname(real), "backups")
        in_backups = (os.path.dirname(name) == backups
                      and os.path.basename(name).startswith(database.stem + "-"))
        if name.startswith(real + ".") or in_backups:
            return database
    return None


def refuse_database(path: str | os.PathLike[str], what: str) -> None:
    """Raise :class:`LibraryError` when ``path`` is a registered database file (or one of its
    companions, or a kept copy of it: :func:`copy_of`); ``what`` names the use, as in "a seed
    file". Call it before opening any path a user names."""
    database = database_of(path)
    if database is not None:
        raise LibraryError(f"{path} is papertray's own {database.name}, not {what}; "
                           "name another file")
    database = copy_of(path)
    if database is not None:
        raise LibraryError(f"{path} is papertray's own copy of {database.name}, not {what}; "
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
    """Make ``path`` readable and writable by its owner only (0600), by ``chmod``, for a file
    made before papertray wrote privately (:func:`db.store.paths.write_privately`): SQLite makes
    the ``-wal`` and ``-shm`` files with the database file's mode. Errors are ignored (a file
    of another owner keeps its mode; the folder is 0700 anyway)."""
    with contextlib.suppress(OSError):
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)


#: SQLite's result codes for a file that is damaged (extended codes start with these), as opposed
#: to one that cannot be read now (locked, no permission, a disk error).
DAMAGE_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB")


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file itself is damaged (:data:`DAMAGE_CODES`)."""
    return str(getattr(exc, "sqlite_errorname", "") or "").startswith(DAMAGE_CODES)


def quick_check(path: Path, pragma: str = "quick_check") -> str:
    """``PRAGMA quick_check`` of one database file, through SQLite: "ok", or the first problem
    it reports (or the damage that stopped it: "file is not a database"). ``pragma``
    ``"integrity_check"`` also compares every index with its table (quick_check does not:
    an index that lost rows passes it), which costs a read of every index.

    Raises :class:`~db.models.LibraryError` when the file cannot be checked now: another
    process holds a long write lock, this user may not read it, or the disk fails. Those are
    no damage. A file in WAL mode needs its ``-shm`` file even to be read; when that cannot be
    made (a full disk) the file itself is checked alone (``immutable``).
    """
    try:
        return _check(f"file:{path}?mode=ro", pragma)
    except sqlite3.Error as exc:
        if is_damage(exc):
            return str(exc)
        try:
            alone = _check(f"file:{path}?immutable=1", pragma)
        except sqlite3.Error:
            alone = None
        if alone == "ok":
            return alone
        raise LibraryError(f"cannot check {path} now ({exc})") from None


def _check(uri: str, pragma: str) -> str:
    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S)
    try:
        return str(conn.execute(f"PRAGMA {pragma}(1)").fetchone()[0])
    finally:
        conn.close()


def set_aside(path: Path, why: str) -> Path:
    """Rename the database file ``path`` (and its -wal and -shm) to :func:`free_name`; returns
    the new path. A rename opens nothing, but a process with the file open keeps writing to it
    under its new name: only for files that are rebuilt from elsewhere when they go (the index).
    """
    target = free_name(path, why)
    for suffix in ("-wal", "-shm", ""):
        src = Path(str(path) + suffix)
        if src.exists():
            src.replace(Path(str(target) + suffix))
    return target


def free_name(path: Path, why: str) -> Path:
    """``<name>.<why>-<time>`` beside ``path``, a name that neither it nor its companions have
    yet (two calls in the same second get two names)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{why}-{stamp}")
    n = 1
    while any(Path(f"{target}{s}").exists() for s in COMPANIONS):
        n += 1
        target = path.with_name(f"{path.name}.{why}-{stamp}-{n}")
    return target
