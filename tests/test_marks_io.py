"""Marks between machines: ``marks export`` / ``marks import`` and the merge rules on
conflicting histories (newer wins, re-running changes nothing, unknown ids re-attached by text
or kept as orphans, undo undoes an import)."""

from __future__ import annotations

import json

import pytest

from db import Library, LibraryError
from tests.db_support import copy_seeds

PARM, C3PO, MENTOR, CRAFTIUM = ("0412d482992496cb", "5df4ef8446b9d126", "eb8c16cf",
                                "722b41c7")
EARLY, LATE = "2026-01-01T10:00:00.000000Z", "2026-02-01T10:00:00.000000Z"


@pytest.fixture
def two_machines(tmp_path):
    """A laptop and a server: the same seed files, separate data folders."""
    libs = [Library([copy_seeds(tmp_path / name / "seeds")], tmp_path / name / "data")
            for name in ("laptop", "server")]
    for lib in libs:
        lib.sync()
    yield libs
    for lib in libs:
        lib.close()


def _file(*marks: dict) -> bytes:
    return json.dumps({"format": "papertray-marks", "version": 1, "marks": list(marks)}).encode()


def _mark(paper_id: str, status: str, at: str, anchor: str | None = None) -> dict:
    return {"id": paper_id, "status": status, "updated_at": at, "title": None, "label": "x",
            "anchor": anchor}


def _state(lib: Library) -> list[tuple[str, str, str]]:
    return [(m["id"][:8], m["status"], m["updated_at"]) for m in lib.export_marks()["marks"]]


def test_newer_wins_per_paper_and_rerunning_changes_nothing(two_machines):
    _, server = two_machines
    server.set_status([PARM], "to-read")  # now: newer than both times of the file
    incoming = _file(_mark(PARM, "read", LATE), _mark(C3PO, "to-read", EARLY))
    summary = server.import_marks(incoming)
    assert summary.line() == ("read 2 marks: 1 changed, 1 older than yours (kept yours)")
    assert [(c.paper_id, c.old, c.new) for c in summary.changed] == [(C3PO, "new", "to-read")]
    assert server.get(PARM).status == "to-read"
    assert ("5df4ef84", "to-read", EARLY) in _state(server)  # the record's own time is kept
    again = server.import_marks(incoming)
    assert (again.changed, again.unchanged, again.older) == ([], 1, 1)


def test_a_later_mark_in_the_file_replaces_an_earlier_one_here(two_machines):
    laptop, server = two_machines
    server.set_status([PARM], "to-read")
    laptop.set_status([PARM], "read")  # later than the server's
    summary = server.import_marks(json.dumps(laptop.export_marks()).encode())
    assert [(c.old, c.new) for c in summary.changed] == [("to-read", "read")]
    assert server.get(PARM).status == "read"


def test_both_ways_the_machines_agree(two_machines):
    laptop, server = two_machines
    laptop.set_status([PARM, MENTOR], "read")
    server.set_status([CRAFTIUM], "to-read")
    server.set_status([PARM], "to-read")  # the latest word on PARM
    server.set_status([MENTOR], "to-read")
    laptop.set_status([MENTOR], "new")  # a reset travels too: newer than the server's mark
    for source, target in ((laptop, server), (server, laptop)):
        target.import_marks(json.dumps(source.export_marks()).encode())
    assert _state(laptop) == _state(server)
    assert {s[:2] for s in _state(server)} == {
        ("0412d482", "to-read"), ("722b41c7", "to-read"), ("eb8c16cf", "new")}
    for lib in two_machines:
        assert lib.counts() == {"all": 35, "new": 33, "to-read": 2, "read": 0, "dismissed": 0}


def test_an_edited_abstract_is_found_by_its_text(two_machines, tmp_path):
    laptop, server = two_machines
    seed = laptop.seed_paths[0] / "000_cd03ecd68f8352ab.txt"
    seed.write_text(seed.read_text(encoding="utf-8").replace(
        "keeping LLMs frozen", "keeping the LLMs frozen"), encoding="utf-8")
    laptop.sync()
    edited = laptop.search('"keeping the LLMs frozen"').hits[0].id
    assert edited != PARM
    laptop.set_status([edited], "read")
    summary = server.import_marks(json.dumps(laptop.export_marks()).encode())
    assert (summary.reattached, len(summary.changed)) == (1, 1)
    assert server.get(PARM).status == "read"
    assert server.orphans() == []


