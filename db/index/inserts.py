"""Inserting a sync's new papers and indexing them: rows of ``papers``, their FTS5 rows (by one
statement for many rows), their acronyms and the vocabulary's counts; in the caller's write
transaction (:mod:`db.index.write`).
"""

from __future__ import annotations

import sqlite3
from collections import Counter

from db.index import acronyms
from db.index.rows import PAPER_COLUMNS
from db.index.schema import PAPERS_AI_TRIGGER

#: New papers from which the FTS rows are written by one statement instead of a trigger each.
BULK_MIN_ROWS = 200


INSERT_PAPER = (f"INSERT INTO papers({', '.join(PAPER_COLUMNS)}, first_file, first_pos, "
                 f"collection) VALUES ({', '.join('?' * (len(PAPER_COLUMNS) + 3))})")


def insert_papers(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    """Insert new papers, index them and mine their acronyms (:mod:`db.index.acronyms`).

    The per-row FTS trigger costs twice the insert itself (10,000 abstracts: 0.9 s against
    0.4 s for the same rows and one ``INSERT INTO papers_fts ... SELECT``), so many new rows go
    in with the trigger dropped (inside this transaction: no other connection ever sees the
    index without it) and are indexed by one statement. New rowids are all above the old maximum.
    """
    if not rows:
        return
    last = conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()[0]
    if len(rows) < BULK_MIN_ROWS:
        conn.executemany(INSERT_PAPER, rows)
    else:
        conn.execute("DROP TRIGGER IF EXISTS papers_ai")
        conn.executemany(INSERT_PAPER, rows)
        conn.execute(PAPERS_AI_TRIGGER)
        index_new_rows(conn, last)
    acronyms.mine_new(conn, last, [(r[2], r[5]) for r in rows])  # (PAPER_COLUMNS' order)


#: FTS5's buffer of new terms (its ``hashsize``), default and during a first build: each time
#: it fills, FTS5 writes a segment, and segments are merged as they pile up. 87k abstracts:
#: 2.6 s of CPU to index them with a 64 MiB buffer, 3.2 s with the default 1 MiB; the buffer
#: is memory for the sync's time only (set back before the commit).
FTS_HASH_BYTES = 1024 * 1024


BULK_FTS_HASH_BYTES = 64 * 1024 * 1024


def fts_config(conn: sqlite3.Connection, name: str, value: int) -> None:
    """Set an FTS5 configuration option of the index (kept in the index, in the transaction)."""
    conn.execute("INSERT INTO papers_fts(papers_fts, rank) VALUES (?, ?)", (name, value))


def index_new_rows(conn: sqlite3.Connection, last: int) -> None:
    """Index the papers of rowid above ``last`` in the FTS table, by one statement."""
    fts = ", ".join(r[1] for r in conn.execute("PRAGMA table_info(papers_fts)"))
    conn.execute(f"INSERT INTO papers_fts(rowid, {fts}) SELECT rowid, {fts} FROM papers_search "
                 "WHERE rowid > ?", (last,))


def update_vocab(conn: sqlite3.Connection, delta: Counter[str]) -> None:
    """Add ``delta`` (term → change of its document frequency) to the vocabulary."""
    if not conn.execute("SELECT 1 FROM vocab LIMIT 1").fetchone():  # a first build
        # plain inserts in key order: no conflict to look for, each row appended to the
        # B-tree (87k abstracts: ~90,000 terms in 0.06 s instead of 0.16)
        conn.executemany("INSERT INTO vocab(term, df) VALUES (?, ?)",
                         sorted((t, n) for t, n in delta.items() if n > 0))
        return
    rows = [(t, n) for t, n in delta.items() if n]
    conn.executemany(
        "INSERT INTO vocab(term, df) VALUES (?, ?) "
        "ON CONFLICT(term) DO UPDATE SET df = df + excluded.df", rows)
    conn.execute("DELETE FROM vocab WHERE df <= 0")
