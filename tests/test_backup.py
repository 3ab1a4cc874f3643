"""Rotating backups of the marks file, and restoring one when the marks file is damaged."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time

import pytest

from db import Library, LibraryError
from db.marks import backup as backup_db

PARM = "0412d482"  # short id of the PARM paper in the shipped seeds


def _marks(data_dir):
    with contextlib.closing(sqlite3.connect(data_dir / "marks.sqlite")) as conn:
        return dict(conn.execute("SELECT paper_id, status FROM marks"))


def test_opening_backs_up_marks_when_due_and_keeps_five(library, seeds_copy, data_dir):
    marks = data_dir / "marks.sqlite"
    assert backup_db.backups(marks) == []
    library.set_status([PARM], "to-read")
    library.close()
    Library([seeds_copy], data_dir).close()  # a mark exists and no backup yet: one is due
    made = backup_db.backups(marks)
    assert len(made) == 1
    assert oct(made[0].stat().st_mode & 0o777) == "0o600"
    assert oct(made[0].parent.stat().st_mode & 0o777) == "0o700"
    Library([seeds_copy], data_dir).close()  # the newest backup is fresh: none is due
    assert backup_db.backups(marks) == made
    old = time.time() - backup_db.BACKUP_EVERY_S - 60
    os.utime(made[0], (old, old))
    Library([seeds_copy], data_dir).close()
    assert len(backup_db.backups(marks)) == 2
    lib = Library([seeds_copy], data_dir)
    for _ in range(6):
        assert lib.backup_marks(force=True) is not None
    lib.close()
    kept = backup_db.backups(marks)
    assert len(kept) == backup_db.KEEP
    assert [p.name for p in kept] == sorted((p.name for p in kept), reverse=True)
    assert sorted(os.listdir(kept[0].parent)) == sorted(p.name for p in kept)  # no -wal/-shm


def test_damaged_marks_are_refused_then_restored_from_backup(library, seeds_copy, data_dir):
    full = library.resolve(PARM)
    library.set_status([PARM], "read")
    assert library.backup_marks(force=True) is not None
    library.close()
    marks = data_dir / "marks.sqlite"
    for suffix in ("-wal", "-shm"):
        (data_dir / f"marks.sqlite{suffix}").unlink(missing_ok=True)
    garbage = b"this is not a database " * 100
    marks.write_bytes(garbage)
    with pytest.raises(LibraryError) as err:
        Library([seeds_copy], data_dir)
    assert "papertray marks restore" in str(err.value)
    assert marks.read_bytes() == garbage  # refused, not overwritten
    chosen, aside = backup_db.restore(marks)
    assert chosen == backup_db.backups(marks)[0]
    assert aside is not None and aside.read_bytes() == garbage
    with Library([seeds_copy], data_dir) as lib:
        assert lib.get(full).status == "read"
    assert _marks(data_dir) == {full: "read"}


def test_restore_command_end_to_end(papertray, data_dir):
    assert papertray("mark", PARM, "--to-read").exit_code == 0
    made = papertray("marks", "backup")
    assert made.exit_code == 0 and "backed up to" in made.stdout
    (data_dir / "marks.sqlite").write_bytes(b"\x00garbage" * 64)
    for suffix in ("-wal", "-shm"):
        (data_dir / f"marks.sqlite{suffix}").unlink(missing_ok=True)
    refused = papertray("list", "--status", "to-read")
    assert refused.exit_code == 1 and "papertray marks restore" in refused.stderr
    restored = papertray("marks", "restore")
    assert restored.exit_code == 0 and "restored the marks from marks-" in restored.stdout
    listed = papertray("list", "--status", "to-read", "--json").json()
    assert [h["short_id"] for h in listed["hits"]] == [PARM]


def test_restore_without_backup_is_one_line(papertray):
    out = papertray("marks", "restore")
    assert out.exit_code == 1
    assert out.stderr.strip() == "papertray: no readable backup of the marks file"


def test_restore_refuses_while_a_browser_has_the_marks_file_open(papertray, seeds_copy, data_dir):
    """A restore needs the marks file to itself: it waits for every other papertray to close."""
    assert papertray("mark", PARM, "--to-read").exit_code == 0
    assert papertray("marks", "backup").exit_code == 0
    browser = Library([seeds_copy], data_dir)  # what the browser holds open, in this process
    try:
        refused = papertray("marks", "restore")
        assert (refused.exit_code, refused.stdout) == (1, "")
        assert refused.stderr == (
            "papertray: the marks file is open in another papertray (a browser, or a command "
            "still running); quit it, then restore\n")
        assert sorted(p.name for p in data_dir.iterdir() if p.name.startswith("marks")) == [
            "marks.sqlite", "marks.sqlite-shm", "marks.sqlite-wal"]
        browser.set_status([PARM], "read")  # still lands in the marks file
        parm = browser.resolve(PARM)
    finally:
        browser.close()
    assert _marks(data_dir) == {parm: "read"}
    restored = papertray("marks", "restore")
    assert restored.exit_code == 0 and "restored the marks from marks-" in restored.stdout
    assert list(_marks(data_dir).values()) == ["to-read"]
