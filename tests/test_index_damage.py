"""A damaged index heals itself: every way an index file can be wrong ends in a rebuild said in
one line (on stderr, in the browser as a notification), never in wrong answers; the marks are
never touched."""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from db import Library
from db.index import health
from db.index.schema import expected_schema
from tests.tui_support import app_on, record_notifications, settle, wait_for

QUERY = ("reinforcement", "--json", "--limit", "100")
#: The one line a rebuild is said in, whatever the damage was.
REBUILT = re.compile(r"papertray: the index (was damaged \(.+\); moved it to "
                     r"index\.sqlite\.broken-[0-9-]+; rebuilding|was made by another version "
                     r"of papertray \(.+\); rebuilding it|was empty \(truncated\?\); "
                     r"rebuilding it)")


def _sql(*statements: str) -> Callable[[Path], None]:
    def damage(index: Path) -> None:
        conn = sqlite3.connect(index, isolation_level=None)
        for statement in statements:
            conn.execute(statement)
        conn.close()
    return damage


def _rewrite(change: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    def damage(index: Path) -> None:
        index.write_bytes(change(index.read_bytes()))
    return damage


def _directory(index: Path) -> None:
    index.unlink()
    (index / "inside").mkdir(parents=True)


def _stale_wal(index: Path) -> None:
    """The -wal and -shm of another database beside the index (SQLite replays a -wal whose
    own checksums hold onto any file)."""
    other = index.with_name("other.sqlite")
    conn = sqlite3.connect(other, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE t(x)")
    conn.execute("INSERT INTO t VALUES (randomblob(100000))")
    for suffix in ("-wal", "-shm"):
        shutil.copy(f"{other}{suffix}", f"{index}{suffix}")
    conn.close()


#: name -> what it does to a synced index file (no papertray has it open)
DAMAGE: dict[str, Callable[[Path], None]] = {
    "fts data emptied": _sql("DELETE FROM papers_fts_data"),
    "fts data cut": _sql("DELETE FROM papers_fts_data WHERE id % 3 = 0 AND id > 10"),
    "fts idx emptied": _sql("DELETE FROM papers_fts_idx"),
    "fts idx cut": _sql("DELETE FROM papers_fts_idx WHERE pgno % 2 = 0"),
    "fts docsize emptied": _sql("DELETE FROM papers_fts_docsize"),
    "fts docsize cut": _sql("DELETE FROM papers_fts_docsize WHERE id % 4 = 0"),
    "fts config emptied": _sql("DELETE FROM papers_fts_config"),
    "fts format changed": _sql("UPDATE papers_fts_config SET v = 5 WHERE k = 'version'"),
    "fts content deleted": _sql("INSERT INTO papers_fts(papers_fts) VALUES ('delete-all')"),
    "fts structure gone": _sql("DELETE FROM papers_fts_data WHERE id = 10"),
    "papers deleted": _sql("DELETE FROM papers WHERE rowid % 5 = 0"),
    "sources cut": _sql("DELETE FROM sources WHERE position % 2 = 0"),
    "vocabulary emptied": _sql("DELETE FROM vocab"),
    "fingerprints emptied": _sql("DELETE FROM files"),
    "trigger dropped": _sql("DROP TRIGGER papers_au"),
    "trigger altered": _sql("DROP TRIGGER papers_ad", "CREATE TRIGGER papers_ad AFTER DELETE "
                            "ON papers BEGIN SELECT 1; END"),
    "view dropped": _sql("DROP VIEW papers_search"),
    "index dropped": _sql("DROP INDEX papers_seed_order"),
    "table dropped": _sql("DROP TABLE vocab"),
    "shadow table dropped": _sql("DROP TABLE papers_fts_idx"),
    "column added": _sql("ALTER TABLE papers ADD COLUMN extra TEXT"),
    "table added": _sql("CREATE TABLE extra(x)"),
    "index added": _sql("CREATE INDEX extra ON papers(year)"),
    "format number changed": _sql("PRAGMA user_version = 999"),
    "tally emptied": _sql("DELETE FROM tally"),
    "every table dropped": _sql(*(f"DROP TABLE IF EXISTS {t}" for t in (
        "papers_fts", "files", "papers", "sources", "multi_sources", "vocab", "tally")),
        "DROP VIEW papers_search"),
    "truncated": _rewrite(lambda data: data[:len(data) // 2]),
    "garbage bytes": _rewrite(lambda data: data[:4096] + b"\xa5" * (len(data) - 4096)),
    "not sqlite": _rewrite(lambda data: b"this is not a database\n" * 1000),
    "zero bytes": _rewrite(lambda data: b""),
    "a directory": _directory,
    "another database's wal": _stale_wal,
}
COMMANDS = [("search", *QUERY), ("stats",), ("sync", "--force")]


@pytest.fixture
def healthy(papertray, data_dir: Path) -> dict:
    """A synced library with one paper marked read; returns what a search and the marks give."""
    assert papertray("sync").exit_code == 0
    hits = papertray("search", *QUERY).json()["hits"]
    assert papertray("mark", "--read", hits[2]["id"]).exit_code == 0
    conn = sqlite3.connect(data_dir / "index.sqlite")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the damage goes to the file itself
    conn.close()
    return {"ids": [h["id"] for h in hits], "read": hits[2]["id"]}


def assert_answers_as_before(papertray, healthy: dict) -> None:
    """The search gives the hits of the healthy index, quietly, and the mark is still there."""
    again = papertray("search", *QUERY)
    assert (again.exit_code, again.stderr) == (0, "")
    assert [h["id"] for h in again.json()["hits"]] == healthy["ids"]
    read = papertray("list", "--status", "read", "--json").json()
    assert [h["id"] for h in read["hits"]] == [healthy["read"]]


@pytest.mark.parametrize("name", list(DAMAGE))
def test_every_damaged_index_is_rebuilt_with_one_line(papertray, data_dir, healthy, name):
    """The real command line (search, stats and sync --force in turn) on a damaged index: exit
    0, one line on stderr, then the right answers and the mark still there."""
    DAMAGE[name](data_dir / "index.sqlite")
    command = COMMANDS[list(DAMAGE).index(name) % len(COMMANDS)]
    first = papertray(*command)
    assert (first.exit_code, len(first.stderr.splitlines())) == (0, 1), first.stderr
    assert REBUILT.fullmatch(first.stderr.strip()), first.stderr
    assert_answers_as_before(papertray, healthy)


@pytest.mark.parametrize("block", ["the last", "every other"])
def test_a_plain_sync_rebuilds_an_index_whose_blocks_are_damaged(papertray, data_dir, healthy,
                                                                 block):
    """Blocks of the full-text index zeroed in place keep every row count and the schema: a
    search answers from them (wrong, fewer hits), which the check at every opening cannot see.
    ``papertray sync`` (the command a cron runs) reads the whole index and rebuilds it, with
    one line."""
    which = ("id = (SELECT max(id) FROM papers_fts_data)" if block == "the last"
             else "id > 10 AND id % 2 = 0")  # (1 and 10: the averages and the structure)
    _sql(f"UPDATE papers_fts_data SET block = zeroblob(length(block)) WHERE {which}")(
        data_dir / "index.sqlite")
    synced = papertray("sync")
    assert synced.exit_code == 0, synced.stderr
    assert len(synced.stderr.splitlines()) == 1, synced.stderr
    assert REBUILT.fullmatch(synced.stderr.strip()), synced.stderr
    assert_answers_as_before(papertray, healthy)
    assert papertray("sync").stderr == ""  # the new index passes the same check


def test_a_stale_shm_is_harmless(papertray, data_dir, healthy):
    """(The first connection to open the file makes its -shm anew.)"""
    Path(f"{data_dir / 'index.sqlite'}-shm").write_bytes(b"\xa5" * 32768)
    for command in COMMANDS:
        out = papertray(*command)
        assert (out.exit_code, out.stderr) == (0, "")
    assert [h["id"] for h in papertray("search", *QUERY).json()["hits"]] == healthy["ids"]


def test_damage_while_the_library_is_open_is_rebuilt_at_the_next_read(seeds_copy, data_dir):
    """A library already open when its full-text index is emptied: the next search would
    answer "no papers match" (its connection was checked when it opened); it rebuilds."""
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        lib.set_status([lib.search("wudi").hits[0].id], "to-read")
        before = [h.id for h in lib.search("reinforcement").hits]
        assert before
        _sql("DELETE FROM papers_fts_idx")(data_dir / "index.sqlite")
        assert [h.id for h in lib.search("reinforcement").hits] == before
        notices = lib.take_notices()
        assert len(notices) == 1 and notices[0].startswith(
            "the index was damaged (papers_fts_idx has 0 rows, the last sync left ")
        assert lib.counts()["to-read"] == 1
        _sql("DELETE FROM papers_fts_config")(data_dir / "index.sqlite")
        assert [h.id for h in lib.search("reinforcement").hits] == before
        assert len(lib.take_notices()) == 1


def test_a_forced_sync_rebuilds_from_nothing(seeds_copy, data_dir):
    """``sync --force`` makes every schema object and row again, even those no check reads."""
    with Library([seeds_copy], data_dir) as lib:
        lib.sync()
        conn = sqlite3.connect(data_dir / "index.sqlite", isolation_level=None)
        conn.execute("UPDATE papers_fts_docsize SET sz = x'00' WHERE id = 1")  # counts hold
        conn.execute("UPDATE vocab SET df = 0")
        conn.close()
        report = lib.sync(force=True)
        assert (report.papers, report.added, report.removed, report.changed) == (35, 0, 0, 0)
        assert lib.fts_ok() and lib.search("wudi").hits[0].name == "WUDI-Merging"
        conn = sqlite3.connect(data_dir / "index.sqlite")
        assert conn.execute("SELECT min(df) FROM vocab").fetchone()[0] >= 1
        assert health.problem(conn, expected_schema()) is None
        conn.close()


async def test_the_browser_rebuilds_a_damaged_index_and_says_so(tmp_path, seeds_copy):
    data = tmp_path / "data"
    with Library([seeds_copy], data) as lib:
        lib.sync()
    _sql("DELETE FROM papers_fts_idx")(data / "index.sqlite")
    app = app_on(seeds_copy, data)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: any("the index was damaged" in n for n in notes),
                       "the notice")
        await settle(pilot)
        await pilot.press("/", *"wudi", "enter")
        await settle(pilot)
        assert app.table.row_count == 1
        assert app.query_one("StatusHeader").counts.get("all") == 35
    assert [n for n in notes if "index" in n] == [
        n for n in notes if n.startswith("the index was damaged (papers_fts_idx has 0 rows")]


async def test_the_browser_rebuilds_an_index_damaged_while_it_runs(tmp_path, seeds_copy):
    """Another process empties the full-text index under a running browser: its poll notices
    (the index was written by another connection), rebuilds it and says so."""
    data = tmp_path / "data"
    app = app_on(seeds_copy, data, poll_seconds=0.1)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        _sql("DELETE FROM papers_fts_idx")(data / "index.sqlite")
        await wait_for(pilot, lambda: any("the index was damaged" in n for n in notes),
                       "the notice")
        await settle(pilot)
        await pilot.press("/", *"wudi", "enter")
        await settle(pilot)
        assert app.table.row_count == 1
        assert app.query_one("StatusHeader").counts.get("all") == 35
    assert [n for n in notes if "index" in n] == [
        n for n in notes if n.startswith("the index was damaged (papers_fts_idx has 0 rows")]
