"""Sort orders other than relevance: a page of a set of papers by seed order, name, year,
status or when they were marked.

The set is what a search lists (:func:`db.search.rank.rank` says which: the papers with every
word, or with any word when it lists partial matches; every paper for a query of filters
alone), after its filters and exclusions; only the order differs from the relevance one.

Each order is one or two **tiers**, each a condition and an ``ORDER BY``, listed one after the
other: "new first" is the papers without a mark in seed order, then the marked ones by status;
"recently marked" the marked ones, newest first, then the rest in seed order. The marked papers
are few, so each tier is read in the order of an index (``papers_seed_order``, and
``papers_name_order`` and ``papers_year_order`` of db.index.schema) and a page of all 87,000
papers takes well under a millisecond, where sorting them took ~40 ms.
"""

from __future__ import annotations

import sqlite3

from db.models import STATUSES
from db.search.hits import HIT_COLUMNS

_FROM = "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id"
_SEED = "p.first_file, p.first_pos"
#: a paper's name as the table shows it (db.models.Hit.label): its title, else its name;
#: papers with neither come last (the expressions are those of the index papers_name_order)
_NAME = "coalesce(p.title, p.name) IS NULL, coalesce(p.title, p.name) COLLATE NOCASE"
#: the statuses in the order a sort by status lists them, after new
_STATUS_RANK = ("CASE k.status " + " ".join(
    f"WHEN '{s}' THEN {n}" for n, s in enumerate(STATUSES) if s != "new") + " END")
_MARKED, _UNMARKED = "k.paper_id IS NOT NULL", "k.paper_id IS NULL"

#: sort → tiers of (condition or "", ORDER BY)
_TIERS: dict[str, tuple[tuple[str, str], ...]] = {
    "relevance": (("", _SEED),),  # what is left to order by relevance: no words, seed order
    "seed": (("", _SEED),),
    "name": (("", f"{_NAME}, {_SEED}"),),
    "year": (("", f"p.year DESC, {_SEED}"),),  # papers without a year come last
    "status": ((_UNMARKED, _SEED), (_MARKED, f"{_STATUS_RANK}, {_SEED}")),
    "marked": ((_MARKED, f"k.updated_at DESC, {_SEED}"), (_UNMARKED, _SEED)),
}


def page(conn: sqlite3.Connection, papers: tuple[str, list] | None, sort: str, limit: int,
         offset: int) -> tuple[int, list]:
    """``(total, rows)``: the papers of a set in ``sort`` order, one page (rows of
    :data:`~db.search.hits.HIT_COLUMNS` and a score of 0.0).

    ``papers`` is an SQL condition on ``papers p`` (and its mark ``k``) with its parameters
    that makes the set (:func:`db.search.rank.hit_set`; None: every paper). ``sort`` is one
    of :data:`db.models.SORTS` ("relevance" here is seed order: the caller ranks every set that has
    words)."""
    clauses, params = ([papers[0]], list(papers[1])) if papers else ([], [])
    tiers = _TIERS[sort]
    total = 0
    rows: list = []
    for condition, order in tiers:
        where = " AND ".join(filter(None, (condition, *clauses)))
        where = f" WHERE {where}" if where else ""
        size = conn.execute(f"SELECT count(*) {_FROM}{where}", params).fetchone()[0]
        wanted = limit - len(rows)
        if wanted > 0 and offset < total + size:
            rows += conn.execute(
                f"SELECT {HIT_COLUMNS}, 0.0 {_FROM}{where} ORDER BY {order} LIMIT ? OFFSET ?",
                [*params, wanted, max(0, offset - total)]).fetchall()
        total += size
    return total, rows
