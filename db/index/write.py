"""Writing a sync's changes into the index: files, sources, papers, the FTS index and the
vocabulary, in the caller's one write transaction (which holds the index's lock alone).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from db.index import acronyms, health, names
from db.index.inserts import (
    BULK_FTS_HASH_BYTES,
    BULK_MIN_ROWS,
    FTS_HASH_BYTES,
    INSERT_PAPER,
    fts_config,
    index_new_rows,
    insert_papers,
    update_vocab,
)
from db.index.plan import Planned
from db.index.rows import (
    Prepared,
    collection_of,
    entries_of,
    entry_terms,
    fields_of,
    meta_json,
    paper_row,
    prepare,
    terms_of,
    with_fields,
)
from db.index.schema import BULK_INDEXES, PAPERS_AI_TRIGGER, begin_index_write
from db.models import SyncReport
from db.seeds.entry import Entry
from db.store.sqlite import write_transaction


class Changes(NamedTuple):
    """The papers a sync moved: ``added`` (ids new to the index) and ``left`` (ids that lost a
    source: a seed file that listed them lists them no more, or is gone; some are gone from the
    index, some still have another source). Marks follow a paper from ``left`` to ``added``,
    and from each title-only id to the abstract's id in ``merged`` (db.index.catalogue)."""

    added: list[str]
    left: list[str]
    merged: list[tuple[str, str]] = []  # noqa: RUF012 (a NamedTuple's default, never mutated)


def apply_changes(conn: sqlite3.Connection, to_apply: list[Planned], removed: list[str],
                  report: SyncReport, force: bool = False,
                  hold: Callable[[Writer], Any] | None = None) -> Changes:
    """Write the planned changes in one transaction that holds the index's write lock (not the
    marks file's). Returns the papers added and those that lost a source.

    Another process may have synced the same change while we waited for the lock: files whose
    stored hash already equals ours are skipped, so two syncs never apply a change twice.
    """
    with write_transaction(conn, begin_index_write):  # (the marks file stays free for marks)
        bulk = sum(len(p.entries or ()) for p in to_apply) >= BULK_MIN_ROWS and not (
            conn.execute("SELECT 1 FROM papers LIMIT 1").fetchone())
        writer = Writer(conn, report, force, bulk)
        writer = hold(writer) if hold else writer  # (db.index.catalogue.Held)
        for p in to_apply:
            writer.add(p)
        return writer.finish(removed)


