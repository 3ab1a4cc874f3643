"""Upgrading a marks file whose CHECK allows to-read and read only (every papertray before
*dismissed*): opened, it keeps every mark, note, tag and history step, takes a dismissed mark,
and a backup of it as it was is written first."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from db import Library, MarkChange
from db.marks import backup as backup_db
from db.marks.schema import allows_every_status, open_marks, widen_statuses

PARM, MENTOR = "0412d482992496cb", "eb8c16cf3afbe389"

#: The marks file as the release before *dismissed* wrote it (its schema copied from that
#: release: db/marks/schema.py at 2211352), with two marks, a note, a tag and their history.
_OLD_MARKS = """
CREATE TABLE marks (
    paper_id TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('to-read', 'read')),
    updated_at TEXT NOT NULL,
    label TEXT,
    anchor TEXT
);
CREATE TABLE mark_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, batch INTEGER NOT NULL,
    at TEXT NOT NULL, kind TEXT NOT NULL, paper_id TEXT NOT NULL, old_status TEXT NOT NULL,
    new_status TEXT NOT NULL, other TEXT);
CREATE TABLE notes (paper_id TEXT PRIMARY KEY, text TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE tags (paper_id TEXT NOT NULL, tag TEXT NOT NULL, added_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)) WITHOUT ROWID;
INSERT INTO marks VALUES ('0412d482992496cb', 'read', '2026-01-01T00:00:00.000000Z', 'PARM',
    'multi-objective test-time alignment');
INSERT INTO marks VALUES ('eb8c16cf3afbe389', 'to-read', '2026-01-02T00:00:00.000000Z',
    'MENTOR', NULL);
INSERT INTO notes VALUES ('0412d482992496cb', 'section 4', '2026-01-03T00:00:00.000000Z');
INSERT INTO tags VALUES ('0412d482992496cb', 'rl', '2026-01-03T00:00:00.000000Z');
INSERT INTO mark_events(batch, at, kind, paper_id, old_status, new_status) VALUES
    (1, '2026-01-01T00:00:00.000000Z', 'mark', '0412d482992496cb', 'new', 'read'),
    (2, '2026-01-02T00:00:00.000000Z', 'mark', 'eb8c16cf3afbe389', 'new', 'to-read');
"""

_ROWS = {
    "marks": [
        (PARM, "read", "2026-01-01T00:00:00.000000Z", "PARM",
         "multi-objective test-time alignment"),
        (MENTOR, "to-read", "2026-01-02T00:00:00.000000Z", "MENTOR", None)],
    "notes": [(PARM, "section 4", "2026-01-03T00:00:00.000000Z")],
    "tags": [(PARM, "rl", "2026-01-03T00:00:00.000000Z")],
}


def _old_file(data_dir: Path) -> Path:
    data_dir.mkdir(parents=True)
    path = data_dir / "marks.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.executescript(_OLD_MARKS)
    return path


def _rows(path: Path, table: str) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def test_an_old_marks_file_is_upgraded_keeping_every_mark(seeds_copy, data_dir):
    path = _old_file(data_dir)
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        assert (lib.get(PARM).status, lib.get(MENTOR).status) == ("read", "to-read")
        assert (lib.get(PARM).note, lib.get(PARM).tags) == ("section 4", ("rl",))
        assert lib.set_status([MENTOR], "dismissed") == [MarkChange(MENTOR, "to-read",
                                                                     "dismissed")]
        assert lib.counts() == {"all": 35, "new": 33, "to-read": 0, "read": 1, "dismissed": 1}
        assert lib.undo() == [MarkChange(MENTOR, "dismissed", "to-read")]
        assert lib.undo() == [MarkChange(MENTOR, "to-read", "new")]  # the old file's history
    for table, rows in _ROWS.items():
        if table != "marks":
            assert _rows(path, table) == rows
    assert _rows(path, "marks") == _ROWS["marks"][:1]  # MENTOR's mark undone to new
    with contextlib.closing(sqlite3.connect(path)) as conn:
        schema = conn.execute("SELECT sql FROM sqlite_master WHERE name='marks'").fetchone()[0]
        assert "'dismissed'" in schema
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'marks_%' "
                            "AND type='table'").fetchall() == []


def test_the_file_as_it_was_is_backed_up_before_the_upgrade(seeds_copy, data_dir):
    path = _old_file(data_dir)
    Library([seeds_copy], data_dir).close()
    made = backup_db.backups(path)
    assert len(made) == 1
    assert _rows(made[0], "marks") == _ROWS["marks"]
    with contextlib.closing(sqlite3.connect(made[0])) as conn:
        schema = conn.execute("SELECT sql FROM sqlite_master WHERE name='marks'").fetchone()[0]
    assert "'dismissed'" not in schema  # the old file itself: restoring it upgrades it again
    Library([seeds_copy], data_dir).close()  # upgraded once: no second backup for it
    assert backup_db.backups(path) == made


class _FailsAt:
    """A connection whose ``execute`` fails at the statement starting with ``stop`` (as a disk
    error or a kill would), the others going to ``conn``."""

    def __init__(self, conn: sqlite3.Connection, stop: str) -> None:
        self.conn, self.stop = conn, stop

    def __getattr__(self, name: str):
        return getattr(self.conn, name)

    def execute(self, sql: str, *args):
        if sql.startswith(self.stop):
            raise sqlite3.OperationalError("disk I/O error")
        return self.conn.execute(sql, *args)


@pytest.mark.parametrize("stop", ["INSERT INTO marks_widened", "DROP TABLE marks",
                                  "ALTER TABLE marks_widened"])
def test_an_upgrade_that_fails_leaves_the_file_as_it_was(data_dir, stop):
    """The upgrade is one transaction: failing at any step, it rolls back, the old table whole
    and no copy left behind; the next opening upgrades it."""
    path = _old_file(data_dir)
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as raw:
        with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
            widen_statuses(_FailsAt(raw, stop), path)
        assert not allows_every_status(raw)
        assert raw.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"
                           ).fetchall() == [("mark_events",), ("marks",), ("notes",),
                                            ("sqlite_sequence",), ("tags",)]
    assert _rows(path, "marks") == _ROWS["marks"]
    conn = open_marks(path)
    try:
        assert allows_every_status(conn)
        assert conn.execute("SELECT * FROM marks ORDER BY 1").fetchall() == _ROWS["marks"]
    finally:
        conn.close()
