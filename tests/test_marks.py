"""Marks: they survive rebuilds, a deleted index and edits of the abstract; orphans are kept;
undo is one step per marking, repeatable, and survives a restart."""

from __future__ import annotations

import pytest
import sqlite_utils

from db import Library, LibraryError, MarkChange
from tests.db_support import FILE_A, FILE_B, all_hits


def _marks(lib: Library) -> list[tuple[str, str]]:
    rows = sqlite_utils.Database(lib.paths.marks).query(
        "SELECT paper_id, status FROM marks ORDER BY paper_id")
    return [(r["paper_id"], r["status"]) for r in rows]


def _events(lib: Library) -> list[tuple]:
    rows = sqlite_utils.Database(lib.paths.marks).query(
        "SELECT batch, kind, paper_id, old_status, new_status, other FROM mark_events ORDER BY seq")
    return [tuple(r.values()) for r in rows]


def _by_name(lib: Library, name: str):
    return next(h for h in all_hits(lib) if h.name == name)


@pytest.fixture
def marked(library):
    """PARM read, Craftium and MENTOR to-read; returns the three ids."""
    parm, craftium, mentor = (_by_name(library, n).id for n in ("PARM", "Craftium", "MENTOR"))
    library.set_status([parm], "read")
    library.set_status([craftium, mentor], "to-read")
    return parm, craftium, mentor


def _statuses(lib: Library) -> dict[str, str]:
    return {h.id: h.status for h in all_hits(lib) if h.status != "new"}


def test_marks_are_stored_in_the_marks_file(library, marked):
    parm, craftium, mentor = marked
    assert _marks(library) == sorted([(parm, "read"), (craftium, "to-read"), (mentor, "to-read")])
    assert library.counts() == {"all": 35, "new": 32, "to-read": 2, "read": 1, "dismissed": 0}
    assert library.paths.marks != library.paths.index
    index = sqlite_utils.Database(library.paths.index)
    assert "marks" not in index.table_names()


def test_marks_survive_a_forced_rebuild(library, marked):
    before = _statuses(library)
    report = library.sync(force=True)
    assert (report.papers, report.added, report.removed, report.orphans) == (35, 0, 0, 0)
    assert _statuses(library) == before
    assert library.counts() == {"all": 35, "new": 32, "to-read": 2, "read": 1, "dismissed": 0}


def test_marks_survive_deleting_the_index(library, marked, seeds_copy):
    before = _statuses(library)
    library.close()
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (library.paths.index.parent / name).unlink(missing_ok=True)
    with Library([seeds_copy], library.paths.index.parent) as fresh:
        report = fresh.sync()
        assert (report.papers, report.added, report.reattached, report.orphans) == (35, 35, 0, 0)
        assert _statuses(fresh) == before
        assert fresh.search("is:to-read").total == 2


def test_fixing_a_typo_moves_the_mark_to_the_edited_paper(library, marked, seeds_copy):
    parm = marked[0]
    text = (seeds_copy / FILE_A).read_text(encoding="utf-8")
    assert text.count("user preferences during inference") == 1
    (seeds_copy / FILE_A).write_text(
        text.replace("user preferences during inference", "user preferences at inference"),
        encoding="utf-8")
    report = library.sync()
    assert (report.added, report.removed, report.reattached, report.orphans) == (1, 1, 1, 0)
    new_parm = _by_name(library, "PARM")
    assert new_parm.id != parm
    assert new_parm.status == "read"
    assert library.counts() == {"all": 35, "new": 32, "to-read": 2, "read": 1, "dismissed": 0}
    assert library.orphans() == []
    assert _events(library)[-1] == (3, "reattach", parm, "read", "read", new_parm.id)
    # undoing the marking step that set it now acts on the paper the mark moved to
    library.undo()  # batch 2 (Craftium, MENTOR)
    assert library.undo() == [MarkChange(new_parm.id, "read", "new")]
    assert _statuses(library) == {}


def test_a_mark_of_a_shared_paper_survives_removing_one_of_its_files(library, seeds_copy):
    lmrl = _by_name(library, "LMRL-Gym").id
    library.set_status([lmrl], "to-read")
    (seeds_copy / FILE_A).unlink()
    report = library.sync()
    assert (report.papers, report.orphans) == (19, 0)
    assert _statuses(library) == {lmrl: "to-read"}


def test_vanished_paper_keeps_its_mark_as_orphan_until_the_file_returns(
        library, marked, seeds_copy, run_cli):
    craftium = marked[1]
    saved = (seeds_copy / FILE_B).read_bytes()
    (seeds_copy / FILE_B).unlink()
    report = library.sync()
    assert (report.papers, report.removed, report.orphans) == (19, 16, 1)
    orphans = library.orphans()
    assert [(o[0], o[1], o[3]) for o in orphans] == [(craftium, "to-read", "Craftium")]
    assert library.stats()["orphan_marks"] == 1
    assert library.counts() == {"all": 19, "new": 17, "to-read": 1, "read": 1, "dismissed": 0}
    assert (craftium, "to-read") in _marks(library)

    out = run_cli("orphans", "--json")
    assert out.exit_code == 0
    assert [{k: o[k] for k in ("id", "status", "label")} for o in out.json()] == [
        {"id": craftium, "status": "to-read", "label": "Craftium"}]
    text = run_cli("orphans")
    assert text.stdout.startswith(f"{craftium[:8]}  to-read ")
    assert text.stdout.rstrip().endswith("Craftium")

    # a forced rebuild or another unrelated new paper does not delete or move it
    library.sync(force=True)
    (seeds_copy / "other.txt").write_text("Other 2026\n\nWe introduce FooBar, unrelated.\n")
    assert library.sync().orphans == 1

    (seeds_copy / FILE_B).write_bytes(saved)
    report = library.sync()
    assert (report.papers, report.added, report.orphans, report.reattached) == (36, 16, 0, 0)
    assert _by_name(library, "Craftium").status == "to-read"
    assert library.stats()["orphan_marks"] == 0
    assert run_cli("orphans").stdout == "no orphan marks\n"