def test_a_mark_for_no_known_paper_is_kept_as_an_orphan(two_machines):
    _, server = two_machines
    stranger = _mark("00000000deadbeef", "read", EARLY, anchor="an abstract nobody here has")
    summary = server.import_marks(_file(stranger))
    assert (summary.orphans, len(summary.changed)) == (1, 1)
    assert server.orphans() == [("00000000deadbeef", "read", EARLY, "x")]
    assert server.import_marks(_file(stranger)).changed == []


def test_undo_takes_back_a_whole_import(two_machines):
    _, server = two_machines
    server.set_status([CRAFTIUM], "read")
    server.import_marks(_file(_mark(PARM, "read", EARLY), _mark(C3PO, "read", EARLY)))
    undone = server.undo()
    assert sorted((c.paper_id, c.new) for c in undone) == [(PARM, "new"), (C3PO, "new")]
    assert server.counts()["read"] == 1  # the mark made here before the import stays


def test_invalid_records_are_counted_not_applied(two_machines):
    _, server = two_machines
    summary = server.import_marks(_file(
        _mark(PARM, "done", EARLY), _mark("PARM", "read", EARLY), _mark(C3PO, "read", "today"),
        _mark(C3PO, "read", "2999-01-01T00:00:00Z"), "not a record"))
    assert (summary.invalid, summary.changed) == (5, [])
    assert summary.line() == "read 5 marks: 0 changed, 5 invalid (skipped)"


@pytest.mark.parametrize(("data", "message"), [
    (b"\x00\x01garbage", "not a papertray marks file (not JSON"),
    (b'{"marks": []}', "not a papertray marks file (write one with"),
    (b'{"format": "papertray-marks", "version": 9, "marks": []}', "marks file version 9 is"),
    pytest.param(b'{"format": "papertray-marks", "version": 1, "marks": [' + b"[" * 100_000
                 + b"]" * 100_000 + b"]}", "not a papertray marks file (JSON nested too deeply)",
                 id="nested-too-deeply"),  # was: RecursionError, a traceback
])
def test_a_file_that_is_no_marks_file_is_one_line(two_machines, data, message):
    with pytest.raises(LibraryError) as caught:
        two_machines[1].import_marks(data)
    assert str(caught.value).startswith(message)


def test_cli_export_then_import(run_cli, tmp_path):
    assert run_cli("mark", "0412", "--read").exit_code == 0
    target = tmp_path / "marks.json"
    done = run_cli("marks", "export", str(target))
    assert done.stderr == f"exported 1 marks to {target}\n"
    fresh = tmp_path / "other-data"
    first = run_cli("marks", "import", str(target), data=fresh)
    assert first.stdout == "read 1 marks: 1 changed\n  0412d482  new → read\n"
    second = run_cli("marks", "import", str(target), "--json", data=fresh)
    assert json.loads(second.stdout)["unchanged"] == 1
    bad = run_cli("marks", "import", str(tmp_path / "marks.json.missing"))
    assert bad.exit_code == 2


def test_notes_and_tags_travel_newer_note_wins_tags_unite_and_undo_takes_them_back(two_machines):
    laptop, server = two_machines
    server.set_note(PARM, "server note")  # older than the laptop's
    server.tag([PARM], ["rl"])
    laptop.set_note(PARM, "laptop note")
    laptop.tag([PARM], ["to-cite"])
    laptop.tag([MENTOR], ["moe"])
    data = json.dumps(laptop.export_marks()).encode()
    summary = server.import_marks(data)
    assert (summary.notes, summary.tags) == (1, 2)
    assert summary.line() == "read 0 marks: 0 changed, 1 note written, 2 tags added"
    parm = server.get(PARM)
    assert parm.note == "laptop note" and parm.tags == ("rl", "to-cite")
    assert server.get(MENTOR).tags == ("moe",)
    again = server.import_marks(data)
    assert (again.notes, again.tags) == (0, 0)
    # the server's own newer note is not overwritten by the laptop's older one
    server.set_note(PARM, "newest, on the server")
    assert server.import_marks(data).notes == 0
    assert server.get(PARM).note == "newest, on the server"
    server.undo()  # the note just written
    server.undo()  # the whole first import: note and both tags
    parm = server.get(PARM)
    assert parm.note == "server note" and parm.tags == ("rl",)
    assert server.get(MENTOR).tags == ()


def test_a_note_on_an_edited_abstract_is_found_by_its_text(two_machines):
    laptop, server = two_machines
    laptop.set_note(PARM, "key paper")
    doc = laptop.export_marks()
    [record] = doc["annotations"]
    record["id"] = "00000000000000aa"  # the other machine knows this paper under another id
    summary = server.import_marks(json.dumps(doc).encode())
    assert summary.notes == 1 and server.get(PARM).note == "key paper"


