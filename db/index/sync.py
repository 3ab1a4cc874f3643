"""Sync: bring the index in step with the seed files, touching only what changed.

:mod:`db.index.plan` decides which files to read (fingerprints, DESIGN.md); the changes are
written by :mod:`db.index.write` in one write transaction, so a crash or kill leaves the
previous index whole. A first build writes each file (each part of a large one) as soon as it is
parsed; a forced sync makes the whole index again from nothing, in one write transaction too.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

from db.index import catalogue, health, write
from db.index.plan import Progress, SyncCancelled, index_is_stale, plan_changes
from db.index.schema import begin_index_write, begin_rebuild, recreate
from db.index.write import Changes, Writer, apply_changes
from db.models import SyncReport
from db.seeds.dictionary import cache_dictionary_in
from db.seeds.discover import discover
from db.store.sqlite import BUSY_TIMEOUT_MS, write_transaction

__all__ = ["Changes", "Progress", "SyncCancelled", "compact", "fts_integrity_ok",
           "index_is_stale", "sync"]


def sync(conn: sqlite3.Connection, seed_paths: list[Path], force: bool = False,
         progress: Progress | None = None, match_titles: catalogue.MatchTitles | None = None
         ) -> tuple[SyncReport, Changes]:
    """Run a whole sync; returns the report (without mark re-attachment) and the papers added
    and left (:class:`db.index.write.Changes`). With ``match_titles``, the titles of seed files
    without abstracts are matched to the abstracts they describe (:mod:`db.index.catalogue`);
    without it, each is a paper of its own."""
    started = time.perf_counter()
    hold = _holder(match_titles)
    report = SyncReport()
    index_file = conn.execute("PRAGMA database_list").fetchone()[2]
    if index_file:  # the dictionary that parsing needs is kept beside the index
        cache_dictionary_in(Path(index_file).parent)
    if force and not discover(seed_paths).missing_roots:
        changes = _rebuild(conn, seed_paths, progress, report, hold)
        _count(conn, report)
        report.seconds = time.perf_counter() - started
        return report, changes
    changes = Changes([], [])
    # a first build inserts into an empty index, builds its secondary indexes after the rows
    # and the FTS index in one statement: nothing is left to compact (87k abstracts: the file
    # 0.3% smaller after compact(), which takes 1-1.7 s)
    first_build = not conn.execute("SELECT 1 FROM papers LIMIT 1").fetchone()
    streamed = None
    if first_build and _seed_bytes(seed_paths) >= STREAM_MIN_BYTES and (
            force or index_is_stale(conn, seed_paths)):
        streamed = _first_build(conn, seed_paths, force, progress, report, hold)
    if streamed is not None:
        changes = streamed
    else:
        to_apply, removed, report.files, _ = plan_changes(conn, seed_paths, force, progress)
        if to_apply or removed:
            changes = apply_changes(conn, to_apply, removed, report, force, hold)
    _count(conn, report)
    if (report.added >= write.BULK_MIN_ROWS and report.added * 2 >= report.papers
            and not first_build):
        compact(conn)
    report.seconds = time.perf_counter() - started
    return report, changes


def _holder(match_titles: catalogue.MatchTitles | None):
    """What wraps a sync's writer: catalogues held back and matched, or nothing."""
    if match_titles is None:
        return None
    return lambda writer: catalogue.Held(writer, match_titles)


def _count(conn: sqlite3.Connection, report: SyncReport) -> None:
    """The report's counts of the whole index: papers, and catalogue entries by outcome."""
    report.papers = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    report.matched, report.ambiguous, report.unmatched = catalogue.counts(conn).values()


#: Bytes of seed files from which a first build writes each file while the next are parsed
#: (~200 abstracts, :data:`db.index.write.BULK_MIN_ROWS`).
STREAM_MIN_BYTES = 200_000


def _seed_bytes(seed_paths: list[Path]) -> int:
    total = 0
    for f in discover(seed_paths).files:
        with contextlib.suppress(OSError):
            total += f.stat().st_size
    return total


