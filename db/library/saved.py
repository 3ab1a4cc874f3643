"""The library's saved searches and query history (:class:`SavedSearches`, a part of
:class:`db.Library`): stored in the marks file by :mod:`db.marks.saved`, counted against the
index by the search's own set of hits (:class:`db.search.rank.HitSet`): its size from FTS5 when
that alone finds it, the marked papers tested for being hits, and the arrived papers counted
hit by hit only when the index (:mod:`db.index.generation`) or the query's words as
rewritten are not those of the latest opening (:func:`_found_in`).
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from db.index.generation import generation
from db.library.recovery import recovering
from db.marks import saved as saved_db
from db.marks.history import now
from db.marks.saved import SavedSearch
from db.models import SearchResult

if TYPE_CHECKING:
    from db.search.rank import HitSet

#: Hits of a ``like:`` query counted for a saved search (its list is ranked, not a set).
LIKE_LIMIT = 1000


@dataclass(frozen=True, slots=True)
class SavedCounts:
    """A saved search with its counts now: ``total`` hits, how many of them are still
    ``new`` (no mark), and how many ``arrived``: hits it did not find at its latest
    opening."""

    search: SavedSearch
    total: int
    new: int
    arrived: int

    def to_json(self) -> dict:
        return {**self.search.to_json(), "total": self.total, "new": self.new,
                "arrived": self.arrived}


class SavedSearches:
    """Saved searches and the query history of a :class:`db.Library` (which provides
    ``_index``, ``_marks``, ``_vocab`` and ``search``)."""

    @recovering
    def save_search(self, name: str, query: str, status: str = "all",
                    sort: str = "relevance") -> tuple[SavedSearch, bool]:
        """Save ``query`` with its status filter and sort order as ``name`` (one line, at most
        :data:`db.marks.saved.NAME_MAX` characters; a saved search of the same name, case
        aside, is replaced); its hits now count as seen. Returns it and whether it replaced
        one. Raises :class:`LibraryError` for a bad name, status or sort."""
        saved_db.check(status, sort)
        stamp = now()
        search = SavedSearch(saved_db.clean_name(name), query, status, sort, stamp, stamp)
        return search, saved_db.save(self._marks(), search, *self._seen(search))

    @recovering
    def saved_searches(self) -> list[SavedCounts]:
        """Every saved search with its counts, by name."""
        return [self._counts(s) for s in saved_db.all_saved(self._index(), "m.")]

    @recovering
    def saved_search(self, name: str) -> SavedCounts:
        """The saved search ``name`` (case aside) with its counts; raises
        :class:`LibraryError` when there is none."""
        return self._counts(saved_db.get(self._marks(), name))

    @recovering
    def open_saved(self, name: str, limit: int = 200, offset: int = 0
                   ) -> tuple[SavedSearch, SearchResult]:
        """Run the saved search ``name`` (case aside): one page of its hits; its hits now count
        as seen. Raises :class:`LibraryError` when there is no such saved search."""
        search = saved_db.get(self._marks(), name)
        result = self.search(search.query, _status(search), limit, offset, typing=True,
                             sort=search.sort)
        saved_db.opened(self._marks(), search.name, *self._seen(search))
        return search, result

    def remove_saved(self, name: str) -> SavedSearch:
        """Remove the saved search ``name`` (case aside) and return it; raises
        :class:`LibraryError` when there is none."""
        return saved_db.remove(self._marks(), name)

    def remember_query(self, query: str) -> None:
        """Put ``query`` first in the query history (:func:`db.marks.saved.remember_query`)."""
        saved_db.remember_query(self._marks(), query)

    def query_history(self) -> list[str]:
        """The queries searched, the latest first (each once)."""
        return saved_db.query_history(self._marks())

    def _counts(self, search: SavedSearch) -> SavedCounts:
        if _ranked_list(search):
            ids = self._hit_ids(search)
            return SavedCounts(search, len(ids), *self._new_and_arrived(search, ids))
        hits = self._hit_condition(search)
        total = hits.counted
        if total is None:
            total = _count(self._index(), _HITS, hits.condition)
        # the marked papers are few: each tested for being a hit
        marked = _count(self._index(), _MARKED, self._tested(hits, "m.marks"))
        return SavedCounts(search, total, total - marked, self._arrived(search, hits))

    def _arrived(self, search: SavedSearch, hits: HitSet) -> int:
        """Hits of ``search`` not among those it found at its latest opening. In the index it
        found them in, the query's words and filters find the same papers now: only a paper
        whose note has the words can be new to it, and only those are tested (87,000
        abstracts, 84,000 hits: none to test, against ~80 ms to test every hit)."""
        index = self._index()
        clauses = ["NOT EXISTS (SELECT 1 FROM m.saved_seen s WHERE s.name = ? "
                   "AND s.paper_id = p.id)"]
        params = [search.name]
        if saved_db.seen_generation(index, search.name, "m.") == _found_in(index, hits):
            if not hits.noted:
                return 0
            source, papers = _NOTED, self._tested(hits, "m.notes")
            clauses.append(f"n.paper_id IN ({','.join('?' * len(hits.noted))})")
            params += hits.noted
        else:
            source, papers = _HITS, hits.condition
        if papers:
            clauses.append(papers[0])
            params += papers[1]
        return _count(index, source, (" AND ".join(clauses), params))

    def _tested(self, hits: HitSet, table: str) -> tuple[str, list] | None:
        """The condition that tests the papers of ``table`` (of the marks file) for being
        ``hits``: paper by paper when they are few (:data:`PROBE_AT`) and no word is a prefix,
        else against the hits listed first."""
        if hits.probe is None:
            return hits.condition
        few = self._index().execute(
            f"SELECT count(*) < ? FROM (SELECT 1 FROM {table} LIMIT ?)",
            (PROBE_AT, PROBE_AT)).fetchone()[0]
        return hits.probe if few else hits.condition

    def _new_and_arrived(self, search: SavedSearch, ids: list[str]) -> tuple[int, int]:
        marks = self._marks()
        marked = {r[0] for r in marks.execute("SELECT paper_id FROM marks")}
        seen = {r[0] for r in marks.execute("SELECT paper_id FROM saved_seen WHERE name = ?",
                                            (search.name,))}
        return sum(i not in marked for i in ids), sum(i not in seen for i in ids)

    def _seen(self, search: SavedSearch) -> tuple[list[str], str]:
        """The ids of the papers ``search`` counts as seen now: those its query finds whatever
        their status or tags, so that a paper that only changed status (marked, then set back
        to new) has not arrived when its filter lists it again; and what they were found by
        (:func:`_found_in`)."""
        if _ranked_list(search):
            return self._hit_ids(search, reader_filters=False), generation(self._index())
        hits = self._hit_condition(search, reader_filters=False)
        return self._ids(hits.condition), _found_in(self._index(), hits)

    def _hit_ids(self, search: SavedSearch, reader_filters: bool = True) -> list[str]:
        """The ids of every paper ``search`` finds (of a ``like:`` query, its first
        :data:`LIKE_LIMIT`); ``reader_filters`` False: its status filter and the query's
        ``is:`` and ``tag:`` filters aside (:func:`db.search.run.hit_set`)."""
        if _ranked_list(search):
            status = _status(search) if reader_filters else None
            return [h.id for h in self.search(search.query, status, LIKE_LIMIT,
                                               typing=True).hits]
        return self._ids(self._hit_condition(search, reader_filters).condition)

    def _ids(self, papers: tuple[str, list] | None) -> list[str]:
        """The ids of the papers that meet ``papers`` (an SQL condition on ``papers p`` and its
        mark ``k``, with its parameters; None: every paper)."""
        where = f" WHERE {papers[0]}" if papers else ""
        return [r[0] for r in self._index().execute(
            f"SELECT p.id FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id{where}",
            papers[1] if papers else [])]


    def _hit_condition(self, search: SavedSearch, reader_filters: bool = True) -> HitSet:
        """What ``search`` finds (:func:`db.search.run.hit_set`)."""
        from db.search import run

        return run.hit_set(self._index(), search.query, _status(search), self._vocab,
                           reader_filters)


#: the hits as rows, each paper's mark ``k``
_HITS = "FROM papers p LEFT JOIN m.marks k ON k.paper_id = p.id"
#: the marked papers, the marks first (CROSS JOIN: SQLite would list the hits first), each
#: paper found by its rowid (found by ``p.id``, SQLite would walk the list of hits for each)
_MARKED = ("FROM m.marks k CROSS JOIN papers p "
           "ON p.rowid = (SELECT i.rowid FROM papers i WHERE i.id = k.paper_id)")
#: the papers with a note, the notes first, as :data:`_MARKED`
_NOTED = ("FROM m.notes n CROSS JOIN papers p "
          "ON p.rowid = (SELECT i.rowid FROM papers i WHERE i.id = n.paper_id) "
          "LEFT JOIN m.marks k ON k.paper_id = p.id")
#: Papers of the marks file tested for being hits below which each is tested alone (~30 µs a
#: paper at 87,000 abstracts for two common words), at and above which the hits are listed
#: first (15-40 ms for 80,000 hits).
PROBE_AT = 500


def _found_in(index: sqlite3.Connection, hits: HitSet) -> str:
    """What a saved search's hits ``hits`` are found by: the generation of the index
    (:func:`db.index.generation.generation`) and the FTS5 expression of the query's words as
    rewritten now (the rewrite reads the notes too: a word that a note has is no typo, so
    "graph learnnig" finds other papers once no note has "learnnig"), as a digest. While it is
    the same, the words find the same papers."""
    return hashlib.sha256(repr((generation(index), hits.words)).encode()).hexdigest()


def _count(conn: sqlite3.Connection, source: str, papers: tuple[str, list] | None) -> int:
    """The rows of ``source`` (:data:`_HITS`, :data:`_MARKED`, :data:`_NOTED`) that meet
    ``papers`` (an SQL condition with its parameters; None: every row)."""
    where = f" WHERE {papers[0]}" if papers else ""
    return conn.execute(f"SELECT count(*) {source}{where}",
                        papers[1] if papers else []).fetchone()[0]


def _ranked_list(search: SavedSearch) -> bool:
    """Whether ``search`` is a ``like:`` query, whose hits are a ranked list and no set."""
    from db.search import similar

    return similar.like_target(search.query) is not None


def _status(search: SavedSearch) -> str | None:
    return None if search.status == "all" else search.status
