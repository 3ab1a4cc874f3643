"""Rotating backups of the marks file, made with SQLite's online backup API.

Like reference managers do, papertray copies ``marks.sqlite`` to ``backups/marks-<time>.sqlite``
beside it at most once every :data:`BACKUP_EVERY_S` seconds while it is used, and keeps the
newest :data:`KEEP` copies. A marks file that cannot be read is never overwritten; ``papertray
marks restore`` moves it aside and puts the newest readable backup in its place.
"""

from __future__ import annotations

import os
import sqlite3
import time
from datetime import datetime
from pathlib import Path

from db.store.files import set_aside

KEEP = 5
BACKUP_EVERY_S = 6 * 3600  # a day of triage loses at most a few hours of marks


def backup_dir(marks: Path) -> Path:
    return marks.parent / "backups"


def backups(marks: Path) -> list[Path]:
    """The backups of ``marks``, newest first."""
    folder = backup_dir(marks)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("marks-*.sqlite"), key=lambda p: p.name, reverse=True)


def maybe_backup(conn: sqlite3.Connection, marks: Path, force: bool = False) -> Path | None:
    """Back up the open marks connection if the newest backup is older than the interval.

    Returns the new backup's path, or None when none was due. Never raises: a backup that
    cannot be written (full disk, read-only folder) must not stop anyone from reading papers.
    """
    try:
        existing = backups(marks)
        if existing and not force and time.time() - existing[0].stat().st_mtime < BACKUP_EVERY_S:
            return None
        if not conn.execute("SELECT count(*) FROM marks").fetchone()[0] and not force:
            return None  # nothing worth keeping yet
        folder = backup_dir(marks)
        folder.mkdir(mode=0o700, exist_ok=True)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")  # sorts by time as text
        target = folder / f"marks-{stamp}.sqlite"
        partial = target.with_suffix(".partial")
        fd = os.open(partial, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        os.close(fd)
        dest = sqlite3.connect(partial)
        try:
            conn.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal/-shm
        finally:
            dest.close()
        partial.replace(target)  # a backup is either whole or absent
        for old in backups(marks)[KEEP:]:
            old.unlink(missing_ok=True)
        return target
    except (OSError, sqlite3.Error):
        return None


def readable(path: Path) -> bool:
    """True when ``path`` is a SQLite marks file that passes ``PRAGMA quick_check``."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
            conn.execute("SELECT count(*) FROM marks").fetchone()
            return ok
        finally:
            conn.close()
    except sqlite3.Error:
        return False


def restore(marks: Path, source: Path | None = None) -> tuple[Path, Path | None]:
    """Put a backup in place of ``marks``; returns ``(restored_from, moved_aside)``.

    ``source`` defaults to the newest readable backup. The backup is first copied next to the
    marks file; only then is the current marks file (with its -wal and -shm) moved aside as
    ``marks.sqlite.damaged-<time>`` (never deleted, never overwritten) and the copy renamed into
    place. Raises FileNotFoundError when there is no readable backup, ValueError when ``source``
    is the marks file itself.
    """
    if source is not None and source.resolve() == marks.resolve():
        raise ValueError(f"{source} is the marks file itself; name a backup")
    candidates = [source] if source else backups(marks)
    chosen = next((c for c in candidates if c and readable(c)), None)
    if chosen is None:
        raise FileNotFoundError("no readable backup of the marks file")
    staged = marks.with_name(marks.name + ".restoring")
    staged.unlink(missing_ok=True)
    fd = os.open(staged, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    os.close(fd)
    src_conn = sqlite3.connect(f"file:{chosen}?mode=ro", uri=True)
    dest = sqlite3.connect(staged)
    try:
        src_conn.backup(dest)
        dest.execute("PRAGMA journal_mode=DELETE")
    finally:
        dest.close()
        src_conn.close()
    if in_use(marks):
        staged.unlink(missing_ok=True)
        raise InUse("the marks file is open in another papertray (a browser, or a command still "
                    "running); quit it, then restore: what it marked after the restore would go "
                    "to the file moved aside")
    aside = set_aside(marks, "damaged") if marks.exists() else None
    staged.replace(marks)
    return chosen, aside


class InUse(ValueError):
    """The marks file is open in another process; :func:`restore` will not move it aside."""


def in_use(marks: Path, wait_s: float = 2.0) -> bool:
    """Whether another connection (a browser, another command) has ``marks`` open.

    A connection to a file in WAL mode holds a shared lock on it for as long as it is open, so
    the exclusive lock is refused until all have closed (a short command is waited for,
    ``wait_s``). A file SQLite cannot read at all (damaged: what a restore is for) is not in use.
    """
    if not marks.is_file():
        return False
    try:
        conn = sqlite3.connect(marks, timeout=wait_s, isolation_level=None)
    except sqlite3.Error:
        return False
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        return "locked" in str(exc) or "busy" in str(exc)
    except sqlite3.Error:
        return False
    finally:
        conn.close()
