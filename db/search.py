"""Running a parsed query against the index: bm25 ranking, filters, typo fixes, fallback.

Ranking is FTS5's bm25 with the name/title columns weighted above the abstract
(:data:`db.schema.BM25_WEIGHTS`). When all words together match fewer than
:data:`FALLBACK_BELOW` papers, papers matching any of the words are ranked and the notice says so.
A word that is not in the index vocabulary is corrected to the nearest word that is.
"""

from __future__ import annotations

import json
import math
import sqlite3
from dataclasses import dataclass

from db.models import Hit, SearchResult, Source
from db.query import Query, Term, parse, tokens
from db.schema import BM25_WEIGHTS

FALLBACK_BELOW = 1  # papers; fewer hits than this for all words triggers the partial matches
_HIT_COLUMNS = ("p.id, p.name, p.title, p.headline, coalesce(k.status, 'new'), p.collection, "
                "p.code_url")


@dataclass(slots=True)
class Vocabulary:
    """The index's words (folded, unstemmed) with document frequencies, for typo correction."""

    terms: list[str]
    df: list[int]

    @classmethod
    def load(cls, conn: sqlite3.Connection) -> Vocabulary:
        rows = conn.execute("SELECT term, df FROM vocab").fetchall()
        return cls([r[0] for r in rows], [r[1] for r in rows])

    def correct(self, word: str) -> str | None:
        """The likeliest intended word for a word not in the index, or None.

        Candidates within an edit distance of 1 (words of up to 4 letters), 2 (up to 8) or 3 are
        scored by similarity plus a small bonus for frequent words, so ``lerning`` gives
        ``learning`` rather than the rarer ``leaning``.
        """
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        if len(word) < 3 or not self.terms or word.isdigit():
            return None
        limit = 1 if len(word) <= 4 else 2 if len(word) <= 8 else 3
        found = process.extract(word, self.terms, scorer=Levenshtein.distance,
                                score_cutoff=limit, limit=20)
        if not found:
            return None

        def goodness(item: tuple[str, float, int]) -> float:
            term, distance, index = item
            same_start = 0.5 if term[:1] == word[:1] else 0.0
            return -distance + same_start + 0.15 * math.log1p(self.df[index])

        return max(found, key=goodness)[0]


def known(conn: sqlite3.Connection, term: Term) -> bool:
    """Whether every token of ``term`` is in the vocabulary (the last one as a prefix if so)."""
    for i, tok in enumerate(term.tokens):
        if term.prefix and i == len(term.tokens) - 1:
            row = conn.execute("SELECT 1 FROM vocab WHERE term >= ? AND term < ? LIMIT 1",
                               (tok, tok + "\U0010ffff")).fetchone()
        else:
            row = conn.execute("SELECT 1 FROM vocab WHERE term = ?", (tok,)).fetchone()
        if not row:
            return False
    return True


def run(conn: sqlite3.Connection, text: str, status: str | None, limit: int, offset: int,
        vocabulary: callable, typing: bool = False) -> SearchResult:
    """Search; see :meth:`db.Library.search`. ``vocabulary()`` returns a :class:`Vocabulary`."""
    q = parse(text, typing=typing)
    notices = list(q.notices)
    if status and status != "all":
        q.status = status if not q.status or q.status == status else q.status
    corrections = _correct(conn, q, vocabulary)
    if corrections:
        notices.append("corrected " + ", ".join(f"{a} → {b}" for a, b in corrections))
    expression = q.match_expression("all")
    total, rows = _query(conn, q, expression, limit, offset, "all")
    # Relax only when the words themselves find too little, not when an exclusion or a filter
    # removed their hits: else "-word" or "is:read" would bring in papers the words alone never
    # showed (a query with "-word" must never have a hit that the same query without it lacks).
    if (expression and total < FALLBACK_BELOW and len(q.positive) > 1
            and _fts_count(conn, expression) < FALLBACK_BELOW):
        relaxed = q.match_expression("any")
        total, rows = _query(conn, q, relaxed, limit, offset, "any")
        if total:
            notices.append(
                f"no paper has all {len(q.positive)} words; showing best partial matches")
    hits = _hits(conn, rows)
    terms = tuple(dict.fromkeys(tok for t in q.positive for tok in t.tokens))
    return SearchResult(text, q.describe(), "; ".join(notices), total, hits, terms)


def _fts_count(conn: sqlite3.Connection, expression: str) -> int:
    """Papers matching ``expression`` with no filter or exclusion applied."""
    return conn.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?",
                        (expression,)).fetchone()[0]


def _correct(conn: sqlite3.Connection, q: Query, vocabulary) -> list[tuple[str, str]]:
    corrections = []
    for term in q.positive:
        if len(term.tokens) != 1 or known(conn, term) or _in_a_note(conn, term.tokens[0]):
            continue
        word = term.tokens[0]
        fixed = vocabulary().correct(word)
        if fixed and fixed != word:
            term.tokens = (fixed,)
            term.prefix = False
            corrections.append((word, fixed))
    return corrections


