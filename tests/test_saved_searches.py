"""Saved searches (db.library.saved, db.marks.saved): counts of hits, new and arrived papers,
opening, removing, the query history, and their place in the marks file (export, import,
repair); on the command line too."""

from __future__ import annotations

import contextlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from db import Library, LibraryError
from db.marks import repair
from db.marks.saved import HISTORY_MAX
from tests.db_support import FILE_B, SHIPPED_SEEDS, all_hits, ids, synced_file_a


def _counts(lib: Library) -> dict[str, tuple[int, int, int]]:
    return {c.search.name: (c.total, c.new, c.arrived) for c in lib.saved_searches()}


@pytest.fixture
def half(tmp_path: Path) -> tuple[Library, Path]:
    """A library of one shipped seed file; the other can be added later."""
    seeds, lib = synced_file_a(tmp_path)
    yield lib, seeds
    lib.close()


def test_a_saved_search_counts_its_hits_the_new_ones_and_those_that_arrived(half) -> None:
    lib, seeds = half
    search, replaced = lib.save_search("RL watch", "reinforcement learning")
    assert (search.name, search.query, search.status, search.sort, replaced) == (
        "RL watch", "reinforcement learning", "all", "relevance", False)
    before = ids(all_hits(lib, "reinforcement learning"))
    assert _counts(lib) == {"RL watch": (len(before), len(before), 0)}
    lib.set_status(before[:1], "read")
    shutil.copy2(SHIPPED_SEEDS / FILE_B, seeds / FILE_B)  # the conference's second batch
    lib.sync()
    now = ids(all_hits(lib, "reinforcement learning"))
    arrived = set(now) - set(before)
    assert arrived and len(now) == 8
    assert _counts(lib) == {"RL watch": (8, 7, len(arrived))}
    opened, result = lib.open_saved("rl WATCH", limit=3)  # the name, case aside
    assert opened.name == "RL watch" and result.total == 8 and len(result.hits) == 3
    assert ids(result.hits) == now[:3]
    assert _counts(lib) == {"RL watch": (8, 7, 0)}


def test_a_saved_search_keeps_its_filter_and_sort(library: Library) -> None:
    library.save_search("new by name", "learning", status="new", sort="name")
    library.set_status(ids(all_hits(library, "learning", status="new"))[:2], "to-read")
    _search, result = library.open_saved("new by name", limit=100)
    expected = all_hits(library, "learning", status="new", sort="name", typing=True)
    assert ids(result.hits) == ids(expected) and result.sort == "name"
    assert all(h.status == "new" for h in result.hits)
    assert _counts(library)["new by name"] == (len(expected), len(expected), 0)


def test_saving_again_replaces_and_bad_names_or_orders_are_refused(library: Library) -> None:
    library.save_search("graphs", "graph")
    _search, replaced = library.save_search("GRAPHS", "graph neural")
    assert replaced and [s.search.query for s in library.saved_searches()] == ["graph neural"]
    for name, status, sort, message in (("  ", "all", "relevance", "needs a name"),
                                        ("x" * 81, "all", "relevance", "at most 80"),
                                        ("a", "unread", "relevance", "unknown status"),
                                        ("a", "all", "date", "unknown sort")):
        with pytest.raises(LibraryError, match=message):
            library.save_search(name, "graph", status, sort)
    with pytest.raises(LibraryError, match=r"no saved search is named 'nope' \(there are: "):
        library.open_saved("nope")
    assert library.remove_saved("graphs").query == "graph neural"
    assert library.saved_searches() == []


def test_a_like_query_and_a_hostile_query_can_be_saved(library: Library) -> None:
    first = ids(all_hits(library))[0]
    library.save_search("like first", f"like:{first[:8]}")
    library.save_search("odd", '-"x AND (( c++ NOT')
    counts = _counts(library)
    assert counts["like first"][0] == len(library.similar(first, limit=1000).hits) > 0
    assert counts["odd"][0] == library.search('-"x AND (( c++ NOT', typing=True).total


