"""Broken input and damaged files, end to end through the real command: one line, nothing lost.

Each test is one kind of fault a user can cause (found by trying to break papertray), with the
exact behaviour asserted: the message, the exit code, and the marks that must survive.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess

from db.marks import backup as backup_db
from tests.db_support import console_script

PARM = "0412d482"


def _one_line(out, exit_code: int = 1) -> str:
    assert out.exit_code == exit_code, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def _overwrite(database, content: bytes | None) -> None:
    """Damage a database file as a crash, a disk or a user would: its -wal and -shm go, and the
    file gets ``content`` (None: the file is deleted too)."""
    for suffix in ("-wal", "-shm"):
        database.with_name(database.name + suffix).unlink(missing_ok=True)
    if content is None:
        database.unlink(missing_ok=True)
    else:
        database.write_bytes(content)


def test_a_pipe_in_the_seed_folder_is_reported_not_read(papertray, seeds_copy):
    os.mkfifo(seeds_copy / "pipe.txt")  # opening it would block for ever
    out = papertray("sync", "--json")
    assert out.exit_code == 0
    reports = {f["path"]: (f["status"], f["reason"]) for f in out.json()["files"]}
    assert reports[str(seeds_copy / "pipe.txt")] == (
        "error", "not a regular file (a pipe, socket or device)")
    assert out.json()["papers"] == 35


def test_a_mistyped_seed_path_keeps_the_library(papertray, seeds_copy, tmp_path):
    assert papertray("mark", PARM, "--to-read").exit_code == 0
    typo = tmp_path / "seedz"
    out = papertray("list", "--json", seeds=typo)
    assert out.exit_code == 0
    assert out.json()["total"] == 0  # another library (its own index): empty, and said so
    assert out.stderr.strip() == f"papertray: seed path {typo}: no such file or folder"
    stats = papertray("stats", "--json", seeds=typo).json()
    assert stats["problems"] == [{"file": str(typo), "reason": "no such file or folder"}]
    assert stats["status"]["to-read"] == 0 and stats["orphan_marks"] == 1  # the mark is kept
    # the library's own index is untouched, and the typo was not remembered
    for kept in (papertray("sync", "--json").json(),
                 papertray("--data-dir", str(tmp_path / "data"), "sync", "--json",
                           global_options=False).json()):
        assert (kept["papers"], kept["added"], kept["removed"]) == (35, 0, 0)
    assert papertray("stats", "--json").json()["status"]["to-read"] == 1


def test_empty_paths_are_refused(papertray):
    out = papertray("--data-dir", "", "stats", global_options=False)
    assert _one_line(out, 2).startswith("papertray: Invalid value for '--data-dir': an empty path")
    out = papertray("--seeds", "", "stats", global_options=False)
    assert _one_line(out, 2).startswith("papertray: Invalid value for '--seeds': an empty path")


def test_queries_starting_with_a_dash_are_queries(papertray):
    papertray("sync")
    out = papertray("search", "-transformer", "--json")
    assert out.exit_code == 0 and out.json()["effective_query"] == "-transformer"
    assert out.json()["total"] == papertray("search", "--json", "--", "-transformer").json()[
        "total"]


def test_or_between_filters_is_explained(papertray):
    out = papertray("search", "is:to-read OR is:read", "--json").json()
    assert (out["effective_query"], out["total"]) == ("is:to-read is:read", 0)
    assert out["notice"] == ("OR joins words, not filters: the filters all apply; "
                             "a paper has one status: is:to-read and is:read find nothing")


def test_an_enormous_offset_is_an_empty_page(papertray):
    out = papertray("list", "--offset", "9" * 30, "--json")
    assert out.exit_code == 0 and out.json()["hits"] == [] and out.json()["total"] == 35


def test_a_terminal_without_unicode_gets_no_traceback(papertray, seeds_copy, data_dir, tmp_path):
    papertray("sync")
    env = {**os.environ, "PYTHONIOENCODING": "latin-1", "HOME": str(tmp_path)}
    proc = subprocess.run([*console_script(), "--seeds", str(seeds_copy), "--data-dir",
                           str(data_dir), "list", "--limit", "2"], capture_output=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode("latin-1").splitlines()[0].startswith(f"{PARM}  .  PARM")


def test_output_to_a_closed_pipe_is_success(papertray, seeds_copy, data_dir):
    papertray("sync")
    proc = subprocess.Popen([*console_script(), "--seeds", str(seeds_copy), "--data-dir",
                             str(data_dir), "list", "--limit", "35"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.read(20)
    proc.stdout.close()  # like `papertray list | head -c 20`
    assert proc.wait(timeout=30) == 0
    assert b"Traceback" not in proc.stderr.read()


def test_a_damaged_page_inside_the_index_is_rebuilt(papertray, data_dir):
    assert papertray("mark", PARM, "--read").exit_code == 0
    index = data_dir / "index.sqlite"
    with contextlib.closing(sqlite3.connect(index)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = conn.execute("PRAGMA page_size").fetchone()[0]
    size = index.stat().st_size
    with index.open("r+b") as fh:  # the file header stays intact; pages after it turn to noise
        for offset in range(2 * page, size, page):
            fh.seek(offset)  # from the page's own header on
            fh.write(bytes(range(200)))
    out = papertray("search", "graph", "--json")
    assert out.exit_code == 0
    assert out.stderr.startswith("papertray: the index was damaged (database disk image is "
                                 "malformed); moved it to index.sqlite.broken-")
    assert len(out.stderr.strip().splitlines()) == 1  # one line, not "damaged" then "missing"
    again = papertray("search", "graph", "--json")
    assert again.stderr == "" and again.json()["total"] == out.json()["total"] > 0
    assert [h["short_id"] for h in papertray("list", "--status", "read", "--json").json()["hits"]
            ] == [PARM]


def test_a_truncated_index_is_said_and_rebuilt(papertray, data_dir):
    papertray("mark", PARM, "--to-read")
    _overwrite(data_dir / "index.sqlite", b"")
    out = papertray("list", "--status", "to-read", "--json")
    assert out.stderr.strip() == "papertray: the index was empty (truncated?); rebuilding it"
    assert [h["short_id"] for h in out.json()["hits"]] == [PARM]


def test_an_emptied_marks_file_with_backups_is_refused(papertray, data_dir):
    papertray("mark", PARM, "--to-read")
    assert papertray("marks", "backup").exit_code == 0
    _overwrite(data_dir / "marks.sqlite", b"")
    line = _one_line(papertray("list"))
    assert line.startswith(f"papertray: the marks file {data_dir / 'marks.sqlite'} is empty but "
                           "backups of it exist; papertray will not start it afresh.")
    assert (data_dir / "marks.sqlite").read_bytes() == b""
    assert papertray("marks", "restore").exit_code == 0
    hits = papertray("list", "--status", "to-read", "--json").json()["hits"]
    assert [h["short_id"] for h in hits] == [PARM]


def test_restoring_the_marks_file_onto_itself_is_refused(papertray, data_dir):
    papertray("mark", PARM, "--to-read")
    marks = data_dir / "marks.sqlite"
    line = _one_line(papertray("marks", "restore", str(marks)))
    assert line == f"papertray: {marks} is the marks file itself; name a backup"
    hits = papertray("list", "--status", "to-read", "--json").json()["hits"]
    assert [h["short_id"] for h in hits] == [PARM]


def test_two_restores_in_a_row_keep_every_set_aside_file(papertray, data_dir):
    papertray("mark", PARM, "--to-read")
    assert papertray("marks", "backup").exit_code == 0
    assert papertray("marks", "restore").exit_code == 0
    assert papertray("marks", "restore").exit_code == 0
    aside = sorted(p.name for p in data_dir.iterdir() if ".replaced-" in p.name)
    assert len(aside) == 2 and len(set(aside)) == 2
    assert len(backup_db.backups(data_dir / "marks.sqlite")) == 1


def test_a_deleted_index_is_said_and_rebuilt(papertray, data_dir):
    papertray("mark", PARM, "--read")
    _overwrite(data_dir / "index.sqlite", None)
    out = papertray("list", "--status", "read", "--json")
    assert out.stderr.strip() == ("papertray: the index was missing (deleted?); rebuilding it "
                                  "from the seed files")
    assert [h["short_id"] for h in out.json()["hits"]] == [PARM]


def test_a_seed_file_named_in_another_encoding_is_reported(papertray, seeds_copy):
    name = os.fsencode(seeds_copy) + b"/r\xe9sum\xe9.txt"  # Latin-1 bytes in a file name
    with open(name, "wb") as fh:
        fh.write(b"Name 2024\n\nWe propose NAMELESS, a method.\n")
    out = papertray("sync", "--json")
    assert out.exit_code == 0 and "Traceback" not in out.stderr
    problems = [f for f in out.json()["files"] if f["status"] == "error"]
    assert [(p["path"].rsplit("/", 1)[1], p["reason"]) for p in problems] == [
        ("r?sum?.txt", "the file name is not UTF-8; rename the file")]
    assert out.json()["papers"] == 35


def test_a_marks_file_cut_to_one_byte_is_refused(papertray, data_dir):
    papertray("mark", PARM, "--to-read")
    _overwrite(data_dir / "marks.sqlite", b"S")
    line = _one_line(papertray("stats"))
    assert line.startswith(f"papertray: the marks file {data_dir / 'marks.sqlite'} cannot be "
                           "read (file is not a database); papertray will not overwrite it.")
    assert (data_dir / "marks.sqlite").read_bytes() == b"S"


def test_an_index_cut_to_one_byte_is_said_once_and_rebuilt(papertray, data_dir):
    papertray("mark", PARM, "--to-read")
    _overwrite(data_dir / "index.sqlite", b"S")
    out = papertray("list", "--status", "to-read", "--json")
    assert out.stderr.startswith("papertray: the index was damaged (file is not a database); "
                                 "moved it to index.sqlite.broken-")
    assert len(out.stderr.strip().splitlines()) == 1
    assert [h["short_id"] for h in out.json()["hits"]] == [PARM]


def test_only_the_newest_damaged_index_is_kept(papertray, data_dir):
    papertray("sync")
    for _ in range(3):
        (data_dir / "index.sqlite").write_bytes(b"garbage" * 100)
        assert papertray("stats").exit_code == 0
    assert len([p for p in data_dir.iterdir() if ".broken-" in p.name]) == 1


def test_words_starting_with_h_after_a_dash_are_queries(papertray):
    papertray("sync")
    out = papertray("search", "learning", "-has:code", "--json")
    assert out.exit_code == 0
    assert out.json()["effective_query"] == "learning -has:code"  # the filter is being typed
    assert all(h["code_url"] is None for h in out.json()["hits"])
    out = papertray("search", "-hallucination", "--json")
    assert out.exit_code == 0 and out.json()["effective_query"] == "-hallucination"