class Writer:
    """The writes of one sync, file by file, inside the caller's write transaction.

    :meth:`add` writes a parsed (or touched) file's row and sources; :meth:`finish` removes
    files that are gone and writes the papers. With ``bulk`` (a first build: the index has no
    papers) the secondary indexes are dropped and built again by :meth:`finish` (inserting 87k
    random ids into a B-tree cost more than one sort), and with ``stream`` too each file's new
    papers are inserted and indexed by :meth:`add` already, while the next files are parsed.
    """

    def __init__(self, conn: sqlite3.Connection, report: SyncReport, force: bool, bulk: bool,
                 stream: bool = False):
        self.conn, self.report, self.force, self.bulk = conn, report, force, bulk
        self.stream = bulk and stream
        if bulk:
            for name in BULK_INDEXES:
                conn.execute(f"DROP INDEX IF EXISTS {name}")
        if self.stream:
            conn.execute("DROP TRIGGER papers_ai")  # (indexed by one statement per file)
            fts_config(conn, "hashsize", BULK_FTS_HASH_BYTES)
        self.stored = {r[0]: r[1] for r in conn.execute("SELECT path, sha256 FROM files")}
        acronyms.track(conn)
        self.affected: set[str] = set()
        self.new_entries: dict[str, Entry] = {}
        self.prepared: dict[str, tuple] = {}  # id -> the row of new_entries[id]
        # id -> the acronyms of new_entries[id] (None: not found yet), for a streamed insert
        self.found: dict[str, set | None] = {}
        self.first: dict[str, tuple[str, int, str]] = {}  # id -> first (file, position, collection)
        self.streamed: dict[str, Entry] = {}  # id -> the entry inserted by add()
        # ids found more than once (in two files, or twice in one): only their fields can come
        # from another record than the entry kept (finish() reads them for these papers alone)
        self.repeated: set[str] = set()
        # the files' vocabularies (each counts a paper once), summed: a paper in two files is
        # counted twice, and taken out again here; counted[id] is the entry whose words are in
        # the sum (its terms are computed again only where they are taken out or replaced)
        self.vocab: Counter[str] = Counter()
        self.counted: dict[str, Entry] = {}
        self.done: set[str] = set()  # paths added
        self.parts: dict[str, int] = {}  # path -> parts of it written by add_part
        self.left: set[str] = set()  # ids that lost a source

    def add(self, p: Planned) -> None:
        conn, path = self.conn, str(p.path)
        if path in self.done:
            return
        self.done.add(path)
        if p.status == "touched" or (not self.force and self.stored.get(path) == p.sha256):
            conn.execute("UPDATE files SET size=?, mtime_ns=? WHERE path=?",
                         (p.size, p.mtime_ns, path))
            return
        if p.status == "kept":  # unreadable now: its sources (and papers) stay as they are
            conn.execute("UPDATE files SET size=?, mtime_ns=?, sha256=?, status='error', "
                         "reason=? WHERE path=?", (p.size, p.mtime_ns, p.sha256, p.reason, path))
            return
        parts = self.parts.pop(path, 0)
        if not parts:
            before = {r[0] for r in conn.execute("SELECT paper_id FROM sources WHERE file=?",
                                                 (path,))}
            self.affected.update(before)
            self.left.update(before.difference(e.id for e in p.entries or ()))
            conn.execute("DELETE FROM sources WHERE file=?", (path,))
        conn.execute(
            "INSERT OR REPLACE INTO files(path, display, size, mtime_ns, sha256, status, "
            "entries, reason, collection) VALUES (?,?,?,?,?,?,?,?,?)",
            (path, p.display, p.size, p.mtime_ns, p.sha256, p.status,
             len(p.entries or ()), p.reason or None, p.collection))
        if parts:  # its papers are in (add_part); a paper without a venue takes the file's
            conn.execute("UPDATE papers SET collection=? WHERE first_file=? AND venue IS NULL",
                         (p.collection, path))
            return
        self._add_entries(path, p.collection, p.entries or [], p.prepared or [], p.vocab,
                          p.extras)

    def add_part(self, path: Path, collection: str, entries: list[Entry],
                 prepared: Prepared) -> None:
        """Write the papers of one part of a large seed file (:mod:`db.seeds.chunks`; their
        positions those in the file) as soon as it is parsed, while the next parts are: for a
        streamed first build only; :meth:`add` of the whole file then writes its row."""
        self.parts[str(path)] = self.parts.get(str(path), 0) + 1
        self._add_entries(str(path), collection, entries, *prepared)

    def _add_entries(self, path: str, collection: str, entries: list[Entry],
                     prepared: list[tuple], vocab: Counter[str] | None,
                     extras: list[tuple] | None = None) -> None:
        """The sources, vocabulary and (streamed) papers of the entries of file ``path``;
        ``prepared``, ``vocab`` and ``extras`` are those of :func:`db.index.rows.prepare_file`
        (without ``extras``, the entries' sources JSON and acronyms are made here)."""
        conn = self.conn
        self.vocab.update(vocab or {})
        in_file: set[str] = set()
        for e in entries:
            if e.id in in_file:
                continue
            in_file.add(e.id)
            if e.id in self.counted:  # (rare: the same abstract in two files, or parts)
                self.vocab.subtract(entry_terms(e))
            else:
                self.counted[e.id] = e
        rows, new = [], []
        if not extras:
            extras = [(meta_json(e), None) for e in entries]
        for e, ready, (meta, found) in zip(entries, prepared, extras, strict=True):
            if e.id not in self.new_entries:
                new.append(e.id)
            else:
                self.repeated.add(e.id)
            if e.id not in self.new_entries or (e.rich and not self.new_entries[e.id].rich):
                self.new_entries[e.id], self.prepared[e.id] = e, ready
                self.found[e.id] = found
            here = (path, e.position, collection)
            if e.id not in self.first or here[:2] < self.first[e.id][:2]:
                self.first[e.id] = here
            rows.append((path, e.position, e.id, meta))
        conn.executemany("INSERT OR IGNORE INTO sources(file, position, paper_id, meta) "
                         "VALUES (?,?,?,?)", rows)
        self.affected.update(e.id for e in entries)
        if self.stream and new:
            # files come in seed order: a paper's first source is the first one seen; a later
            # structured source of it is applied by finish()
            last = conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()[0]
            conn.executemany(INSERT_PAPER, [
                self.prepared[i] + self.first[i][:2]
                + (collection_of(self.new_entries[i], self.first[i][2]),) for i in new])
            index_new_rows(conn, last)
            # (rowids follow the inserts: max + 1 each)
            acronyms.write_found(conn, (
                (rowid, acronyms.of_paper(self.prepared[i][2], self.prepared[i][5])
                 if self.found[i] is None else self.found[i])
                for rowid, i in enumerate(new, start=last + 1)))
            self.streamed.update((i, self.new_entries[i]) for i in new)

    def finish(self, removed: list[str]) -> Changes:
        """Remove the files in ``removed``, write the papers; returns the papers added and
        those that lost a source."""
        conn = self.conn
        gone = [path for path in removed if path in self.stored]
        for path in gone:
            before = [r[0] for r in conn.execute("SELECT paper_id FROM sources WHERE file=?",
                                                 (path,))]
            self.affected.update(before)
            self.left.update(before)
            conn.execute("DELETE FROM sources WHERE file=?", (path,))
        conn.executemany("DELETE FROM files WHERE path=?", [(p,) for p in gone])
        added_ids: list[str] = []
        counts = (self.report.added, self.report.removed, self.report.changed)
        if self.stream:  # every paper is in: the indexes serve the updates that follow
            conn.execute(PAPERS_AI_TRIGGER)
            fts_config(conn, "hashsize", FTS_HASH_BYTES)
            for sql in BULK_INDEXES.values():
                conn.execute(sql)
        if self.affected:
            added_ids = _apply_papers(conn, self.affected, self.new_entries, self.prepared,
                                      self.first, self.report, self.vocab, self.counted,
                                      self.bulk, self.streamed, self.repeated)
        else:
            update_vocab(conn, self.vocab)
        if self.bulk and not self.stream:
            for sql in BULK_INDEXES.values():
                conn.execute(sql)
        if self.affected:
            _mark_multi_sources(conn, None if self.bulk else self.affected)
            acronyms.aggregate(conn)
            # (papers added, removed or changed: only then can a name become shared or not)
            if counts != (self.report.added, self.report.removed, self.report.changed):
                names.hide_shared_names(conn)
        health.record(conn)
        return Changes(added_ids, sorted(self.left))


