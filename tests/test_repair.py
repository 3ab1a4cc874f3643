"""A damaged marks file is seen and rebuilt from what can be read, a backup and the history.

Damage is made the way a disk or a lost lock makes it: an index of the marks table that lost its
rows (what two processes writing without their locks left behind), or table pages turned to
noise, or the whole file overwritten. Each test checks the marks, notes and tags afterwards
against what they were, and the one line that says what happened.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from db import Library
from db.marks import backup as backup_db
from db.marks import repair
from tests.tui_support import app_on, record_notifications, settle, shipped_copy, wait_for

PARM, WUDI, MTL = "0412d482", "655e745a", "c0571134"  # short ids in the shipped seeds


def _state(marks: Path) -> dict[str, object]:
    """Everything the reader wrote, read straight from the file."""
    with contextlib.closing(sqlite3.connect(f"file:{marks}?mode=ro", uri=True)) as conn:
        return {
            "marks": sorted(conn.execute("SELECT paper_id, status FROM marks NOT INDEXED")),
            "notes": sorted(conn.execute("SELECT paper_id, text FROM notes NOT INDEXED")),
            "tags": sorted(conn.execute("SELECT paper_id, tag FROM tags")),
        }


def _damage(marks: Path, objects: list[str], empty_index: bool = False) -> None:
    """Overwrite the root page of each of ``objects`` (tables or indexes of the marks file):
    with an empty index page (``empty_index``: the index lost every row, the table is whole),
    else with noise. The file is checkpointed first, so that the pages are in it."""
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        roots = [conn.execute("SELECT rootpage FROM sqlite_master WHERE name=?",
                              (name,)).fetchone()[0] for name in objects]
    empty = bytes([0x0A, 0, 0, 0, 0, size >> 8 & 0xFF, size & 0xFF, 0])  # a leaf with no cells
    with marks.open("r+b") as fh:
        for root in roots:
            fh.seek((root - 1) * size)
            fh.write(empty.ljust(size, b"\0") if empty_index else bytes(range(256)) * (size // 256))


def test_an_index_that_lost_rows_is_rebuilt_and_every_mark_kept(papertray, data_dir):
    """The marks index missing rows (``row 2 missing from index sqlite_autoindex_marks_1``):
    ``stats`` says so and rebuilds the file from the table itself."""
    for args in (("mark", PARM, WUDI, "--to-read"), ("mark", MTL, "--read"),
                 ("note", PARM, "proofs"), ("tag", WUDI, "moe")):
        assert papertray(*args).exit_code == 0
    marks = data_dir / "marks.sqlite"
    before = _state(marks)
    _damage(marks, ["sqlite_autoindex_marks_1"], empty_index=True)
    assert repair.check(marks).startswith("row 1 missing from index sqlite_autoindex_marks_1")
    out = papertray("stats", "--json")
    assert out.exit_code == 0
    aside = min(p.name for p in data_dir.glob("marks.sqlite.damaged-*"))
    assert out.stderr == (
        "papertray: the marks file was damaged (row 1 missing from index "
        "sqlite_autoindex_marks_1); rebuilt it with 3 marks, 1 notes, 1 tags, 0 saved searches "
        f"and 5 history steps; the damaged file is kept as {aside}; every row was read\n")
    assert out.json()["status"] == {"new": 32, "to-read": 2, "read": 1, "dismissed": 0}
    assert out.json()["problems"] == []
    assert repair.check(marks) == "ok" and _state(marks) == before
    assert papertray("undo").exit_code == 0  # the history came along: the tag is taken back
    assert _state(marks)["tags"] == []


def test_lost_table_pages_come_back_from_the_backup_and_the_history(papertray, data_dir):
    """Every table but the history unreadable: the backup's rows, brought forward by the steps
    taken since (marks, an undo, notes, tags added and removed)."""
    assert papertray("mark", PARM, "--to-read").exit_code == 0
    assert papertray("note", PARM, "first").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    for args in (("mark", WUDI, MTL, "--read"), ("mark", PARM, "--read"), ("undo",),
                 ("note", PARM, "second"), ("tag", MTL, "moe", "rl"), ("tag", MTL, "rl",
                                                                         "--remove"),
                 ("mark", WUDI, "--new"), ("tag", PARM, "x"), ("undo",)):
        assert papertray(*args).exit_code == 0, args
    marks = data_dir / "marks.sqlite"
    before = _state(marks)
    assert before["marks"] != [] and before["notes"] != [] and before["tags"] != []
    _damage(marks, ["marks", "notes", "tags", "annotation_anchors"])
    out = papertray("stats")
    assert out.exit_code == 0, out.stderr
    assert "could not read all of marks (" in out.stderr
    assert "what is missing there was taken from the backup marks-" in out.stderr
    assert len(out.stderr.splitlines()) == 1
    assert _state(marks) == before


def test_a_file_that_is_no_database_comes_back_from_its_backup(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    assert papertray("mark", WUDI, "--read").exit_code == 0  # after the backup: lost with it
    marks = data_dir / "marks.sqlite"
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    marks.write_bytes(b"\x00garbage" * 1000)
    out = papertray("stats", "--json")
    assert out.exit_code == 0
    assert "cannot be read" not in out.stderr
    assert out.stderr.endswith("could not read it at all (file is not a database): what is "
                               "missing there was taken from the backup "
                               f"{backup_db.backups(marks)[0].name} and the history, so changes "
                               "the history does not hold may be lost\n")
    assert out.json()["status"]["read"] == 1
    assert [m[0][:8] for m in _state(marks)["marks"]] == [PARM]


def test_no_repair_while_another_papertray_has_the_file_open(papertray, seeds_copy, data_dir):
    """Its next marks would go to the file set aside: the damage is reported, nothing moves."""
    assert papertray("mark", PARM, "--read").exit_code == 0
    marks = data_dir / "marks.sqlite"
    _damage(marks, ["sqlite_autoindex_marks_1"], empty_index=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom db import Library\n"
         f"lib = Library([{str(seeds_copy)!r}], {str(data_dir)!r})\nlib.counts()\n"
         "print('open', flush=True)\ntime.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "open\n"
        out = papertray("stats", "--json")
        assert out.exit_code == 0
        reason = (f"the marks file {marks} is damaged (row 1 missing from index "
                  "sqlite_autoindex_marks_1) and another papertray has it open; quit every "
                  "papertray on this data folder, then run `papertray marks repair`")
        assert out.stderr == f"papertray: {reason}\n"
        assert {"file": str(marks), "reason": reason} in out.json()["problems"]
        assert list(data_dir.glob("marks.sqlite.damaged-*")) == []
    finally:
        holder.kill()
        holder.wait()
    fixed = papertray("marks", "repair")
    assert fixed.exit_code == 0 and fixed.stdout.startswith("the marks file was damaged (")
    assert papertray("marks", "repair").stdout.endswith("is sound (integrity_check: ok)\n")
    assert [m[0][:8] for m in _state(marks)["marks"]] == [PARM]


async def test_the_browser_checks_the_marks_file_as_it_starts(tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        library.set_status([library.resolve(PARM)], "to-read")
    _damage(data / "marks.sqlite", ["sqlite_autoindex_marks_1"], empty_index=True)
    app = app_on(seeds, data)
    said = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: any("marks file was damaged" in s for s in said),
                       "the repair to be said")
        assert app.header.counts["to-read"] == 1
        assert not any("not loaded" in s for s in said)
    assert repair.check(data / "marks.sqlite") == "ok"


def test_the_history_replays_undos_of_an_import(tmp_path: Path) -> None:
    """An import is one step of marks, notes and tags; its undo is replayed kind by kind."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        parm, wudi = library.resolve(PARM), library.resolve(WUDI)
        library.set_status([parm], "read")
        library.tag([wudi], ["keep"])
        exported = library.export_marks()
        library.set_status([parm], "new")
        library.tag([wudi], ["keep"], remove=True)
        assert library.backup_marks(force=True) is not None
        time.sleep(0.01)  # (backups are named by the time)
        library.import_marks(json.dumps(exported).encode())
        library.undo()
        library.set_note(wudi, "after")
    marks = data / "marks.sqlite"
    before = _state(marks)
    assert before == {"marks": [], "notes": [(wudi, "after")], "tags": []}
    _damage(marks, ["marks", "notes", "tags"])
    done = repair.repair(marks)
    assert set(done.unread) == {"marks", "notes", "tags"}
    assert _state(marks) == before


