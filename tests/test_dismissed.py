"""The third decision, *dismissed* (not interested): stored, counted (never as new), filtered
(``is:dismissed``, ``--status dismissed``), marked from the command line, in every export
format, in marks files and backups; and the count of hits a status filter hides."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sqlite3

from db import Library
from db.marks import backup as backup_db
from tests.db_support import all_hits, copy_seeds, ids

PARM, MENTOR = "0412d482992496cb", "eb8c16cf3afbe389"


def _stored(data_dir) -> dict[str, str]:
    with contextlib.closing(sqlite3.connect(data_dir / "marks.sqlite")) as conn:
        return dict(conn.execute("SELECT paper_id, status FROM marks"))


def test_dismissed_is_stored_counted_and_filtered(library, data_dir):
    changes = library.set_status([PARM, MENTOR], "dismissed")
    assert [(c.paper_id, c.old, c.new) for c in changes] == [
        (PARM, "new", "dismissed"), (MENTOR, "new", "dismissed")]
    assert _stored(data_dir) == {PARM: "dismissed", MENTOR: "dismissed"}
    assert library.counts() == {"all": 35, "new": 33, "to-read": 0, "read": 0, "dismissed": 2}
    assert sorted(ids(all_hits(library, "is:dismissed"))) == sorted([PARM, MENTOR])
    assert sorted(ids(all_hits(library, status="dismissed"))) == sorted([PARM, MENTOR])
    assert PARM not in ids(all_hits(library, "is:new"))
    assert len(all_hits(library, "-is:dismissed")) == 33
    assert library.stats()["status"] == {"new": 33, "to-read": 0, "read": 0, "dismissed": 2}
    # like:to-read ranks new papers only: a dismissed paper is never suggested again
    library.set_status([library.resolve("722b41c7")], "to-read")  # Craftium
    assert not {PARM, MENTOR} & set(ids(library.like_to_read(limit=100).hits))
    assert library.set_status([PARM], "dismissed") == []  # kept, no step written
    assert [(c.old, c.new) for c in library.undo()] == [("to-read", "new")]
    assert [(c.old, c.new) for c in library.undo()] == [("dismissed", "new")] * 2


def test_the_hits_a_status_filter_hides_are_counted(library):
    """``hidden``: papers the words find that ``status`` leaves out (not an ``is:`` of the
    query, which is the query itself), for search and similar."""
    learning = ids(all_hits(library, "learning"))
    library.set_status(learning[:2], "dismissed")
    found = library.search("learning", "dismissed", limit=100, hidden=True)
    assert (sorted(ids(found.hits)), found.total, found.hidden) == (
        sorted(learning[:2]), 2, len(learning) - 2)
    assert library.search("learning", "dismissed").hidden == 0  # not asked: one pass only
    assert library.search("learning", limit=100, hidden=True).hidden == 0
    assert library.search("learning", "all", hidden=True).hidden == 0
    assert library.search("learning is:dismissed", hidden=True).hidden == 0
    assert library.search("", "dismissed", hidden=True).hidden == 0  # no words: the header
    every = library.similar(PARM)
    like = library.similar(PARM, "dismissed")
    assert like.hidden == every.total - like.total and like.hidden > 0
    assert library.search(f"like:{PARM[:8]}", "dismissed").hidden == like.hidden


def test_the_command_line_marks_lists_and_counts_dismissed(run_cli):
    done = run_cli("mark", "0412", "--dismissed")
    assert done.exit_code == 0
    assert done.stdout == f"marked 1 paper(s) dismissed\n  {PARM[:8]}  new → dismissed\n"
    again = run_cli("mark", "0412", "eb8c", "--dismissed", "--json")
    assert again.json() == {"changed": [
        {"id": MENTOR, "kind": "mark", "old": "new", "new": "dismissed"}]}
    kept = run_cli("mark", "0412", "--dismissed")
    assert kept.stdout == "marked 0 paper(s) dismissed (1 dismissed already, kept)\n"
    listed = run_cli("list", "--status", "dismissed", "--json").json()
    assert sorted(h["id"] for h in listed["hits"]) == sorted([PARM, MENTOR])
    assert {h["status"] for h in listed["hits"]} == {"dismissed"}
    text = run_cli("list", "--status", "dismissed")
    assert text.stdout.splitlines()[0].startswith(f"{PARM[:8]}  ×  PARM")
    assert run_cli("stats", "--json").json()["status"] == {
        "new": 33, "to-read": 0, "read": 0, "dismissed": 2}
    assert "status:       33 new, 0 to-read, 0 read, 2 dismissed\n" in run_cli("stats").stdout
    searched = run_cli("search", "alignment", "--status", "dismissed")
    total = run_cli("search", "alignment", "--json").json()["total"]
    assert searched.stdout.startswith(f"{PARM[:8]}  ×  PARM")
    assert (f"({total - 1} more have another status: leave out --status to see them)"
            in searched.stderr)
    assert run_cli("search", "alignment", "--status", "dismissed", "--json").json()[
        "hidden"] == total - 1


def test_every_export_format_carries_dismissed(library):
    library.set_status([PARM], "dismissed")
    out = {}
    for fmt in ("md", "csv", "json", "bib"):
        out[fmt] = io.StringIO()
        assert library.export("is:dismissed", None, fmt, out[fmt]) == 1
    assert out["md"].getvalue().splitlines()[2].startswith("- [-] **PARM** — ")
    assert out["md"].getvalue().splitlines()[2].endswith(f" · `{PARM[:8]}` · dismissed")
    row = next(csv.DictReader(io.StringIO(out["csv"].getvalue())))
    assert (row["id"], row["status"]) == (PARM, "dismissed")
    hit = json.loads(out["json"].getvalue())["hits"][0]
    assert (hit["id"], hit["status"]) == (PARM, "dismissed")
    assert out["bib"].getvalue().startswith("@")  # a citation: no status, by design


def test_marks_files_and_backups_carry_dismissed(tmp_path):
    laptop, server = (Library([copy_seeds(tmp_path / name / "seeds")], tmp_path / name / "data")
                      for name in ("laptop", "server"))
    with laptop, server:
        laptop.sync()
        server.sync()
        laptop.set_status([PARM], "dismissed")
        exported = laptop.export_marks()
        assert [(m["id"], m["status"]) for m in exported["marks"]] == [(PARM, "dismissed")]
        summary = server.import_marks(json.dumps(exported).encode())
        assert [(c.paper_id, c.old, c.new) for c in summary.changed] == [
            (PARM, "new", "dismissed")]
        assert server.get(PARM).status == "dismissed"
        made = laptop.backup_marks(force=True)
    assert made is not None
    with contextlib.closing(sqlite3.connect(made)) as conn:
        assert dict(conn.execute("SELECT paper_id, status FROM marks")) == {PARM: "dismissed"}
    marks = tmp_path / "laptop" / "data" / "marks.sqlite"
    for suffix in ("", "-wal", "-shm"):
        marks.with_name(marks.name + suffix).unlink(missing_ok=True)
    marks.write_bytes(b"not a database " * 100)
    chosen, _aside = backup_db.restore(marks)
    assert chosen == made
    assert _stored(tmp_path / "laptop" / "data") == {PARM: "dismissed"}
