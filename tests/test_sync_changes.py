"""What a sync reads and parses, and the changes it applies, file by file."""

from __future__ import annotations

import builtins
import io
import os

import pytest
import sqlite_utils

import db.index.sync
import db.index.write
import db.seeds.parallel
from db import Library
from tests.db_support import FILE_A, FILE_B, all_hits, ids
from tests.sync_support import _counts, _paragraphs, _write_paragraphs


@pytest.fixture
def seed_reads(monkeypatch, seeds_copy):
    """Records every opening of a file inside the seed folder, however it is opened."""
    reads: list[str] = []
    folder = str(seeds_copy)

    def watch(original):
        def wrapper(file, *args, **kwargs):
            if str(file).startswith(folder):
                reads.append(os.path.basename(str(file)))
            return original(file, *args, **kwargs)
        return wrapper

    # Path.open/read_bytes/read_text all go through io.open; builtins.open is the same function
    # under another name; os.open is the low-level way. Each opening is recorded once.
    monkeypatch.setattr(builtins, "open", watch(builtins.open))
    monkeypatch.setattr(io, "open", watch(io.open))
    monkeypatch.setattr(os, "open", watch(os.open))
    return reads


@pytest.fixture
def parse_calls(monkeypatch):
    """Counts calls of the seed parser made by sync."""
    calls: list[str] = []
    original = db.seeds.parallel.parse_file

    def counting(path, data, skipped=None):
        calls.append(path.name)
        return original(path, data, skipped)

    monkeypatch.setattr(db.seeds.parallel, "parse_file", counting)
    return calls


def _statuses(report) -> list[tuple[str, str, int]]:
    return [(f.path, f.status, f.entries) for f in report.files]


def test_first_sync_loads_everything(seeds_copy, data_dir, parse_calls):
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert _counts(report) == (35, 35, 0, 0)
        assert _statuses(report) == [(FILE_A, "loaded", 19), (FILE_B, "loaded", 19)]
        assert parse_calls == [FILE_A, FILE_B]
        assert lib.fts_ok()


def test_second_open_reads_no_seed_content(seeds_copy, data_dir, seed_reads, parse_calls):
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
    assert sorted(seed_reads) == [FILE_A, FILE_B]
    seed_reads.clear()
    parse_calls.clear()
    with Library([seeds_copy], data_dir) as lib:
        assert not lib.needs_sync()
        report = lib.sync()
        assert _counts(report) == (35, 0, 0, 0)
        assert _statuses(report) == [(FILE_A, "unchanged", 19), (FILE_B, "unchanged", 19)]
        assert len(all_hits(lib)) == 35
        assert lib.fts_ok()
    assert seed_reads == []
    assert parse_calls == []


