"""Marks: the reader's statuses (to-read, read, dismissed; new is no row), set in undoable
steps, and undo.

Writes here run on a connection to ``marks.sqlite`` alone (``BEGIN IMMEDIATE`` locks only the
marks file, so marking never waits for a long sync of the index). Each write is one short
transaction. What a mark needs to know of its paper comes through a ``describe`` callback.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from db.marks import notes
from db.marks.history import Describe, anchor, current_id, log_event, next_batch, now
from db.models import STATUS_LIST, STATUSES, LibraryError, MarkChange
from db.store.sqlite import write_transaction


def check(status: str | None, *also: str | None) -> None:
    """Raise :class:`LibraryError` unless ``status`` is one of :data:`db.models.STATUSES` or
    of ``also`` (None or "all": any status, where a filter allows it)."""
    if status not in (*STATUSES, *also):
        raise LibraryError(f"unknown status {status!r}: use {STATUS_LIST}")


def status_of(conn: sqlite3.Connection, paper_id: str) -> str:
    """The status of ``paper_id`` in the marks file ("new" when it has no mark)."""
    row = conn.execute("SELECT status FROM marks WHERE paper_id=?", (paper_id,)).fetchone()
    return row[0] if row else "new"


def set_status(conn: sqlite3.Connection, ids: Iterable[str], status: str,
               describe: Describe) -> list[MarkChange]:
    """Set ``status`` on papers (ids must exist in the index); one undoable batch.

    Returns the changes made (papers already at ``status`` are left out). Raises
    :class:`LibraryError` for an unknown status.
    """
    check(status)
    changes: list[MarkChange] = []
    stamp = now()
    with write_transaction(conn):
        batch = next_batch(conn)
        for paper_id in dict.fromkeys(ids):
            old = status_of(conn, paper_id)
            if old == status:
                continue
            _write(conn, paper_id, status, stamp, describe)
            log_event(conn, batch, stamp, "mark", paper_id, old, status)
            changes.append(MarkChange(paper_id, old, status))
    return changes


def _write(conn: sqlite3.Connection, paper_id: str, status: str, stamp: str,
           describe: Describe) -> None:
    if status == "new":
        conn.execute("DELETE FROM marks WHERE paper_id=?", (paper_id,))
        return
    known = describe(paper_id)
    label, text = (known[0], anchor(known[1])) if known else (None, None)
    conn.execute(
        "INSERT INTO marks(paper_id, status, updated_at, label, anchor) VALUES (?,?,?,?,?) "
        "ON CONFLICT(paper_id) DO UPDATE SET status=excluded.status, "
        "updated_at=excluded.updated_at, label=coalesce(excluded.label, label), "
        "anchor=coalesce(excluded.anchor, anchor)",
        (paper_id, status, stamp, label, text))


def undo(conn: sqlite3.Connection, describe: Describe) -> list[MarkChange]:
    """Undo the latest step not yet undone: a batch of marks, a note or tags (repeatable;
    survives restarts).

    Returns the changes made by the undo (empty when there is nothing to undo). Marks that were
    re-attached to an edited paper are undone on the paper they now belong to.
    """
    with write_transaction(conn):
        row = conn.execute(
            "SELECT max(batch) FROM mark_events WHERE kind IN ('mark', 'note', 'tag') AND "
            "CAST(batch AS TEXT) NOT IN (SELECT other FROM mark_events WHERE kind='undo')"
        ).fetchone()
        if not row or row[0] is None:
            return []
        undone_batch = row[0]
        events = conn.execute(
            "SELECT kind, paper_id, old_status, new_status FROM mark_events WHERE batch=? AND "
            "kind IN ('mark', 'note', 'tag') ORDER BY seq DESC", (undone_batch,)).fetchall()
        batch, stamp = next_batch(conn), now()
        changes = []
        for kind, paper_id, old, new in events:
            paper_id = current_id(conn, paper_id)
            if kind == "mark":
                change = MarkChange(paper_id, status_of(conn, paper_id), old)
                _write(conn, paper_id, old, stamp, describe)
            else:
                change = notes.undo_event(conn, kind, paper_id, old, new, stamp)
            log_event(conn, batch, stamp, "undo", paper_id, change.old, change.new,
                      str(undone_batch))
            changes.append(change)
    return changes


