"""The two SQLite files: their schemas, and opening them safely.

``index.sqlite`` is derived from the seed files and may be deleted or rebuilt at any time.
``marks.sqlite`` is the reader's own data: it is never rebuilt, and never overwritten when it
cannot be read. The index connection ATTACHes the marks file as schema ``m``.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from db.models import LibraryError
from db.store.files import BUSY_TIMEOUT_S, looks_like_sqlite, make_private, quick_check, register
from db.store.paths import DataPaths

#: Bump when the index's tables change; an index of another version is rebuilt from the seeds.
INDEX_VERSION = 11  # 4: papers.body, the FTS column that splits CJK text (db.text.split_cjk)
#                    5: papers.abstract_source NULL when it equals papers.abstract
#                    6: papers.authors/year/venue, sources.meta, the FTS column authors
#                    7: the index papers_collection (a JSON file holds many venues)
#                    8: FTS columns body first (a token of column 0 needs no column marker in
#                       its position list: 87k abstracts, 33 MiB of FTS data instead of 49);
#                       papers.id unique by a named index (a bulk load builds it afterwards)
#                    9: soft hyphens joined in the indexed text (db.text.repair_hyphenation)
#                   10: the table multi_sources (a hit's sources are read for those alone)
#                   11: white-space controls (form feed, vertical tab, NEL...) cut words
#                       (db.text.clean): an older index has the words on either side joined
BUSY_TIMEOUT_MS = int(BUSY_TIMEOUT_S * 1000)
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
    VALUES (new.rowid, coalesce(new.body, new.abstract), new.name, new.title, new.authors);
END"""

