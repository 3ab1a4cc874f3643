"""Running a parsed query against the index: bm25 ranking, filters, typo fixes, fallback.

Ranking is FTS5's bm25 with the name/title columns weighted above the abstract
(:data:`db.index.schema.BM25_WEIGHTS`). When all words together match fewer than
:data:`db.search.rerank.HANDFUL` papers, the best partial matches are ranked instead
(:mod:`db.search.rerank`)
and the notice says so. Before it runs, the query is rewritten against the index
(:mod:`db.search.rewrite`): a word that is not in the index vocabulary is corrected to the nearest
words that are, a method name typed without its punctuation (``c3po``) finds the name
(``C-3PO``), a compound finds its other spelling (``multitask``, ``multi-task``).
"""

from __future__ import annotations

import json
import sqlite3

from db.index.schema import BM25_WEIGHTS
from db.models import Hit, SearchResult, Source
from db.search import rerank as rank
from db.search import rewrite
from db.search.notes import note_match
from db.search.query import Query, parse
from db.search.spelling import Vocabulary

__all__ = ["Vocabulary", "abstracts", "paper_from_row", "paper_row_sql", "run"]

#: What :func:`_hits` needs of a paper (``p``, its mark ``k``), before the score: the paper's
#: first source and whether it has others come with it (see ``multi_sources``).
_HIT_COLUMNS = ("p.id, p.name, p.title, p.headline, coalesce(k.status, 'new'), p.collection, "
                "p.code_url, p.first_file, p.first_pos, "
                "p.id IN (SELECT paper_id FROM multi_sources)")
_SCORE = 10  # the score's place in a row of _HIT_COLUMNS and the score
#: Every match of an FTS5 expression (the one parameter) with its bm25 score, lower is better.
_MATCHED = ("SELECT rowid, bm25(papers_fts, " + ", ".join(str(w) for w in BM25_WEIGHTS)
            + ") AS score FROM papers_fts WHERE papers_fts MATCH ?")


def run(conn: sqlite3.Connection, text: str, status: str | None, limit: int, offset: int,
        vocabulary: callable, typing: bool = False) -> SearchResult:
    """Search; see :meth:`db.Library.search`. ``vocabulary()`` returns a :class:`Vocabulary`."""
    q = parse(text, typing=typing)
    if status and status != "all":
        q.require_status(status)
    notices = list(q.notices)
    rewrite.plurals(conn, q)
    corrections = rewrite.correct(conn, q, vocabulary)
    if corrections:
        notices.append("corrected " + ", ".join(f"{a} → {b}" for a, b in corrections))
    rewrite.complete(conn, q)
    rewrite.alternatives(conn, q)
    expression = q.match_expression("all")
    words = len({t.fts() for t in q.positive})  # as typed: "multi-task" is one, a repeat none
    # Relax only when the words themselves find too little, not when an exclusion or a filter
    # removed their hits: else "-word" or "is:read" would bring in papers the words alone never
    # showed (a query with "-word" must never have a hit that the same query without it lacks).
    handful = rank.handful(conn)
    # a note with all the words: the reader's own words, so no partial matches and no re-ranking
    # (the ranking knows the index only); _query lists the noted papers after the bm25 hits
    noted = note_match(conn, q, "all") if expression else []
    best = None  # the best matches and their count, from one pass, when nothing filters them
    if expression and len(q.positive) > 1:
        if not noted and not _where(q)[0]:
            best = _best_matches(conn, expression, limit + offset, counted=True)
        having_all = best[0] if best is not None else _fts_count(conn, expression)
    else:
        having_all = handful  # a single word or phrase has nothing to relax
    if noted:
        total, rows = _query(conn, q, expression, limit, offset, noted=noted)
    elif having_all < handful:
        total, rows = _ranked(conn, q, None, limit, offset)
        if total:
            notices.append(("no paper has" if not having_all else
                            f"only {having_all} paper{'s have' if having_all > 1 else ' has'}")
                           + f" all {words} words; showing best partial matches")
    elif len(q.positive) >= rank.RERANK_TERMS and having_all <= rank.CANDIDATES:
        # a title-like query with few enough hits to re-rank them all: words side by side, in
        # the order typed, come first
        # every match is in the one bm25 pass when no filter applied and the page reached
        # past them all: re-ranked from it, not from a second pass
        every = best[1] if best is not None and len(best[1]) == having_all else None
        total, rows = _ranked(conn, q, expression, limit, offset, matches=every)
    elif best is not None:
        total, rows = having_all, _page_rows(conn, best[1], limit, offset)
    else:  # the count of all the words is the total when no filter applies: counted once
        total, rows = _query(conn, q, expression, limit, offset, noted=noted,
                             count=having_all if len(q.positive) > 1 else None)
    hits = _hits(conn, rows)
    terms = tuple(dict.fromkeys(
        tok + ("*" if t.prefix and i == len(spelt) - 1 else "")
        for t in q.positive for spelt in (t.tokens, *(a.split() for a in t.alternatives))
        for i, tok in enumerate((*spelt, *t.variants, *t.completions))))
    return SearchResult(text, q.describe(), "; ".join(notices), total, hits, terms)


