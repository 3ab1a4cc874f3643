"""Stage 5 of a search: the rows of a page made into :class:`~db.models.Hit` records (with
their sources and tags), and the :class:`~db.models.SearchResult`; whole papers for ``get``.
"""

from __future__ import annotations

import json
import sqlite3

from db.index.rows import details_of
from db.models import Hit, Paper, SearchResult, Source
from db.search.highlight import snippet
from db.search.query import Query
from db.seeds.render import render_plain

#: What :func:`_hits` needs of a paper (``p``, its mark ``k``), before the score: the paper's
#: first source and whether it has others come with it (see ``multi_sources``).
HIT_COLUMNS = ("p.id, p.name, p.title, p.headline, coalesce(k.status, 'new'), p.collection, "
                "p.code_url, p.first_file, p.first_pos, "
                "p.id IN (SELECT paper_id FROM multi_sources), p.authors, p.year, p.venue")


_SCORE = 13  # the score's place in a row of HIT_COLUMNS and the score


def hits(conn: sqlite3.Connection, rows: list) -> list[Hit]:
    """:class:`Hit` objects of rows of ``HIT_COLUMNS`` and a score, with their sources (in
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
    # code_url, sources, tags, authors, year, venue): keywords took twice as long, ~0.3 ms of
    # 200 hits
    return [Hit(r[0], r[1], r[2], r[3], r[4], float(r[_SCORE]), r[5], r[6], sources[r[0]],
                tags.get(r[0], ()), tuple(r[10].split("; ")) if r[10] else (), r[11], r[12])
            for r in rows]


def abstracts(conn: sqlite3.Connection, ids) -> dict[str, str]:
    """``{id: abstract}`` (Markdown/LaTeX kept) of the papers with these full ids."""
    ids = list(ids)
    return dict(conn.execute(f"SELECT id, abstract FROM papers WHERE id IN "
                             f"({','.join('?' * len(ids))})", ids)) if ids else {}


def snippets(conn: sqlite3.Connection, ids, terms: list[str] | tuple[str, ...],
             marks: tuple[str, str]) -> dict[str, str]:
    """``{id: snippet}``: one line of each paper's abstract (rendered plain) around its matches
    of ``terms`` (:attr:`~db.models.SearchResult.terms`), each match wrapped in ``marks``; see
    :func:`db.search.highlight.snippet`. Unknown ids are left out."""
    return {pid: snippet(render_plain(abstract), terms, marks)
            for pid, abstract in abstracts(conn, ids).items()}


def paper_row_sql() -> str:
    """The columns :func:`paper_from_row` expects, in order."""
    return (f"SELECT {HIT_COLUMNS}, 0.0, coalesce(p.abstract_source, p.abstract), p.abstract, "
            "p.urls, p.details "
            "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id")


def paper_from_row(conn: sqlite3.Connection, row) -> dict:
    """Keyword arguments for :class:`db.models.Paper` from a :func:`paper_row_sql` row."""
    hit = hits(conn, [row[:_SCORE + 1]])[0]
    note = conn.execute("SELECT text FROM m.notes WHERE paper_id = ?", (hit.id,)).fetchone()
    source, markup, urls, details = row[_SCORE + 1:]
    found = details_of(details)
    return {**{f: getattr(hit, f) for f in Hit.__dataclass_fields__},
            "abstract_source": source, "abstract_markup": markup,
            "urls": tuple(json.loads(urls)), "note": note[0] if note else "",
            "own_links": found.pop("links"), **found}


def result(conn: sqlite3.Connection, text: str, q: Query, total: int, rows: list,
           notices: list[str], sort: str = "relevance") -> SearchResult:
    """The :class:`SearchResult` of ``q`` (typed as ``text``): ``rows`` of :data:`HIT_COLUMNS`
    and a score as hits in ``sort`` order, ``notices`` joined in one line, and the terms to
    highlight (every spelling searched; ``word*`` for the word being typed)."""
    terms = tuple(dict.fromkeys(
        tok + ("*" if t.prefix and i == len(spelt) - 1 else "")
        for t in q.positive
        for spelt in (t.tokens, *(a.split() for a in (*t.alternatives, *t.acronyms)))
        for i, tok in enumerate((*spelt, *t.variants, *t.completions))))
    return SearchResult(text, q.describe(), _one_line(notices), total, hits(conn, rows), terms,
                        sort)


#: A notice says this many things at most; past that, the first three and how many more (a
#: query of 150 ignored filters made one line of 7,000 characters)
MAX_NOTICES = 5


def _one_line(notices: list[str]) -> str:
    said = [n for n in notices if n]
    if len(said) > MAX_NOTICES:
        said = [*said[:3], f"and {len(said) - 3} more notices"]
    return "; ".join(said)


def whole_papers(conn: sqlite3.Connection, ids: list[str]) -> list[Paper]:
    """The whole papers of ``ids`` (full ids), in that order; ids the index lacks are left out."""
    found: dict[str, Paper] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for row in conn.execute(paper_row_sql() + " WHERE p.id IN "
                                f"({','.join('?' * len(chunk))})", chunk):
            found[row[0]] = Paper(**paper_from_row(conn, row))
    return [found[i] for i in ids if i in found]
