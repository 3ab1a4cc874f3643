"""The papers with any of a query's words, best bm25 first: the list that partial matches are
paged from (stage 4 of a search, :mod:`db.search.rank`).

bm25 over the OR of the words scores every paper with any of them, and FTS5 computes it for
each before sorting: at 87,000 abstracts a 20-word question has most of the library in its OR
(150-250 ms). A paper whose words are all common cannot score high (bm25's idf of a word in a
tenth of the papers is a quarter of a rare word's), so when the words' lists of papers together
hold more than :data:`ROWS` papers, the list is taken in two parts:

1. the papers with at least one of the rarer words (the rarest words whose lists together hold
   at most :data:`ROWS` papers, at least one word), by bm25 over those words;
2. then, only for a page that reaches past them, the papers with common words alone
   (``(common) NOT (rare)``), by their bm25.

Scoring the first part over every word (bm25 of ``(rare) AND (common)`` and ``(rare) NOT
(common)`` is, paper by paper, that of the OR) kept the same best 100 papers but cost twice as
much. The whole list is every paper with any of the words. A smaller library, or a short query
of rare words, is one part: the OR itself, exact.
"""

from __future__ import annotations

import sqlite3

from db.index.schema import BM25_WEIGHTS
from db.search.hits import HIT_COLUMNS
from db.search.query import Query
from db.search.rerank import slots
from db.search.terms import Term

#: Papers the rarer words' lists may hold together before the common words are split off:
#: bm25 over ~10,000 papers costs ~20 ms (87,000 abstracts, 2 cores); a library of a few
#: thousand papers is always one part.
ROWS = 10_000

_BM25 = "bm25(papers_fts, " + ", ".join(str(w) for w in BM25_WEIGHTS) + ")"
_JOINS = "JOIN papers p ON p.rowid = hit.rowid LEFT JOIN m.marks k ON k.paper_id = p.id"


def expressions(conn: sqlite3.Connection, q: Query, by_word: bool = False
                ) -> tuple[str, str | None]:
    """``(rare, common)``: the FTS5 OR of the query's rarer words and of the others (None when
    the words' lists together hold at most :data:`ROWS` papers: then ``rare`` is every word).
    A word's papers are counted from ``vocab`` (its spellings' document frequencies).

    With ``by_word`` every phrase is its words, as :func:`db.search.rerank.slots` takes them,
    so that the partial matches the re-ranking puts first are in this list too; else a quoted
    phrase stays a phrase (:meth:`~db.search.terms.Term.words`)."""
    if by_word:
        found = {s.fts: s.df for s in slots(conn, q)}
        return _split(found)
    terms = {fts: t for t in q.positive for fts in t.words()}
    keys = list({k for t in terms.values() for k in (*t.tokens, *t.variants, *t.completions)})
    df = dict(conn.execute(f"SELECT term, df FROM vocab WHERE term IN "
                           f"({','.join('?' * len(keys))})", keys)) if keys else {}

    def papers(fts: str, t: Term) -> int:  # a phrase is in at most its rarest word's papers
        if fts != t.fts():  # one word of the term
            return df.get(fts.strip('"'), 0)
        spellings = [df.get(k, 0) for k in (*t.variants, *t.completions)]
        return min((df.get(k, 0) for k in t.tokens), default=0) + sum(spellings)

    return _split({fts: papers(fts, t) for fts, t in terms.items()})


def _split(counts: dict[str, int]) -> tuple[str, str | None]:
    """:func:`expressions` of ``{FTS5 string: papers}``."""
    if sum(counts.values()) <= ROWS:
        return " OR ".join(counts), None
    rare, held = [], 0
    for fts in sorted(counts, key=counts.__getitem__):
        if rare and held + counts[fts] > ROWS:
            break
        rare.append(fts)
        held += counts[fts]
    common = [fts for fts in counts if fts not in rare]
    return " OR ".join(rare), " OR ".join(common)


def every(parts: tuple[str, str | None]) -> str:
    """The FTS5 OR of every word, of the ``(rare, common)`` parts :func:`expressions` gives."""
    rare, common = parts
    return f"{rare} OR {common}" if common else rare


def count(conn: sqlite3.Connection, parts: tuple[str, str | None],
          filters: tuple[list[str], list]) -> int:
    """Papers with any of the words (``parts``, of :func:`expressions`) that the filters and
    exclusions keep."""
    clauses, params = filters
    if not clauses:
        return conn.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?",
                            (every(parts),)).fetchone()[0]
    return conn.execute(
        "SELECT count(*) FROM (SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?) hit "
        f"{_JOINS} WHERE {' AND '.join(clauses)}", [every(parts), *params]).fetchone()[0]


def page(conn: sqlite3.Connection, parts: tuple[str, str | None],
         filters: tuple[list[str], list], skip: list[int], limit: int, offset: int) -> list:
    """Rows of :data:`~db.search.hits.HIT_COLUMNS` and ``-bm25`` (higher is better) of the
    papers with any of the words, after the filters and exclusions and without the rowids
    ``skip`` (papers already listed), best first, seed order on a tie: ``offset .. offset +
    limit`` of that list (``parts``, of :func:`expressions`: the module docstring says how the
    two are listed)."""
    rare, common = parts
    rows = _part(conn, rare, filters, skip, limit, offset)
    if common is None or len(rows) == limit:
        return rows
    # the first part ends on this page: the rest of it comes from the papers with common words
    # alone, from where the page's offset falls past the first part's end
    held = offset + len(rows) if rows else _count(conn, rare, filters, skip)
    return rows + _part(conn, f"({common}) NOT ({rare})", filters, skip,
                        limit - len(rows), max(0, offset - held))


def _where(filters: tuple[list[str], list], skip: list[int]) -> tuple[str, list]:
    clauses, params = filters
    if skip:
        clauses = [*clauses, f"p.rowid NOT IN ({','.join('?' * len(skip))})"]
        params = [*params, *skip]
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _part(conn: sqlite3.Connection, expression: str, filters: tuple[list[str], list],
          skip: list[int], limit: int, offset: int) -> list:
    where, params = _where(filters, skip)
    return conn.execute(
        f"SELECT {HIT_COLUMNS}, -hit.score FROM (SELECT rowid, {_BM25} AS score FROM papers_fts "
        f"WHERE papers_fts MATCH ?) hit {_JOINS}{where} "
        "ORDER BY hit.score, p.first_file, p.first_pos LIMIT ? OFFSET ?",
        [expression, *params, limit, offset]).fetchall()


def _count(conn: sqlite3.Connection, expression: str, filters: tuple[list[str], list],
           skip: list[int]) -> int:
    where, params = _where(filters, skip)
    return conn.execute(f"SELECT count(*) FROM (SELECT rowid FROM papers_fts WHERE papers_fts "
                        f"MATCH ?) hit {_JOINS}{where}", [expression, *params]).fetchone()[0]

