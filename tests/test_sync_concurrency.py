"""Syncs side by side: two libraries on one data folder, threads, a late rebuild."""

from __future__ import annotations

import os
import sqlite3
import threading

import pytest

import db.index.schema
from db import Library
from tests.db_support import FILE_B, all_hits, ids
from tests.sync_support import _counts, _paragraphs, _write_paragraphs


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
    assert library.counts() == {"all": 35, "new": 15, "to-read": 0, "read": 20, "dismissed": 0}
    assert set(ids(library.search("is:read", limit=100).hits)) == {h.id for h in papers}


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