def _fts_count(conn: sqlite3.Connection, expression: str) -> int:
    """Papers matching ``expression`` with no filter or exclusion applied."""
    return conn.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?",
                        (expression,)).fetchone()[0]


def _ranked(conn: sqlite3.Connection, q: Query, expression: str | None, limit: int,
            offset: int, matches: list[tuple[int, float]] | None = None) -> tuple[int, list]:
    """One page of :func:`db.search.rerank.ranked` (given ``matches``, see there) after ``q``'s
    filters
    and exclusions."""
    ranked = rank.ranked(conn, q, expression, matches)
    if not ranked:
        return 0, []
    clauses, params = _where(q)
    scores = dict(ranked)
    marks = ",".join("?" * len(scores))
    where = " AND ".join([f"p.rowid IN ({marks})", *clauses])
    rows = conn.execute(
        f"SELECT {_HIT_COLUMNS}, p.rowid FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id "
        f"WHERE {where}", [*scores, *params]).fetchall()
    rows.sort(key=lambda r: -scores[r[-1]])
    page = [(*r[:-1], scores[r[-1]]) for r in rows[offset:offset + limit]]
    return len(rows), page


def _where(q: Query) -> tuple[list[str], list]:
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
            clauses.append(f"{negate}(p.collection LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM "
                           "sources s JOIN files f ON f.path = s.file WHERE s.paper_id = p.id "
                           "AND f.display LIKE ? ESCAPE '\\'))")
            like = "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            params += [like, like]
    for values, negate in ((q.tags, ""), (q.not_tags, "NOT ")):
        for value in values:
            clauses.append(f"{negate}EXISTS (SELECT 1 FROM m.tags t WHERE t.paper_id = p.id "
                           "AND t.tag = ?)")
            params.append(value)
    for term in q.authors:
        clauses.append(f"p.rowid {'NOT ' if term.negated else ''}IN "
                       "(SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)")
        params.append(q.author_expression(term))
    exclusion = q.exclusion_expression()
    if exclusion:
        clauses.append("p.rowid NOT IN (SELECT rowid FROM papers_fts WHERE papers_fts MATCH ?)")
        params.append(exclusion)
    return clauses, params


