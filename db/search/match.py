"""Stage 3 of a search: which papers the query's words match, before any ranking.

:func:`match` gives a rewritten query's FTS5 expression, the SQL of its filters and exclusions,
the papers whose note has its words, and how many papers have every word. When nothing filters
the words it also takes the best matches from the same bm25 pass, so that the rank stage
(:mod:`db.search.rank`) does not search again.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from db.index.schema import BM25_WEIGHTS
from db.search.notes import note_match
from db.search.query import Query


@dataclass(slots=True)
class Matches:
    """What a query's words match: ``expression`` (the FTS5 MATCH text of every positive term;
    None for a query of filters alone), ``filters`` (SQL clauses over ``papers p`` and its mark
    ``k``, and their parameters), ``noted`` (ids of papers whose note has every word),
    ``having_all`` (papers with every word, no filter applied; None when not counted: a
    filtered single word) and ``best`` (the best matches as ``(rowid, bm25)``, best first, of
    one pass when nothing filters them; None otherwise)."""

    expression: str | None
    filters: tuple[list[str], list]
    noted: list[str]
    having_all: int | None
    best: list[tuple[int, float]] | None


def match(conn: sqlite3.Connection, q: Query, window: int, ranked: bool = True) -> Matches:
    """The matches of ``q``; ``window`` is how many of the best the page needs (limit +
    offset). A note with all the words is the reader's own: those papers come with every hit,
    unranked (the ranking knows the index only). ``ranked`` False: the matches are listed in
    another order than bm25's, or only their set is wanted, so no bm25 pass is made (``best``
    is None) and the papers with every word are counted alone (87,000 abstracts: "in the"
    5 ms, against 160 for the bm25 pass that counts them)."""
    expression = q.match_expression("all")
    filters = where(q)
    noted = note_match(conn, q, "all") if expression else []
    having_all = best = None
    if expression and not ranked:
        if len(q.positive) > 1 or not (noted or filters[0]):
            having_all = fts_count(conn, expression)
        return Matches(expression, filters, noted, having_all, best)
    if expression and not noted and not filters[0]:
        # two words, or a prefix (its words' lists merged: "a*" at 87k papers, 1 s a pass),
        # cost more to match than to count in the same pass
        costly = len(q.positive) > 1 or any(t.prefix for t in q.positive)
        found = best_matches(conn, expression, window, counted=costly)
        if found is not None:
            having_all, best = found
    if expression and having_all is None and (len(q.positive) > 1 or best is not None):
        having_all = fts_count(conn, expression)
    return Matches(expression, filters, noted, having_all, best)


#: Matches fetched past a page's end to see where a tie of scores at its end stops. Ties are
#: common, as one word's bm25 depends only on its count and the abstract's length (87,000
#: abstracts: "method", "integrating", "performance" and "highly" all tie at position 200, in
#: groups of 3-5), and a group is rarely longer than this; a longer one quadruples it, up to
#: :data:`TIE_LIMIT`.
TIE_MARGIN = 32


TIE_LIMIT = 4096


#: Every match of an FTS5 expression (the one parameter) with its bm25 score, lower is better.
MATCHED = ("SELECT rowid, bm25(papers_fts, " + ", ".join(str(w) for w in BM25_WEIGHTS)
            + ") AS score FROM papers_fts WHERE papers_fts MATCH ?")


def fts_count(conn: sqlite3.Connection, expression: str) -> int:
    """Papers matching ``expression`` with no filter or exclusion applied."""
    return conn.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?",
                        (expression,)).fetchone()[0]


def where(q: Query) -> tuple[list[str], list]:
    clauses: list[str] = []
    params: list = []
    for status in filter(None, (q.status, *q.more_status)):
        clauses.append("coalesce(k.status, 'new') = ?")
        params.append(status)
    for status in q.not_status:
        clauses.append("coalesce(k.status, 'new') != ?")
        params.append(status)
    if q.has_code is not None:
        clauses.append("p.code_url IS NOT NULL" if q.has_code else "p.code_url IS NULL")
    for values, negate in ((q.within, ""), (q.not_within, "NOT ")):
        for value in values:
            # a filter's papers are found once, not looked up paper by paper (the seed files'
            # for in:, 87,000 papers: 0.6 → 0.15 s)
            clauses.append(f"{negate}(p.collection LIKE ? ESCAPE '\\' OR p.id IN (SELECT "
                           "s.paper_id FROM files f JOIN sources s ON s.file = f.path "
                           "WHERE f.display LIKE ? ESCAPE '\\'))")
            like = "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            params += [like, like]
    for values, negate in ((q.tags, ""), (q.not_tags, "NOT ")):
        for value in values:
            clauses.append(f"p.id {negate}IN (SELECT paper_id FROM m.tags WHERE tag = ?)")
            params.append(value)
    for term in q.authors:
        clauses.append(f"p.rowid {'NOT ' if term.negated else ''}IN "
                       "(SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)")
        params.append(q.author_expression(term))
    for found in q.fields:
        clause, values = found.sql()
        clauses.append(clause)
        params += values
    exclusion = q.exclusion_expression()
    if exclusion:
        clauses.append("p.rowid NOT IN (SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)")
        params.append(exclusion)
    return clauses, params


def best_matches(conn: sqlite3.Connection, expression: str, n: int, counted: bool = False
                  ) -> tuple[int | None, list[tuple[int, float]]] | None:
    """``(count, [(rowid, bm25 score)])``: the ``n`` best matches of ``expression``, best
    (lowest score) first, and every match tied with the ``n``-th; None when more than
    :data:`TIE_LIMIT` tie past it. ``count`` is the number of all the matches when
    ``counted`` (taken in the same pass: for two words or more that is cheaper than a second
    pass, 87,000 abstracts: "rigid structure*" 2.9 ms, not 2.7 + 0.9), else None.

    Which of the matches tied at the page's end are in it is decided by seed order, as in the
    general query, so the tied ones are all fetched: :data:`TIE_MARGIN` more matches than the
    page, and more while the last one fetched still ties (running the general query instead
    cost "method" 140 ms where one bm25 pass costs 35).
    """
    sql = (f"SELECT rowid, score, count(*) OVER () FROM ({MATCHED}) ORDER BY score LIMIT ?"
           if counted else f"{MATCHED} ORDER BY score LIMIT ?")
    fetch = n + TIE_MARGIN
    while True:
        best = conn.execute(sql, (expression, fetch)).fetchall()
        # every match scored below the last one fetched is in: the page is exact unless that
        # last one ties with the page's last (then more with its score may be left out)
        if n == 0 or len(best) < fetch or best[-1][1] != best[n - 1][1]:
            break
        if fetch - n >= TIE_LIMIT:
            return None
        fetch = n + 4 * (fetch - n)
    count = (best[0][2] if best else 0) if counted else None
    if len(best) > n:  # the page's matches and those tied with its last
        edge = best[n - 1][1] if n else float("-inf")
        best = [b for b in best if b[1] <= edge]
    return count, [(b[0], b[1]) for b in best]
