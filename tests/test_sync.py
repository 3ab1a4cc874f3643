"""Sync: unchanged files are not read, touched files not re-parsed, changes applied exactly, in
one transaction, with the FTS index consistent after every sync."""

from __future__ import annotations

import builtins
import io
import os
import pathlib
import sqlite3
import threading

import pytest
import sqlite_utils
from hypothesis import given, settings
from hypothesis import strategies as st

import db.index.rows
import db.index.schema
import db.index.sync
import db.index.write
import db.seeds.parallel
from db import Library
from db.index.schema import INDEX_VERSION
from tests.db_support import FILE_A, FILE_B, all_hits, ids


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


def _counts(report) -> tuple[int, int, int, int]:
    return report.papers, report.added, report.removed, report.changed


def _paragraphs(path: pathlib.Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n\n")


def _write_paragraphs(path: pathlib.Path, paragraphs: list[str]) -> None:
    path.write_text("\n\n".join(paragraphs), encoding="utf-8")


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


def test_fts_ok_detects_an_inconsistent_index(library):
    assert library.fts_ok()
    conn = sqlite3.connect(library.paths.index)
    conn.execute("INSERT INTO papers_fts(rowid, name, title, body) VALUES (9999, 'x', 'y', 'z')")
    conn.commit()
    conn.close()
    assert not library.fts_ok()


def test_interrupted_sync_leaves_the_previous_index_whole(library, seeds_copy, monkeypatch):
    before_hits = [h.to_json() for h in all_hits(library)]
    before_parm = library.search("PARM").to_json()
    index = sqlite_utils.Database(library.paths.index)
    before_files = list(index["files"].rows)
    before_vocab = index.execute("SELECT count(*), sum(df) FROM vocab").fetchone()

    paragraphs = _paragraphs(seeds_copy / FILE_A)
    paragraphs[1] = "We propose ZetaNet, a new network for testing sync. It works."
    _write_paragraphs(seeds_copy / FILE_A, paragraphs)
    (seeds_copy / FILE_B).unlink()

    def crash(*args, **kwargs):
        raise RuntimeError("power cut in the middle of the write")

    monkeypatch.setattr(db.index.write, "_update_vocab", crash)  # the last step of apply_changes
    with pytest.raises(RuntimeError, match="power cut"):
        library.sync()

    assert [h.to_json() for h in all_hits(library)] == before_hits
    assert library.search("PARM").to_json() == before_parm
    assert list(index["files"].rows) == before_files
    assert index.execute("SELECT count(*), sum(df) FROM vocab").fetchone() == before_vocab
    assert index["sources"].count == 38
    assert library.fts_ok()
    # a new process sees the same old index
    with Library([seeds_copy], library.paths.index.parent) as other:
        assert [h.to_json() for h in all_hits(other)] == before_hits

    monkeypatch.undo()
    report = library.sync()
    assert _counts(report) == (19, 1, 17, 0)
    assert library.search("zetanet").hits[0].name == "ZetaNet"
    assert library.fts_ok()


def test_damaged_index_is_moved_aside_and_rebuilt(seeds_copy, data_dir):
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        before = [h.to_json() for h in all_hits(lib)]
    (data_dir / "index.sqlite").write_bytes(b"this is not a database" * 100)
    for extra in ("index.sqlite-wal", "index.sqlite-shm"):
        (data_dir / extra).unlink(missing_ok=True)
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert _counts(report) == (35, 35, 0, 0)
        assert len(report.notices) == 1
        assert report.notices[0].startswith("the index was damaged (")
        assert [h.to_json() for h in all_hits(lib)] == before
    moved = sorted(p.name for p in data_dir.iterdir() if ".broken-" in p.name)
    assert [name.split(".broken-")[0] for name in moved] == ["index.sqlite"]


def test_index_of_another_version_is_rebuilt(seeds_copy, data_dir):
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
    conn = sqlite3.connect(data_dir / "index.sqlite")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with Library([seeds_copy], data_dir) as lib:
        report = lib.sync()
        assert _counts(report) == (35, 35, 0, 0)
        assert report.notices == [
            "the index was made by another version of papertray (index format 1, this one "
            f"uses {INDEX_VERSION}); rebuilding it"]
        assert lib.fts_ok()
    assert [p.name for p in data_dir.iterdir() if "index" in p.name] == ["index.sqlite"]
    # (no copy of the old one kept: it is a cache)


def test_two_libraries_on_one_data_dir_agree(seeds_copy, data_dir):
    with Library([seeds_copy], data_dir) as one, Library([seeds_copy], data_dir) as two:
        assert _counts(one.sync()) == (35, 35, 0, 0)
        assert _counts(two.sync()) == (35, 0, 0, 0)
        paragraphs = _paragraphs(seeds_copy / FILE_B)
        del paragraphs[1]
        _write_paragraphs(seeds_copy / FILE_B, paragraphs)
        assert _counts(two.sync()) == (34, 0, 1, 0)
        assert _counts(one.sync()) == (34, 0, 0, 0)
        assert ids(all_hits(one)) == ids(all_hits(two))


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts open files in /proc")
def test_threads_that_end_give_their_connections_back(library):
    """A front end runs each query in a new worker thread: that must not leak file handles."""
    library.search("learning")
    before = _open_fds()
    results = []
    for _ in range(100):
        worker = threading.Thread(target=lambda: results.append(library.search("learning").total))
        worker.start()
        worker.join()
    assert results == [results[0]] * 100
    assert _open_fds() - before <= 8  # one idle pair of connections (files, WALs) at most
    library.close()
    assert _open_fds() < before


def test_marks_from_many_threads_at_once(library):
    papers = all_hits(library)[:20]
    barrier = threading.Barrier(len(papers))
    errors: list[BaseException] = []

    def mark(pid: str) -> None:
        try:
            barrier.wait()
            library.set_status([pid], "read")
            library.search("is:read")
        except BaseException as exc:  # reported below, with the test's own assertion
            errors.append(exc)

    workers = [threading.Thread(target=mark, args=(h.id,)) for h in papers]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
    assert library.counts() == {"all": 35, "new": 15, "to-read": 0, "read": 20}
    assert set(ids(library.search("is:read", limit=100).hits)) == {h.id for h in papers}


def _vocabulary_recount(lib: Library) -> dict[str, int]:
    counts: dict[str, int] = {}
    index = sqlite_utils.Database(lib.paths.index)
    for row in index.query("SELECT name, title, coalesce(body, abstract) AS body FROM papers"):
        text = " ".join(v for v in (row["name"], row["title"], row["body"]) if v)
        for term in db.index.rows.terms_of(text):
            counts[term] = counts.get(term, 0) + 1
    return counts


def test_the_vocabulary_follows_every_change(library, seeds_copy, tmp_path):
    from tests.db_support import ODD_SEEDS, copy_seeds

    def stored() -> dict[str, int]:
        index = sqlite_utils.Database(library.paths.index)
        return {r["term"]: r["df"] for r in index.query("SELECT term, df FROM vocab")}

    assert stored() == _vocabulary_recount(library)
    copy_seeds(seeds_copy, ODD_SEEDS)
    library.sync()
    assert stored() == _vocabulary_recount(library)
    assert stored()["bert"] == 1 and stored()["神"] == 1
    (seeds_copy / FILE_A).unlink()
    (seeds_copy / "cjk.txt").unlink()
    library.sync()
    assert stored() == _vocabulary_recount(library)
    assert "神" not in stored()
    library.sync(force=True)
    assert stored() == _vocabulary_recount(library)


def test_a_forced_sync_repairs_an_inconsistent_full_text_index(library):
    conn = sqlite3.connect(library.paths.index)
    conn.execute("INSERT INTO papers_fts(rowid, name, title, body) VALUES (9999, 'x', 'y', 'z')")
    conn.commit()
    conn.close()
    assert not library.fts_ok()
    report = library.sync(force=True)
    assert report.notices == ["the full-text index was inconsistent; rebuilt it"]
    assert library.fts_ok() and library.search("wudi").hits[0].name == "WUDI-Merging"


def test_a_killed_forced_sync_leaves_the_fingerprints(library, seeds_copy, parse_calls,
                                                      monkeypatch):
    """A forced sync that dies before it writes leaves the index as it was, fingerprints too:
    the next plain sync has nothing to re-read."""

    def die(*args, **kwargs):
        raise KeyboardInterrupt

    real_apply = db.index.write.apply_changes
    monkeypatch.setattr(db.index.sync, "apply_changes", die)
    with pytest.raises(KeyboardInterrupt):
        library.sync(force=True)
    assert len(parse_calls) == 2  # the forced sync did read both files before it died
    monkeypatch.setattr(db.index.sync, "apply_changes", real_apply)  # the parse counter stays on
    parse_calls.clear()
    report = library.sync()
    assert (report.added, report.changed, parse_calls) == (0, 0, [])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_vocabulary_words_of_ascii_text_are_the_regex_words(text):
    """terms_of splits ASCII text by a byte translation: the words WORD_RE finds, folded,
    without those that contain "_"."""
    from db.text import WORD_RE

    assert db.index.rows.terms_of(text) == {w for w in WORD_RE.findall(text.casefold())
                                            if "_" not in w}


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    ["a", " ", "\t", "\n", "\x0b", "\x0c", "\x1e", "\x1b", "\x7f", "\x85", "\xa0", "\u202e",
     "\u2067", "\u200b", "é", "中", "\ufeff", "\U0001f600"]), max_size=30))