def _query(conn: sqlite3.Connection, q: Query, expression: str | None, limit: int,
           offset: int, mode: str = "all", count: int | None = None,
           noted: list[str] | None = None) -> tuple[int, list]:
    """``(total, rows)``: one page of the papers matching ``expression`` after ``q``'s filters
    and exclusions, best bm25 first (seed order on a tie); every paper in seed order when
    ``expression`` is None. ``count``, when given, is the number of papers matching
    ``expression`` alone (:func:`_fts_count`), and ``noted`` the answer of
    :func:`db.search.notes.note_match`, already known to the caller."""
    clauses, params = _where(q)
    joins = "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id"
    if expression is None:
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        total = conn.execute(f"SELECT count(*) {joins}{where}", params).fetchone()[0]
        rows = conn.execute(
            f"SELECT {_HIT_COLUMNS}, 0.0 {joins}{where} ORDER BY p.first_file, p.first_pos "
            "LIMIT ? OFFSET ?", [*params, limit, offset]).fetchall()
        return total, rows
    matched = _MATCHED
    match_params = [expression]
    if noted is None:
        noted = note_match(conn, q, mode)
    if not clauses and not noted:
        found = _top_hits(conn, expression, limit, offset, count)
        if found is not None:
            return found
    if noted:  # papers found by their note alone come after every bm25 hit
        matched += (" UNION ALL SELECT np.rowid, 0.0 FROM papers np WHERE np.id IN "
                    f"({','.join('?' * len(noted))}) AND NOT EXISTS (SELECT 1 FROM papers_fts "
                    "WHERE papers_fts MATCH ? AND papers_fts.rowid = np.rowid)")
        match_params += [*noted, expression]
    base = (f"FROM ({matched}) hit JOIN papers p ON p.rowid = hit.rowid "
            + joins[len("FROM papers p"):])
    where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    total = conn.execute(f"SELECT count(*) {base}{where}",
                         [*match_params, *params]).fetchone()[0]
    rows = conn.execute(
        f"SELECT {_HIT_COLUMNS}, -hit.score {base}{where} ORDER BY hit.score, p.first_file, "
        "p.first_pos LIMIT ? OFFSET ?", [*match_params, *params, limit, offset]).fetchall()
    return total, rows


#: Matches fetched past a page's end to see where a tie of scores at its end stops. Ties are
#: common, as one word's bm25 depends only on its count and the abstract's length (87,000
#: abstracts: "method", "integrating", "performance" and "highly" all tie at position 200, in
#: groups of 3-5), and a group is rarely longer than this; a longer one quadruples it, up to
#: :data:`TIE_LIMIT`.
TIE_MARGIN = 32
TIE_LIMIT = 4096


def _top_hits(conn: sqlite3.Connection, expression: str, limit: int, offset: int,
              count: int | None = None) -> tuple[int, list] | None:
    """The same answer as the general query when no filter applies, or None when scores tie
    across more than :data:`TIE_LIMIT` matches past the page's end.

    The count comes from the FTS index alone (or is ``count``, when the caller has it), and
    only the best ``limit + offset`` matches and those tied with the last of them are joined
    with their papers (:func:`_best_matches`): joining every match before sorting cost a third
    of the time of a one-letter query (87,000 abstracts, "g*": 165 ms, now ~105; plain FTS5
    84).
    """
    best = _best_matches(conn, expression, limit + offset)
    if best is None:
        return None
    total = count if count is not None else _fts_count(conn, expression)
    return total, _page_rows(conn, best[1], limit, offset)