def test_wrong_types_inside_records_are_ignored_not_fatal(two_machines):
    """A hand-edited or foreign file: numbers, lists and objects where text belongs, escape
    sequences in labels, a date that is no date. The import goes on; nothing crashes."""
    _, server = two_machines
    odd = [{**_mark("00000000deadbeef", "read", EARLY), "title": {"a": 1}, "label": ["x"],
            "anchor": 123},
           {**_mark("00000000deadbee2", "read", EARLY), "title": "\x1b[31mred\x1b[0m",
            "anchor": ["x"]},
           _mark(C3PO, "read", "2025-13-45T99:99:99Z")]
    doc = json.loads(_file(*odd))
    doc["annotations"] = [{"id": "00000000deadbee3", "note": "kept", "tags": [1, None, "ok"],
                           "note_updated_at": EARLY, "anchor": 5, "title": 7}]
    summary = server.import_marks(json.dumps(doc).encode())
    assert (summary.orphans, summary.invalid, summary.notes, summary.tags) == (2, 1, 1, 1)
    assert sorted(server.orphans()) == [("00000000deadbee2", "read", EARLY, "[31mred[0m"),
                                        ("00000000deadbeef", "read", EARLY, None)]


@pytest.mark.parametrize("version", ['"1"', "true", "0", "null"])
def test_a_version_that_is_no_number_is_said_as_such(two_machines, version):
    data = b'{"format": "papertray-marks", "version": ' + version.encode() + b', "marks": []}'
    with pytest.raises(LibraryError) as caught:
        two_machines[1].import_marks(data)
    assert "is no version number" in str(caught.value)


def test_a_source_larger_than_the_limit_is_refused_without_reading_it_all(
        run_cli, monkeypatch, tmp_path):
    """``marks import /dev/zero`` (or any huge file) read until the memory ran out."""
    monkeypatch.setattr("tui.cli.marks.MAX_MARKS_FILE_BYTES", 4096)
    padded = tmp_path / "big.json"
    padded.write_bytes(_file(_mark(PARM, "read", EARLY)) + b" " * 8192)
    refused = run_cli("marks", "import", str(padded))
    assert refused.exit_code == 1
    assert f"{padded} is larger than" in refused.stderr
    assert refused.stderr.strip().endswith("MiB: not a marks file")
    assert run_cli("list", "--status", "read").stdout == ""


