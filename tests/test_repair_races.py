"""Repairs and restores beside other papertrays, damage past the first bad page, and what is
no damage at all.

A repair or a restore replaces the marks file's contents in place, under SQLite's exclusive
lock: the file keeps its inode, and a papertray that opens it meanwhile waits and then reads the
new contents. Errors that say a file cannot be read *now* (a lock, a folder) are not damage.
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from db.marks import backup as backup_db
from db.marks import repair
from db.marks.schema import open_marks
from db.models import LibraryError
from db.store import files
from db.store.exclusive import InUse, held
from tests.db_support import console_script

PARM, WUDI = "0412d482", "655e745a"  # short ids in the shipped seeds


def _marks_file(path: Path, count: int) -> list[str]:
    """A real marks file with ``count`` marks (and their history); returns their paper ids."""
    conn = open_marks(path)
    ids = [f"{n:08x}" + "ab" * 28 for n in range(count)]
    with conn:
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO marks(paper_id, status, updated_at, label, anchor) "
                         "VALUES (?, 'read', '2026-01-01T00:00:00Z', ?, ?)",
                         [(pid, f"paper {pid[:8]}", "x" * 120) for pid in ids])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return ids


def _noise_on_table_page_of(path: Path, text: str) -> int:
    """Turn to noise the table leaf page (type 0x0D) holding ``text``; returns its number."""
    data, size, at = path.read_bytes(), 4096, -1
    while True:
        at = data.index(text.encode(), at + 1)
        page = at // size
        if data[page * size] == 0x0D:
            break
    with path.open("r+b") as fh:
        fh.seek(page * size)
        fh.write(bytes(range(256)) * (size // 256))
    return page + 1


def test_salvage_goes_on_past_a_bad_page_of_a_table(tmp_path: Path) -> None:
    marks = tmp_path / "marks.sqlite"
    ids = _marks_file(marks, 3000)
    middle = ids[1500]
    _noise_on_table_page_of(marks, middle)
    with (contextlib.closing(sqlite3.connect(marks)) as conn,
          pytest.raises(sqlite3.DatabaseError)):
        conn.execute("SELECT count(*) FROM marks NOT INDEXED").fetchone()
    done = repair.repair(marks)
    assert done is not None and "marks" in done.unread
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        kept = {row[0] for row in conn.execute("SELECT paper_id FROM marks")}
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    lost = set(ids) - kept
    assert middle in lost and ids[-1] in kept and ids[0] in kept
    assert 0 < len(lost) <= 40  # one page of rows, not everything after it
    assert f"({done.read} rows were read)" in done.notice()


def test_a_repair_keeps_the_file_and_a_waiting_papertray_reads_the_new_contents(
        tmp_path: Path) -> None:
    """The repair holds the file: a command started meanwhile waits, then sees the rebuilt file
    (the same inode: nobody can be left writing to a file set aside)."""
    marks = tmp_path / "marks.sqlite"
    ids = _marks_file(marks, 50)
    inode = marks.stat().st_ino
    reader = (f"import sqlite3\nc = sqlite3.connect({str(marks)!r}, timeout=30)\n"
              "print(c.execute('SELECT count(*) FROM marks').fetchone()[0])")
    with held(marks) as file:
        assert file.check() == "ok"
        waiting = subprocess.Popen([sys.executable, "-c", reader], stdout=subprocess.PIPE,
                                   text=True)
        staged = file.staged()
        _marks_file(staged, 7)
        aside = file.replace(staged, "replaced")
    assert waiting.communicate(timeout=60)[0] == "7\n"
    assert marks.stat().st_ino == inode and not staged.exists()
    with contextlib.closing(sqlite3.connect(aside)) as conn:
        assert conn.execute("SELECT count(*) FROM marks").fetchone()[0] == len(ids)


def test_a_held_file_is_in_use_for_another_holder(tmp_path: Path) -> None:
    marks = tmp_path / "marks.sqlite"
    _marks_file(marks, 3)
    conn = open_marks(marks)  # a browser's connection: WAL keeps a shared lock
    try:
        with pytest.raises(InUse), held(marks, wait_s=0.2):
            pass
    finally:
        conn.close()
    with held(marks, wait_s=0.2) as file:
        assert file.conn is not None


def test_a_missing_marks_file_with_backups_is_refused_and_repaired(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    marks = data_dir / "marks.sqlite"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{marks}{suffix}").unlink(missing_ok=True)
    refused = papertray("list", "--status", "read")
    assert refused.exit_code == 1
    assert "is missing but backups of it exist; papertray will not start it afresh" in (
        refused.stderr)
    assert repair.check(marks) == "it is missing but backups of it exist"
    fixed = papertray("marks", "repair")
    assert fixed.exit_code == 0, fixed.stderr
    assert "rebuilt it with 1 marks" in fixed.stdout
    listed = papertray("list", "--status", "read", "--json").json()["hits"]
    assert [h["short_id"] for h in listed] == [PARM]


def test_an_emptied_marks_file_is_damage_for_check_and_repair(papertray, data_dir):
    assert papertray("mark", PARM, WUDI, "--to-read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    marks = data_dir / "marks.sqlite"
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    marks.write_bytes(b"")
    assert repair.check(marks) == "it is empty but backups of it exist"
    fixed = papertray("marks", "repair")
    assert fixed.exit_code == 0 and "rebuilt it with 2 marks" in fixed.stdout
    assert papertray("stats", "--json").json()["status"]["to-read"] == 2


def test_marks_rebuilt_from_the_history_get_their_label_and_anchor_back(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    marks = data_dir / "marks.sqlite"
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        conn.execute("UPDATE marks SET label=NULL, anchor=NULL")
        conn.commit()
    assert papertray("list").exit_code == 0  # a sync keeps what is missing
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        label, anchor = conn.execute("SELECT label, anchor FROM marks").fetchone()
    assert label and anchor


def test_a_restore_over_a_sound_file_keeps_it_as_replaced(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    out = papertray("marks", "restore")
    assert out.exit_code == 0
    assert ".replaced-" in out.stdout and "damaged" not in out.stdout
    assert backup_db.readable(next(data_dir.glob("marks.sqlite.replaced-*")))


def test_what_cannot_be_read_now_is_not_damage(tmp_path: Path) -> None:
    folder = tmp_path / "a-folder.sqlite"
    folder.mkdir()
    with pytest.raises(LibraryError, match="cannot check"):
        files.quick_check(folder)
    locked = sqlite3.OperationalError("database is locked")
    locked.sqlite_errorname = "SQLITE_BUSY"
    assert not files.is_damage(locked)
    marks = tmp_path / "marks.sqlite"
    marks.write_bytes(b"\x00garbage" * 1000)
    assert files.quick_check(marks) == "file is not a database"


def test_a_companion_that_does_not_exist_yet_is_refused_by_name(run_cli, data_dir):
    assert run_cli("mark", PARM, "--read").exit_code == 0
    journal = data_dir / "marks.sqlite-journal"
    with pytest.raises(LibraryError, match=r"is papertray's own marks\.sqlite"):
        run_cli("export", "-o", str(journal))
    assert not journal.exists()


def test_the_data_folder_inside_a_seed_folder_is_not_read_as_seeds(papertray, seeds_copy):
    data = seeds_copy / "papertray-data"
    first = papertray("stats", "--json", data=data)
    assert first.exit_code == 0, first.stderr
    (data / "settings.json").write_text('{"theme": "x"}')
    (data / "notes.txt").write_text("An abstract that is no seed at all.\n")
    again = papertray("stats", "--json", data=data).json()
    assert again["files"] == first.json()["files"] and again["problems"] == []


def _garble_header(marks: Path) -> None:
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    with marks.open("r+b") as fh:
        fh.write(b"garbage garbage!")


def _holder(seeds: Path, data: Path) -> subprocess.Popen:
    """Another papertray with the library open (as a browser keeps it)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys\nfrom db import Library\n"
         f"lib = Library([{str(seeds)!r}], {str(data)!r})\nlib.counts()\n"
         "print('open', flush=True)\nsys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "open\n"
    return holder


