"""The index file (``index.sqlite``): its schema, and opening it whatever state it is in.

The index is derived from the seed files and may be deleted or rebuilt at any time: a file that
is empty, missing, damaged or of another format is set aside or emptied and built anew, with a
one-line notice, never an error. The library's connection ATTACHes the marks file as ``m``.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import sqlite3
from pathlib import Path

from db.index import health
from db.index.acronyms import ACRONYMS_DDL
from db.store.files import looks_like_sqlite, set_aside
from db.store.sqlite import connect, use_wal

#: The format of the index; bump it when its tables change or what they hold: an index of
#: another format is emptied and built again from the seeds (:func:`open_index`).
INDEX_VERSION = 18
#: Bytes per page of the index. An abstract row is ~1.3 kB: 4 kB pages left a fifth of each
#: ``papers`` page empty (10,000 abstracts: 3.1 of 16.5 MiB, dbstat), 16 kB pages a twentieth.
INDEX_PAGE_SIZE = 16384
# The index is not memory-mapped (SQLite's mmap_size): a map made reading a page of 200 hits
# (~200 scattered rows) twice as fast (87,000 abstracts: 0.67 -> 0.29 ms, median search 5.5 ->
# 4.6 ms), but every page read stays in the browser's resident memory (peak RSS over 20 typed
# keys: 56 -> 113 MiB, twice the bare Textual app's).

# bm25 weights of the FTS columns (body, name, title, authors): a word in the method's name or
# the title says more about a paper than the same word somewhere in its abstract. Authors weigh
# 2: a name typed alone finds its papers at any weight, but at 8 a word being typed ("parm") ranked
# a paper by Niki Parmar above the paper named PARM.
BM25_WEIGHTS = (1.0, 8.0, 8.0, 2.0)

# (its own statement: a bulk load drops it and indexes the new rows at once, db.index.sync)
PAPERS_AI_TRIGGER = """CREATE TRIGGER IF NOT EXISTS papers_ai AFTER INSERT ON papers BEGIN
    INSERT INTO papers_fts(rowid, body, name, title, authors)
    VALUES (new.rowid, coalesce(new.body, new.abstract), new.derived_name, new.title,
            new.authors);
