"""The history of the reader's steps (``mark_events``), and what every step writes down of its
paper: when, and an anchor of its text by which the step follows the paper to a new id.

Every mark, undo, note, tag, import and re-attachment appends rows here, in short transactions:
undo reads it back, other windows watch its newest row, and a damaged marks file is rebuilt by
replaying it (:mod:`db.marks.repair`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from db.text import normalize

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


def log_event(conn: sqlite3.Connection, batch: int, at: str, kind: str, paper_id: str, old: str,
              new: str, other: str | None = None) -> None:
    """Append one step to ``mark_events`` (schema.MARKS_DDL says what each column holds)."""
    conn.execute("INSERT INTO mark_events(batch, at, kind, paper_id, old_status, new_status, "
                 "other) VALUES (?,?,?,?,?,?,?)", (batch, at, kind, paper_id, old, new, other))


def next_batch(conn: sqlite3.Connection) -> int:
    """The number of the next step in ``mark_events`` (one per mark, undo, note, tag or import)."""
    return conn.execute("SELECT coalesce(max(batch), 0) + 1 FROM mark_events").fetchone()[0]


def current_id(conn: sqlite3.Connection, paper_id: str) -> str:
    for _ in range(100):  # follow re-attachments; a cycle cannot occur but is bounded anyway
        row = conn.execute(
            "SELECT other FROM mark_events WHERE kind='reattach' AND paper_id=? "
            "ORDER BY seq DESC LIMIT 1", (paper_id,)).fetchone()
        if not row:
            break
        paper_id = row[0]
    return paper_id