def test_the_query_history_keeps_each_query_once_the_latest_first(library: Library) -> None:
    for query in ("graph", "moe", "graph", "  ", "mixture of experts"):
        library.remember_query(query)
    assert library.query_history() == ["mixture of experts", "graph", "moe"]
    for n in range(HISTORY_MAX + 5):
        library.remember_query(f"q{n}")
    history = library.query_history()
    assert len(history) == HISTORY_MAX and history[0] == f"q{HISTORY_MAX + 4}"


def test_saved_searches_travel_in_a_marks_file_and_survive_a_repair(
        library: Library, tmp_path: Path) -> None:
    library.save_search("RL", "reinforcement learning", sort="name")
    data = library.export_marks()
    assert data["saved_searches"][0]["name"] == "RL"
    other = Library([SHIPPED_SEEDS], tmp_path / "other")
    other.sync()
    other.save_search("rl", "something else")
    summary = other.import_marks(json.dumps(
        {**data, "saved_searches": [*data["saved_searches"], {"name": "broken"}]}).encode())
    assert (summary.saved, summary.saved_invalid) == (0, 1)  # "rl" is taken; "broken" is not sound
    assert summary.line().endswith(", 1 saved search invalid (skipped)")
    other.remove_saved("rl")
    summary = other.import_marks(json.dumps(data).encode())
    assert summary.saved == 1 and summary.line().endswith("1 saved search added")
    assert _counts(other) == {"RL": (8, 8, 0)}
    other.close()
    marks = library.paths.marks
    library.close()
    _empty_index(marks, "sqlite_autoindex_saved_searches_1")  # lost its rows: damage
    assert "missing from index sqlite_autoindex_saved_searches_1" in repair.check(marks)
    result = repair.repair(marks)
    assert result is not None and result.counts["saved_searches"] == 1 and not result.unread
    assert repair.check(marks) == "ok"
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        assert conn.execute("SELECT name, sort FROM saved_searches").fetchall() == [
            ("RL", "name")]


def _empty_index(marks: Path, index: str) -> None:
    """Make the root page of ``index`` in the marks file an empty leaf: it lost every row."""
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name=?",
                            (index,)).fetchone()[0]
    with marks.open("r+b") as fh:
        fh.seek((root - 1) * size)
        fh.write(bytes([0x0A, 0, 0, 0, 0, size >> 8 & 0xFF, size & 0xFF, 0]).ljust(size, b"\0"))


def test_the_command_line_saves_lists_runs_and_removes(run_cli) -> None:
    out = run_cli("saved")
    assert out.stdout.strip() == "no saved searches (papertray saved add NAME QUERY saves one)"
    out = run_cli("saved", "add", "rl", "reinforcement", "learning", "--status", "new")
    assert out.exit_code == 0 and out.stdout.strip() == "saved 'rl': reinforcement learning"
    lines = run_cli("saved").stdout.splitlines()
    assert lines[0].split() == ["name", "hits", "new", "arrived", "query"]
    assert lines[1].split() == ["rl", "8", "8", "0", "reinforcement", "learning", "is:new"]
    data = run_cli("saved", "--json").json()
    assert [(d["name"], d["total"], d["new"], d["arrived"]) for d in data] == [("rl", 8, 8, 0)]
    run_cli("mark", run_cli("search", "reinforcement", "learning", "--json").json()["hits"][0]
            ["id"], "--read")
    hits = run_cli("saved", "run", "rl", "--json").json()
    assert hits["total"] == 7 and all(h["status"] == "new" for h in hits["hits"])
    assert run_cli("saved", "remove", "RL").stdout.strip() == \
        "removed 'rl': reinforcement learning"
    with pytest.raises(LibraryError, match="no saved search is named 'rl'"):
        run_cli("saved", "run", "rl")  # (the console script prints it on one line: exit 1)


