"""The marks file (``marks.sqlite``): its schema, and opening it without ever overwriting it.

The marks file is the reader's own data: it is never rebuilt, and a file that cannot be read is
refused with a one-line hint (``papertray marks repair``), never started afresh over.
Tables added after the first release are created on opening an older file (``IF NOT EXISTS``);
a marks table whose CHECK allows fewer statuses than :data:`db.models.DECIDED` is widened
(:func:`widen_statuses`), every mark kept.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from db.models import DECIDED, LibraryError
from db.store.files import is_damage, looks_like_sqlite
from db.store.sqlite import connect, use_wal, write_transaction

#: The marks table (``{name}``: marks, or the name of the copy :func:`widen_statuses` makes).
MARKS_TABLE = """
CREATE TABLE IF NOT EXISTS {name} (
    paper_id TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('to-read', 'read', 'dismissed')),
    updated_at TEXT NOT NULL,       -- ISO 8601 UTC; the newer mark wins when marks are merged
    label TEXT,                     -- the paper's name or headline, for people reading orphans
    anchor TEXT                     -- normalized start of the abstract, to re-attach the mark
);
"""
MARKS_COLUMNS = "paper_id, status, updated_at, label, anchor"

MARKS_DDL = MARKS_TABLE.format(name="marks") + """
CREATE TABLE IF NOT EXISTS mark_events (   -- append-only history; undo reads it
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    batch INTEGER NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,             -- mark | note | tag | undo | reattach | copy
    paper_id TEXT NOT NULL,
    old_status TEXT NOT NULL,       -- note: the old note ('' none); tag: the tag removed, or ''
    new_status TEXT NOT NULL,       -- note: the new note ('' none); tag: the tag added, or ''
    other TEXT                      -- reattach, copy: the new paper id; undo: the batch undone
);
CREATE TABLE IF NOT EXISTS notes (
    paper_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,             -- one line, at most db.marks.notes.MAX_NOTE_CHARS
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tags (
    paper_id TEXT NOT NULL,
    tag TEXT NOT NULL,              -- folded: db.text.tag_name()
    added_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tags_by_tag ON tags(tag);
-- the start of the text of each paper with a note or tags (db.marks.notes.keep_anchor), by which a
-- sync moves them to the paper's new id after an edit of its abstract, as it moves marks
CREATE TABLE IF NOT EXISTS annotation_anchors (
    paper_id TEXT PRIMARY KEY,
    label TEXT,                     -- the paper's name or headline, for people reading orphans
    anchor TEXT NOT NULL            -- db.marks.history.anchor() of the abstract (or title)
);
-- saved searches (db.marks.saved): a query with its status filter and sort order, by name
CREATE TABLE IF NOT EXISTS saved_searches (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    query TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'all',
    sort TEXT NOT NULL DEFAULT 'relevance',
    created_at TEXT NOT NULL,
    opened_at TEXT NOT NULL         -- when it was saved or last opened (ISO 8601 UTC)
);
-- the papers each saved search found when it was last opened: a hit not here arrived since
CREATE TABLE IF NOT EXISTS saved_seen (
    name TEXT NOT NULL COLLATE NOCASE,
    paper_id TEXT NOT NULL,
    PRIMARY KEY (name, paper_id)
) WITHOUT ROWID;
-- the index each saved search's saved_seen was taken from (db.index.generation): while the
-- index is that one, only a paper found by its note can have arrived
CREATE TABLE IF NOT EXISTS saved_seen_index (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    generation TEXT NOT NULL
) WITHOUT ROWID;
-- the queries searched in the browser, the latest first (db.marks.saved: each once, capped)
CREATE TABLE IF NOT EXISTS query_history (
    query TEXT PRIMARY KEY,
    used_at TEXT NOT NULL
);
"""


def open_marks(path: Path) -> sqlite3.Connection:
    """Open (or create, mode 0600) the marks file. Raises :class:`LibraryError` if unreadable.

    A missing or empty marks file is new only when there is nothing to lose: with backups of it
    around, it was deleted or truncated, and it is refused like a damaged one
    (:func:`db.marks.backup.lost`).
    """
    from db.marks.backup import lost as lost_file

    lost = lost_file(path)
    if lost:
        raise LibraryError(f"the marks file {path} {lost}; papertray will not start it afresh. "
                           + _restore_hint(path))
    if path.is_dir():
        raise LibraryError(f"the marks file {path} is a folder; move it away (papertray will not "
                           "touch it)")
    if not looks_like_sqlite(path):
        raise LibraryError(f"the marks file {path} cannot be read (file is not a database); "
                           "papertray will not overwrite it. " + _restore_hint(path))
    try:
        conn = connect(path)
        use_wal(conn)
        conn.executescript(f"BEGIN IMMEDIATE;{MARKS_DDL}COMMIT;")
        conn.execute("SELECT count(*) FROM marks").fetchone()
        widen_statuses(conn, path)
    except sqlite3.DatabaseError as exc:
        with contextlib.suppress(NameError, sqlite3.Error):
            conn.close()
        if not is_damage(exc):  # the file is fine: it is the folder, the disk or a lock that is not
            raise LibraryError(f"cannot use the marks file {path} ({exc}); it is not damaged: "
                               "check that its disk is not full and that its folder and files "
                               "can be written") from None
        raise LibraryError(
            f"the marks file {path} cannot be read ({exc}); papertray will not overwrite it. "
            + _restore_hint(path)
        ) from None
    return conn


def allows_every_status(conn: sqlite3.Connection) -> bool:
    """True when the marks table's CHECK names every status of :data:`db.models.DECIDED`."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name='marks'"
                       ).fetchone()
    return row is None or all(f"'{status}'" in row[0] for status in DECIDED)


def widen_statuses(conn: sqlite3.Connection, path: Path) -> bool:
    """Let a marks file of an older papertray hold every status (its CHECK allowed only
    to-read and read, not dismissed). Returns True when the file was changed.

    SQLite cannot change a CHECK in place, so the marks are copied into a table made as
    :data:`MARKS_TABLE` says, which then takes the old one's place, in one transaction that
    commits only when the copy holds every mark (else it rolls back, the file as it was, and
    raises :class:`LibraryError`). A backup of the file is written first
    (:func:`db.marks.backup.maybe_backup`). Two papertrays opening the file at once upgrade it
    once: the check is made again under the write lock.
    """
    if allows_every_status(conn):
        return False
    from db.marks.backup import maybe_backup

    maybe_backup(conn, path, force=True)
    with write_transaction(conn):
        if allows_every_status(conn):
            return False
        before = conn.execute("SELECT count(*) FROM marks").fetchone()[0]
        conn.execute(MARKS_TABLE.format(name="marks_widened"))
        conn.execute(f"INSERT INTO marks_widened({MARKS_COLUMNS}) "
                     f"SELECT {MARKS_COLUMNS} FROM marks")
        copied = conn.execute("SELECT count(*) FROM marks_widened").fetchone()[0]
        if copied != before:
            raise LibraryError(f"could not upgrade the marks file {path}: {copied} of "
                               f"{before} marks copied; it is left as it was")
        conn.execute("DROP TABLE marks")
        conn.execute("ALTER TABLE marks_widened RENAME TO marks")
    return True


def _restore_hint(path: Path) -> str:
    from db.marks.backup import backups

    found = backups(path)
    if found:
        return ("Run `papertray marks repair` to rebuild it from what can be read, the latest "
                f"backup ({found[0].name}) and the mark history, or `papertray marks restore` "
                "to put back that backup alone.")
    return ("There is no backup of it; run `papertray marks repair` to keep what can be read of "
            "it and set it aside, or move it away to start afresh.")