def test_the_history_replays_copies_to_the_versions_of_a_paper(tmp_path: Path) -> None:
    """A paper in two seed files edited in one: the edited version's copy of the mark, note
    and tags is rebuilt from the history too."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        lmrl = next(h.id for h in library.search("LMRL-Gym").hits if h.name == "LMRL-Gym")
        library.set_status([lmrl], "read")
        library.set_note(lmrl, "multi-turn")
        library.tag([lmrl], ["rl"])
        first = sorted(seeds.glob("*.txt"))[0]
        text = first.read_text(encoding="utf-8")
        first.write_text(text.replace("rarely ask clarifying", "seldom ask clarifying"),
                         encoding="utf-8")
        assert library.sync().reattached == 1
    marks = data / "marks.sqlite"
    before = _state(marks)
    assert len(before["marks"]) == len(before["notes"]) == len(before["tags"]) == 2
    _damage(marks, ["marks", "notes", "tags"])
    repair.repair(marks)
    assert _state(marks) == before


@pytest.mark.parametrize("force", [True, False])
def test_nothing_to_recover_is_left_alone_unless_asked(tmp_path: Path, force: bool) -> None:
    marks = tmp_path / "marks.sqlite"
    marks.write_bytes(b"\x01" * 4096)
    if not force:
        with pytest.raises(Exception, match="has no backup; run `papertray marks repair`"):
            repair.repair(marks, force=False)
        assert marks.read_bytes() == b"\x01" * 4096
        return
    done = repair.repair(marks)
    assert done.notice().endswith("could not read it at all (file is not a database), and "
                                  "there is no backup: those are lost")
    assert (tmp_path / done.aside.name).read_bytes() == b"\x01" * 4096
    assert repair.check(marks) == "ok"
