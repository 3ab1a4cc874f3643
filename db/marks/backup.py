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

from db.store import exclusive
from db.store.exclusive import held

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


def lost(marks: Path) -> str:
    """What is wrong when ``marks`` is missing or empty though backups of it exist (it was
    deleted or truncated), as "is empty but backups of it exist"; "" when nothing is."""
    if not backups(marks):
        return ""
    if not marks.exists():
        return "is missing but backups of it exist"
    wal = Path(f"{marks}-wal")
    if marks.stat().st_size == 0 and not (wal.exists() and wal.stat().st_size):
        return "is empty but backups of it exist"
    return ""


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
    """Put a backup in place of ``marks``; returns ``(restored_from, kept_as)``.

    ``source`` defaults to the newest readable backup. The marks file is replaced in place
    under SQLite's exclusive lock (:mod:`db.store.exclusive`); what it held is kept beside it
    as ``marks.sqlite.replaced-<time>`` (``damaged-<time>`` when it failed its check), never
    deleted. Raises FileNotFoundError when there is no readable backup, ValueError when
    ``source`` is the marks file itself, :class:`InUse` when another papertray has it open.
    """
    if source is not None and source.resolve() == marks.resolve():
        raise ValueError(f"{source} is the marks file itself; name a backup")
    candidates = [source] if source else backups(marks)
    chosen = next((c for c in candidates if c and readable(c)), None)
    if chosen is None:
        raise FileNotFoundError("no readable backup of the marks file")
    try:
        with held(marks) as file:
            why = "replaced" if file.check() == "ok" else "damaged"
            staged = file.staged()
            try:
                src_conn = sqlite3.connect(f"file:{chosen}?mode=ro", uri=True)
                dest = sqlite3.connect(staged)
                try:
                    src_conn.backup(dest)
                finally:
                    dest.close()
                    src_conn.close()
                aside = file.replace(staged, why)
            finally:
                staged.unlink(missing_ok=True)
    except exclusive.InUse:
        raise InUse("the marks file is open in another papertray (a browser, or a command "
                    "still running); quit it, then restore") from None
    return chosen, aside


class InUse(ValueError):
    """The marks file is open in another process; :func:`restore` leaves it as it is."""
