"""A sync's index recovered: interrupted writes, damaged or old files, an inconsistent FTS."""

from __future__ import annotations

import sqlite3

import pytest
import sqlite_utils

import db.index.schema
import db.index.write
from db import Library
from db.index.schema import INDEX_VERSION
from tests.db_support import FILE_A, FILE_B, all_hits
from tests.sync_support import _counts, _paragraphs, _write_paragraphs


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

    monkeypatch.setattr(db.index.write, "update_vocab", crash)  # the last step of apply_changes
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


def test_a_forced_sync_rebuilds_an_inconsistent_full_text_index_from_nothing(library):
    conn = sqlite3.connect(library.paths.index)
    conn.execute("INSERT INTO papers_fts(rowid, name, title, body) VALUES (9999, 'x', 'y', 'z')")
    conn.commit()
    conn.close()
    assert not library.fts_ok()
    report = library.sync(force=True)
    assert (_counts(report), report.notices) == ((35, 0, 0, 0), [])
    assert library.fts_ok() and library.search("wudi").hits[0].name == "WUDI-Merging"
