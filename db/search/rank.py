"""Stage 4 of a search: the matches in order, one page of them.

Ranking is FTS5's bm25 with the name/title columns weighted above the abstract
(:data:`db.index.schema.BM25_WEIGHTS`), seed order on a tie, after the filters and exclusions.
Three cases are ranked otherwise: when every word together matches fewer than a handful of
papers, every paper with any word is listed, the best partial matches first as
:mod:`db.search.rerank` orders them (said in a notice); a question or a query longer than a
title lists every paper with any word by bm25 over the words (:mod:`db.search.anyword`); and a
title-like query of a few hundred matches is re-ranked (words side by side in the order typed
come first).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from db.search import anyword, order, rerank
from db.search.hits import HIT_COLUMNS
from db.search.match import MATCHED, Matches, fts_count
from db.search.query import Query

_JOINS = "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id"
#: Starts ``work(connection)`` on another connection to the same index, in another thread, and
#: returns a function that waits for its result
#: (:meth:`db.library.connections.Connections.beside`).
Beside = Callable[[Callable[[sqlite3.Connection], int]], Callable[[], int]]


def rank(conn: sqlite3.Connection, q: Query, m: Matches, limit: int, offset: int,
         sort: str = "relevance", beside: Beside | None = None) -> tuple[int, list, str]:
    """``(total, rows, notice)``: the papers ``m`` found, best first (or in another of
    :data:`~db.models.SORTS`: :mod:`db.search.order`); rows of
    :data:`~db.search.hits.HIT_COLUMNS` and a score (higher is better) for the page ``offset``
    .. ``offset + limit``; ``notice`` says when partial matches are listed ("" otherwise).
    ``beside``, when given, counts partial matches on another connection while this one ranks
    them."""
    if m.expression is None:  # filters alone: every paper they keep, in seed order
        return (*order.page(conn, hit_set(conn, q, m), sort, limit, offset), "")
    words, long, partial = _shape(conn, q, m)
    if sort != "relevance":
        hits = hit_sets(conn, q, m)
        total, rows = order.page(conn, hits.condition, sort, limit, offset,
                                 None if partial else m.having_all, hits.counted)
        return total, rows, _partial_notice(words, m.having_all, long, "") if partial else ""
    if partial:
        total, rows = _partial(conn, q, m, limit, offset, long, beside)
        return total, rows, _partial_notice(words, m.having_all, long) if total else ""
    if m.noted:
        return (*_general(conn, m, limit, offset), "")
    if words >= rerank.RERANK_TERMS and m.having_all <= rerank.CANDIDATES:
        # every match is in the one bm25 pass when nothing filtered them and the page reached
        # past them all: re-ranked from it, not from a second pass
        every = m.best if m.best is not None and len(m.best) == m.having_all else None
        return (*_reranked(conn, q, m.expression, m.filters, limit, offset, every), "")
    if m.best is not None:
        return m.having_all, _page_rows(conn, m.best, limit, offset), ""
    return (*_general(conn, m, limit, offset), "")


def _shape(conn: sqlite3.Connection, q: Query, m: Matches) -> tuple[int, bool, bool]:
    """``(words, long, partial)``: the query's distinct words (words joined by OR count as one:
    "a a a" is one word, "a OR b OR c" one), whether it is longer than a title (or a sentence
    of more than a few words), and whether every paper with any of its words is listed."""
    words = len({t.or_group or t.fts() for t in q.positive})
    long = words > rerank.TITLE_WORDS or (bool(q.sentence) and words > rerank.SENTENCE_WORDS)
    return words, long, words > 1 and (long or m.having_all < rerank.handful(conn))


def hit_set(conn: sqlite3.Connection, q: Query, m: Matches) -> tuple[str, list] | None:
    """The papers the search lists, in any order, as an SQL condition on ``papers p`` and its
    mark ``k`` and its parameters: those with every word (or with any, when partial matches
    are listed) or whose note has the words, that the filters and exclusions keep. None when
    that is every paper (a query of no words and no filter)."""
    return _condition(m, _words_matched(conn, q, m), _WITHIN)


@dataclass(frozen=True, slots=True)
class HitSet:
    """The papers a search lists, in any order: ``condition`` is :func:`hit_set`'s SQL
    condition with its parameters (None: every paper); ``probe`` the same set with the words
    matched paper by paper, for a few papers tested (87,000 abstracts: ~30 µs a paper for "in"
    and "the", where ``condition`` lists the 81,000 matches first, 15-40 ms; None when a word
    is a prefix, whose words FTS5 merges again for each paper: ~20 ms a paper for "the*");
    ``counted`` its size when FTS5 alone finds the set (nothing filtered or found by a note:
    counted by FTS5, 87,000 abstracts: the 21,000 papers with any of three words in 2 ms,
    against 55 ms through ``papers``; None otherwise); ``noted`` the ids of the papers whose note
    has every word; ``words`` the FTS5 expression of the words matched (None: filters alone),
    as rewritten now."""

    condition: tuple[str, list] | None
    probe: tuple[str, list] | None
    counted: int | None
    noted: tuple[str, ...]
    words: str | None = None


def hit_sets(conn: sqlite3.Connection, q: Query, m: Matches) -> HitSet:
    """:class:`HitSet` of the search ``q`` whose words matched ``m``."""
    expression = _words_matched(conn, q, m)
    counted = None
    if expression is not None and not m.noted and not m.filters[0]:  # FTS5 alone finds them
        counted = (m.having_all if expression == m.expression and m.having_all is not None
                   else fts_count(conn, expression))
    prefix = any(t.prefix for t in (*q.positive, *q.authors))
    return HitSet(_condition(m, expression, _WITHIN),
                  None if prefix else _condition(m, expression, _PROBED), counted,
                  tuple(m.noted), expression)


#: a paper has the words of an FTS5 expression (the one parameter): the matches listed first,
#: each paper looked up in the list; or matched paper by paper
_WITHIN = "p.rowid IN (SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)"
_PROBED = ("EXISTS (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? "
           "AND papers_fts.rowid = p.rowid)")


def _words_matched(conn: sqlite3.Connection, q: Query, m: Matches) -> str | None:
    """The FTS5 expression of the papers the search lists: with every word, or with any when
    partial matches are listed (None: a query of filters alone)."""
    if m.expression is None:
        return None
    _words, long, partial = _shape(conn, q, m)
    return (anyword.every(anyword.expressions(conn, q, by_word=not long)) if partial
            else m.expression)


def _condition(m: Matches, expression: str | None, within: str) -> tuple[str, list] | None:
    clauses, params = list(m.filters[0]), list(m.filters[1])
    if expression is not None:
        if m.noted:
            within = f"({within} OR p.id IN ({','.join('?' * len(m.noted))}))"
        clauses.insert(0, within)
        params[:0] = [expression, *m.noted]
    return (" AND ".join(clauses), params) if clauses else None


def _partial_notice(words: int, having_all: int, long: bool, best: str = "best ") -> str:
    if not having_all:
        have = "no paper has"
    elif having_all < rerank.HANDFUL or not long:
        have = f"only {having_all} paper{'s have' if having_all > 1 else ' has'}"
    else:  # a long query lists partial matches however many papers have every word
        have = f"{having_all:,} papers have"
    return f"{have} all {words} words; showing {best}partial matches"


def _partial(conn: sqlite3.Connection, q: Query, m: Matches, limit: int, offset: int,
             long: bool, beside: Beside | None = None) -> tuple[int, list]:
    """``(total, rows)``: one page of every paper with any of the words (the filters and
    exclusions applied), best first. The papers whose note has every word come first, then a
    title-like query's best partial matches, as :func:`db.search.rerank.ranked` orders them;
    then (a long query: all of them) the papers by bm25 over all the words
    (:mod:`db.search.anyword`), scored below the first ones."""
    filters = m.filters
    parts = anyword.expressions(conn, q, by_word=not long)
    counting = (beside or (lambda work: lambda: work(conn)))(
        lambda c: anyword.count(c, parts, filters))
    head = [] if long else rerank.ranked(conn, q)[:rerank.PARTIAL_HEAD]
    total = counting()
    if m.noted:
        head, unmatched = _noted_first(conn, anyword.every(parts), m.noted, head)
        total += len(_head_rows(conn, [(r, 0.0) for r in unmatched], filters)[0])
    first, shown = _head_rows(conn, head, filters)
    rows = [(*r[:-1], score) for r, score in first[offset:offset + limit]]
    if offset + limit > len(first):
        floor = first[-1][1] if first else None
        rest = anyword.page(conn, parts, filters, shown,
                            offset + limit - max(offset, len(first)), max(0, offset - len(first)))
        # below the re-ranked ones, in bm25 order: floor - 1/(1 + (-bm25))
        rows += [r if floor is None else (*r[:-1], floor - 1 / (1 + max(r[-1], 0.0)))
                 for r in rest]
    return total, rows


def _noted_first(conn: sqlite3.Connection, every: str, noted: list[str],
                 head: list[tuple[int, float]]) -> tuple[list[tuple[int, float]], list[int]]:
    """``head`` with the papers ``noted`` (ids) first, scored above it; and the rowids of
    those that have none of the words (FTS5 ``every``: the note alone found them, counted on
    top of the papers with any word)."""
    rowids = [r[0] for r in conn.execute(
        f"SELECT rowid FROM papers WHERE id IN ({','.join('?' * len(noted))})", noted)]
    top = max((score for _, score in head), default=0.0) + 1.0
    unmatched = [r for r in rowids if conn.execute(
        "SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? AND rowid = ?",
        (every, r)).fetchone() is None]
    return [(r, top) for r in rowids] + [h for h in head if h[0] not in rowids], unmatched


def _head_rows(conn: sqlite3.Connection, head: list[tuple[int, float]],
               filters: tuple[list[str], list]) -> tuple[list[tuple[tuple, float]], list[int]]:
    """The rows of the re-ranked ``head`` that the filters keep, best first, with their scores;
    and the rowids of all of ``head`` (listed once: the rest of the list leaves them out)."""
    if not head:
        return [], []
    clauses, params = filters
    scores = dict(head)
    marks = ",".join("?" * len(scores))
    where = " AND ".join([f"p.rowid IN ({marks})", *clauses])
    rows = conn.execute(f"SELECT {HIT_COLUMNS}, p.rowid {_JOINS} WHERE {where}",
                        [*scores, *params]).fetchall()
    rows.sort(key=lambda r: -scores[r[-1]])
    return [(r, scores[r[-1]]) for r in rows], list(scores)


def _reranked(conn: sqlite3.Connection, q: Query, expression: str,
              filters: tuple[list[str], list], limit: int, offset: int,
              matches: list[tuple[int, float]] | None = None) -> tuple[int, list]:
    """One page of :func:`db.search.rerank.ranked` (given ``matches``, see there) after the
    filters and exclusions: they only ever remove papers from its list."""
    first, _ = _head_rows(conn, rerank.ranked(conn, q, expression, matches), filters)
    return len(first), [(*r[:-1], score) for r, score in first[offset:offset + limit]]


def _general(conn: sqlite3.Connection, m: Matches, limit: int,
             offset: int) -> tuple[int, list]:
    """``(total, rows)``: one page of the papers matching ``m.expression`` after the filters
    and exclusions, best bm25 first (seed order on a tie), the papers found by their note alone
    after every bm25 hit."""
    clauses, params = m.filters
    matched, match_params = MATCHED, [m.expression]
    if m.noted:
        matched += (" UNION ALL SELECT np.rowid, 0.0 FROM papers np WHERE np.id IN "
                    f"({','.join('?' * len(m.noted))}) AND NOT EXISTS (SELECT 1 FROM papers_fts "
                    "WHERE papers_fts MATCH ? AND papers_fts.rowid = np.rowid)")
        match_params += [*m.noted, m.expression]
    base = (f"FROM ({matched}) hit JOIN papers p ON p.rowid = hit.rowid "
            + _JOINS[len("FROM papers p"):])
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    page = (f"{base}{where} ORDER BY hit.score, p.first_file, p.first_pos LIMIT ? OFFSET ?",
            [*match_params, *params, limit, offset])
    if offset == 0 and limit > 0:  # the first page counts the matches in the same pass
        rows = conn.execute(f"SELECT {HIT_COLUMNS}, -hit.score, count(*) OVER () {page[0]}",
                            page[1]).fetchall()
        return (rows[0][-1] if rows else 0), [r[:-1] for r in rows]
    total = conn.execute(f"SELECT count(*) {base}{where}",
                         [*match_params, *params]).fetchone()[0]
    if limit == 0 or offset >= total:  # no page, or one past the last match: nothing to rank
        return total, []
    return total, conn.execute(f"SELECT {HIT_COLUMNS}, -hit.score {page[0]}", page[1]).fetchall()


#: Rowids bound in one ``IN (...)`` (SQLite allows 32,766 variables in a statement).
_IN_CHUNK = 500


def _page_rows(conn: sqlite3.Connection, best: list[tuple[int, float]], limit: int,
               offset: int) -> list:
    """The rows (``HIT_COLUMNS`` and the negated score) of the page ``offset .. offset +
    limit`` of :attr:`Matches.best` (best first, ties in any order), ordered as the
    general query orders them: by score, then seed order. Only the page's matches and those
    tied with its first are read (a deep page of an export reads a page, not all before it)."""
    if offset >= len(best):
        return []
    start = offset  # the first match tied with the page's first: seed order decides among them
    while start > 0 and best[start - 1][1] == best[offset][1]:
        start -= 1
    scores = dict(best[start:])
    ids = list(scores)
    rows = []
    for at in range(0, len(ids), _IN_CHUNK):
        chunk = ids[at:at + _IN_CHUNK]
        rows += conn.execute(
            f"SELECT {HIT_COLUMNS}, p.rowid FROM papers p LEFT JOIN m.marks k "
            f"ON k.paper_id = p.id WHERE p.rowid IN ({','.join('?' * len(chunk))})",
            chunk).fetchall()
    # Python orders str as SQLite's BINARY collation does (by code point); r[7], r[8] are the
    # first source (first_file, first_pos)
    rows.sort(key=lambda r: (scores[r[-1]], r[7], r[8]))
    return [(*r[:-1], -scores[r[-1]]) for r in rows[offset - start:offset - start + limit]]