def test_touched_file_is_hashed_once_and_never_parsed(library, seeds_copy, seed_reads,
                                                      parse_calls):
    st = (seeds_copy / FILE_A).stat()
    os.utime(seeds_copy / FILE_A, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert library.needs_sync()
    report = library.sync()
    assert _counts(report) == (35, 0, 0, 0)
    assert (report.reattached, report.did_change) == (0, False)
    assert _statuses(report) == [(FILE_A, "unchanged", 19), (FILE_B, "unchanged", 19)]
    assert parse_calls == []
    assert seed_reads == [FILE_A]  # read once to compare its hash
    assert library.fts_ok()
    # the new mtime is remembered: the next sync does not even read it
    seed_reads.clear()
    assert not library.needs_sync()
    assert _counts(library.sync()) == (35, 0, 0, 0)
    assert seed_reads == []
    assert parse_calls == []


def test_editing_an_abstract_replaces_exactly_that_paper(library, seeds_copy, parse_calls):
    before = ids(all_hits(library))
    parm = library.search("PARM").hits[0]
    paragraphs = _paragraphs(seeds_copy / FILE_A)
    assert paragraphs[1].startswith("Multi-objective test-time alignment")
    paragraphs[1] = "We propose ZetaNet, a new network for testing sync. It works."
    _write_paragraphs(seeds_copy / FILE_A, paragraphs)

    report = library.sync()
    assert _counts(report) == (35, 1, 1, 0)
    assert _statuses(report) == [(FILE_A, "loaded", 19), (FILE_B, "unchanged", 19)]
    assert parse_calls == [FILE_A]
    after = all_hits(library)
    zeta = after[0]
    assert (zeta.name, zeta.headline) == ("ZetaNet", "We propose ZetaNet, a new network for "
                                                     "testing sync.")
    assert ids(after) == [zeta.id, *before[1:]]
    assert parm.id not in ids(after)
    assert library.search("PARM").total == 0
    assert ids(library.search("zetanet").hits) == [zeta.id]
    assert library.fts_ok()


def test_adding_a_file_adds_exactly_its_new_papers(library, seeds_copy):
    early = next(h for h in all_hits(library) if h.short_id == "dff6e2c0")
    early_text = library.get(early.id).abstract_source
    (seeds_copy / "extra.txt").write_text(
        "ICLR 2026 Papers\n\nWe introduce QuuxBench, a benchmark of odd seeds.\n\n"
        + early_text + "\n", encoding="utf-8")
    report = library.sync()
    assert _counts(report) == (36, 1, 0, 0)
    assert _statuses(report) == [
        (FILE_A, "unchanged", 19), (FILE_B, "unchanged", 19), ("extra.txt", "loaded", 2)]
    quux = library.search("QuuxBench").hits
    assert [(h.name, h.collection, [(s.file, s.position) for s in h.sources]) for h in quux] == [
        ("QuuxBench", "ICLR 2026", [("extra.txt", 1)])]
    shared = library.get(early.id)
    assert [(s.file, s.position) for s in shared.sources] == [(FILE_A, 4), ("extra.txt", 2)]
    assert shared.collection == "ICML 2025"  # where it stands first
    assert library.stats()["collections"] == {"ICML 2025": 35, "ICLR 2026": 1}
    assert library.stats()["entries"] == 40
    assert library.fts_ok()


def test_removing_a_file_removes_exactly_its_own_papers(library, seeds_copy):
    only_a = [h.id for h in all_hits(library) if h.sources[0].file == FILE_A]
    (seeds_copy / FILE_B).unlink()
    report = library.sync()
    assert _counts(report) == (19, 0, 16, 0)
    assert _statuses(report) == [(FILE_A, "unchanged", 19), (FILE_B, "removed", 0)]
    assert ids(all_hits(library)) == only_a
    assert [h.name for h in all_hits(library) if h.name in ("LMRL-Gym", "AMF")] == [
        "LMRL-Gym", "AMF"]
    assert all(len(h.sources) == 1 for h in all_hits(library))
    assert library.search("Craftium").total == 0
    db_ = sqlite_utils.Database(library.paths.index)
    assert [r["display"] for r in db_["files"].rows] == [FILE_A]
    assert db_["sources"].count == 19
    assert db_.execute("SELECT count(*) FROM vocab WHERE term = 'craftium'").fetchone()[0] == 0
    assert library.fts_ok()


def test_a_file_that_turns_empty_drops_its_papers_and_is_reported(library, seeds_copy):
    (seeds_copy / FILE_B).write_text("ICML 2025 Papers\n", encoding="utf-8")
    report = library.sync()
    assert _counts(report) == (19, 0, 16, 0)
    assert [(f.path, f.status, f.reason) for f in report.problems] == [
        (FILE_B, "empty", "header only, no abstracts")]
    assert library.stats()["problems"] == [{"file": FILE_B, "reason": "header only, no abstracts"}]
    assert library.fts_ok()


def test_forced_sync_rereads_all_and_changes_nothing(library, parse_calls):
    before = [h.to_json() for h in all_hits(library)]
    report = library.sync(force=True)
    assert _counts(report) == (35, 0, 0, 0)
    assert _statuses(report) == [(FILE_A, "loaded", 19), (FILE_B, "loaded", 19)]
    assert parse_calls == [FILE_A, FILE_B]
    assert [h.to_json() for h in all_hits(library)] == before
    assert library.fts_ok()


def test_a_killed_forced_sync_leaves_the_fingerprints(library, seeds_copy, parse_calls,
                                                      monkeypatch):
    """A forced sync (a rebuild from nothing) that dies before it commits leaves the index as
    it was, fingerprints too: the next plain sync has nothing to re-read."""
    before = [h.to_json() for h in all_hits(library)]

    def die(*args, **kwargs):
        raise KeyboardInterrupt

    real_finish = db.index.write.Writer.finish
    monkeypatch.setattr(db.index.write.Writer, "finish", die)
    with pytest.raises(KeyboardInterrupt):
        library.sync(force=True)
    assert len(parse_calls) == 2  # the forced sync did read both files before it died
    monkeypatch.setattr(db.index.write.Writer, "finish", real_finish)  # (parse counter stays)
    assert [h.to_json() for h in all_hits(library)] == before
    parse_calls.clear()
    report = library.sync()
    assert (report.added, report.changed, parse_calls) == (0, 0, [])


@pytest.mark.parametrize("broken", [
    bytes(range(256)) * 20,  # a binary file copied over it
    "ICML 2025\n\n".encode("utf-16-le")[:-1] + bytes(3000),  # a half-written one
])
def test_a_seed_file_that_turns_unreadable_keeps_its_papers(seeds_copy, data_dir, broken):
    """A seed file that loaded before and now cannot be read (junk copied over it, a save or a
    download in progress) is reported, and its papers stay until it is readable again, as for
    a file that cannot be opened: its 16 papers left the library, their marks, notes and tags
    turned orphans, and the browser's table lost them until the next good read."""
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        wudi = next(h.id for h in all_hits(lib) if h.name == "WUDI-Merging")
        lib.set_status([wudi], "read")
        lib.set_note(wudi, "merging baseline")
        good = (seeds_copy / FILE_A).read_bytes()
        (seeds_copy / FILE_A).write_bytes(broken)
        report = lib.sync()
        [line] = [f for f in report.files if f.path == FILE_A]
        assert (line.status, line.entries) == ("error", 19)
        assert line.reason.endswith("; its papers from the last good read are kept")
        assert (report.removed, report.papers, report.orphans) == (0, 35, 0)
        assert lib.get(wudi).status == "read" and lib.get(wudi).note == "merging baseline"
        assert not lib.needs_sync()  # read once: not again at every poll while it is broken
        again = lib.sync()
        assert [(f.status, f.entries, f.reason) for f in again.files if f.path == FILE_A] == [
            ("error", 19, line.reason)]
        assert lib.stats()["problems"] == [{"file": FILE_A, "reason": line.reason}]
        (seeds_copy / FILE_A).write_bytes(good)
        fixed = lib.sync()
        assert [(f.status, f.entries) for f in fixed.files if f.path == FILE_A] == [("loaded", 19)]
        assert (fixed.papers, lib.stats()["problems"]) == (35, [])
        # emptied on purpose: its papers go (their marks are orphans, kept)
        (seeds_copy / FILE_A).write_text("")
        assert lib.sync().papers == 19
        assert [o[0] for o in lib.orphans()] == [wudi]


def test_successor_finds_the_edited_version_of_a_paper_after_a_sync(library, seeds_copy):
    """``successor`` gives the new id of an edited paper (marked or not, by its text as marks
    are found), None for a paper gone with no new version, the id itself for one that did not
    change."""
    by_name = {h.name: h.id for h in all_hits(library)}
    parm, mentor, wudi, lmrl = (by_name[n] for n in ("PARM", "MENTOR", "WUDI-Merging",
                                                     "LMRL-Gym"))
    library.set_status([mentor], "read")
    paragraphs = _paragraphs(seeds_copy / FILE_A)
    edited = set()
    for i, p in enumerate(paragraphs):
        if p.startswith("Multi-objective test-time alignment"):  # PARM, unmarked
            paragraphs[i] = p.replace("during inference", "at inference")
            edited.add("PARM")
        elif "MENTOR" in p:
            paragraphs[i] = "Revised: " + p
            edited.add("MENTOR")
        elif "WUDI" in p:
            paragraphs[i] = "We propose nothing like it."
            edited.add("WUDI")
    assert edited == {"PARM", "MENTOR", "WUDI"}
    _write_paragraphs(seeds_copy / FILE_A, paragraphs)
    texts = {pid: library.get(pid).abstract_markup for pid in (parm, mentor, wudi, lmrl)}
    library.sync()
    now = {h.name: h.id for h in all_hits(library)}
    assert {pid: library.successor(pid, text) for pid, text in texts.items()} == {
        parm: now["PARM"], mentor: now["MENTOR"], wudi: None, lmrl: lmrl}
    assert library.get(now["MENTOR"]).status == "read"