END"""

#: The secondary indexes of the index file. A bulk load (db.index.sync) drops them and builds them
#: again after its inserts: one sort each instead of a B-tree insert per row in random order.
BULK_INDEXES = {
    "papers_id": "CREATE UNIQUE INDEX IF NOT EXISTS papers_id ON papers(id)",
    "papers_seed_order":
        "CREATE INDEX IF NOT EXISTS papers_seed_order ON papers(first_file, first_pos)",
    "papers_collection":  # Library.collections
        "CREATE INDEX IF NOT EXISTS papers_collection ON papers(collection)",
    # the sort orders by name and by year (db.search.order): a page in the order of an index
    "papers_name_order":
        "CREATE INDEX IF NOT EXISTS papers_name_order ON papers(coalesce(title, name) IS NULL, "
        "coalesce(title, name) COLLATE NOCASE, first_file, first_pos)",
    # the names the abstracts give, for the rule that a name several papers share is none
    # (db.index.names): read without touching the rows (87k abstracts: ~20k entries)
    "papers_derived_name":
        "CREATE INDEX IF NOT EXISTS papers_derived_name ON papers(derived_name, name) "
        "WHERE derived_name IS NOT NULL AND title IS NULL",
    "papers_year_order":
        "CREATE INDEX IF NOT EXISTS papers_year_order ON papers(year DESC, first_file, first_pos)",
    "sources_paper": "CREATE INDEX IF NOT EXISTS sources_paper ON sources(paper_id)",
}

INDEX_DDL = f"""
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,          -- absolute path of the seed file
    display TEXT NOT NULL,          -- the file's name as shown to people
    size INTEGER, mtime_ns INTEGER, sha256 TEXT,
    status TEXT NOT NULL,           -- loaded | empty | error
    entries INTEGER NOT NULL DEFAULT 0,
    reason TEXT,
    collection TEXT
);
CREATE TABLE IF NOT EXISTS papers (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL,               -- stable id: sha256 of the normalized abstract (db.text);
                                    -- unique (the index papers_id)
    name TEXT,                      -- the name shown: derived_name unless other papers
                                    -- of the library have it too (db.index.names)
    derived_name TEXT,              -- the name the abstract gives (db.seeds.derive); the FTS
                                    -- indexes this one
    title TEXT,
    headline TEXT NOT NULL,
    abstract_source TEXT,           -- as in the seed file; NULL when equal to abstract
    abstract TEXT NOT NULL,         -- hyphenation repaired; Markdown/LaTeX kept
    body TEXT,                      -- db.text.search_form(abstract) when it differs, else NULL
    urls TEXT NOT NULL,             -- JSON list
    code_url TEXT,
    authors TEXT,                   -- names separated by "; " (structured seeds only)
    year INTEGER, venue TEXT,
    details TEXT,                   -- JSON: decision, track, keywords, area, links (db.index.rows)
    collection TEXT NOT NULL DEFAULT '',
    first_file TEXT NOT NULL DEFAULT '',
    first_pos INTEGER NOT NULL DEFAULT 0
);
{";".join(v for k, v in BULK_INDEXES.items() if k.startswith("papers_"))};
CREATE TABLE IF NOT EXISTS sources (
    file TEXT NOT NULL, position INTEGER NOT NULL, paper_id TEXT NOT NULL,
    meta TEXT,                      -- JSON of a structured seed's record's fields, or NULL
    PRIMARY KEY (file, position)
) WITHOUT ROWID;
{BULK_INDEXES["sources_paper"]};
-- the papers with more than one source (db.index.sync keeps it): any other paper's one source is
-- papers.first_file/first_pos, so a page of hits looks up the sources of these alone
CREATE TABLE IF NOT EXISTS multi_sources (paper_id TEXT PRIMARY KEY) WITHOUT ROWID;
-- the entries of catalogues (seed files with titles and no abstracts, db.index.catalogue): what
-- each title found, and the fields of its record as read (its source's meta may hold its
-- abstract's links too)
CREATE TABLE IF NOT EXISTS catalogue (
    file TEXT NOT NULL, position INTEGER NOT NULL,
    outcome TEXT NOT NULL,          -- matched | ambiguous | unmatched
    meta TEXT NOT NULL,
    PRIMARY KEY (file, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vocab (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
-- what the FTS indexes: the abstract, or its search form (CJK split, folded) when that differs
CREATE VIEW IF NOT EXISTS papers_search(rowid, body, name, title, authors) AS
    SELECT rowid, coalesce(body, abstract), derived_name, title, authors FROM papers;
CREATE VIRTUAL TABLE IF NOT EXISTS papers_fts USING fts5(
    body, name, title, authors, content='papers_search', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
);
{PAPERS_AI_TRIGGER};
CREATE TRIGGER IF NOT EXISTS papers_ad AFTER DELETE ON papers BEGIN
    INSERT INTO papers_fts(papers_fts, rowid, body, name, title, authors)
    VALUES ('delete', old.rowid, coalesce(old.body, old.abstract), old.derived_name, old.title,
            old.authors);
END;
-- (not of name: hiding a shared name, db.index.names, leaves the full-text index as it is)
CREATE TRIGGER IF NOT EXISTS papers_au AFTER UPDATE OF derived_name, title, abstract, body,
authors ON papers BEGIN
    INSERT INTO papers_fts(papers_fts, rowid, body, name, title, authors)
    VALUES ('delete', old.rowid, coalesce(old.body, old.abstract), old.derived_name, old.title,
            old.authors);
    INSERT INTO papers_fts(rowid, body, name, title, authors)
    VALUES (new.rowid, coalesce(new.body, new.abstract), new.derived_name, new.title,
            new.authors);
END;
{ACRONYMS_DDL};
{health.TALLY_DDL};
"""



@functools.cache
def expected_schema() -> dict[tuple[str, str], tuple[str, str | None]]:
    """:func:`db.index.health.schema_rows` of a new index, made once per process in memory
    (~1.5 ms): what every index file's schema is compared with."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(INDEX_DDL)
        return health.schema_rows(conn)
    finally:
        conn.close()


class _Damaged(sqlite3.DatabaseError):
    """An index SQLite can read whose schema or rows are not what a sync leaves
    (:func:`db.index.health.problem`)."""


class _OtherFormat(sqlite3.DatabaseError):
    """A sound index written by a papertray of another index format (``version``)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"index format {version}, expected {INDEX_VERSION}")
        self.version = version


def open_index(path: Path, quiet_missing: bool = False, had_marks: bool = False
               ) -> tuple[sqlite3.Connection, list[str]]:
    """Open (or create) the index at ``path`` whatever state it is in; returns ``(connection,
    notices)``.

    An empty file is rebuilt; a missing one too (said when ``had_marks``: the reader had a
    library, unless ``quiet_missing``: the caller itself just set a damaged index aside). A
    damaged file (SQLite cannot read it, or :func:`db.index.health.problem` finds its schema or
    rows wrong) is set aside (``index.sqlite.broken-<time>``) and a new one made; an index of
    another format (an older papertray's) is emptied in place and its tables made anew
    (:func:`_empty_old_index`). Each is said in one notice. Raises ``sqlite3.OperationalError``
    only when the file stays busy for the whole busy timeout.
    """
    notices: list[str] = []
    if path.exists() and path.stat().st_size == 0:
        notices.append("the index was empty (truncated?); rebuilding it")
    elif not path.exists() and had_marks and not quiet_missing:
        notices.append("the index was missing (deleted?); rebuilding it from the seed files")
    try:
        if not looks_like_sqlite(path):
            raise sqlite3.DatabaseError("file is not a database")
        return _open(path), notices
    except _OtherFormat as exc:  # a cache of another version: nothing in it to keep
        try:
            _empty_old_index(path)
        except sqlite3.OperationalError:  # busy for the whole busy timeout: say so
            raise
        except sqlite3.DatabaseError:  # its tables cannot even be dropped: damaged after all
            move_aside(path)
        notices.append(f"the index was made by another version of papertray (index format "
                       f"{exc.version}, this one uses {INDEX_VERSION}); rebuilding it")
    except sqlite3.DatabaseError as exc:
        moved = move_aside(path)
        notices.append(f"the index was damaged ({exc}); moved it to {moved.name}; rebuilding")
    return _open(path), notices


def begin_index_write(conn: sqlite3.Connection) -> None:
    """``BEGIN`` and take the write lock of the index file alone (``main``), not of the marks
    file ATTACHed as ``m``: ``BEGIN IMMEDIATE`` locks every attached file, so a sync (a first
    build holds its transaction while it parses: 87k abstracts, ~15 s) would make every mark,
    note and ``papertray`` command of other processes wait the busy timeout and then fail.
    Waits the connection's busy timeout for the lock; on failure nothing is left open. For
    :func:`db.store.sqlite.write_transaction`'s ``begin``.
    """
    conn.execute("BEGIN")
    try:
        conn.execute("DELETE FROM main.files WHERE 0")  # a write that takes main's lock only
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def begin_rebuild(conn: sqlite3.Connection) -> None:
    """``BEGIN`` and take the write lock of the index file alone (as
    :func:`begin_index_write`), by a write that needs none of its tables (they may be the
    damage). Waits the connection's busy timeout for the lock."""
    conn.execute("BEGIN")
    try:
        conn.execute(f"PRAGMA main.user_version={INDEX_VERSION}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def recreate(conn: sqlite3.Connection) -> None:
    """Drop every schema object of the index and create this format's, empty, inside the
    caller's write transaction (:func:`begin_rebuild`): a reader sees the old index until the
    rebuild commits, and a kill rolls it all back."""
    for kind in ("view", "virtual", "table"):  # virtual tables drop their shadows
        for (name,) in _schema_objects(conn, kind):
            conn.execute(f'DROP {"VIEW" if kind == "view" else "TABLE"} '
                         f'IF EXISTS main."{name.replace(chr(34), chr(34) * 2)}"')
    for (kind, name) in conn.execute("SELECT type, name FROM main.sqlite_master "
                                     "WHERE name NOT LIKE 'sqlite%'").fetchall():
        conn.execute(f'DROP {kind.upper()} IF EXISTS main."{name.replace(chr(34), chr(34) * 2)}"')
    statement = ""
    for part in INDEX_DDL.split(";"):  # one statement at a time (executescript would COMMIT)
        statement += part + ";"
        if sqlite3.complete_statement(statement):
            if statement.strip(" \n;"):
                conn.execute(statement)
            statement = ""
    conn.execute(f"PRAGMA main.user_version={INDEX_VERSION}")


def _open(path: Path) -> sqlite3.Connection:
    conn = connect(path)
    try:
        version, has_tables = _format(conn)
        if has_tables and version != INDEX_VERSION:
            raise _OtherFormat(version)
        if not has_tables and version == INDEX_VERSION:  # (a new file has version 0)
            raise _Damaged("its tables are gone")
        if not has_tables:  # only a new file takes a page size (and not once in WAL mode)
            conn.execute(f"PRAGMA page_size={INDEX_PAGE_SIZE}")
        use_wal(conn)
        if not has_tables:  # every statement is IF NOT EXISTS: two processes may race here
            conn.executescript(
                f"BEGIN IMMEDIATE;{INDEX_DDL}PRAGMA user_version={INDEX_VERSION};COMMIT;")
        found = health.problem(conn, expected_schema())
        if found:
            raise _Damaged(found)
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn


def _format(conn: sqlite3.Connection) -> tuple[int, int]:
    """``(user_version, number of schema objects)`` of the index, read in one statement (one
    read transaction): two statements could see another process's rebuild in between."""
    return conn.execute("SELECT (SELECT user_version FROM pragma_user_version), "
                        "(SELECT count(*) FROM sqlite_master)").fetchone()


def _empty_old_index(path: Path) -> None:
    """Drop every table of an index of another format, in place and in one write transaction;
    :func:`_open` then finds an empty file and creates this format's tables.

    The file is never deleted: another process may have opened it meanwhile, read the old
    format too, and rebuilt it already (the format is read again under the write lock, and a
    current index is left alone); a deleted file, or its ``-wal`` deleted under a process
    writing to it, lost that process's work or corrupted the new index. The pages freed are
    reused by the sync that follows; a VACUUM gives them back now if no other process writes
    (it does not wait for one).
    """
    conn = connect(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version, has_tables = _format(conn)
            dropped = bool(has_tables) and version != INDEX_VERSION
            if dropped:
                for kind in ("view", "virtual", "table"):  # virtual tables drop their shadows
                    for (name,) in _schema_objects(conn, kind):
                        conn.execute(f'DROP {"VIEW" if kind == "view" else "TABLE"} '
                                     f'IF EXISTS "{name.replace(chr(34), chr(34) * 2)}"')
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        if dropped:
            conn.execute("PRAGMA busy_timeout=0")
            with contextlib.suppress(sqlite3.OperationalError):  # busy: the sync reuses them
                conn.execute("VACUUM")
    finally:
        conn.close()


def _schema_objects(conn: sqlite3.Connection, kind: str) -> list[tuple[str]]:
    if kind == "virtual":
        sql = "type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'"
    else:
        sql = f"type = '{kind}' AND name NOT LIKE 'sqlite%'"
    return conn.execute(f"SELECT name FROM main.sqlite_master WHERE {sql}").fetchall()


def move_aside(path: Path) -> Path:
    """Set a damaged index aside; only the newest such copy is kept (each can be large)."""
    moved = set_aside(path, "broken")
    keep = {moved.name + suffix for suffix in ("", "-wal", "-shm")}
    for old in path.parent.glob(f"{path.name}.broken-*"):
        if old.name not in keep:
            with contextlib.suppress(OSError):
                if old.is_dir():
                    shutil.rmtree(old)
                else:
                    old.unlink()
    return moved
