"""Sort orders (db.search.order): the same hits as the relevance order, listed by seed order,
name, year, status or when marked; in the library and on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from db import Library, LibraryError
from db.models import SORTS
from tests.db_support import all_hits, ids
from tests.search_support import SEED_ORDER

#: A structured seed file: titles, years (one paper has none), abstracts.
RECORDS = [
    {"title": "beta: sparse graphs", "year": 2021,
     "abstract": "Sparse graph partitioning with spectral cuts for very large sparse graphs."},
    {"title": "Alpha: dense graphs", "year": 2024,
     "abstract": "Dense graph matching with learned costs outperforms spectral methods."},
    {"title": "gamma: no year given",
     "abstract": "Graph neural networks for molecules, trained on spectral features."},
    {"title": "Delta: recent work", "year": 2022,
     "abstract": "Spectral clustering revisited: graph Laplacians for image segmentation."},
]


@pytest.fixture
def titled(tmp_path: Path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "papers.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    lib = Library([seeds], tmp_path / "data")
    lib.sync()
    yield lib
    lib.close()


def test_name_and_year_orders_of_a_structured_seed(titled: Library) -> None:
    def titles(query: str, sort: str) -> list[str]:
        return [h.title for h in all_hits(titled, query, sort=sort)]

    assert titles("", "name") == ["Alpha: dense graphs", "beta: sparse graphs",
                                  "Delta: recent work", "gamma: no year given"]
    # newest first; the paper without a year last
    assert titles("", "year") == ["Alpha: dense graphs", "Delta: recent work",
                                  "beta: sparse graphs", "gamma: no year given"]
    assert titles("spectral", "year")[-1] == "gamma: no year given"
    assert titles("", "seed") == [r["title"] for r in RECORDS]


def test_every_order_lists_the_same_hits_as_relevance(shipped_library: Library) -> None:
    for query in ("", "reinforcement learning", "graph zebra quantum", "is:new model",
                  "learning -language"):
        relevance = all_hits(shipped_library, query)
        for sort in SORTS:
            hits = all_hits(shipped_library, query, sort=sort)
            assert sorted(ids(hits)) == sorted(ids(relevance)), (query, sort)
            assert shipped_library.search(query, sort=sort).total == len(relevance)


def test_name_order_is_the_label_a_to_z_then_papers_without_one(
        shipped_library: Library) -> None:
    hits = all_hits(shipped_library, sort="name")
    named = [h for h in hits if h.title or h.name]
    assert [h.label.casefold() for h in named] == sorted(h.label.casefold() for h in named)
    assert named[0].label == "AMF" and len(named) == 22  # 13 of the 35 have no name
    unnamed = hits[len(named):]
    assert unnamed and not any(h.title or h.name for h in unnamed)
    assert ids(unnamed) == [i for i in SEED_ORDER if i in set(ids(unnamed))]  # seed order


def test_status_puts_new_first_and_marked_puts_the_latest_mark_first(library: Library) -> None:
    first, second, third = SEED_ORDER[3], SEED_ORDER[10], SEED_ORDER[0]
    library.set_status([first], "read")
    library.set_status([second], "to-read")
    library.set_status([third], "read")
    by_status = all_hits(library, sort="status")
    assert [h.status for h in by_status[-3:]] == ["to-read", "read", "read"]
    assert ids(by_status[-2:]) == [third, first]  # read ones in seed order
    assert ids(by_status[:-3]) == [i for i in SEED_ORDER if i not in (first, second, third)]
    by_mark = all_hits(library, sort="marked")
    assert ids(by_mark[:3]) == [third, second, first]
    assert ids(by_mark[3:]) == [i for i in SEED_ORDER if i not in (first, second, third)]


def test_pages_of_a_sorted_list_join_up_to_the_whole_list(library: Library) -> None:
    library.set_status([SEED_ORDER[5], SEED_ORDER[20]], "to-read")
    for sort in ("name", "status", "marked"):
        whole = ids(all_hits(library, "learning", sort=sort))
        pages = []
        for offset in range(0, len(whole) + 4, 4):
            pages += ids(library.search("learning", limit=4, offset=offset, sort=sort).hits)
        assert pages == whole, sort


def test_an_unknown_sort_is_an_error_naming_the_orders(shipped_library: Library) -> None:
    with pytest.raises(LibraryError, match="unknown sort 'date': use relevance, seed, name"):
        shipped_library.search("graph", sort="date")


def test_the_command_line_sorts_search_and_list(run_cli) -> None:
    out = run_cli("list", "--sort", "name", "--limit", "3")
    assert out.exit_code == 0
    assert [line.split()[2] for line in out.stdout.splitlines()] == ["AMF", "BATI", "C-3PO"]
    data = run_cli("search", "reinforcement", "learning", "--sort", "name", "--json").json()
    assert data["sort"] == "name"
    names = [h["name"] for h in data["hits"] if h["name"]]
    assert names == sorted(names, key=str.casefold) and len(names) == 7
    assert run_cli("list", "--json").json()["sort"] == "seed"
    bad = run_cli("search", "graph", "--sort", "date")
    assert bad.exit_code == 2 and "'date' is not one of 'relevance', 'seed'" in bad.stderr