def test_clean_skips_printable_text_and_removes_the_rest_as_before(text):
    """clean() returns text that str.isprintable() passes as it is: every character the
    control regex removes (C0, DEL, C1, bidi overrides) and the white space controls it makes
    spaces (TAB, form feed, vertical tab, NEL...) are non-printable."""
    from db.text import _CONTROL_RE, _SPACE_CONTROL_RE, clean

    assert clean(text) == _CONTROL_RE.sub("", _SPACE_CONTROL_RE.sub(" ", text))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    ["a", " ", "\t", "\n", "\x1b", "\x85", "\xa0", "\u2003", "\u3000", "\u2028", "\u202e",
     "é", "中", "\x1c"]), max_size=30))
def test_one_line_skips_text_that_is_one_line_already(text):
    from db.text import clean, one_line

    assert one_line(text) == " ".join(clean(text).split())


def test_a_late_rebuild_of_an_old_index_leaves_the_new_one_alone(seeds_copy, data_dir,
                                                                 monkeypatch):
    """Two processes open an index of another format at once: both read its old format, one
    rebuilds it and syncs. The other, a moment later, must not delete (or empty) the index the
    first one is using: it finds the format current once it holds the index's write lock."""
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
    conn = sqlite3.connect(data_dir / "index.sqlite")
    conn.execute("PRAGMA user_version = 10")
    conn.close()
    first = Library([seeds_copy], data_dir)
    try:
        assert first.sync().notices[0].startswith("the index was made by another version")
        real_open = db.index.schema._open
        late = [db.index.schema._OtherFormat(10)]  # what the second process read before the rebuild

        def open_index(path):
            if late:
                raise late.pop()
            return real_open(path)

        monkeypatch.setattr(db.index.schema, "_open", open_index)
        with Library([seeds_copy], data_dir) as second:
            assert not late
            assert [h.id for h in all_hits(second)] == [h.id for h in all_hits(first)]
            assert len(all_hits(second)) == 35
        (seeds_copy / FILE_B).unlink()  # the first process goes on writing to its index
        report = first.sync()
        assert (report.papers, report.removed) == (19, 16)
        assert first.fts_ok()
    finally:
        first.close()
    check = sqlite3.connect(data_dir / "index.sqlite")
    assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert check.execute("SELECT count(*) FROM papers").fetchone() == (19,)
    check.close()


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