def _mark_multi_sources(conn: sqlite3.Connection, ids: set[str] | None) -> None:
    """Bring ``multi_sources`` in step with ``sources`` for the papers ``ids`` (those whose
    sources a sync changed), or for every paper with None (a first build: one pass over the
    index ``sources_paper``, ~20 ms for 87k papers)."""
    if ids is None:
        conn.execute("DELETE FROM multi_sources")
        conn.execute("INSERT INTO multi_sources SELECT paper_id FROM sources GROUP BY paper_id "
                     "HAVING count(*) > 1")
        return
    ordered = sorted(ids)
    for at in range(0, len(ordered), 500):
        chunk = ordered[at:at + 500]
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM multi_sources WHERE paper_id IN ({marks})", chunk)
        conn.execute(f"INSERT INTO multi_sources SELECT paper_id FROM sources WHERE paper_id "
                     f"IN ({marks}) GROUP BY paper_id HAVING count(*) > 1", chunk)


def _apply_papers(conn: sqlite3.Connection, affected: set[str], new_entries: dict[str, Entry],
                  prepared: dict[str, tuple],
                  first: dict[str, tuple[str, int, str]], report: SyncReport,
                  vocab: Counter[str], counted: dict[str, Entry], bulk: bool,
                  streamed: dict[str, Entry], repeated: set[str]) -> list[str]:
    """Insert, update and delete the papers of changed sources. ``vocab`` holds the words of
    the entries in ``counted`` (id → entry); it is corrected to the papers really added.
    ``streamed``: papers a first build inserted already (id → the entry inserted)."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS affected(id TEXT PRIMARY KEY)")
    conn.execute("DELETE FROM temp.affected")
    existing: set[str] = set()
    gone: list = []
    if not bulk:  # (a first build: nothing exists, nothing is gone, every source is affected)
        conn.executemany("INSERT INTO temp.affected(id) VALUES (?)", [(i,) for i in affected])
        existing = {r[0] for r in conn.execute(
            "SELECT id FROM papers WHERE id IN (SELECT id FROM temp.affected)")}
        # papers whose last source went away
        gone = conn.execute(
            "SELECT id, derived_name, title, coalesce(body, abstract), authors FROM papers "
            "WHERE id IN (SELECT id FROM temp.affected) "
            "AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.paper_id = papers.id)").fetchall()
    for _id, *texts in gone:
        vocab.subtract(terms_of(" ".join(filter(None, texts))))
    conn.executemany("DELETE FROM papers WHERE id=?", [(g[0],) for g in gone])
    report.removed += len(gone)
    # a paper's title, authors, year, venue and links come from its first structured source in
    # seed order (file path, then position), whichever files changed; a text seed has none
    # (in a first build, a paper found once has its own record's fields already: with_fields()
    # of them gives the same entry, so only the papers found more than once are looked up)
    fields = fields_of(conn, repeated if bulk else None)
    for i, e in new_entries.items():
        if i in fields:
            enriched = with_fields(e, fields[i])
            if enriched != e:
                new_entries[i], prepared[i] = enriched, prepare(enriched)
    added = [e for i, e in new_entries.items() if i not in existing]
    rows = [prepared[e.id] + first[e.id][:2] + (collection_of(e, first[e.id][2]),)
            for e in added if e.id not in streamed]
    insert_papers(conn, rows)
    for i, e in counted.items():  # words counted of an entry that is not what was added
        if i in existing:
            vocab.subtract(entry_terms(e))
        elif new_entries[i] is not e:
            terms, now = entry_terms(e), entry_terms(new_entries[i])
            if terms != now:
                vocab.subtract(terms)
                vocab.update(now)
    report.added += len(added)
    # a streamed paper whose later structured source gives it other fields
    redo = [e for e in added if e.id in streamed and e is not streamed[e.id]
            and e != streamed[e.id]]
    # a forced rebuild re-derives names and headlines of papers it already had; a paper whose
    # structured source changed or went away gets the fields of the one that now comes first
    kept = [new_entries[i] for i in existing if i in new_entries]
    kept += [with_fields(e, fields.get(e.id)) for e in entries_of(
        conn, [i for i in existing if i not in new_entries])]
    before = {e.id: e for e in entries_of(conn, [e.id for e in kept])}
    for e in kept:  # the words of a changed title, name, author list or abstract
        old = before[e.id]
        if (old.name, old.title, old.authors, old.abstract_markup) != (
                e.name, e.title, e.authors, e.abstract_markup):
            vocab.subtract(entry_terms(old))
            vocab.update(entry_terms(e))
    report.changed += _update_papers(conn, kept)
    _update_papers(conn, redo)  # (added by this sync: not counted as changed)
    # the papers whose acronyms' definitions may have changed
    acronyms.mine_again(conn, [e.id for e in (*kept, *redo) if e.id not in before or (
        before[e.id].title, before[e.id].abstract_markup) != (e.title, e.abstract_markup)])
    # where each paper that was there before now stands first (seed order) and which collection
    # that is; new papers were inserted with it (a row that grows after its insert splits pages:
    # 10k abstracts took 17 MiB instead of 13)
    conn.execute("DELETE FROM temp.affected")
    conn.executemany("INSERT INTO temp.affected(id) VALUES (?)",
                     [(i,) for i in existing] + [(e.id,) for e in redo])
    conn.execute(
        "UPDATE papers SET (first_file, first_pos) = (SELECT s.file, s.position FROM sources s "
        "WHERE s.paper_id = papers.id ORDER BY s.file, s.position LIMIT 1) "
        "WHERE id IN (SELECT id FROM temp.affected)")
    # a record's own venue (and year) is its collection: one JSON file may hold many venues
    conn.execute(
        "UPDATE papers SET collection = CASE WHEN venue IS NOT NULL "
        "THEN trim(venue || ' ' || coalesce(year, '')) ELSE coalesce((SELECT f.collection "
        "FROM files f WHERE f.path = papers.first_file), '') END "
        "WHERE id IN (SELECT id FROM temp.affected)")
    update_vocab(conn, vocab)
    return [e.id for e in added]


def _update_papers(conn: sqlite3.Connection, entries: list[Entry]) -> int:
    """Write the derived fields of papers that exist; returns how many rows changed. ``name``
    is set to the derived name, as an insert sets it: :func:`db.index.names.hide_shared_names`
    then hides it where it is shared."""
    cur = conn.executemany(
        "UPDATE papers SET name=?, title=?, headline=?, abstract_source=?, abstract=?, body=?, "
        "urls=?, code_url=?, authors=?, year=?, venue=?, details=?, derived_name=? WHERE id=? "
        "AND (derived_name IS NOT ? OR title IS NOT ? OR headline IS NOT ? OR abstract IS NOT ? "
        "OR urls IS NOT ? OR code_url IS NOT ? OR authors IS NOT ? OR year IS NOT ? "
        "OR venue IS NOT ? OR details IS NOT ?)",
        # (PAPER_COLUMNS' order: ..., venue, details, derived_name; name is the derived one)
        [(*row[1:], row[0], row[13], row[2], row[3], row[5], *row[7:13])
         for row in map(paper_row, entries)])
    return max(cur.rowcount, 0)
