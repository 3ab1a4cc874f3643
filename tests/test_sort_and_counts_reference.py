"""The sort orders and a saved search's counts against straightforward references on the
shipped seeds: every hit of the relevance order sorted in Python by the order's key, and the
counts taken hit by hit. The fast paths (db.search.order's walk of an index, the count taken
from FTS5, the marks and notes tested paper by paper, the arrivals of an unchanged index) are
forced on with their thresholds set to 0, and off with them set past the library's size."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from db import Library
from db.library import saved as library_saved
from db.marks import saved as saved_db
from db.search import order
from tests.db_support import FILE_B, SHIPPED_SEEDS, all_hits, ids, synced_file_a

QUERIES = ("", "learning", "reinforcement learning", "graph zebra quantum", "is:new model",
           "learning -language", "network has:code", "policy OR graph", "deep neural net")


def _nocase(text: str) -> str:
    """SQLite's NOCASE collation: ASCII letters folded, compared by code point."""
    return "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in text)


def _reference(lib: Library, query: str, sort: str) -> list[str]:
    rows = {r[0]: r[1:] for r in lib._index().execute(
        "SELECT id, coalesce(title, name), year, first_file, first_pos FROM papers")}

    def key(paper_id: str) -> tuple:
        label, year, first_file, first_pos = rows[paper_id]
        seed = (first_file, first_pos)
        if sort == "name":
            return (label is None, _nocase(label or ""), *seed)
        if sort == "year":
            return (year is None, -(year or 0), *seed)
        return seed

    return sorted(ids(all_hits(lib, query)), key=key)


@pytest.mark.parametrize("scan_at", [0, 10**9])
def test_name_year_and_seed_orders_are_the_hits_sorted_by_their_key(
        library: Library, monkeypatch: pytest.MonkeyPatch, scan_at: int) -> None:
    monkeypatch.setattr(order, "SCAN_AT", scan_at)
    library.set_status([ids(all_hits(library, "learning"))[0]], "read")
    for query in QUERIES:
        for sort in ("name", "year", "seed"):
            expected = _reference(library, query, sort)
            assert ids(all_hits(library, query, sort=sort)) == expected, (query, sort)
            assert library.search(query, sort=sort).total == len(expected), (query, sort)
            pages = [h.id for at in range(0, len(expected) + 4, 4)
                     for h in library.search(query, limit=4, offset=at, sort=sort).hits]
            assert pages == expected, (query, sort)


def _counted(lib: Library, query: str, status: str | None,
             seen: set[str]) -> tuple[int, int, int]:
    """A saved search's counts taken hit by hit: every hit, those without a mark, those not
    ``seen``."""
    hits = lib.search(query, status, limit=10_000, typing=True).hits
    return (len(hits), sum(h.status == "new" for h in hits),
            sum(h.id not in seen for h in hits))


def _seen(lib: Library, query: str) -> set[str]:
    return set(ids(lib.search(query, None, limit=10_000, typing=True).hits))


@pytest.mark.parametrize("probe_at", [0, 10**9])
def test_saved_counts_are_the_counts_taken_hit_by_hit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, probe_at: int) -> None:
    monkeypatch.setattr(library_saved, "PROBE_AT", probe_at)
    seeds, lib = synced_file_a(tmp_path)
    try:
        searches = {f"s{n}": (q, status) for n, (q, status) in enumerate(
            [(q, None) for q in QUERIES] + [("learning", "new"), ("learning", "read"),
                                            ("reinforcement learning", "new")])}
        seen = {}
        for name, (query, status) in searches.items():
            lib.save_search(name, query, status or "all")
            seen[name] = _seen(lib, query)

        def check() -> None:
            for c in lib.saved_searches():
                query, status = searches[c.search.name]
                assert (c.total, c.new, c.arrived) == _counted(
                    lib, query, status, seen[c.search.name]), (query, status)

        check()
        learning = ids(all_hits(lib, "learning"))
        lib.set_status(learning[:3], "read")
        lib.set_status(learning[3:4], "to-read")
        check()
        # a note with the words finds a paper the words do not: it arrived, the index unchanged
        other = next(i for i in ids(all_hits(lib, "")) if i not in set(learning))
        lib.set_note(other, "reinforcement learning model notes")
        check()
        assert lib.saved_search("s2").arrived == 1
        assert saved_db.seen_generation(lib._marks(), "s2") == library_saved._found_in(
            lib._index(), lib._hit_condition(lib.saved_search("s2").search))
        shutil.copy2(SHIPPED_SEEDS / FILE_B, seeds / FILE_B)  # a new index: papers arrive
        lib.sync()
        check()
        assert any(c.arrived for c in lib.saved_searches())
        lib.open_saved("s2")
        seen["s2"] = _seen(lib, searches["s2"][0])
        check()
    finally:
        lib.close()


def test_arrivals_follow_a_rewrite_that_a_note_changed_in_the_same_index(
        tmp_path: Path) -> None:
    """A word that a note has is no typo: saved while a note had "learnnig", "graph
    learnnig" found the note's paper alone; once the note is gone it is corrected to "graph
    learning" and finds 12 papers of an unchanged index, 11 of them arrived, as counted hit by
    hit."""
    _, lib = synced_file_a(tmp_path)
    try:
        query = "graph learnnig"
        noted = ids(all_hits(lib, ""))[0]
        lib.set_note(noted, "learnnig")
        lib.save_search("typo", query, "all")
        seen = _seen(lib, query)
        assert len(seen) == 1
        lib.set_note(noted, "")
        counts = lib.saved_search("typo")
        assert (counts.total, counts.new, counts.arrived) == _counted(lib, query, None, seen)
        assert (counts.total, counts.arrived) == (12, 11)
    finally:
        lib.close()