def _in_a_note(conn: sqlite3.Connection, word: str) -> bool:
    """Whether some note has ``word`` (then it is no typo, though the index lacks it)."""
    return any(word in said for _, said in _note_tokens(conn))


def _where(q: Query) -> tuple[list[str], list]:
    clauses: list[str] = []
    params: list = []
    if q.status:
        clauses.append("coalesce(k.status, 'new') = ?")
        params.append(q.status)
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


def _note_match(conn: sqlite3.Connection, q: Query, mode: str) -> list[str]:
    """Ids of the papers whose note (in the marks file) has the query's words, as plain text
    (``mode`` "all" or "any" as for the FTS expression); [] quickly when no note has them.

    Notes are matched here rather than in the FTS index because the index is disposable and
    the notes are not: a rebuild must not be needed to find a note written a second ago. A note
    is compared by its index tokens (:func:`db.query.tokens`), as the abstracts are: ``multi-task``
    and ``GPT-3.5`` find the note that has them, ``Élan`` finds ``elan``.
    """
    if not q.positive:
        return []
    groups: dict[int, list[str]] = {}
    singles: list[str] = []
    for term in q.positive:
        words = " ".join(term.tokens)
        if term.or_group:
            groups.setdefault(term.or_group, []).append(words)
        else:
            singles.append(words)
    wanted = [[w] for w in singles] + list(groups.values())
    combine = all if mode == "all" else any
    return [paper_id for paper_id, said in _note_tokens(conn)
            if combine(any(w in said for w in alternatives) for alternatives in wanted)]


_NOTE_TOKENS: dict[str, list[tuple[str, str]]] = {}


def _note_tokens(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(paper_id, the note's index tokens joined by spaces)`` of every note; kept while the
    notes are the same (every change of a note changes its time), as a search runs at every
    keystroke."""
    key = conn.execute("SELECT count(*) || ':' || coalesce(group_concat(paper_id || updated_at, "
                       "','), '') FROM m.notes").fetchone()[0]
    found = _NOTE_TOKENS.get(key)
    if found is None:
        found = [(paper_id, " ".join(tokens(text)))
                 for paper_id, text in conn.execute("SELECT paper_id, text FROM m.notes")]
        _NOTE_TOKENS.clear()
        _NOTE_TOKENS[key] = found
    return found


def _query(conn: sqlite3.Connection, q: Query, expression: str | None, limit: int,
           offset: int, mode: str = "all") -> tuple[int, list]:
    clauses, params = _where(q)
    joins = "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id"
    if expression is None:
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        total = conn.execute(f"SELECT count(*) {joins}{where}", params).fetchone()[0]
        rows = conn.execute(
            f"SELECT {_HIT_COLUMNS}, 0.0 {joins}{where} ORDER BY p.first_file, p.first_pos "
            "LIMIT ? OFFSET ?", [*params, limit, offset]).fetchall()
        return total, rows
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    matched = (f"SELECT rowid, bm25(papers_fts, {weights}) AS score FROM papers_fts "
               "WHERE papers_fts MATCH ?")
    match_params = [expression]
    noted = _note_match(conn, q, mode)
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


def _hits(conn: sqlite3.Connection, rows: list) -> list[Hit]:
    if not rows:
        return []
    ids = [r[0] for r in rows]
    sources: dict[str, list[Source]] = {i: [] for i in ids}
    marks = ",".join("?" * len(ids))
    for pid, display, position in conn.execute(
            f"SELECT s.paper_id, f.display, s.position FROM sources s JOIN files f "
            f"ON f.path = s.file WHERE s.paper_id IN ({marks}) ORDER BY s.file, s.position", ids):
        sources[pid].append(Source(display, position))
    tags: dict[str, list[str]] = {i: [] for i in ids}
    for pid, tag in conn.execute(f"SELECT paper_id, tag FROM m.tags WHERE paper_id IN ({marks}) "
                                 "ORDER BY tag", ids):
        tags[pid].append(tag)
    return [Hit(id=r[0], name=r[1], title=r[2], headline=r[3], status=r[4], collection=r[5],
                code_url=r[6], score=float(r[7]), sources=tuple(sources[r[0]]),
                tags=tuple(tags[r[0]])) for r in rows]


def paper_row_sql() -> str:
    """The columns :func:`paper_from_row` expects, in order."""
    return (f"SELECT {_HIT_COLUMNS}, 0.0, coalesce(p.abstract_source, p.abstract), p.abstract, "
            "p.urls, p.authors, p.year, p.venue "
            "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id")


def paper_from_row(conn: sqlite3.Connection, row) -> dict:
    """Keyword arguments for :class:`db.models.Paper` from a :func:`paper_row_sql` row."""
    hit = _hits(conn, [row[:8]])[0]
    note = conn.execute("SELECT text FROM m.notes WHERE paper_id = ?", (hit.id,)).fetchone()
    return {**{f: getattr(hit, f) for f in Hit.__dataclass_fields__},
            "abstract_source": row[8], "abstract_markup": row[9],
            "urls": tuple(json.loads(row[10])), "note": note[0] if note else "",
            "authors": tuple(row[11].split("; ")) if row[11] else (), "year": row[12],
            "venue": row[13]}
