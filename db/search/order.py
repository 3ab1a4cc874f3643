"""Sort orders other than relevance: a page of a set of papers by seed order, name, year,
status or when they were marked.

The set is what a search lists (:func:`db.search.rank.rank` says which: the papers with every
word, or with any word when it lists partial matches; every paper for a query of filters
alone), after its filters and exclusions; only the order differs from the relevance one.

Each order is one or two **tiers**, each a condition and an ``ORDER BY``, listed one after the
other: "new first" is the papers without a mark in seed order, then the marked ones by status;
"recently marked" the marked ones, newest first, then the rest in seed order. The marked papers
are few; the other tiers are read in the order of an index (``papers_seed_order``,
``papers_name_order``, ``papers_year_order`` of db.index.schema) when the set is large
(:data:`SCAN_AT`): sorting all 87,000 papers by name took ~40 ms.
"""

from __future__ import annotations

import re
import sqlite3

from db.models import STATUSES
from db.search.hits import HIT_COLUMNS

_MARK = " LEFT JOIN m.marks k ON k.paper_id = p.id"
_SEED = "p.first_file, p.first_pos"
#: a paper's name as the table shows it (db.models.Hit.label): its title, else its name;
#: papers with neither come last (the expressions are those of the index papers_name_order)
_NAME = "coalesce(p.title, p.name) IS NULL, coalesce(p.title, p.name) COLLATE NOCASE"
#: the statuses in the order a sort by status lists them, after new
_STATUS_RANK = ("CASE k.status " + " ".join(
    f"WHEN '{s}' THEN {n}" for n, s in enumerate(STATUSES) if s != "new") + " END")
_MARKED, _UNMARKED = "k.paper_id IS NOT NULL", "k.paper_id IS NULL"
_BY_SEED = "papers_seed_order"
_READS_MARK = re.compile(r"\bk\.")  # a condition or order that reads the paper's mark

#: sort → tiers of (condition or "", ORDER BY, the index that gives that order or None)
_TIERS: dict[str, tuple[tuple[str, str, str | None], ...]] = {
    # what is left to order by relevance: no words, seed order
    "relevance": (("", _SEED, _BY_SEED),),
    "seed": (("", _SEED, _BY_SEED),),
    "name": (("", f"{_NAME}, {_SEED}", "papers_name_order"),),
    "year": (("", f"p.year DESC, {_SEED}", "papers_year_order"),),  # no year: last
    "status": ((_UNMARKED, _SEED, _BY_SEED), (_MARKED, f"{_STATUS_RANK}, {_SEED}", None)),
    "marked": ((_MARKED, f"k.updated_at DESC, {_SEED}", None), (_UNMARKED, _SEED, _BY_SEED)),
}
#: Papers in a set from which it is read in the order of an index, each entry's paper tested
#: for being in the set; a smaller set is looked up paper by paper and sorted. (87k papers:
#: a page of the 31,000 with "learning" by name took 90 ms sorted, 1 ms in index order; a
#: page of 100 papers is quicker sorted.)
SCAN_AT = 2_000


def page(conn: sqlite3.Connection, papers: tuple[str, list] | None, sort: str, limit: int,
         offset: int, size: int | None = None, counted: int | None = None
         ) -> tuple[int, list]:
    """``(total, rows)``: the papers of a set in ``sort`` order, one page (rows of
    :data:`~db.search.hits.HIT_COLUMNS` and a score of 0.0).

    ``papers`` is an SQL condition on ``papers p`` (and its mark ``k``) with its parameters
    that makes the set (:func:`db.search.rank.hit_set`; None: every paper); ``size`` is what
    the caller knows of its size (at most; None: unknown, taken as large), ``counted`` its
    exact size when the caller counted it (None: counted here; 87,000 abstracts: the 81,000
    papers with "in" and "the" counted through ``papers`` took 55 ms, by FTS5 alone 5).
    ``sort`` is one of :data:`db.models.SORTS` ("relevance" here is seed order: the caller
    ranks every set that has words). The page's papers are found first by rowid alone, then
    read: the papers skipped before a deep page are never read."""
    clauses, params = ([papers[0]], list(papers[1])) if papers else ([], [])
    scan = size is None or size >= SCAN_AT
    total = 0
    rowids: list[int] = []
    for condition, order, index in _TIERS[sort]:
        where = " AND ".join(filter(None, (condition, *clauses)))
        source = "FROM papers p" + (f" INDEXED BY {index}" if scan and index else "")
        if _READS_MARK.search(f"{where} {order}"):
            source += _MARK
        where = f" WHERE {where}" if where else ""
        if condition or counted is None:
            count = conn.execute(f"SELECT count(*) {source}{where}", params).fetchone()[0]
        else:  # the tier is the whole set
            count = counted
        wanted = limit - len(rowids)
        if wanted > 0 and offset < total + count:
            rowids += [r[0] for r in conn.execute(
                f"SELECT p.rowid {source}{where} ORDER BY {order} LIMIT ? OFFSET ?",
                [*params, wanted, max(0, offset - total)])]
        total += count
    return total, _rows(conn, rowids)


def _rows(conn: sqlite3.Connection, rowids: list[int]) -> list:
    """The rows of :data:`HIT_COLUMNS` (and a score of 0.0) of ``rowids``, in that order."""
    if not rowids:
        return []
    found = {r[-1]: r[:-1] for r in conn.execute(
        f"SELECT {HIT_COLUMNS}, 0.0, p.rowid FROM papers p{_MARK} WHERE p.rowid IN "
        f"({','.join('?' * len(rowids))})", rowids)}
    return [found[r] for r in rowids if r in found]