def test_a_damaged_header_loses_no_row_and_repairs_run_one_at_a_time(papertray, seeds_copy,
                                                                     data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    assert papertray("mark", WUDI, "--to-read").exit_code == 0  # after the backup
    assert papertray("note", WUDI, "kept").exit_code == 0
    marks = data_dir / "marks.sqlite"
    _garble_header(marks)
    runs = [subprocess.Popen([*console_script(), "--seeds", str(seeds_copy), "--data-dir",
                              str(data_dir), "stats", "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0, 0], [err for _, err in outs]
    said = [err for _, err in outs if "rebuilt it with" in err]
    assert len(said) == 1 and "every row was read" in said[0]
    assert len(list(data_dir.glob("marks.sqlite.damaged-*"))) == 1
    shown = papertray("show", WUDI, "--json").json()
    assert (shown["status"], shown["note"]) == ("to-read", "kept")
    assert papertray("stats", "--json").json()["status"]["read"] == 1


def test_no_repair_of_an_unreadable_file_another_papertray_has_open(papertray, seeds_copy,
                                                                   data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    holder = _holder(seeds_copy, data_dir)
    try:
        _garble_header(data_dir / "marks.sqlite")
        refused = papertray("marks", "repair")
        assert refused.exit_code == 1 and "another papertray has it open" in refused.stderr
        assert not list(data_dir.glob("marks.sqlite.damaged-*"))
    finally:
        holder.communicate("", timeout=60)


def test_kept_copies_and_backups_are_refused_as_export_targets(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    [kept] = backup_db.backups(data_dir / "marks.sqlite")
    before = kept.read_bytes()
    out = papertray("export", "-o", str(kept))
    assert out.exit_code == 1 and "is papertray's own copy of marks.sqlite" in out.stderr
    assert kept.read_bytes() == before


def test_a_write_that_meets_a_damaged_marks_file_says_how_to_repair(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    _marks_page_to_noise(data_dir / "marks.sqlite")
    out = papertray("mark", WUDI, "--read")
    assert out.exit_code == 1 and "papertray marks repair" in out.stderr


def _marks_page_to_noise(marks: Path) -> None:
    with contextlib.closing(sqlite3.connect(marks)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='marks'").fetchone()[0]
    with marks.open("r+b") as fh:
        fh.seek((root - 1) * 4096)
        fh.write(bytes(range(256)) * 16)


def test_what_a_killed_replacement_left_is_removed_by_the_next(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    left = [data_dir / "marks.sqlite.new-abc123", data_dir / "marks.sqlite.new-abc123-journal",
            data_dir / "marks.sqlite.replaced-20260101-000000.partial"]
    for path in left:
        path.write_bytes(b"half")
    assert papertray("marks", "restore").exit_code == 0
    assert not any(path.exists() for path in left)