def _first_build(conn: sqlite3.Connection, seed_paths: list[Path], force: bool,
                 progress: Progress | None, report: SyncReport, hold=None) -> Changes | None:
    """A sync into an index with no papers: each file's papers are written as soon as it is
    parsed, so the writing overlaps the parsing of the next files (worker processes) instead
    of following all of it. Returns the papers added, or None when the write lock is not free at
    once (another process is syncing) or papers appeared meanwhile: then the caller plans and
    applies as usual, parsing without holding the lock.

    The lock is held while parsing, in one transaction: a kill or a cancel rolls all back.
    """
    conn.execute("PRAGMA busy_timeout=0")
    try:
        begin_index_write(conn)  # the index's lock alone: marks can be written meanwhile
    except sqlite3.OperationalError:
        return None
    finally:
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    try:
        if conn.execute("SELECT 1 FROM papers LIMIT 1").fetchone():
            conn.execute("ROLLBACK")
            return None
        writer = Writer(conn, report, force, bulk=True, stream=True)
        writer = hold(writer) if hold else writer
        to_apply, removed, report.files, _ = plan_changes(conn, seed_paths, force, progress,
                                                          writer.add, writer.add_part)
        for p in to_apply:  # the files whose fingerprint only needs refreshing
            writer.add(p)
        added = writer.finish(removed)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return added


def _rebuild(conn: sqlite3.Connection, seed_paths: list[Path], progress: Progress | None,
             report: SyncReport, hold=None) -> Changes:
    """A forced sync: the index made again from nothing (every schema object dropped and
    created, every seed file parsed), in one write transaction that holds the index's lock
    (waiting the busy timeout for it) from the first drop to the last insert: a reader sees the
    old index until the commit, and a kill or a cancel rolls it all back. Returns the papers
    the index did not have and those that lost a source; ``report`` says what changed against
    it.

    A seed folder that is missing right now keeps its papers (the caller syncs in place then).
    """
    begin_rebuild(conn)
    try:
        before, sources_before = _paper_fields(conn), _sources(conn)
        recreate(conn)
        writer = write.Writer(conn, report, True, bulk=True,
                              stream=_seed_bytes(seed_paths) >= STREAM_MIN_BYTES)
        stream = writer.stream
        writer = hold(writer) if hold else writer
        to_apply, removed, report.files, _ = plan_changes(
            conn, seed_paths, True, progress, writer.add, writer.add_part if stream else None)
        for p in to_apply:  # (files that yield no papers)
            writer.add(p)
        changes = writer.finish(removed)
        after, sources_after = _paper_fields(conn), _sources(conn)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    added = [i for i in after if i not in before]
    report.added, report.removed = len(added), sum(i not in after for i in before)
    report.changed = sum(i in before and before[i] != fields for i, fields in after.items())
    return Changes(added, sorted({pid for pid, _file in sources_before - sources_after}),
                   changes.merged)


def _paper_fields(conn: sqlite3.Connection) -> dict[str, tuple]:
    """``{id: what a forced sync may derive anew}`` of every paper; {} when the index cannot
    be read (it is being rebuilt because of that)."""
    try:
        return {row[0]: row[1:] for row in conn.execute(
            "SELECT id, name, title, headline, authors, year, venue, code_url, urls, "
            "details, collection FROM papers")}
    except sqlite3.DatabaseError:
        return {}


def _sources(conn: sqlite3.Connection) -> set[tuple[str, str]]:
    """``{(paper id, seed file)}`` of every source of every paper; empty when the index cannot
    be read."""
    try:
        return set(conn.execute("SELECT paper_id, file FROM sources"))
    except sqlite3.DatabaseError:
        return set()


def compact(conn: sqlite3.Connection) -> None:
    """After a (mostly) new build: merge the FTS segments into one and VACUUM the file.

    A bulk load leaves FTS5's merged-away segments as free pages and the secondary indexes
    (filled in paper-id order) two-thirds full: 10,000 abstracts, 24.3 MiB before, 23.0 after,
    for ~0.3 s. A busy database (another process reading) is left as it is: this only saves space.
    """
    with contextlib.suppress(sqlite3.OperationalError):
        with write_transaction(conn, begin_index_write):  # the counts go with the merge
            conn.execute("INSERT INTO papers_fts(papers_fts) VALUES ('optimize')")
            health.record(conn)
        conn.execute("VACUUM")


def fts_integrity_ok(conn: sqlite3.Connection) -> bool:
    """FTS5's own integrity-check of the index against its content table."""
    try:
        conn.execute("INSERT INTO papers_fts(papers_fts, rank) VALUES ('integrity-check', 1)")
        return True
    except sqlite3.DatabaseError:
        return False


