"""Seed files' collections and counts: headers, labels, entries, files and shared papers."""

from __future__ import annotations

import pytest
import sqlite_utils

from db.seeds.entry import collection_label
from db.seeds.plain import parse_text
from tests.db_support import FILE_A, FILE_B, SHIPPED_SEEDS, _parse, all_hits, first_words


def test_both_shipped_headers_name_icml_2025():
    assert _parse(FILE_A)[0] == "ICML 2025"
    assert _parse(FILE_B)[0] == "ICML 2025"
    headers = [(SHIPPED_SEEDS / f).read_text(encoding="utf-8").splitlines()[0]
               for f in (FILE_A, FILE_B)]
    assert headers == ["ICML 2025 论文列表", "ICML 2025 Papers"]


@pytest.mark.parametrize(("header", "label"), [
    ("ICML 2025 Papers", "ICML 2025"),
    ("ICML 2025 论文列表", "ICML 2025"),
    ("NeurIPS 2024 accepted papers", "NeurIPS 2024"),
    ("Proceedings of ICLR 2023", "ICLR 2023"),
    ("Workshop 2024 Papers", "Workshop 2024 Papers"),  # "Workshop" is not a conference acronym
    ("Latin-1 Workshop", "Latin-1 Workshop"),
    ("中文论文列表", "中文论文列表"),
    ("My   reading    list", "My reading list"),
])
def test_collection_label(header, label):
    assert collection_label(header) == label


def test_shipped_seeds_are_38_entries_35_papers_2_files(library):
    stats = library.stats()
    assert stats == {
        "papers": 35, "entries": 38, "files": 2, "collections": {"ICML 2025": 35},
        "status": {"new": 35, "to-read": 0, "read": 0, "dismissed": 0}, "orphan_marks": 0,
        "orphan_annotations": 0, "problems": [],
    }
    assert [len(_parse(FILE_A)[1]), len(_parse(FILE_B)[1])] == [19, 19]


def test_exactly_three_papers_have_two_sources(library):
    shared = [h for h in all_hits(library) if len(h.sources) == 2]
    assert [(h.name, [(s.file, s.position) for s in h.sources]) for h in shared] == [
        ("LMRL-Gym", [(FILE_A, 17), (FILE_B, 7)]),
        ("AMF", [(FILE_A, 18), (FILE_B, 9)]),
        (None, [(FILE_A, 19), (FILE_B, 11)]),
    ]
    assert first_words(library.get(shared[2].id).abstract_source) == "Bipartite ranking is"
    assert sum(len(h.sources) for h in all_hits(library)) == 38


def test_index_tables_hold_the_seeds(library):
    db = sqlite_utils.Database(library.paths.index)
    assert db["papers"].count == 35
    assert db["sources"].count == 38
    assert [(r["display"], r["status"], r["entries"], r["collection"])
            for r in db.query("SELECT * FROM files ORDER BY display")] == [
        (FILE_A, "loaded", 19, "ICML 2025"), (FILE_B, "loaded", 19, "ICML 2025")]


def test_a_file_without_a_header_is_named_after_the_file():
    collection, entries = parse_text(
        "We propose a new method for everything, and it works very well indeed.\n\nAnother.\n",
        "my-list")
    assert collection == "my-list"
    assert [e.position for e in entries] == [1, 2]
