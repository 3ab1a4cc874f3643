"""Saved searches and the query history, kept in the marks file (schema.MARKS_DDL).

A saved search is a query with its status filter and sort order under a name; it remembers the
papers its query found when it was last opened, whatever their status (``saved_seen``), so that
the papers it finds now and did not then are the ones that **arrived** since (a seed file added,
next year's proceedings), and a paper whose status alone changed has not; with the generation of
the index they were found in (``saved_seen_index``, :mod:`db.index.generation`). Its name has
one form (:func:`name_form`): names that look the same are the same name.
They are the reader's own, like the marks: in the marks file, its backups, its repair and
``papertray marks export``; never in the index, which is rebuilt at will.

The query history holds the queries searched in the browser, each once, the latest first, at
most :data:`HISTORY_MAX`. Writes are short transactions on the marks file's own connection.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from db.marks.history import now
from db.models import MAX_QUERY_CHARS, SORTS, STATUSES, LibraryError
from db.store.sqlite import write_transaction
from db.text import cut_at_word, one_line

NAME_MAX = 80  # characters of a saved search's name
HISTORY_MAX = 200  # queries kept in the history (the oldest go)


@dataclass(frozen=True, slots=True)
class SavedSearch:
    """A saved search as stored: ``status`` is ``all`` or a status, ``sort`` one of SORTS;
    ``opened_at`` is the newest of its saving and its openings (ISO 8601 UTC)."""

    name: str
    query: str
    status: str
    sort: str
    created_at: str
    opened_at: str

    def to_json(self) -> dict:
        return {"name": self.name, "query": self.query, "status": self.status,
                "sort": self.sort, "created_at": self.created_at, "opened_at": self.opened_at}


_COLUMNS = "name, query, status, sort, created_at, opened_at"


def name_form(name: str) -> str:
    """``name`` as saved searches are named and looked up: NFC, without invisible format
    characters (zero-width spaces and joiners, word joiner, byte-order mark, soft hyphen: the
    Unicode category Cf), on one line with its white space collapsed. Names that look the same
    have the same form, so they are one saved search."""
    visible = "".join(ch for ch in name if unicodedata.category(ch) != "Cf")
    return one_line(unicodedata.normalize("NFC", visible))


def clean_name(name: str) -> str:
    """:func:`name_form` of ``name``; raises :class:`LibraryError` when it is empty or longer
    than :data:`NAME_MAX` characters."""
    name = name_form(name)
    if not name:
        raise LibraryError("a saved search needs a name of visible characters")
    if len(name) > NAME_MAX:
        raise LibraryError(f"a saved search's name has at most {NAME_MAX} characters")
    return name


def check(status: str, sort: str) -> None:
    """Raise :class:`LibraryError` for a status filter or sort order papertray does not know."""
    if status not in ("all", *STATUSES):
        raise LibraryError(f"unknown status {status!r}: use all, {', '.join(STATUSES)}")
    if sort not in SORTS:
        raise LibraryError(f"unknown sort {sort!r}: use {', '.join(SORTS)}")


def save(conn: sqlite3.Connection, search: SavedSearch, seen: Iterable[str],
         generation: str | None = None) -> bool:
    """Store ``search`` (replacing one of the same name, case aside) with the ids of the papers
    it finds now (``seen``) in the index of ``generation`` (:mod:`db.index.generation`; None:
    not known); True when it replaced one."""
    with write_transaction(conn):
        replaced = conn.execute("DELETE FROM saved_searches WHERE name = ?",
                                (search.name,)).rowcount > 0
        conn.execute(f"INSERT INTO saved_searches({_COLUMNS}) VALUES (?,?,?,?,?,?)",
                     (search.name, cut_at_word(search.query, MAX_QUERY_CHARS), search.status,
                      search.sort, search.created_at, search.opened_at))
        _see(conn, search.name, seen, generation)
    return replaced


def opened(conn: sqlite3.Connection, name: str, seen: Iterable[str],
           generation: str | None = None) -> None:
    """Say that the saved search ``name`` was opened now and found the papers ``seen`` in the
    index of ``generation`` (None: not known)."""
    with write_transaction(conn):
        conn.execute("UPDATE saved_searches SET opened_at = ? WHERE name = ?", (now(), name))
        _see(conn, name, seen, generation)


def seen_generation(conn: sqlite3.Connection, name: str, schema: str = "") -> str | None:
    """What the saved search ``name`` found its seen papers by: the digest of the generation
    of the index and of its words as rewritten then (:func:`db.library.saved._found_in`; None:
    not known, as for one saved or repaired by an older papertray)."""
    row = conn.execute(f"SELECT generation FROM {schema}saved_seen_index WHERE name = ?",
                       (name,)).fetchone()
    return row[0] if row else None


def _see(conn: sqlite3.Connection, name: str, seen: Iterable[str],
         generation: str | None) -> None:
    conn.execute("DELETE FROM saved_seen WHERE name = ?", (name,))
    conn.execute("DELETE FROM saved_seen_index WHERE name = ?", (name,))
    conn.executemany("INSERT OR IGNORE INTO saved_seen(name, paper_id) VALUES (?, ?)",
                     ((name, paper_id) for paper_id in seen))
    if generation is not None:
        conn.execute("INSERT INTO saved_seen_index(name, generation) VALUES (?, ?)",
                     (name, generation))


def remove(conn: sqlite3.Connection, name: str) -> SavedSearch:
    """Remove the saved search ``name`` (case aside) and return it; raises
    :class:`LibraryError` when there is none."""
    found = get(conn, name)
    with write_transaction(conn):
        conn.execute("DELETE FROM saved_searches WHERE name = ?", (found.name,))
        conn.execute("DELETE FROM saved_seen WHERE name = ?", (found.name,))
        conn.execute("DELETE FROM saved_seen_index WHERE name = ?", (found.name,))
    return found


def get(conn: sqlite3.Connection, name: str, schema: str = "") -> SavedSearch:
    """The saved search ``name`` (case aside); raises :class:`LibraryError` naming the saved
    searches there are when there is none."""
    # the name as saved now, else as typed (a name saved before names had one form)
    row = conn.execute(f"SELECT {_COLUMNS} FROM {schema}saved_searches WHERE name IN (?, ?) "
                       "ORDER BY name = ?1 DESC", (name_form(name), one_line(name).strip())
                       ).fetchone()
    if row is None:
        names = [s.name for s in all_saved(conn, schema)]
        raise LibraryError(f"no saved search is named {one_line(name)!r}"
                           + (f" (there are: {', '.join(names)})" if names else
                              " (papertray saved add NAME QUERY saves one)"))
    return SavedSearch(*row)


def all_saved(conn: sqlite3.Connection, schema: str = "") -> list[SavedSearch]:
    """Every saved search, by name (case aside). ``schema`` is ``"m."`` on the index's
    connection, where the marks file is attached as ``m``."""
    return [SavedSearch(*r) for r in conn.execute(
        f"SELECT {_COLUMNS} FROM {schema}saved_searches ORDER BY name")]


def merge(conn: sqlite3.Connection, records: list) -> tuple[list[SavedSearch], int]:
    """Add the saved searches of an export (:meth:`SavedSearch.to_json` records) whose name is
    not taken here (a name taken keeps what is here). Returns those added and how many records
    were not sound (:func:`_from_record`) and were skipped."""
    added, invalid = [], 0
    with write_transaction(conn):
        for record in records:
            search = _from_record(record)
            if search is None:
                invalid += 1
            elif conn.execute(
                    f"INSERT OR IGNORE INTO saved_searches({_COLUMNS}) VALUES (?,?,?,?,?,?)",
                    (search.name, search.query, search.status, search.sort, search.created_at,
                     search.opened_at)).rowcount:
                added.append(search)
    return added, invalid


def _from_record(record: object) -> SavedSearch | None:
    """The saved search of an exported record; None when it is not sound: not an object, a
    name or query that is no string, a name empty once cleaned (:func:`clean_name`), an
    unknown status or sort. Its times, when they are not strings, are now."""
    if not isinstance(record, dict):
        return None
    name, query = record.get("name"), record.get("query")
    status, sort = record.get("status", "all"), record.get("sort", "relevance")
    if not (isinstance(name, str) and isinstance(query, str) and isinstance(status, str)
            and isinstance(sort, str)):
        return None
    try:
        check(status, sort)
        name = clean_name(name)
    except LibraryError:
        return None
    stamps = [record.get(key) for key in ("created_at", "opened_at")]
    created, opened_at = (s if isinstance(s, str) else now() for s in stamps)
    return SavedSearch(name, cut_at_word(query, MAX_QUERY_CHARS), status, sort, created,
                       opened_at)


def remember_query(conn: sqlite3.Connection, query: str) -> None:
    """Put ``query`` first in the history (once; blank ones are not kept; past
    :data:`db.models.MAX_QUERY_CHARS`, cut after a whole word), the oldest past
    :data:`HISTORY_MAX` dropped."""
    query = cut_at_word(one_line(query).strip(), MAX_QUERY_CHARS)
    if not query:
        return
    with write_transaction(conn):
        conn.execute("INSERT INTO query_history(query, used_at) VALUES (?, ?) "
                     "ON CONFLICT(query) DO UPDATE SET used_at = excluded.used_at",
                     (query, now()))
        conn.execute("DELETE FROM query_history WHERE query NOT IN (SELECT query FROM "
                     "query_history ORDER BY used_at DESC LIMIT ?)", (HISTORY_MAX,))


def query_history(conn: sqlite3.Connection) -> list[str]:
    """The queries of the history, the latest first."""
    return [r[0] for r in conn.execute(
        "SELECT query FROM query_history ORDER BY used_at DESC, rowid DESC")]
