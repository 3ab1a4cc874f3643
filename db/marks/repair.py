"""Checking the marks file, and rebuilding a damaged one from what can still be read.

A marks file is damaged when SQLite's ``PRAGMA integrity_check`` finds a problem (an index that
lost a row, a page that cannot be read, a file that is no database at all). :func:`repair`
rebuilds it without losing what any copy still holds:

1. every row that a plain scan of each table of the damaged file still reads (a scan reads the
   table itself, not its indexes, so an index that lost a row loses nothing; past a page that
   cannot be read, the scan goes on at the next rowid that can);
2. for a table that could not be read to its end: the newest readable backup's rows, brought
   forward by replaying the mark history (``mark_events``) written after that backup;
3. the history itself, from the damaged file where it reads and from the backup before that.

The file is rebuilt in place under SQLite's exclusive lock (:mod:`db.store.exclusive`): no other
papertray can use it meanwhile, and one that opens it next gets the rebuilt file. A copy of the
damaged file is kept beside it as ``marks.sqlite.damaged-<time>``; the report says exactly which
tables could not be read whole, and so what may be missing.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from db.marks import backup
from db.marks.schema import MARKS_DDL
from db.models import DECIDED, LibraryError
from db.store.exclusive import Held, InUse, held
from db.store.files import quick_check

#: The tables of the marks file and the columns kept of each (schema.MARKS_DDL), keys first.
TABLES: dict[str, tuple[str, ...]] = {
    "mark_events": ("seq", "batch", "at", "kind", "paper_id", "old_status", "new_status",
                    "other"),
    "marks": ("paper_id", "status", "updated_at", "label", "anchor"),
    "notes": ("paper_id", "text", "updated_at"),
    "tags": ("paper_id", "tag", "added_at"),
    "annotation_anchors": ("paper_id", "label", "anchor"),
    "saved_searches": ("name", "query", "status", "sort", "created_at", "opened_at"),
    "saved_seen": ("name", "paper_id"),
    "saved_seen_index": ("name", "generation"),
    "query_history": ("query", "used_at"),
}
_KEYS = {"mark_events": 1, "marks": 1, "notes": 1, "tags": 2, "annotation_anchors": 1,
         "saved_searches": 1, "saved_seen": 2, "saved_seen_index": 1,
         "query_history": 1}
#: the tables without a rowid, read up to their first error
_NO_ROWID = ("tags", "saved_seen", "saved_seen_index")
#: the tables a marks file of an older papertray may lack (no damage: they are empty)
_LATER = ("saved_searches", "saved_seen", "saved_seen_index", "query_history")
#: the tables keyed by a paper id, whose rows follow a paper to its new id
_BY_PAPER = ("marks", "notes", "tags", "annotation_anchors")

Rows = dict[tuple, tuple]  # a table's rows by key


@dataclass(slots=True)
class Repair:
    """What :func:`repair` did: ``damage`` (what the check said), ``aside`` (the copy of the
    damaged file kept; None when there was no file), ``backup`` (the backup used, or None),
    ``counts`` (rows per table in the new file), ``unread`` (table → the first error met
    reading it; empty: nothing lost) and ``read`` (rows read from the damaged file)."""

    damage: str
    aside: Path | None
    backup: Path | None
    counts: dict[str, int]
    unread: dict[str, str] = field(default_factory=dict)
    read: int = 0

    def notice(self) -> str:
        """One line for people: what was damaged, what was kept, and what may be missing."""
        counts = self.counts
        kept = (f"{counts['marks']} marks, {counts['notes']} notes, {counts['tags']} tags, "
                f"{counts['saved_searches']} saved searches and "
                f"{counts['mark_events']} history steps")
        line = f"the marks file was damaged ({self.damage}); rebuilt it with {kept}"
        if self.aside is not None:
            line += f"; the damaged file is kept as {self.aside.name}"
        if not self.unread:
            return line + "; every row was read"
        errors = set(self.unread.values())
        if not self.read and len(self.unread) == len(TABLES) and len(errors) == 1:
            where = f"it at all ({errors.pop()})"
        else:
            where = "all of " + ", ".join(f"{table} ({error})"
                                          for table, error in self.unread.items())
            where += f" ({self.read} rows were read)"
        if self.backup is None and "mark_events" in self.unread:
            return f"{line}; could not read {where}, and there is no backup: those are lost"
        source = (f"the backup {self.backup.name} and the history" if self.backup
                  else "the history (there is no backup)")
        return (f"{line}; could not read {where}: what is missing there was taken from "
                f"{source}, so changes the history does not hold may be lost")


def check(marks: Path) -> str:
    """"ok" when the marks file is sound (or new), else what is wrong: the first line of
    ``PRAGMA integrity_check``, which also finds an index that lost rows (a marks file is
    small: 20,000 marks and 87,000 steps of history, 21 MB, are checked in ~80 ms), or that the
    file is missing or empty while backups of it exist (it was deleted or truncated). Reads
    through SQLite only (:mod:`db.store.files`).

    Raises :class:`LibraryError` when the file cannot be checked now (locked by a long write,
    not readable by this user, a disk error): that is no damage.
    """
    lost = backup.lost(marks)
    if lost:
        return f"it {lost}"
    if not marks.exists() or marks.stat().st_size == 0:
        return "ok"
    return quick_check(marks, "integrity_check")


def repair(marks: Path, force: bool = True) -> Repair | None:
    """Check the marks file and rebuild it in place if it is damaged (see the module's
    docstring); returns what was done, or None when it is sound (checked under the lock: another
    papertray may have repaired it meanwhile). Without ``force``, a file of which nothing can be
    read and that has no backup is left as it is: rebuilding it would only start afresh, which
    the reader should choose (``papertray marks repair``).

    Raises :class:`LibraryError` when another papertray has the file open (it must be quit
    first), when the file cannot be locked or its folder written, or (without ``force``) when
    nothing can be recovered. Nothing is changed then.
    """
    try:
        with held(marks) as file:
            return _rebuild(file, force)
    except InUse:
        try:
            damage = check(marks)
        except LibraryError as exc:
            damage = str(exc)
        raise LibraryError(f"the marks file {marks} is damaged ({damage}) and another papertray "
                           "has it open; quit every papertray on this data folder, then run "
                           "`papertray marks repair`") from None
    except (OSError, sqlite3.Error) as exc:
        raise LibraryError(f"the marks file {marks} could not be rebuilt ({exc}); check that its "
                           "folder can be written") from None


def _rebuild(file: Held, force: bool) -> Repair | None:
    marks = file.path
    lost = backup.lost(marks)
    damage = f"it {lost}" if lost else file.check()
    if damage == "the file is empty":
        return None  # and no backup: a new marks file
    if damage == "ok":
        return None
    if file.conn is not None and not lost:
        found, unread = _read_tables(file.conn)
    else:
        found, unread = _read_past_header(file) if not lost else ({}, {})
        if not any(found.values()):
            found, unread = {t: {} for t in TABLES}, dict.fromkeys(TABLES, damage)
    source = next((b for b in backup.backups(marks) if backup.readable(b)), None)
    if not force and source is None and len(unread) == len(TABLES):
        raise LibraryError(f"the marks file {marks} cannot be read ({damage}) and has no backup; "
                           "run `papertray marks repair` to set it aside and start afresh")
    read = sum(len(rows) for rows in found.values())
    if unread:
        found = _merge(found, source, unread)
    staged = file.staged()
    try:
        _write(staged, found)
        aside = file.replace(staged, "damaged")
    finally:
        staged.unlink(missing_ok=True)
    counts = {table: len(rows) for table, rows in found.items()}
    return Repair(damage, aside, source if unread else None, counts, unread, read)


def _read_past_header(file: Held) -> tuple[dict[str, Rows], dict[str, str]]:
    """The tables of a file SQLite does not take for a database, read from a copy of it given
    the standard 100-byte header (SQLite's file format, section 1.3) of its page size: a header
    overwritten (its first bytes are the magic string) leaves every page readable."""
    data = file.raw()
    size = int.from_bytes(data[16:18], "big") if len(data) >= 100 else 0
    size = 65536 if size == 1 else size
    if not 512 <= size <= 65536 or size & (size - 1):
        size = 4096
    if len(data) < size:
        return {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        template, copy = Path(tmp, "template.sqlite"), Path(tmp, "copy.sqlite")
        with contextlib.closing(sqlite3.connect(template)) as conn:
            conn.execute(f"PRAGMA page_size={size}")
            conn.execute("CREATE TABLE t(x)")
        header = bytearray(template.read_bytes()[:100])
        header[24:28], header[92:96] = (1).to_bytes(4, "big"), bytes(4)  # size from the file's
        wal = Path(f"{file.path}-wal")
        if wal.is_file() and wal.stat().st_size:  # its newest pages: read them too
            header[18:20] = b"\x02\x02"
            shutil.copyfile(wal, f"{copy}-wal")
        copy.write_bytes(bytes(header) + data[100:])
        try:
            with contextlib.closing(sqlite3.connect(copy)) as conn:
                return _read_tables(conn)
        except sqlite3.Error:
            return {}, {}


def _read_tables(conn: sqlite3.Connection) -> tuple[dict[str, Rows], dict[str, str]]:
    """Every row each table still gives to a plain scan, and the tables whose scan met an
    error (table → the first error)."""
    found: dict[str, Rows] = {table: {} for table in TABLES}
    unread: dict[str, str] = {}
    for table, columns in TABLES.items():
        error = _scan(conn, table, columns, found[table])
        if error:
            unread[table] = error
    return found, unread


def _scan(conn: sqlite3.Connection, table: str, columns: tuple[str, ...], rows: Rows) -> str:
    """Read ``table`` into ``rows`` (by key) past pages that cannot be read; returns the first
    error met ("" when none). A rowid table is read in rowid order; after an error the scan
    goes on at the first rowid past the bad page that can be sought (:func:`_next_readable`).
    A table without a rowid (:data:`_NO_ROWID`) is read up to its first error."""
    keyed = table not in _NO_ROWID
    if table in _LATER and not _has_table(conn, table):
        return ""
    select = (f"SELECT rowid, {', '.join(columns)} FROM {table} NOT INDEXED "
              "WHERE rowid >= ? ORDER BY rowid" if keyed
              else f"SELECT 0, {', '.join(columns)} FROM {table}")
    first_error, start = "", -(2 ** 63)
    while start is not None:
        last = start - 1
        try:  # NOT INDEXED: the table's own pages, not an index that may have lost rows
            for row in conn.execute(select, (start,) if keyed else ()):
                last = row[0]
                rows[row[1:_KEYS[table] + 1]] = row[1:]
            return first_error
        except sqlite3.DatabaseError as exc:
            first_error = first_error or str(exc)
            # past the last row read, or past ``start`` when a seek there worked but a scan did not
            start = _next_readable(conn, table, max(last, start)) if keyed else None
    return first_error


def _has_table(conn: sqlite3.Connection, table: str) -> bool:
    """Whether the file has ``table`` (True when its schema cannot be read: the scan says)."""
    try:
        return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                            (table,)).fetchone() is not None
    except sqlite3.DatabaseError:
        return True


def _next_readable(conn: sqlite3.Connection, table: str, after: int) -> int | None:
    """The smallest rowid ``> after`` from which a scan of ``table`` can start, or None.

    Seeks from ``after + 1, + 2, + 4, …`` (a seek into a bad page fails, one past it lands on the
    next good page), then halves the gap back to the first start that works."""
    def seek(start: int) -> int | bool | None:
        try:
            row = conn.execute(f"SELECT rowid FROM {table} NOT INDEXED WHERE rowid >= ? "
                               "ORDER BY rowid LIMIT 1", (start,)).fetchone()
        except sqlite3.DatabaseError:
            return False
        return row[0] if row else None

    bad, step = after, 1
    while after + step < 2 ** 62:
        good = after + step
        found = seek(good)
        if found is not False:
            break
        bad, step = good, step * 2
    else:
        return None
    while good - bad > 1:  # seek(bad) fails, seek(good) works: find the first that works
        middle = (bad + good) // 2
        if seek(middle) is False:
            bad = middle
        else:
            good = middle
    found = seek(good)
    return None if found is None or found is False else found


def _merge(found: dict[str, Rows], source: Path | None,
           unread: dict[str, str]) -> dict[str, Rows]:
    """The tables as they were: a backup's rows, the history after it replayed, and the rows
    read from the damaged file on top (they are the newest)."""
    base = {table: {} for table in TABLES}
    if source:
        conn = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            base = _read_tables(conn)[0]
        finally:
            conn.close()
    events = dict(base["mark_events"])
    events.update(found["mark_events"])
    since = max((key[0] for key in base["mark_events"]), default=0)
    state = {table: dict(rows) for table, rows in base.items() if table != "mark_events"}
    replay(state, [events[key] for key in sorted(events) if key[0] > since], events)
    merged = {"mark_events": events}
    for table in state:
        merged[table] = found[table] if table not in unread else {**state[table], **found[table]}
    return merged


def replay(state: dict[str, Rows], steps: list[tuple], events: Rows) -> None:
    """Apply history rows (``mark_events`` rows of :data:`TABLES`' columns, oldest first) to the
    tables in ``state`` (``marks``, ``notes``, ``tags``, ``annotation_anchors``: rows by key).
    ``events`` holds at least every step of the batches the undo steps undid.

    An undo step says the value it gave back in ``new_status`` (and what it replaced in
    ``old_status``), like the kind of step it undid; which kind that was is read from the
    undone batch (its steps were undone newest first, one undo step each).
    """
    undone: dict[int, list[str]] = {}
    for _seq, _batch, at, kind, paper_id, old, new, other in steps:
        if kind == "undo":
            if other not in undone:
                undone[other] = [e[3] for e in sorted(events.values(), reverse=True)
                                 if str(e[1]) == other and e[3] in ("mark", "note", "tag")]
            kind = undone[other].pop(0) if undone[other] else "mark"
        if kind == "mark":
            _set_mark(state["marks"], paper_id, new, at)
        elif kind == "note":
            rows = state["notes"]
            rows.pop((paper_id,), None)
            if new:
                rows[(paper_id,)] = (paper_id, new, at)
        elif kind == "tag":
            if new:
                state["tags"][(paper_id, new)] = (paper_id, new, at)
            if old:
                state["tags"].pop((paper_id, old), None)
        elif kind == "reattach":
            _move(state, paper_id, other)
        elif kind == "copy":
            _copy(state, paper_id, other)


def _set_mark(marks: Rows, paper_id: str, status: str, at: str) -> None:
    old = marks.pop((paper_id,), None)
    if status in DECIDED:
        label, anchor = (old[3], old[4]) if old else (None, None)
        marks[(paper_id,)] = (paper_id, status, at, label, anchor)


def _move(state: dict[str, Rows], old_id: str, new_id: str) -> None:
    """A re-attachment: the paper's rows go to its new id (what the new id has is kept)."""
    for rows in (state[table] for table in _BY_PAPER):
        for key in [k for k in rows if k[0] == old_id]:
            row = rows.pop(key)
            moved = (new_id, *key[1:])
            rows.setdefault(moved, (new_id, *row[1:]))


def _copy(state: dict[str, Rows], old_id: str, new_id: str) -> None:
    """A copy to another version of the paper: its rows are copied to the new id (what the new
    id has is kept)."""
    for rows in (state[table] for table in _BY_PAPER):
        for key in [k for k in rows if k[0] == old_id]:
            rows.setdefault((new_id, *key[1:]), (new_id, *rows[key][1:]))


def _write(path: Path, tables: dict[str, Rows]) -> None:
    """The marks file made of ``tables`` in the new empty file ``path``."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.executescript(f"BEGIN;{MARKS_DDL}")
        for table, columns in TABLES.items():
            conn.executemany(f"INSERT OR REPLACE INTO {table}({', '.join(columns)}) VALUES "
                             f"({', '.join('?' * len(columns))})",
                             [tables[table][k] for k in sorted(tables[table])])
        conn.execute("COMMIT")
    finally:
        conn.close()
