"""Marks: the reader's statuses, their history, undo, and re-attaching marks after edits.

Writes here run on a connection to ``marks.sqlite`` alone (``BEGIN IMMEDIATE`` locks only the
marks file, so marking never waits for a long sync of the index). Each write is one short
transaction. What a mark needs to know of its paper comes through a ``describe`` callback.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from db.models import LibraryError, MarkChange
from db.store.sqlite import write_transaction
from db.text import normalize

if TYPE_CHECKING:
    from db.marks.refind import Finder

#: rapidfuzz ratio (0-100) above which an orphaned mark moves to a new abstract. A fixed typo or
#: a changed link keeps an abstract above 95; two different papers score far below 70.
REATTACH_MIN_RATIO = 90.0
ANCHOR_CHARS = 1000


#: ``describe(paper_id) -> (label, abstract)`` or None when the index has no such paper.
Describe = Callable[[str], "tuple[str | None, str] | None"]


def now() -> str:
    """The current time as ISO 8601 UTC with microseconds (sorts as text)."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def anchor(abstract: str) -> str:
    """What a mark remembers of its paper's text, to find it again after an edit."""
    return normalize(abstract)[:ANCHOR_CHARS]


def status_of(conn: sqlite3.Connection, paper_id: str) -> str:
    row = conn.execute("SELECT status FROM marks WHERE paper_id=?", (paper_id,)).fetchone()
    return row[0] if row else "new"


def set_status(conn: sqlite3.Connection, ids: Iterable[str], status: str,
               describe: Describe) -> list[MarkChange]:
    """Set ``status`` on papers (ids must exist in the index); one undoable batch.

    Returns the changes made (papers already at ``status`` are left out). Raises
    :class:`LibraryError` for an unknown status.
    """
    if status not in ("new", "to-read", "read"):
        raise LibraryError(f"unknown status {status!r}: use new, to-read or read")
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


def log_event(conn: sqlite3.Connection, batch: int, at: str, kind: str, paper_id: str, old: str,
              new: str, other: str | None = None) -> None:
    """Append one step to ``mark_events`` (schema.MARKS_DDL says what each column holds)."""
    conn.execute("INSERT INTO mark_events(batch, at, kind, paper_id, old_status, new_status, "
                 "other) VALUES (?,?,?,?,?,?,?)", (batch, at, kind, paper_id, old, new, other))


def next_batch(conn: sqlite3.Connection) -> int:
    """The number of the next step in ``mark_events`` (one per mark, undo, note, tag or import)."""
    return conn.execute("SELECT coalesce(max(batch), 0) + 1 FROM mark_events").fetchone()[0]


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
    from db.marks import notes

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
            paper_id = _current_id(conn, paper_id)
            if kind == "mark":
                change = MarkChange(paper_id, status_of(conn, paper_id), old)
                _write(conn, paper_id, old, stamp, describe)
            else:
                change = notes.undo_event(conn, kind, paper_id, old, new, stamp)
            log_event(conn, batch, stamp, "undo", paper_id, change.old, change.new,
                      str(undone_batch))
            changes.append(change)
    return changes


def _current_id(conn: sqlite3.Connection, paper_id: str) -> str:
    for _ in range(100):  # follow re-attachments; a cycle cannot occur but is bounded anyway
        row = conn.execute(
            "SELECT other FROM mark_events WHERE kind='reattach' AND paper_id=? "
            "ORDER BY seq DESC LIMIT 1", (paper_id,)).fetchone()
        if not row:
            break
        paper_id = row[0]
    return paper_id


def reattach(conn: sqlite3.Connection, orphan_ids: list[str], finder: Finder) -> int:
    """Move orphaned marks, notes and tags to near-identical new papers (rapidfuzz ratio >=
    REATTACH_MIN_RATIO, found by ``finder``: :class:`db.marks.refind.Finder` over the papers a sync
    just added).

    ``orphan_ids`` are papers the index no longer has that have a mark, a note or tags. A mark
    travels by its own anchor; a note or tags of an unmarked paper by the anchor stored when
    they were written (``annotation_anchors``). A paper that already has a mark is never
    overwritten, and what it has of notes and tags is kept. Each move is recorded in
    ``mark_events`` (kind ``reattach``: a mark's status, or "" for notes and tags alone).
    Returns how many papers' marks, notes or tags moved.
    """
    if not orphan_ids:
        return 0
    from db.marks import notes

    wanted = set(orphan_ids)
    statuses: dict[str, tuple[str, str | None]] = {}
    for paper_id, status, text in conn.execute("SELECT paper_id, status, anchor FROM marks"):
        if paper_id in wanted:
            statuses[paper_id] = (status, text)
        else:
            finder.take(paper_id)
    kept = dict(conn.execute("SELECT paper_id, anchor FROM annotation_anchors"))
    lost = []
    for paper_id in dict.fromkeys(orphan_ids):
        status, text = statuses.get(paper_id, ("", None))
        text = text or kept.get(paper_id)  # a mark of an older papertray may have no anchor
        if text:
            lost.append((paper_id, status, text))
    moved = 0
    stamp = now()
    with write_transaction(conn):
        batch = next_batch(conn)
        for old_id, status, text in lost:
            new_id = finder.find(text)
            if not new_id:
                continue
            finder.take(new_id)
            # the mark, note and tags remember the text they moved to: the next small edit is
            # measured from it, not from the text they were first written for
            now_anchor = finder.anchor(new_id)
            if status:
                conn.execute("UPDATE marks SET paper_id=?, anchor=coalesce(?, anchor) "
                             "WHERE paper_id=?", (new_id, now_anchor, old_id))
            notes.move(conn, old_id, new_id)
            conn.execute("UPDATE annotation_anchors SET anchor=coalesce(?, anchor) "
                         "WHERE paper_id=?", (now_anchor, new_id))
            log_event(conn, batch, stamp, "reattach", old_id, status, status, new_id)
            moved += 1
    return moved
