"""Checking the marks file, and rebuilding a damaged one from what can still be read.

A marks file is damaged when SQLite's ``PRAGMA integrity_check`` finds a problem (an index that
lost a row, a page that cannot be read, a file that is no database at all). :func:`repair`
rebuilds it without losing what any copy still holds:

1. every row that a plain scan of each table of the damaged file still reads (a scan reads the
   table itself, not its indexes, so an index that lost a row loses nothing);
2. for a table that could not be read to its end: the newest readable backup's rows, brought
   forward by replaying the mark history (``mark_events``) written after that backup;
3. the history itself, from the damaged file where it reads and from the backup before that.

The damaged file is kept beside the new one as ``marks.sqlite.damaged-<time>``; the report says
exactly which tables could not be read whole, and so what may be missing.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from db.marks import backup
from db.marks.schema import MARKS_DDL
from db.models import LibraryError
from db.store.files import make_private, quick_check, set_aside

#: The tables of the marks file and the columns kept of each (schema.MARKS_DDL), keys first.
TABLES: dict[str, tuple[str, ...]] = {
    "mark_events": ("seq", "batch", "at", "kind", "paper_id", "old_status", "new_status",
                    "other"),
    "marks": ("paper_id", "status", "updated_at", "label", "anchor"),
    "notes": ("paper_id", "text", "updated_at"),
    "tags": ("paper_id", "tag", "added_at"),
    "annotation_anchors": ("paper_id", "label", "anchor"),
}
_KEYS = {"mark_events": 1, "marks": 1, "notes": 1, "tags": 2, "annotation_anchors": 1}

Rows = dict[tuple, tuple]  # a table's rows by key


@dataclass(slots=True)
class Repair:
    """What :func:`repair` did: ``damage`` (what the check said), ``aside`` (where the damaged
    file now is), ``backup`` (the backup used, or None), ``counts`` (rows per table in the new
    file) and ``unread`` (table → the error that stopped reading it; empty: nothing lost)."""

    damage: str
    aside: Path
    backup: Path | None
    counts: dict[str, int]
    unread: dict[str, str] = field(default_factory=dict)

    def notice(self) -> str:
        """One line for people: what was damaged, what was kept, and what may be missing."""
        counts = self.counts
        kept = (f"{counts['marks']} marks, {counts['notes']} notes, {counts['tags']} tags and "
                f"{counts['mark_events']} history steps")
        line = (f"the marks file was damaged ({self.damage}); rebuilt it with {kept}; the "
                f"damaged file is kept as {self.aside.name}")
        if not self.unread:
            return line + "; every row was read"
        if len(self.unread) == len(TABLES) and len(set(self.unread.values())) == 1:
            where = f"it at all ({next(iter(self.unread.values()))})"
        else:
            where = "all of " + ", ".join(f"{table} ({error})"
                                          for table, error in self.unread.items())
        if self.backup is None and "mark_events" in self.unread:
            return f"{line}; could not read {where}, and there is no backup: those are lost"
        source = (f"the backup {self.backup.name} and the history" if self.backup
                  else "the history (there is no backup)")
        return (f"{line}; could not read {where}: what is missing there was taken from "
                f"{source}, so changes the history does not hold may be lost")


def check(marks: Path) -> str:
    """"ok" when the marks file is sound (or does not exist yet), else what is wrong: the first
    line of ``PRAGMA integrity_check``, which also finds an index that lost rows (a marks file
    is small: 20,000 marks and 87,000 steps of history, 21 MB, are checked in ~80 ms). Reads
    through SQLite only (:mod:`db.store.files`)."""
    if not marks.exists() or (marks.is_file() and marks.stat().st_size == 0):
        return "ok"
    return quick_check(marks, "integrity_check")


def repair(marks: Path, damage: str | None = None, force: bool = True) -> Repair:
    """Rebuild the damaged marks file in place (see the module's docstring); returns what was
    done. ``damage``: what :func:`check` said (checked again when None). Without ``force``, a
    file of which nothing can be read and that has no backup is left as it is: rebuilding it
    would only start afresh, which the reader should choose (``papertray marks repair``).

    Raises :class:`LibraryError` when another papertray has the file open (a browser: it must be
    quit first, or its next marks would go to the file set aside), when the folder cannot be
    written, or (without ``force``) when nothing can be recovered. Nothing is changed then.
    """
    damage = damage or check(marks)
    if backup.in_use(marks):
        raise LibraryError(f"the marks file {marks} is damaged ({damage}) and another papertray "
                           "has it open; quit every papertray on this data folder, then run "
                           "`papertray marks repair`")
    found, unread = _read_tables(marks)
    source = next((b for b in backup.backups(marks) if backup.readable(b)), None)
    if not force and source is None and len(unread) == len(TABLES):
        raise LibraryError(f"the marks file {marks} cannot be read ({damage}) and has no backup; "
                           "run `papertray marks repair` to set it aside and start afresh")
    if unread:
        found = _merge(found, source, unread)
    staged = marks.with_name(marks.name + ".repairing")
    try:
        _write(staged, found)
        aside = set_aside(marks, "damaged")
        staged.replace(marks)
    except (OSError, sqlite3.Error) as exc:
        with contextlib.suppress(OSError):
            staged.unlink()
        raise LibraryError(f"the marks file {marks} is damaged ({damage}) and could not be "
                           f"rebuilt ({exc}); check that its folder can be written") from None
    counts = {table: len(rows) for table, rows in found.items()}
    return Repair(damage, aside, source if unread else None, counts, unread)


def _read_tables(path: Path) -> tuple[dict[str, Rows], dict[str, str]]:
    """Every row each table of ``path`` still gives to a plain scan, and the tables whose
    scan stopped on an error (table → error)."""
    found: dict[str, Rows] = {table: {} for table in TABLES}
    unread: dict[str, str] = {}
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return found, dict.fromkeys(TABLES, str(exc))
    try:
        for table, columns in TABLES.items():
            try:  # NOT INDEXED: the table's own pages, not an index that may have lost rows
                for row in conn.execute(f"SELECT {', '.join(columns)} FROM {table} NOT INDEXED"):
                    found[table][row[:_KEYS[table]]] = row
            except sqlite3.Error as exc:
                unread[table] = str(exc)
    finally:
        conn.close()
    return found, unread


def _merge(found: dict[str, Rows], source: Path | None,
           unread: dict[str, str]) -> dict[str, Rows]:
    """The tables as they were: a backup's rows, the history after it replayed, and the rows
    read from the damaged file on top (they are the newest)."""
    base = _read_tables(source)[0] if source else {table: {} for table in TABLES}
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


def _set_mark(marks: Rows, paper_id: str, status: str, at: str) -> None:
    old = marks.pop((paper_id,), None)
    if status in ("to-read", "read"):
        label, anchor = (old[3], old[4]) if old else (None, None)
        marks[(paper_id,)] = (paper_id, status, at, label, anchor)


def _move(state: dict[str, Rows], old_id: str, new_id: str) -> None:
    """A re-attachment: the paper's rows go to its new id (what the new id has is kept)."""
    for rows in state.values():
        for key in [k for k in rows if k[0] == old_id]:
            row = rows.pop(key)
            moved = (new_id, *key[1:])
            rows.setdefault(moved, (new_id, *row[1:]))


def _write(path: Path, tables: dict[str, Rows]) -> None:
    """A new marks file at ``path`` (mode 0600) holding ``tables``."""
    path.unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    make_private(path)
    try:
        conn.executescript(f"BEGIN;{MARKS_DDL}")
        for table, columns in TABLES.items():
            conn.executemany(f"INSERT OR REPLACE INTO {table}({', '.join(columns)}) VALUES "
                             f"({', '.join('?' * len(columns))})",
                             [tables[table][k] for k in sorted(tables[table])])
        conn.execute("COMMIT")
    finally:
        conn.close()
