"""A first build's fast paths: bulk FTS load, streamed files, compact layout, locks let go."""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

import db.index.inserts
import db.index.sync
import db.index.write
import db.seeds.parallel
import db.store.sqlite
from db import Library
from db.index.sync import SyncCancelled
from tests.db_support import DATA, FILE_A, FILE_B, REPO, all_hits, copy_seeds
from tests.fast_paths_support import _index, _synced


def _bulk_min_rows(monkeypatch, rows: int) -> None:
    """New papers from which a sync loads them in bulk (a first build) and indexes them by one
    statement (db.index.inserts): both thresholds are the one constant."""
    monkeypatch.setattr(db.index.write, "BULK_MIN_ROWS", rows)
    monkeypatch.setattr(db.index.inserts, "BULK_MIN_ROWS", rows)


def test_bulk_load_indexes_every_paper_and_keeps_the_trigger(seeds_copy, tmp_path, plain,
                                                             monkeypatch):
    _bulk_min_rows(monkeypatch, 1)
    data = tmp_path / "bulk"
    with _synced(seeds_copy, data) as lib:
        assert lib.fts_ok()
        assert [h.name for h in all_hits(lib, "PARM")] == ["PARM"]
        # the per-row trigger is back: one abstract added later is found
        extra = seeds_copy / "zz_extra.txt"
        extra.write_text("ICML 2025 Papers\n\nWe propose Quokkaformer, a marsupial model.\n",
                         encoding="utf-8")
        _bulk_min_rows(monkeypatch, 200)
        assert lib.sync().added == 1
        assert [h.name for h in all_hits(lib, "marsupial")] == ["Quokkaformer"]
        assert lib.fts_ok()
    extra.unlink()
    with _synced(seeds_copy, data) as lib:
        assert lib.fts_ok()
    assert _index(data) == _index(plain)
    conn = sqlite3.connect(data / "index.sqlite")
    triggers = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type='trigger' ORDER BY name")]
    conn.close()
    assert triggers == ["papers_acronyms_ad", "papers_ad", "papers_ai", "papers_au"]


def test_a_first_build_leaves_no_free_pages(tmp_path, monkeypatch):
    _bulk_min_rows(monkeypatch, 1)
    seeds = copy_seeds(tmp_path / "seeds", REPO / "seeds" / FILE_A, REPO / "seeds" / FILE_B)
    _synced(seeds, tmp_path / "data").close()
    conn = sqlite3.connect(tmp_path / "data" / "index.sqlite")
    assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert conn.execute("PRAGMA page_size").fetchone()[0] == 16384
    conn.close()


