"""Marks of a paper that sits in two seed files follow its edits: every version of it keeps the
reader's mark, note and tags, whichever files are edited, how, and in how many syncs.

The shipped files share LMRL-Gym: it is one paper with two sources (FILE_A and FILE_B).
"""

from __future__ import annotations

import pytest
import sqlite_utils

from db import Library
from tests.db_support import FILE_A, FILE_B, all_hits

ORIGINAL = "Even the best current LLMs rarely ask clarifying questions"
SMALL_EDIT = "Even the best current LLMs seldom ask clarifying questions"
OTHER_EDIT = "Even the best current LLMs rarely ask any clarifying questions"


def _edit(folder, name: str, old: str, new: str) -> None:
    path = folder / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def _versions(lib: Library) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """``{the edited sentence found in it: (status, note, tags)}`` of every LMRL-Gym paper."""
    found = {}
    for hit in all_hits(lib, '"LMRL-Gym benchmark"'):
        paper = lib.get(hit.id)
        sentence = next(s for s in (ORIGINAL, SMALL_EDIT, OTHER_EDIT) if s in paper.abstract_source)
        found[sentence] = (paper.status, paper.note, tuple(paper.tags))
    return found


def _kinds(lib: Library) -> list[str]:
    rows = sqlite_utils.Database(lib.paths.marks).query("SELECT kind FROM mark_events ORDER BY seq")
    return [r["kind"] for r in rows]


@pytest.fixture
def lmrl(library: Library) -> str:
    """LMRL-Gym marked read, with a note and a tag; returns its id."""
    paper_id = next(h.id for h in all_hits(library) if h.name == "LMRL-Gym")
    library.set_status([paper_id], "read")
    library.set_note(paper_id, "benchmark for multi-turn RL")
    library.tag([paper_id], ["rl"])
    return paper_id


READ = ("read", "benchmark for multi-turn RL", ("rl",))


def test_an_edit_in_one_of_two_files_gives_the_edited_copy_the_mark_too(library, lmrl,
                                                                         seeds_copy, run_cli):
    _edit(seeds_copy, FILE_A, ORIGINAL, SMALL_EDIT)
    report = library.sync()
    assert (report.added, report.reattached, report.orphans) == (1, 1, 0)
    # two papers now, the old text (FILE_B) and the edited one (FILE_A): both are the one the
    # reader marked, so both show it
    assert _versions(library) == {ORIGINAL: READ, SMALL_EDIT: READ}
    assert library.get(lmrl).status == "read"
    assert _kinds(library)[-1] == "copy"
    listed = run_cli("search", '"LMRL-Gym benchmark"', "--json").json()
    assert sorted(h["status"] for h in listed["hits"]) == ["read", "read"]
    # from then on each version has a mark of its own
    edited = next(h.id for h in all_hits(library, '"LMRL-Gym benchmark"') if h.id != lmrl)
    library.set_status([edited], "to-read")
    assert library.get(lmrl).status == "read"


@pytest.mark.parametrize("force", [False, True], ids=["sync", "sync --force"])
def test_an_edit_in_one_of_two_files_is_followed_by_a_forced_sync_too(library, lmrl,
                                                                      seeds_copy, force):
    """``sync --force`` rebuilds the index from nothing: it still says which papers lost a
    source, so the edited copy gets the mark as after a plain sync."""
    _edit(seeds_copy, FILE_A, ORIGINAL, SMALL_EDIT)
    report = library.sync(force=force)
    assert (report.added, report.reattached, report.orphans) == (1, 1, 0)
    assert _versions(library) == {ORIGINAL: READ, SMALL_EDIT: READ}


def test_the_same_edit_in_both_files_moves_the_mark(library, lmrl, seeds_copy):
    _edit(seeds_copy, FILE_A, ORIGINAL, SMALL_EDIT)
    _edit(seeds_copy, FILE_B, ORIGINAL, SMALL_EDIT)
    report = library.sync()
    assert (report.added, report.removed, report.reattached, report.orphans) == (1, 1, 1, 0)
    assert _versions(library) == {SMALL_EDIT: READ}


def test_different_edits_in_the_two_files_give_both_versions_the_mark(library, lmrl, seeds_copy):
    _edit(seeds_copy, FILE_A, ORIGINAL, SMALL_EDIT)
    _edit(seeds_copy, FILE_B, ORIGINAL, OTHER_EDIT)
    report = library.sync()
    assert (report.added, report.removed, report.reattached, report.orphans) == (2, 1, 2, 0)
    assert _versions(library) == {SMALL_EDIT: READ, OTHER_EDIT: READ}
    assert library.orphans() == [] and library.orphan_annotations() == []


def test_deleted_from_one_file_and_edited_in_the_other_moves_the_mark(library, lmrl, seeds_copy):
    text = (seeds_copy / FILE_B).read_text(encoding="utf-8")
    paragraph = next(p for p in text.split("\n\n") if ORIGINAL in p)
    (seeds_copy / FILE_B).write_text(text.replace(paragraph + "\n\n", ""), encoding="utf-8")
    _edit(seeds_copy, FILE_A, ORIGINAL, SMALL_EDIT)
    report = library.sync()
    assert (report.reattached, report.orphans) == (1, 0)
    assert _versions(library) == {SMALL_EDIT: READ}


def test_the_other_file_edited_the_same_way_later_makes_one_paper_with_the_newer_mark(
        library, lmrl, seeds_copy, run_cli):
    _edit(seeds_copy, FILE_A, ORIGINAL, SMALL_EDIT)
    library.sync()
    edited = next(h.id for h in all_hits(library, '"LMRL-Gym benchmark"') if h.id != lmrl)
    library.set_status([edited], "to-read")  # newer than the mark of the old text
    _edit(seeds_copy, FILE_B, ORIGINAL, SMALL_EDIT)
    report = library.sync()
    assert (report.removed, report.orphans) == (1, 0)
    assert _versions(library) == {SMALL_EDIT: ("to-read", READ[1], READ[2])}
    assert run_cli("orphans").stdout == "no orphan marks\n"


def test_an_edit_set_back_makes_one_paper_again(library, lmrl, seeds_copy):
    _edit(seeds_copy, FILE_A, ORIGINAL, SMALL_EDIT)
    library.sync()
    library.set_note(lmrl, "newer note")
    _edit(seeds_copy, FILE_A, SMALL_EDIT, ORIGINAL)
    report = library.sync()
    assert (report.removed, report.orphans) == (1, 0)
    assert _versions(library) == {ORIGINAL: ("read", "newer note", ("rl",))}
    assert library.orphan_annotations() == []
