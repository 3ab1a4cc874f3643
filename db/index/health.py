"""Whether an index file is whole: its schema objects and the rows of its tables.

The index is a cache, so any damage ends in a rebuild (:func:`db.index.schema.open_index` sets
a file with a :func:`problem` aside); what matters is that damage is noticed, never answered
from. Two checks, cheap enough for every opening of the index (~0.7 ms on 10,000 abstracts):

* the schema: ``sqlite_master`` (type, name, table, SQL) must be what the schema code creates
  (tables, columns, indexes, triggers, views and the FTS5 shadow tables): nothing missing,
  altered or extra;
* the rows: FTS5's format version (``papers_fts_config``), and the row counts of every table
  (the FTS5 shadow tables too) must be those the last sync recorded in ``tally``
  (:func:`record`, in the sync's own write transaction). A shadow table emptied or cut makes
  searches fail ("vtable constructor failed") or, worse, answer "no papers match" for words
  that are there; its count says so without reading it.

FTS5's own ``integrity-check`` reads the whole full-text index (~0.3 s for 10,000 abstracts):
:func:`diagnose` runs it only once a read has failed, to tell damage from any other error.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: The tables whose row counts a sync records in ``tally`` and an opening compares: every
#: table of the index (10,000 abstracts: ~0.5 ms for all, ``sources`` the largest part).
TALLIED = ("files", "papers", "sources", "multi_sources", "vocab", "papers_fts_data",
           "papers_fts_idx", "papers_fts_docsize", "paper_acronyms", "acronyms")
#: The FTS5 file format this SQLite writes (``papers_fts_config`` key ``version``).
FTS5_FORMAT = 4

_TALLY_ROWS = ", ".join(f"('{t}', (SELECT count(*) FROM {t}))" for t in TALLIED)

#: (after the tables it counts: a new FTS5 table has two rows already). ``papers_fts_data``
#: gets an index of its ids so that counting its rows reads a few pages, not the whole
#: full-text index (10,000 abstracts: 1.3 -> 0.04 ms); SQLite keeps it as FTS5 writes.
TALLY_DDL = f"""CREATE INDEX IF NOT EXISTS papers_fts_data_ids ON papers_fts_data(id);
CREATE TABLE IF NOT EXISTS tally (
    name TEXT PRIMARY KEY,          -- a table of TALLIED
    rows INTEGER NOT NULL           -- its row count at the end of the last sync
) WITHOUT ROWID;
INSERT OR IGNORE INTO tally(name, rows) VALUES {_TALLY_ROWS}"""


def record(conn: sqlite3.Connection) -> None:
    """Record the row counts of :data:`TALLIED` in ``tally``; call it inside the write
    transaction that changed them (a sync), so that no reader sees one without the other.

    FTS5 keeps the latest writes in memory until a savepoint or the commit: the savepoint here
    writes them out first, so the counts are those the commit leaves."""
    conn.execute("SAVEPOINT tally")
    conn.execute("RELEASE tally")
    conn.executemany("INSERT OR REPLACE INTO tally(name, rows) VALUES (?, ?)",
                     zip(TALLIED, _counts(conn), strict=True))


def _counts(conn: sqlite3.Connection) -> list[int]:
    """The row counts of :data:`TALLIED`, each by its own bare ``count(*)``: SQLite answers
    that from the smallest b-tree of the table, but scans the table for one in a subquery
    (10,000 abstracts: 0.4 ms for all against 1.4)."""
    return [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TALLIED]


def schema_rows(conn: sqlite3.Connection) -> dict[tuple[str, str], tuple[str, str | None]]:
    """``{(type, name): (table, sql)}`` of the main schema, SQLite's own statistics left out
    (``ANALYZE`` may add them to any file)."""
    return {(kind, name): (table, sql) for kind, name, table, sql in conn.execute(
        "SELECT type, name, tbl_name, sql FROM main.sqlite_master "
        "WHERE name NOT LIKE 'sqlite_stat%'")}


def problem(conn: sqlite3.Connection,
            expected: dict[tuple[str, str], tuple[str, str | None]]) -> str | None:
    """What is wrong with the index behind ``conn`` (its schema against ``expected``, a
    :func:`schema_rows` of a new index, then its rows), in a few words; None when it is whole.

    Reads in one read transaction, so a sync committed meanwhile by another process is seen
    whole or not at all. Raises :class:`sqlite3.DatabaseError` when the file cannot be read.
    """
    conn.execute("BEGIN")
    try:
        found = _schema_problem(schema_rows(conn), expected) or _rows_problem(conn)
    finally:
        conn.execute("COMMIT")
    return found


def _schema_problem(actual: dict, expected: dict) -> str | None:
    for key in expected:
        if key not in actual:
            return f"its {key[0]} {key[1]} is missing"
        if actual[key] != expected[key]:
            return f"its {key[0]} {key[1]} was altered"
    for key in actual:
        if key not in expected:
            return f"it has an unknown {key[0]} {key[1]}"
    return None


def _rows_problem(conn: sqlite3.Connection) -> str | None:
    version = conn.execute("SELECT v FROM papers_fts_config WHERE k = 'version'").fetchone()
    if version is None or version[0] != FTS5_FORMAT:
        return (f"full-text index format {version[0] if version else 'missing'}, "
                f"expected {FTS5_FORMAT}")
    recorded = dict(conn.execute("SELECT name, rows FROM tally"))
    for table, rows in zip(TALLIED, _counts(conn), strict=True):
        if recorded.get(table) != rows:
            return f"{table} has {rows} rows, the last sync left {recorded.get(table)}"
    # the averages (id 1) and the structure (id 10) of FTS5: without them nothing is found
    if conn.execute("SELECT count(*) FROM papers_fts_data WHERE id IN (1, 10)").fetchone()[0] < 2:
        return "the full-text index lost its structure record"
    return None


def diagnose(path: Path, expected: dict) -> str | None:
    """After a read of the index failed: what is wrong with the file at ``path`` (SQLite's
    ``quick_check``, :func:`problem`, then FTS5's ``integrity-check``, which reads the whole
    full-text index); None when it is whole, so the failure was something else (a lock, a full
    disk). Raises :class:`sqlite3.OperationalError` when the file cannot be read now."""
    # read-write: FTS5 takes its commands as INSERTs, even one that only reads (it waits for
    # the write lock: a second at most, another papertray may be syncing)
    conn = sqlite3.connect(f"file:{path}?mode=rw", uri=True, timeout=1.0,
                           isolation_level=None)
    try:
        try:
            checked = str(conn.execute("PRAGMA quick_check(1)").fetchone()[0])
            if checked != "ok":
                return checked
            found = problem(conn, expected)
            if found is None:
                conn.execute(
                    "INSERT INTO papers_fts(papers_fts, rank) VALUES ('integrity-check', 1)")
        except sqlite3.OperationalError as exc:
            if not may_be_damage(exc):
                raise
            return str(exc)
        except sqlite3.DatabaseError as exc:
            return str(exc)
        return found
    finally:
        conn.close()


#: SQLite's result codes (extended codes start with these) of a read that a damaged index can
#: cause: a damaged file or page, a schema object missing or wrong ("no such table", "vtable
#: constructor failed", "invalid fts5 file format"). A lock, a full disk, an I/O error or a
#: constraint is never taken for damage.
DAMAGE_CODES = ("SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_ERROR", "SQLITE_SCHEMA",
                "SQLITE_MISMATCH", "SQLITE_FORMAT")


def may_be_damage(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` is an error a damaged index can cause (:data:`DAMAGE_CODES`)."""
    return str(getattr(exc, "sqlite_errorname", "") or "").startswith(DAMAGE_CODES)