def _secondary_indexes(data: Path) -> list[str]:
    conn = sqlite3.connect(data / "index.sqlite")
    try:
        return [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='index' AND sql IS NOT NULL ORDER BY name")]
    finally:
        conn.close()


@pytest.mark.parametrize(("parallel", "stream"), [(False, False), (True, False), (False, True),
                                                  (True, True)])
def test_a_bulk_first_build_of_odd_and_structured_seeds_equals_the_plain_one(
        tmp_path, monkeypatch, parallel, stream):
    """The bulk first build (secondary indexes built after the rows, each file's vocabulary
    counted where it was parsed, no compact; with ``stream`` each file written as soon as it
    is parsed) writes what the plain path writes: the same abstract in two files and in a JSON
    record counted once in the vocabulary, the JSON record's fields winning (written over the
    text seed's, which came first), every index there afterwards."""
    from tests.db_support import ODD_SEEDS

    seeds = copy_seeds(tmp_path / "seeds", REPO / "seeds", ODD_SEEDS)
    for sample in ("icml_sample.json", "icml_sample.csv"):
        shutil.copy(DATA / "formats" / sample, seeds / sample)
    monkeypatch.setattr(db.index.sync, "STREAM_MIN_BYTES", 10**12)
    _synced(seeds, tmp_path / "plain").close()
    _bulk_min_rows(monkeypatch, 1)
    if stream:
        monkeypatch.setattr(db.index.sync, "STREAM_MIN_BYTES", 0)
    streamed = []
    first_build = db.index.sync._first_build
    monkeypatch.setattr(db.index.sync, "_first_build",
                        lambda *a: streamed.append(1) or first_build(*a))
    if parallel:
        monkeypatch.setattr(db.seeds.parallel, "PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(db.seeds.parallel, "workers", lambda: 2)
    compacted = []
    monkeypatch.setattr(db.index.sync, "compact", compacted.append)
    with _synced(seeds, tmp_path / "bulk") as lib:
        assert lib.fts_ok()
        assert [h.name for h in all_hits(lib, "parm")][:1] == ["PARM"]
    assert compacted == []  # nothing to compact after a first build
    assert streamed == ([1] if stream else [])
    bulk, plain = _index(tmp_path / "bulk"), _index(tmp_path / "plain")
    assert bulk == plain
    conn = sqlite3.connect(tmp_path / "bulk" / "index.sqlite")
    assert conn.execute(  # a text seed's paper that a later JSON record gave its title
        "SELECT count(*) FROM papers p WHERE title IS NOT NULL AND EXISTS (SELECT 1 FROM "
        "sources s WHERE s.paper_id = p.id AND s.meta IS NULL AND s.file = p.first_file)"
    ).fetchone()[0] > 0
    if stream:  # the first build's large FTS5 buffer is not what later writes use
        assert conn.execute("SELECT v FROM papers_fts_config WHERE k = 'hashsize'"
                            ).fetchone() == (db.index.write.FTS_HASH_BYTES,) == (1024 * 1024,)
    conn.close()
    assert len(bulk["papers"]) > 35  # the odd and structured seeds were loaded too
    assert _secondary_indexes(tmp_path / "bulk") == [
        "acronyms_singular", "paper_acronyms_short", "papers_collection", "papers_derived_name",
        "papers_fts_data_ids", "papers_id", "papers_name_order", "papers_seed_order",
        "papers_year_order", "sources_paper"]


def test_the_unique_paper_index_is_back_after_a_bulk_build(tmp_path, monkeypatch):
    _bulk_min_rows(monkeypatch, 1)
    _synced(copy_seeds(tmp_path / "seeds"), tmp_path / "data").close()
    conn = sqlite3.connect(tmp_path / "data" / "index.sqlite")
    row = conn.execute("SELECT * FROM papers LIMIT 1").fetchone()
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(f"INSERT INTO papers VALUES (NULL{', ?' * (len(row) - 1)})", row[1:])
    conn.close()


def test_a_cancelled_streamed_first_build_writes_nothing(seeds_copy, tmp_path, monkeypatch):
    """A first build writes each file as soon as it is parsed, in one transaction: cancelled
    as the second file is parsed (the first already written), the index is left as it was, and
    the lock free."""
    monkeypatch.setattr(db.index.sync, "STREAM_MIN_BYTES", 0)
    seen: list[int] = []

    def cancel(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 2:
            raise SyncCancelled

    with Library([seeds_copy], tmp_path / "data") as lib:
        with pytest.raises(SyncCancelled):
            lib.sync(progress=cancel)
        assert seen == [19, 38]
        assert lib.counts()["all"] == 0
        assert lib.sync().added == 35
        assert lib.fts_ok()


def test_a_first_build_does_not_wait_for_a_busy_lock(seeds_copy, tmp_path, monkeypatch):
    """While another process holds the write lock, a first build does not parse holding it
    (it would wait for that process's whole sync): it parses first and waits to apply."""
    monkeypatch.setattr(db.index.sync, "STREAM_MIN_BYTES", 0)
    with Library([seeds_copy], tmp_path / "data") as lib:
        lib.counts()  # the index file exists
        other = sqlite3.connect(tmp_path / "data" / "index.sqlite", isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        started = time.perf_counter()
        conn = lib._index()
        report = db.index.sync.SyncReport()
        assert db.index.sync._first_build(conn, [seeds_copy], False, None, report) is None
        assert time.perf_counter() - started < 2  # no busy wait
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == db.store.sqlite.BUSY_TIMEOUT_MS
        other.execute("ROLLBACK")
        other.close()
        assert lib.sync().added == 35


def _marks_lock_free(data: Path) -> bool:
    other = sqlite3.connect(data / "marks.sqlite", isolation_level=None, timeout=0)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        other.close()


@pytest.mark.parametrize("stream", [True, False])
def test_a_sync_leaves_the_marks_file_free_to_write(seeds_copy, tmp_path, monkeypatch, stream):
    """A sync writes the index only: while it holds its transaction (a streamed first build
    holds it for the whole parse), another process can write marks at once. BEGIN IMMEDIATE on
    the index connection locked the ATTACHed marks file too, and marks, notes and commands of
    other windows waited the busy timeout and failed."""
    monkeypatch.setattr(db.index.sync, "STREAM_MIN_BYTES", 0 if stream else 10**12)
    data = tmp_path / "data"
    seen: list[tuple[bool, bool]] = []  # (index locked, marks free) after each parsed file
    add = db.index.write.Writer.add

    def checked_add(self, planned):
        add(self, planned)
        index = sqlite3.connect(data / "index.sqlite", isolation_level=None, timeout=0)
        try:
            index.execute("BEGIN IMMEDIATE")
            index.execute("ROLLBACK")
            locked = False
        except sqlite3.OperationalError:
            locked = True
        finally:
            index.close()
        seen.append((locked, _marks_lock_free(data)))

    monkeypatch.setattr(db.index.write.Writer, "add", checked_add)
    with Library([seeds_copy], data) as lib:
        assert lib.sync().added == 35
        assert len(seen) >= 2 and set(seen) == {(True, True)}  # each seed file written locked
        assert _marks_lock_free(data)
        lib.set_status([all_hits(lib, "learning")[0].id], "read")
        assert lib.counts()["read"] == 1


@pytest.mark.parametrize("sample", ["formats/icml_sample.json", "formats/icml_sample.jsonl",
                                    "formats/icml_sample.bib", "formats/icml_sample.csv",
                                    "fields/paperlists_sample.json"])
def test_a_record_found_once_keeps_its_own_fields(sample):
    """A first build looks up the fields of the papers found more than once alone (db.index.write):
    a record's own fields, as ``sources.meta`` stores them, give back the same entry."""
    from db.index.rows import meta_json, with_fields
    from db.seeds.read import parse_file

    path = DATA / sample
    _collection, entries = parse_file(path, path.read_bytes())
    rich = [e for e in entries if e.rich]
    assert len(rich) == len(entries) >= 2
    assert any(e.authors and e.year and e.venue for e in rich)
    for e in rich:
        assert with_fields(e, json.loads(meta_json(e))) == e


def test_a_files_records_are_encoded_and_mined_where_they_are_parsed():
    """prepare_file (run in the parse workers) gives each entry's sources JSON and acronym
    definitions, which a streamed first build writes as they are."""
    from db.index.acronyms import of_paper
    from db.index.rows import meta_json, prepare_file
    from db.seeds.read import parse_file

    path = DATA / "formats" / "icml_sample.jsonl"
    _collection, entries = parse_file(path, path.read_bytes())
    rows, _vocab, extras = prepare_file(entries)
    assert [meta for meta, _ in extras] == [meta_json(e) for e in entries]
    assert json.loads(extras[0][0])["title"].startswith("C-3PO: Compact Plug-and-Play Proxy")
    assert extras[0][1] == {("rag", "retrieval augmented generation",
                             "retrieval augmented generation"),
                            ("llm", "large language models", "large language models")}
    assert extras[1][1] == set()
    assert [found for _, found in extras] == [of_paper(r[2], r[5]) for r in rows]