#: The secondary indexes of the index file. A bulk load (db.index.sync) drops them and builds them
#: again after its inserts: one sort each instead of a B-tree insert per row in random order.
BULK_INDEXES = {
    "papers_id": "CREATE UNIQUE INDEX IF NOT EXISTS papers_id ON papers(id)",
    "papers_seed_order":
        "CREATE INDEX IF NOT EXISTS papers_seed_order ON papers(first_file, first_pos)",
    "papers_collection":  # Library.collections
        "CREATE INDEX IF NOT EXISTS papers_collection ON papers(collection)",
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
    name TEXT, title TEXT,
    headline TEXT NOT NULL,
    abstract_source TEXT,           -- as in the seed file; NULL when equal to abstract
    abstract TEXT NOT NULL,         -- hyphenation repaired; Markdown/LaTeX kept
    body TEXT,                      -- db.text.search_form(abstract) when it differs, else NULL
    urls TEXT NOT NULL,             -- JSON list
    code_url TEXT,
    authors TEXT,                   -- names separated by "; " (structured seeds only)
    year INTEGER, venue TEXT,
    collection TEXT NOT NULL DEFAULT '',
    first_file TEXT NOT NULL DEFAULT '',
    first_pos INTEGER NOT NULL DEFAULT 0
);
{";".join(BULK_INDEXES[k] for k in ("papers_id", "papers_seed_order", "papers_collection"))};
CREATE TABLE IF NOT EXISTS sources (
    file TEXT NOT NULL, position INTEGER NOT NULL, paper_id TEXT NOT NULL,
    meta TEXT,                      -- JSON of a structured seed's record's fields, or NULL
    PRIMARY KEY (file, position)
) WITHOUT ROWID;
{BULK_INDEXES["sources_paper"]};
-- the papers with more than one source (db.index.sync keeps it): any other paper's one source is
-- papers.first_file/first_pos, so a page of hits looks up the sources of these alone
CREATE TABLE IF NOT EXISTS multi_sources (paper_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vocab (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
-- what the FTS indexes: the abstract, or its search form (CJK split, folded) when that differs
CREATE VIEW IF NOT EXISTS papers_search(rowid, body, name, title, authors) AS
    SELECT rowid, coalesce(body, abstract), name, title, authors FROM papers;
CREATE VIRTUAL TABLE IF NOT EXISTS papers_fts USING fts5(
    body, name, title, authors, content='papers_search', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
);
{PAPERS_AI_TRIGGER};
CREATE TRIGGER IF NOT EXISTS papers_ad AFTER DELETE ON papers BEGIN
    INSERT INTO papers_fts(papers_fts, rowid, body, name, title, authors)
    VALUES ('delete', old.rowid, coalesce(old.body, old.abstract), old.name, old.title,
            old.authors);
END;
CREATE TRIGGER IF NOT EXISTS papers_au AFTER UPDATE OF name, title, abstract, body, authors
ON papers BEGIN
    INSERT INTO papers_fts(papers_fts, rowid, body, name, title, authors)
    VALUES ('delete', old.rowid, coalesce(old.body, old.abstract), old.name, old.title,
            old.authors);
    INSERT INTO papers_fts(rowid, body, name, title, authors)
    VALUES (new.rowid, coalesce(new.body, new.abstract), new.name, new.title, new.authors);
END;
"""

MARKS_DDL = """
CREATE TABLE IF NOT EXISTS marks (
    paper_id TEXT PRIMARY KEY,
    status TEXT NOT NULL CHECK (status IN ('to-read', 'read')),
    updated_at TEXT NOT NULL,       -- ISO 8601 UTC; the newer mark wins when marks are merged
    label TEXT,                     -- the paper's name or headline, for people reading orphans
    anchor TEXT                     -- normalized start of the abstract, to re-attach the mark
);
CREATE TABLE IF NOT EXISTS mark_events (   -- append-only history; undo reads it
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    batch INTEGER NOT NULL,
    at TEXT NOT NULL,
    kind TEXT NOT NULL,             -- mark | note | tag | undo | reattach
    paper_id TEXT NOT NULL,
    old_status TEXT NOT NULL,       -- note: the old note ('' none); tag: the tag removed, or ''
    new_status TEXT NOT NULL,       -- note: the new note ('' none); tag: the tag added, or ''
    other TEXT                      -- reattach: the new paper id; undo: the batch undone
);
-- added after the first release: created on opening an older marks file (IF NOT EXISTS)
CREATE TABLE IF NOT EXISTS notes (
    paper_id TEXT PRIMARY KEY,
    text TEXT NOT NULL,             -- one line, at most db.marks.notes.MAX_NOTE_CHARS
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tags (
    paper_id TEXT NOT NULL,
    tag TEXT NOT NULL,              -- folded: db.marks.notes.tag_name()
    added_at TEXT NOT NULL,
    PRIMARY KEY (paper_id, tag)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS tags_by_tag ON tags(tag);
-- the start of the text of each paper with a note or tags (db.marks.notes.keep_anchor), by which a
-- sync moves them to the paper's new id after an edit of its abstract, as it moves marks
CREATE TABLE IF NOT EXISTS annotation_anchors (
    paper_id TEXT PRIMARY KEY,
    label TEXT,                     -- the paper's name or headline, for people reading orphans
    anchor TEXT NOT NULL            -- db.marks.statuses.anchor() of the abstract (or title)
);
"""


def connect(paths: DataPaths, quiet_missing: bool = False
            ) -> tuple[sqlite3.Connection, sqlite3.Connection, list[str]]:
    """Open both files; returns ``(index, marks, notices)``. Both are in autocommit mode.

    ``index`` has the marks file attached as ``m`` (for reads that join statuses); ``marks``
    is a connection to the marks file alone, for writes. A damaged index is moved aside
    (``index.sqlite.broken-<time>``) and recreated empty, with a notice; an index of another
    format (an older papertray's) is emptied in place and its tables made anew, with a notice
    (:func:`_empty_old_index`). A marks file that
    cannot be read raises :class:`LibraryError` and is left untouched. ``quiet_missing``: the
    caller itself just moved a damaged index away, so a missing index is no news.
    """
    notices: list[str] = []
    try:
        paths.make_dirs()
    except OSError as exc:
        raise LibraryError(f"cannot create the data folder: {exc}") from None
    register(paths.index)
    register(paths.marks)
    had_marks = paths.marks.exists() and paths.marks.stat().st_size > 0
    marks = open_marks(paths.marks)
    if paths.index.exists() and paths.index.stat().st_size == 0:
        notices.append("the index was empty (truncated?); rebuilding it")
    elif not paths.index.exists() and had_marks and not quiet_missing:
        notices.append("the index was missing (deleted?); rebuilding it from the seed files")
    try:
        if not looks_like_sqlite(paths.index):
            raise sqlite3.DatabaseError("file is not a database")
        index = _open_index(paths.index)
    except _OtherFormat as exc:  # a cache of another version: nothing in it to keep
        try:
            _empty_old_index(paths.index)
        except sqlite3.OperationalError:  # busy for the whole busy timeout: say so
            raise
        except sqlite3.DatabaseError:  # its tables cannot even be dropped: damaged after all
            _move_aside(paths.index)
        notices.append(f"the index was made by another version of papertray (index format "
                       f"{exc.version}, this one uses {INDEX_VERSION}); rebuilding it")
        index = _open_index(paths.index)
    except sqlite3.DatabaseError as exc:
        moved = _move_aside(paths.index)
        notices.append(f"the index was damaged ({exc}); moved it to {moved.name}; rebuilding")
        index = _open_index(paths.index)
    index.execute("ATTACH DATABASE ? AS m", (str(paths.marks),))
    return index, marks, notices


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection, index_only: bool = False) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` on an autocommit connection; ``ROLLBACK`` on any
    exception (a kill, a signal, a disk error): a write is all there or not at all. IMMEDIATE
    takes the write lock at once, so a busy file waits the busy timeout instead of failing midway.
    With ``index_only`` only the index file's lock is taken (:func:`begin_index_write`).
    """
    if index_only:
        begin_index_write(conn)
    else:
        conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def begin_index_write(conn: sqlite3.Connection) -> None:
    """``BEGIN`` and take the write lock of the index file alone (``main``), not of the marks
    file ATTACHed as ``m``: ``BEGIN IMMEDIATE`` locks every attached file, so a sync (a first
    build holds its transaction while it parses: 87k abstracts, ~15 s) would make every mark,
    note and ``papertray`` command of other processes wait the busy timeout and then fail.
    Waits the connection's busy timeout for the lock; on failure nothing is left open.
    """
    conn.execute("BEGIN")
    try:
        conn.execute("DELETE FROM main.files WHERE 0")  # a write that takes main's lock only
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _connect(path: Path) -> sqlite3.Connection:
    # check_same_thread=False: a connection is used by one thread at a time, but a thread that
    # ended hands its connections on to the next one (db.library.api), and close() runs anywhere
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    return conn


def _configure(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")


class _OtherFormat(sqlite3.DatabaseError):
    """A sound index written by a papertray of another index format (``version``)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"index format {version}, expected {INDEX_VERSION}")
        self.version = version


def _open_index(path: Path) -> sqlite3.Connection:
    conn = _connect(path)
    make_private(path)
    try:
        version, has_tables = _format(conn)
        if has_tables and version != INDEX_VERSION:
            raise _OtherFormat(version)
        if not has_tables:  # only a new file takes a page size (and not once in WAL mode)
            conn.execute(f"PRAGMA page_size={INDEX_PAGE_SIZE}")
        _configure(conn)
        if not has_tables:  # every statement is IF NOT EXISTS: two processes may race here
            conn.executescript(
                f"BEGIN IMMEDIATE;{INDEX_DDL}PRAGMA user_version={INDEX_VERSION};COMMIT;")
        conn.execute("SELECT count(*) FROM files").fetchone()
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
    :func:`_open_index` then finds an empty file and creates this format's tables.

    The file is never deleted: another process may have opened it meanwhile, read the old
    format too, and rebuilt it already (the format is read again under the write lock, and a
    current index is left alone); a deleted file, or its ``-wal`` deleted under a process
    writing to it, lost that process's work or corrupted the new index. The pages freed are
    reused by the sync that follows; a VACUUM gives them back now if no other process writes
    (it does not wait for one).
    """
    conn = _connect(path)
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
    return conn.execute(f"SELECT name FROM sqlite_master WHERE {sql}").fetchall()


def open_marks(path: Path) -> sqlite3.Connection:
    """Open (or create, mode 0600) the marks file. Raises :class:`LibraryError` if unreadable.

    An empty marks file is new only when there is nothing to lose: with no write-ahead log
    beside it and backups of it around, it was truncated, and it is refused like a damaged one.
    """
    from db.marks.backup import backups

    wal = Path(str(path) + "-wal")
    if (path.is_file() and path.stat().st_size == 0
            and not (wal.exists() and wal.stat().st_size) and backups(path)):
        raise LibraryError(f"the marks file {path} is empty but backups of it exist; papertray "
                           "will not start it afresh. " + _restore_hint(path))
    if not looks_like_sqlite(path):
        raise LibraryError(f"the marks file {path} cannot be read (file is not a database); "
                           "papertray will not overwrite it. " + _restore_hint(path))
    try:
        conn = _connect(path)
        make_private(path)
        _configure(conn)
        conn.executescript(f"BEGIN IMMEDIATE;{MARKS_DDL}COMMIT;")
        conn.execute("SELECT count(*) FROM marks").fetchone()
    except sqlite3.DatabaseError as exc:
        with contextlib.suppress(NameError, sqlite3.Error):
            conn.close()
        if quick_check(path) == "ok":  # the file is fine: it is the folder or a lock that is not
            raise LibraryError(f"cannot use the marks file {path} ({exc}); it is not damaged: "
                               "check that its disk is not full and that its folder and files "
                               "can be written") from None
        raise LibraryError(
            f"the marks file {path} cannot be read ({exc}); papertray will not overwrite it. "
            + _restore_hint(path)
        ) from None
    return conn


def _restore_hint(path: Path) -> str:
    from db.marks.backup import backups

    found = backups(path)
    if found:
        return ("Run `papertray marks repair` to rebuild it from what can be read, the latest "
                f"backup ({found[0].name}) and the mark history, or `papertray marks restore` "
                "to put back that backup alone.")
    return ("There is no backup of it; run `papertray marks repair` to keep what can be read of "
            "it and set it aside, or move it away to start afresh.")


def _move_aside(path: Path) -> Path:
    """Set a damaged index aside; only the newest such copy is kept (each can be large)."""
    from db.marks.backup import set_aside

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