def test_undo_is_repeatable_and_survives_a_new_library(library, marked, seeds_copy):
    parm, craftium, mentor = marked
    library.set_status([parm], "to-read")
    assert _statuses(library) == {parm: "to-read", craftium: "to-read", mentor: "to-read"}
    library.close()
    with Library([seeds_copy], library.paths.index.parent) as again:
        assert again.undo() == [MarkChange(parm, "to-read", "read")]
        assert _statuses(again) == {parm: "read", craftium: "to-read", mentor: "to-read"}
    with Library([seeds_copy], library.paths.index.parent) as again:
        undone = again.undo()
        assert sorted(undone, key=lambda c: c.paper_id) == sorted(
            [MarkChange(craftium, "to-read", "new"), MarkChange(mentor, "to-read", "new")],
            key=lambda c: c.paper_id)
        assert again.undo() == [MarkChange(parm, "read", "new")]
        assert again.undo() == []
        assert _statuses(again) == {}
        assert again.counts() == {"all": 35, "new": 35, "to-read": 0, "read": 0, "dismissed": 0}
        kinds = [e[1] for e in _events(again)]
        assert kinds == ["mark", "mark", "mark", "mark", "undo", "undo", "undo", "undo"]


def test_setting_several_ids_is_one_undo_step(library):
    three = [h.id for h in all_hits(library)[:3]]
    changes = library.set_status(three, "read")
    assert changes == [MarkChange(i, "new", "read") for i in three]
    assert library.counts()["read"] == 3
    assert sorted(library.undo(), key=lambda c: c.paper_id) == sorted(
        [MarkChange(i, "read", "new") for i in three], key=lambda c: c.paper_id)
    assert library.counts()["read"] == 0


def test_toggling_a_status(library):
    pid = _by_name(library, "MCU").id
    assert library.set_status([pid], "to-read") == [MarkChange(pid, "new", "to-read")]
    assert library.set_status([pid], "to-read") == []  # already so: no change, no event
    assert library.set_status([pid], "read") == [MarkChange(pid, "to-read", "read")]
    assert library.get(pid).status == "read"
    assert library.set_status([pid], "new") == [MarkChange(pid, "read", "new")]
    assert library.get(pid).status == "new"
    assert _marks(library) == []
    assert [e[1:] for e in _events(library)] == [
        ("mark", pid, "new", "to-read", None), ("mark", pid, "to-read", "read", None),
        ("mark", pid, "read", "new", None)]
    assert library.undo() == [MarkChange(pid, "new", "read")]
    assert library.get(pid).status == "read"


def test_prefixes_are_accepted(library):
    pid = _by_name(library, "PARM").id
    assert library.set_status([pid[:6].upper()], "read") == [MarkChange(pid, "new", "read")]
    assert library.get(pid[:8]).name == "PARM"


@pytest.mark.parametrize(("bad", "message"), [
    ("ffffffff", "no paper has an id starting with ffffffff"),
    ("zzz", "'zzz' is not a paper id (ids are hex, like 3fa2c01b)"),
    ("", "'' is not a paper id (ids are hex, like 3fa2c01b)"),
    ("0", "id prefix 0 is ambiguous; type more of it"),
])
def test_unknown_and_ambiguous_ids_are_errors(library, bad, message):
    assert [h.short_id[0] for h in all_hits(library)].count("0") == 5
    with pytest.raises(LibraryError) as err:
        library.set_status([bad], "read")
    assert str(err.value) == message
    with pytest.raises(LibraryError) as err:
        library.get(bad)
    assert str(err.value) == message
    assert _marks(library) == []


def test_one_bad_id_marks_nothing(library):
    pid = _by_name(library, "PARM").id
    with pytest.raises(LibraryError):
        library.set_status([pid, "ffffffff"], "read")
    assert _marks(library) == []


def test_unknown_status_is_an_error(library):
    pid = _by_name(library, "PARM").id
    with pytest.raises(LibraryError,
                       match="unknown status 'done': use new, to-read, read or dismissed"):
        library.set_status([pid], "done")
    with pytest.raises(LibraryError, match="unknown status 'done'"):
        library.search("", status="done")


def test_unreadable_marks_file_is_an_error_and_left_untouched(seeds_copy, data_dir):
    data_dir.mkdir()
    garbage = b"not a database, but the user's precious file\n" * 50
    (data_dir / "marks.sqlite").write_bytes(garbage)
    with pytest.raises(LibraryError) as err:
        Library([seeds_copy], data_dir)
    assert str(err.value).startswith(f"the marks file {data_dir / 'marks.sqlite'} cannot be read")
    assert "\n" not in str(err.value)
    assert (data_dir / "marks.sqlite").read_bytes() == garbage
    # no index was made: beside the marks only the registry of the libraries' indexes
    assert sorted(p.name for p in data_dir.iterdir()) == [
        "libraries.json", "libraries.lock", "marks.sqlite"]


def test_files_are_private(library):
    for path in (library.paths.index, library.paths.marks):
        assert path.stat().st_mode & 0o777 == 0o600
    assert library.paths.marks.parent.stat().st_mode & 0o777 == 0o700