def _many_papers(folder, n: int = 1200) -> None:
    """``n`` distinct abstracts re-mixed from the shipped seeds' words, in two seed files."""
    import random
    import re

    from db.seeds.discover import shipped_seeds

    words = sorted({w for f in shipped_seeds().glob("*.txt")
                    for w in re.findall(r"[A-Za-z]{3,}", f.read_text(encoding="utf-8"))})
    rng = random.Random(5)
    folder.mkdir(parents=True)
    for part in range(2):
        body = "\n\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(120, 200)))
                           + "." for _ in range(n // 2))
        (folder / f"part{part}.txt").write_text(f"Synthetic 2026 Papers\n\n{body}\n",
                                                encoding="utf-8")


def test_unknown_ids_are_found_by_text_without_comparing_every_paper(tmp_path, monkeypatch):
    """300 unknown records against 9,339 papers took 27 s when each was compared with every
    paper: the index proposes a few candidates, and none of the matches is lost."""
    import random

    from rapidfuzz import fuzz

    from db.marks.history import anchor

    _many_papers(tmp_path / "seeds")
    with Library([tmp_path / "seeds"], tmp_path / "data") as lib:
        assert lib.sync().papers == 1200
        rng = random.Random(9)
        wanted = rng.sample([h.id for h in lib.search("", limit=2000).hits], 40)
        records = []
        for k, paper_id in enumerate(wanted):
            words = anchor(lib.get(paper_id).abstract_source or "").split()
            for _ in range(1 + k % 4):  # one to four words edited
                i = rng.randrange(len(words))
                words[i] = words[i][::-1]
            records.append(_mark(f"{k:016x}", "read", EARLY, anchor=" ".join(words)))
        records += [_mark(f"{k:016x}", "read", EARLY, anchor="nothing here " * 20 + str(k))
                    for k in range(100, 110)]
        compared = []
        ratio = fuzz.ratio
        monkeypatch.setattr(fuzz, "ratio",
                            lambda *a, **kw: compared.append(1) or ratio(*a, **kw))
        summary = lib.import_marks(_file(*records))
        assert (summary.reattached, summary.orphans) == (40, 10)
        assert all(lib.get(paper_id).status == "read" for paper_id in wanted)
        assert len(compared) <= 50 * len(records)  # not 1,200 per record


def test_a_sync_compares_orphan_marks_with_a_few_new_papers_only(tmp_path, monkeypatch):
    from rapidfuzz import fuzz

    seeds = copy_seeds(tmp_path / "seeds")
    with Library([seeds], tmp_path / "data") as lib:
        lib.sync()
        lib.set_status([PARM, C3PO], "read")
        lib.set_note(MENTOR, "kept")
        for f in list(seeds.iterdir()):
            f.unlink()  # every marked paper gone: orphans
        _many_papers(seeds / "new")
        compared = []
        ratio = fuzz.ratio
        monkeypatch.setattr(fuzz, "ratio",
                            lambda *a, **kw: compared.append(1) or ratio(*a, **kw))
        report = lib.sync()
        assert (report.added, report.reattached, report.orphans) == (1200, 0, 2)
        assert len(lib.orphan_annotations()) == 1
        assert len(compared) <= 50 * 3


def test_an_orphan_note_travels_with_its_text_and_finds_its_paper_elsewhere(two_machines):
    """The laptop's seed file with PARM is gone: its note and tags are orphans, their text kept
    in ``annotation_anchors``. Exported, they still carry that text, so the server (where PARM
    has its other id after a typo fix) re-attaches them by it, and so does the server's export."""
    laptop, server = two_machines
    laptop.set_note(PARM, "key paper")
    laptop.tag([PARM], ["moe"])
    seed = laptop.seed_paths[0] / "000_cd03ecd68f8352ab.txt"
    seed.unlink()
    laptop.sync()
    assert [o[0] for o in laptop.orphan_annotations()] == [PARM]
    [record] = laptop.export_marks()["annotations"]
    assert (record["label"], record["anchor"][:20]) == ("PARM", "multi-objective test")
    edited = server.seed_paths[0] / "000_cd03ecd68f8352ab.txt"
    edited.write_text(edited.read_text(encoding="utf-8").replace(
        "keeping LLMs frozen", "keeping the LLMs frozen"), encoding="utf-8")
    server.sync()
    moved = server.search('"keeping the LLMs frozen"').hits[0].id
    summary = server.import_marks(json.dumps(laptop.export_marks()).encode())
    assert summary.notes == 1
    assert (server.get(moved).note, server.get(moved).tags) == ("key paper", ("moe",))
    assert server.orphan_annotations() == []


def test_cli_marks_export_to_dash_and_import_from_dash(run_cli, papertray, tmp_path):
    """``marks export -`` writes standard output (it wrote a file named ``-``) and
    ``marks import -`` reads standard input."""
    assert run_cli("mark", "0412", "--read").exit_code == 0
    done = papertray("marks", "export", "-")
    assert done.exit_code == 0, done.stderr
    assert not (tmp_path / "-").exists()
    assert [m["id"] for m in json.loads(done.stdout)["marks"]] == ["0412d482992496cb"]
    fresh = run_cli("marks", "import", "-", data=tmp_path / "other-data",
                    stdin=done.stdout.encode())
    assert fresh.stdout == "read 1 marks: 1 changed\n  0412d482  new → read\n"


def test_matching_records_by_text_does_not_hold_the_marks_write_lock(two_machines):
    """A long import (20,000 records of other seed files: 2 minutes of matching by text) held
    the marks file's write lock all along: a browser marking meanwhile waited its busy timeout,
    then failed ("mark not saved: database is locked")."""
    import sqlite3

    from db.marks import transfer as marks_io
    from db.marks.history import REATTACH_MIN_RATIO, anchor
    from db.marks.refind import Finder

    _, server = two_machines
    other = sqlite3.connect(server.paths.marks, timeout=0, isolation_level=None)
    locked_while_matching = []

    class Watching(Finder):
        def find(self, wanted: str) -> str | None:
            try:  # what a browser's mark does: take the write lock, at once
                other.execute("BEGIN IMMEDIATE")
                other.execute("ROLLBACK")
            except sqlite3.OperationalError as exc:
                locked_while_matching.append(str(exc))
            return super().find(wanted)

    parm = server.get(PARM)
    edited = anchor(parm.abstract_source.replace("Multi-objective", "Multiobjective", 1))
    records, _, _ = marks_io.read_file(_file(_mark("0" * 16, "read", EARLY, edited)))
    finder = Watching(server._index(), None, anchor, REATTACH_MIN_RATIO)
    summary = marks_io.import_marks(server._marks(), records, server._known, finder)
    other.close()
    assert (summary.reattached, [c.paper_id for c in summary.changed]) == (1, [PARM])
    assert locked_while_matching == []