def test_an_import_counts_the_saved_searches_it_skips_as_invalid(
        library: Library, tmp_path: Path) -> None:
    """A malformed saved search in a marks file was dropped without a word: the summary and
    its JSON said nothing of it."""
    library.save_search("RL", "reinforcement learning")
    data = library.export_marks()
    bad = ["not an object", {"query": "x", "status": "all", "sort": "relevance"},
           {"name": 5, "query": "x", "status": "all", "sort": "relevance"},
           {"name": "q", "query": ["x"], "status": "all", "sort": "relevance"},
           {"name": "s", "query": "x", "status": "unread", "sort": "relevance"},
           {"name": "o", "query": "x", "status": "all", "sort": "date"},
           {"name": "\u200b", "query": "x", "status": "all", "sort": "relevance"}]
    other = Library([SHIPPED_SEEDS], tmp_path / "other")
    other.sync()
    summary = other.import_marks(json.dumps(
        {**data, "saved_searches": [*data["saved_searches"], *bad]}).encode())
    assert (summary.saved, summary.saved_invalid) == (1, len(bad))
    assert summary.line().endswith("1 saved search added, 7 saved searches invalid (skipped)")
    assert summary.to_json()["saved_invalid"] == len(bad)
    assert [c.search.name for c in other.saved_searches()] == ["RL"]
    other.close()


def test_a_paper_marked_and_set_back_to_new_has_not_arrived(library: Library) -> None:
    """A watch list of new papers counted a paper marked and then set back to new as arrived,
    though the search had found it all along: only its status had changed."""
    library.save_search("new rl", "reinforcement learning", status="new")
    library.save_search("rl by text", "reinforcement learning is:new")
    first = ids(all_hits(library, "reinforcement learning"))[0]
    library.set_status([first], "read")
    library.open_saved("new rl")
    library.open_saved("rl by text")
    library.set_status([first], "new")
    assert _counts(library) == {"new rl": (8, 8, 0), "rl by text": (8, 8, 0)}


@pytest.mark.parametrize("twin", ["RL\u200b watch", "RL\u00ad watch", "\ufeffRL watch",
                                  "RL\u2060 watch", "RL \u200c\u200dwatch", "RL \t watch"])
def test_saved_search_names_that_look_alike_are_one_name(library: Library, twin: str) -> None:
    """Names that differed by an invisible character or white space made two saved searches
    that looked the same in every list."""
    library.save_search("RL watch", "reinforcement learning")
    search, replaced = library.save_search(twin, "reinforcement")
    assert (search.name, replaced) == ("RL watch", True)
    assert library.open_saved(twin)[0].name == "RL watch"
    assert [c.search.name for c in library.saved_searches()] == ["RL watch"]


def test_a_name_saved_before_names_had_one_form_is_still_found(library: Library) -> None:
    """A marks file may hold a name with a zero-width space, saved before names had one form:
    it is still opened and removed by the name as it is."""
    library.save_search("RL", "reinforcement learning")
    with contextlib.closing(sqlite3.connect(library.paths.marks)) as conn, conn:
        conn.execute("UPDATE saved_searches SET name = 'R\u200bL'")
        conn.execute("UPDATE saved_seen SET name = 'R\u200bL'")
    assert library.open_saved("R\u200bL")[0].name == "R\u200bL"
    assert library.remove_saved("R\u200bL").query == "reinforcement learning"


def test_saved_search_names_are_nfc_and_an_invisible_name_is_refused(run_cli) -> None:
    """"café" typed as NFD and as NFC were two saved searches; a name of zero-width spaces was
    saved as an invisible name."""
    assert run_cli("saved", "add", "cafe\u0301", "graph").exit_code == 0
    out = run_cli("saved", "add", "caf\u00e9", "graph", "neural")
    assert out.stdout.strip() == "replaced 'caf\u00e9': graph neural"
    assert [d["name"] for d in run_cli("saved", "--json").json()] == ["caf\u00e9"]
    with pytest.raises(LibraryError, match=r"^a saved search needs a name of visible characters$"):
        run_cli("saved", "add", "\u200b\u00ad \ufeff", "graph")


def test_queries_kept_are_as_long_as_a_search_reads_and_cut_after_a_word(
        library: Library) -> None:
    """The history and saved searches cut a query at 1,000 characters, mid-word, though a
    search reads 2,000."""
    long = " ".join(["transformers"] * 120)  # 1,559 characters
    longer = " ".join(["transformers"] * 200)  # 2,599
    library.remember_query(long)
    library.remember_query(longer)
    library.save_search("long", longer)
    kept = " ".join(["transformers"] * 153)  # 1,988: a 154th word would pass 2,000
    assert library.query_history() == [kept, long]
    assert library.saved_search("long").search.query == kept