def _best_matches(conn: sqlite3.Connection, expression: str, n: int, counted: bool = False
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
    sql = (f"SELECT rowid, score, count(*) OVER () FROM ({_MATCHED}) ORDER BY score LIMIT ?"
           if counted else f"{_MATCHED} ORDER BY score LIMIT ?")
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


#: Rowids bound in one ``IN (...)`` (SQLite allows 32,766 variables in a statement).
_IN_CHUNK = 500


def _page_rows(conn: sqlite3.Connection, best: list[tuple[int, float]], limit: int,
               offset: int) -> list:
    """The rows (``_HIT_COLUMNS`` and the negated score) of the page ``offset .. offset +
    limit`` of :func:`_best_matches`' list (best first, ties in any order), ordered as the
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
            f"SELECT {_HIT_COLUMNS}, p.rowid FROM papers p LEFT JOIN m.marks k "
            f"ON k.paper_id = p.id WHERE p.rowid IN ({','.join('?' * len(chunk))})",
            chunk).fetchall()
    # Python orders str as SQLite's BINARY collation does (by code point); r[7], r[8] are the
    # first source (first_file, first_pos)
    rows.sort(key=lambda r: (scores[r[-1]], r[7], r[8]))
    return [(*r[:-1], -scores[r[-1]]) for r in rows[offset - start:offset - start + limit]]


def _hits(conn: sqlite3.Connection, rows: list) -> list[Hit]:
    """:class:`Hit` objects of rows of ``_HIT_COLUMNS`` and a score, with their sources (in
    seed order) and tags.

    A paper's one source is its row's first source; the sources are looked up only of the
    papers in ``multi_sources`` (87k papers: 31 of them; looking up 200 hits' sources took
    0.6 ms), and the tags only when some paper has a tag."""
    if not rows:
        return []
    display = dict(conn.execute("SELECT path, display FROM files"))
    sources: dict[str, tuple[Source, ...]] = {}
    more = []
    for r in rows:
        if r[9]:
            more.append(r[0])
        else:  # (a source of no known file is not shown, as a join with files would do)
            sources[r[0]] = (Source(display[r[7]], r[8]),) if r[7] in display else ()
    if more:
        found: dict[str, list[Source]] = {i: [] for i in more}
        # Python orders str as SQLite's BINARY collation does (by code point)
        for pid, file, position in sorted(conn.execute(
                f"SELECT paper_id, file, position FROM sources WHERE paper_id IN "
                f"({','.join('?' * len(more))})", more), key=lambda s: (s[1], s[2])):
            if file in display:
                found[pid].append(Source(display[file], position))
        sources.update((i, tuple(found[i])) for i in more)
    tags: dict[str, tuple[str, ...]] = {}
    if conn.execute("SELECT EXISTS (SELECT 1 FROM m.tags)").fetchone()[0]:
        ids = [r[0] for r in rows]
        listed: dict[str, list[str]] = {}
        for pid, tag in conn.execute(f"SELECT paper_id, tag FROM m.tags WHERE paper_id IN "
                                     f"({','.join('?' * len(ids))}) ORDER BY tag", ids):
            listed.setdefault(pid, []).append(tag)
        tags = {i: tuple(t) for i, t in listed.items()}
    # positional (the fields' order: id, name, title, headline, status, score, collection,
    # code_url, sources, tags): keywords took twice as long, ~0.3 ms of 200 hits
    return [Hit(r[0], r[1], r[2], r[3], r[4], float(r[_SCORE]), r[5], r[6], sources[r[0]],
                tags.get(r[0], ())) for r in rows]


def abstracts(conn: sqlite3.Connection, ids) -> dict[str, str]:
    """``{id: abstract}`` (Markdown/LaTeX kept) of the papers with these full ids."""
    ids = list(ids)
    return dict(conn.execute(f"SELECT id, abstract FROM papers WHERE id IN "
                             f"({','.join('?' * len(ids))})", ids)) if ids else {}


def paper_row_sql() -> str:
    """The columns :func:`paper_from_row` expects, in order."""
    return (f"SELECT {_HIT_COLUMNS}, 0.0, coalesce(p.abstract_source, p.abstract), p.abstract, "
            "p.urls, p.authors, p.year, p.venue "
            "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id")


def paper_from_row(conn: sqlite3.Connection, row) -> dict:
    """Keyword arguments for :class:`db.models.Paper` from a :func:`paper_row_sql` row."""
    hit = _hits(conn, [row[:_SCORE + 1]])[0]
    note = conn.execute("SELECT text FROM m.notes WHERE paper_id = ?", (hit.id,)).fetchone()
    source, markup, urls, authors, year, venue = row[_SCORE + 1:]
    return {**{f: getattr(hit, f) for f in Hit.__dataclass_fields__},
            "abstract_source": source, "abstract_markup": markup,
            "urls": tuple(json.loads(urls)), "note": note[0] if note else "",
            "authors": tuple(authors.split("; ")) if authors else (), "year": year,
            "venue": venue}
