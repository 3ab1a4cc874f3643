"""Sync: bring the index in step with the seed files, touching only what changed.

Fingerprints (DESIGN.md): a file whose size and mtime_ns are unchanged is not read at all; a
touched file whose SHA-256 is unchanged is not parsed again; changed, added and removed files are
applied in one write transaction, so a crash or kill leaves the previous index whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path

from db.index.schema import (
    BULK_INDEXES,
    PAPERS_AI_TRIGGER,
    begin_index_write,
)
from db.models import FileReport, SyncReport
from db.seeds.dictionary import cache_dictionary_in
from db.seeds.discover import discover
from db.seeds.entry import Entry
from db.seeds.parallel import parse_files
from db.store.sqlite import BUSY_TIMEOUT_MS, write_transaction
from db.text import NOT_WORD_BYTES, WORD_RE, clean, fold, non_ascii_pieces, search_form

#: Called as ``progress(done, total)`` with counts of seed files read so far. It may raise
#: :class:`SyncCancelled` to stop the sync before anything is written.
Progress = Callable[[int, int], None]


class SyncCancelled(Exception):
    """Raised by a progress callback to stop a sync (e.g. the browser is closing)."""


@dataclass(slots=True)
class _Planned:
    path: Path
    display: str
    size: int
    mtime_ns: int
    sha256: str
    status: str = "loaded"
    reason: str = ""
    collection: str = ""
    entries: list[Entry] | None = None
    prepared: list[tuple] | None = None  # prepare_file(entries)[0]
    vocab: Counter[str] | None = None  # prepare_file(entries)[1]


def terms_of(text: str) -> set[str]:
    """The distinct words of ``text`` as the vocabulary stores them (folded, unstemmed)."""
    if text.isascii():  # WORD_RE.findall's words, a third faster: non-words to spaces, split
        words = set(text.lower().encode().translate(NOT_WORD_BYTES).decode().split())
        return {w for w in words if "_" not in w} if "_" in text else words
    # the same with text that is not ASCII (a fifth of abstracts: a dash, a quote, an accent):
    # ASCII non-words to spaces in the UTF-8 bytes (the bytes of other characters are >= 128),
    # and only the space-separated pieces that hold another character go through WORD_RE
    # (a regex scan of the whole text: 44 µs instead of 33); tests/test_parse_fast_paths.py
    # compares
    spaced = unicodedata.normalize("NFKC", text).casefold().encode().translate(
        NOT_WORD_BYTES).decode()
    ascii_parts, words = [], []
    for piece, other in non_ascii_pieces(spaced):
        if other:
            words += WORD_RE.findall(piece)
        else:
            ascii_parts.append(piece)
    terms = set(" ".join(ascii_parts).split())
    if "_" in spaced:
        terms = {w for w in terms if "_" not in w}
    terms.update(w if w.isascii() else fold(w) for w in words if "_" not in w)
    return terms



def _display_names(files: list[Path]) -> dict[Path, str]:
    """Short names for people: the file name, or parent/name when two files share a name."""
    names = Counter(f.name for f in files)
    # file names are untrusted text too: no escape sequence may reach a terminal through them
    return {f: clean(f.name if names[f.name] == 1 else f"{f.parent.name}/{f.name}")
            for f in files}


def plan_changes(conn: sqlite3.Connection, seed_paths: list[Path], force: bool = False,
                 progress: Progress | None = None,
                 on_parsed: Callable[[_Planned], None] | None = None
                 ) -> tuple[list[_Planned], list[str], list[FileReport], bool]:
    """Compare the seed files with the index. Reads only files whose stat changed.

    Returns ``(to_apply, removed_paths, reports, touched)``: files to (re)load, files gone, a
    report for every file, and whether some fingerprints only need their stat refreshed.
    ``on_parsed(planned)`` is called with each file as soon as it is parsed, in seed order.
    """
    found = discover(seed_paths)
    files = found.files
    known = {row[0]: row for row in conn.execute(
        "SELECT path, size, mtime_ns, sha256, status, entries, reason, display, collection "
        "FROM files")}
    display = _display_names(files)
    reports = [FileReport(path, "error", 0, reason) for path, reason in found.problems]
    to_apply: list[_Planned] = []
    to_parse: list[tuple[int, int, _Planned]] = []  # (files seen, report index, file)
    jobs: list[tuple[Path, bytes]] = []  # (path, data) of each, for parse_files
    touched = False
    for done, path in enumerate(files, start=1):
        key = str(path)
        old = known.get(key)
        try:
            st = path.stat()
            if old and not force and (old[1], old[2]) == (st.st_size, st.st_mtime_ns):
                reports.append(FileReport(old[7], _shown(old[4]), old[5], old[6] or ""))
                continue
            with path.open("rb") as fh:
                data = fh.read()
        except OSError as exc:
            # keep what the index has from it: an unreadable moment must not drop papers
            reports.append(FileReport(display[path], "error", 0, exc.strerror or str(exc)))
            continue
        import hashlib  # here: a sync that finds nothing changed (the usual case) never hashes

        digest = hashlib.sha256(data).hexdigest()
        planned = _Planned(path, display[path], st.st_size, st.st_mtime_ns, digest)
        to_apply.append(planned)
        if old and not force and old[3] == digest:
            touched = True
            planned.status = "touched"
            reports.append(FileReport(old[7], _shown(old[4]), old[5], old[6] or ""))
            continue
        to_parse.append((done, len(reports), planned))
        jobs.append((path, data))
        del data
        reports.append(FileReport(planned.display, "loaded"))  # its counts once it is parsed
    with contextlib.closing(parse_files(jobs, prepare_file)) as parsed:
        for (done, at, planned), result in zip(to_parse, parsed, strict=True):
            (planned.collection, planned.entries, planned.status, planned.reason,
             prepared) = result
            planned.prepared, planned.vocab = prepared or ([], Counter())
            old = known.get(str(planned.path))
            if planned.status == "error" and old and old[5]:
                # it loaded before and cannot be read now (junk copied over it, a save or a
                # download in progress): its papers stay until it reads again, as when it
                # cannot be opened; the new fingerprint is kept, so it is not read at each poll
                planned.status, planned.entries = "kept", None
                planned.collection = old[8] or ""
                if not planned.reason.endswith(KEPT_NOTE):
                    planned.reason += KEPT_NOTE
                reports[at] = FileReport(planned.display, "error", old[5], planned.reason)
                continue
            reports[at] = FileReport(planned.display, planned.status, len(planned.entries),
                                     planned.reason)
            if on_parsed:
                on_parsed(planned)
            if progress:
                progress(done, len(files))
    current = {str(f) for f in files}
    # a seed folder that is missing right now (an unmounted disk, a typo) does not remove what
    # the index has from it: its papers stay until the folder is back or no longer given
    # (and when every seed path given is missing, nothing at all is removed: a typo in --seeds
    # must not empty the library)
    everything_missing = bool(found.missing_roots) and not files
    kept = [p for p in known if p not in current
            and (everything_missing or _under(p, found.missing_roots))]
    removed = [p for p in known if p not in current and p not in kept]
    reports += [FileReport(known[p][7], "removed", 0, "") for p in removed]
    return to_apply, removed, reports, touched


#: Said of a seed file that loaded before and cannot be read now (its papers are kept).
KEPT_NOTE = "; its papers from the last good read are kept"


def _under(path: str, roots: list[Path]) -> bool:
    return any(path == str(r) or path.startswith(str(r).rstrip(os.sep) + os.sep) for r in roots)


def _shown(status: str) -> str:
    return "unchanged" if status == "loaded" else status


def apply_changes(conn: sqlite3.Connection, to_apply: list[_Planned], removed: list[str],
                  report: SyncReport, force: bool = False) -> list[str]:
    """Write the planned changes in one transaction that holds the index's write lock (not the
    marks file's). Returns the ids of added papers.

    Another process may have synced the same change while we waited for the lock: files whose
    stored hash already equals ours are skipped, so two syncs never apply a change twice.
    """
    with write_transaction(conn, begin_index_write):  # (the marks file stays free for marks)
        bulk = sum(len(p.entries or ()) for p in to_apply) >= BULK_MIN_ROWS and not (
            conn.execute("SELECT 1 FROM papers LIMIT 1").fetchone())
        writer = _Writer(conn, report, force, bulk)
        for p in to_apply:
            writer.add(p)
        return writer.finish(removed)


class _Writer:
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
            _fts_config(conn, "hashsize", BULK_FTS_HASH_BYTES)
        self.stored = {r[0]: r[1] for r in conn.execute("SELECT path, sha256 FROM files")}
        self.affected: set[str] = set()
        self.new_entries: dict[str, Entry] = {}
        self.prepared: dict[str, tuple] = {}  # id -> the row of new_entries[id]
        self.first: dict[str, tuple[str, int, str]] = {}  # id -> first (file, position, collection)
        self.streamed: dict[str, Entry] = {}  # id -> the entry inserted by add()
        # the files' vocabularies (each counts a paper once), summed: a paper in two files is
        # counted twice, and taken out again here; counted[id] is the entry whose words are in
        # the sum (its terms are computed again only where they are taken out or replaced)
        self.vocab: Counter[str] = Counter()
        self.counted: dict[str, Entry] = {}
        self.done: set[str] = set()  # paths added

    def add(self, p: _Planned) -> None:
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
        self.affected.update(r[0] for r in conn.execute(
            "SELECT paper_id FROM sources WHERE file=?", (path,)))
        conn.execute("DELETE FROM sources WHERE file=?", (path,))
        self.vocab.update(p.vocab or {})
        in_file: set[str] = set()
        for e in p.entries or ():
            if e.id in in_file:
                continue
            in_file.add(e.id)
            if e.id in self.counted:  # (rare: the same abstract in two files)
                self.vocab.subtract(_terms(e))
            else:
                self.counted[e.id] = e
        conn.execute(
            "INSERT OR REPLACE INTO files(path, display, size, mtime_ns, sha256, status, "
            "entries, reason, collection) VALUES (?,?,?,?,?,?,?,?,?)",
            (path, p.display, p.size, p.mtime_ns, p.sha256, p.status,
             len(p.entries or ()), p.reason or None, p.collection))
        rows, new = [], []
        for e, ready in zip(p.entries or (), p.prepared or (), strict=True):
            if e.id not in self.new_entries:
                new.append(e.id)
            if e.id not in self.new_entries or (e.rich and not self.new_entries[e.id].rich):
                self.new_entries[e.id], self.prepared[e.id] = e, ready
            here = (path, e.position, p.collection)
            if e.id not in self.first or here[:2] < self.first[e.id][:2]:
                self.first[e.id] = here
            rows.append((path, e.position, e.id, _meta(e)))
        conn.executemany("INSERT OR IGNORE INTO sources(file, position, paper_id, meta) "
                         "VALUES (?,?,?,?)", rows)
        self.affected.update(e.id for e in p.entries or ())
        if self.stream and new:
            # files come in seed order: a paper's first source is the first one seen; a later
            # structured source of it is applied by finish()
            last = conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()[0]
            conn.executemany(_INSERT_PAPER, [
                self.prepared[i] + self.first[i][:2]
                + (_collection(self.new_entries[i], self.first[i][2]),) for i in new])
            _index_new_rows(conn, last)
            self.streamed.update((i, self.new_entries[i]) for i in new)

    def finish(self, removed: list[str]) -> list[str]:
        """Remove the files in ``removed``, write the papers; returns the ids of added papers."""
        conn = self.conn
        gone = [path for path in removed if path in self.stored]
        for path in gone:
            self.affected.update(r[0] for r in conn.execute(
                "SELECT paper_id FROM sources WHERE file=?", (path,)))
            conn.execute("DELETE FROM sources WHERE file=?", (path,))
        conn.executemany("DELETE FROM files WHERE path=?", [(p,) for p in gone])
        added_ids: list[str] = []
        if self.stream:  # every paper is in: the indexes serve the updates that follow
            conn.execute(PAPERS_AI_TRIGGER)
            _fts_config(conn, "hashsize", FTS_HASH_BYTES)
            for sql in BULK_INDEXES.values():
                conn.execute(sql)
        if self.affected:
            added_ids = _apply_papers(conn, self.affected, self.new_entries, self.prepared,
                                      self.first, self.report, self.vocab, self.counted,
                                      self.bulk, self.streamed)
        else:
            _update_vocab(conn, self.vocab)
        if self.bulk and not self.stream:
            for sql in BULK_INDEXES.values():
                conn.execute(sql)
        if self.affected:
            _mark_multi_sources(conn, None if self.bulk else self.affected)
        return added_ids


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
                  streamed: dict[str, Entry]) -> list[str]:
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
            "SELECT id, name, title, coalesce(body, abstract), authors FROM papers "
            "WHERE id IN (SELECT id FROM temp.affected) "
            "AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.paper_id = papers.id)").fetchall()
    for _id, *texts in gone:
        vocab.subtract(terms_of(" ".join(filter(None, texts))))
    conn.executemany("DELETE FROM papers WHERE id=?", [(g[0],) for g in gone])
    report.removed += len(gone)
    # a paper's title, authors, year, venue and links come from its first structured source in
    # seed order (file path, then position), whichever files changed; a text seed has none
    fields = _fields_of(conn, every=bulk)
    for i, e in new_entries.items():
        if i in fields:
            with_fields = _with_fields(e, fields[i])
            if with_fields != e:
                new_entries[i], prepared[i] = with_fields, prepare(with_fields)
    added = [e for i, e in new_entries.items() if i not in existing]
    rows = [prepared[e.id] + first[e.id][:2] + (_collection(e, first[e.id][2]),)
            for e in added if e.id not in streamed]
    _insert_papers(conn, rows)
    for i, e in counted.items():  # words counted of an entry that is not what was added
        if i in existing:
            vocab.subtract(_terms(e))
        elif new_entries[i] is not e:
            terms, now = _terms(e), _terms(new_entries[i])
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
    kept += [_with_fields(e, fields.get(e.id)) for e in _entries_of(
        conn, [i for i in existing if i not in new_entries])]
    before = {e.id: e for e in _entries_of(conn, [e.id for e in kept])}
    for e in kept:  # the words of a changed title, name, author list or abstract
        old = before[e.id]
        if (old.name, old.title, old.authors, old.abstract_markup) != (
                e.name, e.title, e.authors, e.abstract_markup):
            vocab.subtract(_terms(old))
            vocab.update(_terms(e))
    report.changed += _update_papers(conn, kept)
    _update_papers(conn, redo)  # (added by this sync: not counted as changed)
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
    _update_vocab(conn, vocab)
    return [e.id for e in added]


def _update_papers(conn: sqlite3.Connection, entries: list[Entry]) -> int:
    """Write the derived fields of papers that exist; returns how many rows changed."""
    cur = conn.executemany(
        "UPDATE papers SET name=?, title=?, headline=?, abstract_source=?, abstract=?, body=?, "
        "urls=?, code_url=?, authors=?, year=?, venue=? WHERE id=? AND (name IS NOT ? "
        "OR title IS NOT ? OR headline IS NOT ? OR abstract IS NOT ? OR urls IS NOT ? "
        "OR code_url IS NOT ? OR authors IS NOT ? OR year IS NOT ? OR venue IS NOT ?)",
        [(e.name, e.title, e.headline, _source(e), e.abstract_markup,
          _body(e.abstract_markup), json.dumps(list(e.urls)), e.code_url, _authors(e), e.year,
          e.venue, e.id, e.name, e.title, e.headline, e.abstract_markup,
          json.dumps(list(e.urls)), e.code_url, _authors(e), e.year, e.venue) for e in entries])
    return max(cur.rowcount, 0)


#: The columns of ``papers`` that a seed entry fills, in the order of :func:`_paper_row`.
_PAPER_COLUMNS = ("id", "name", "title", "headline", "abstract_source", "abstract", "body",
                  "urls", "code_url", "authors", "year", "venue")


def prepare(e: Entry) -> tuple:
    """What the index needs of an entry: its :func:`_paper_row`."""
    return _paper_row(e)


def prepare_file(entries: list[Entry]) -> tuple[list[tuple], Counter[str]]:
    """:func:`prepare` of each entry, and the file's vocabulary: term → papers of this file
    that have it (a paper twice in the file counts once).

    Runs where the entries were parsed (a worker process on a large sync, see db.seeds.parallel), so
    that the calling process adds up ~50 counters (~25,000 words each) instead of counting
    every paper's ~110 words (12 µs a paper).
    """
    rows = [_paper_row(e) for e in entries]
    seen: set[str] = set()

    def terms() -> Iterator[set[str]]:  # (one paper's words at a time: ~10 kB each)
        for e, row in zip(entries, rows, strict=True):
            if e.id not in seen:
                seen.add(e.id)
                yield _terms(e, row[6])

    vocab: Counter[str] = Counter()
    vocab.update(chain.from_iterable(terms()))  # (one call: counted in C)
    return rows, vocab


def _paper_row(e: Entry) -> tuple:
    """An entry as the values of :data:`_PAPER_COLUMNS`: the one place an Entry becomes a row.

    body: the abstract as the FTS indexes it (CJK characters split, db.text.search_form), NULL
    when that is the abstract itself; the vocabulary is taken from the same form, so that
    "BERT" inside Chinese text is a known word.
    """
    return (e.id, e.name, e.title, e.headline, _source(e), e.abstract_markup,
            _body(e.abstract_markup), json.dumps(list(e.urls)) if e.urls else "[]", e.code_url,
            _authors(e), e.year, e.venue)


def _collection(e: Entry, file_collection: str) -> str:
    """A record's own venue (and year) is its collection (one JSON file may hold many venues);
    else its first seed file's."""
    return f"{e.venue} {e.year or ''}".strip() if e.venue else file_collection


#: New papers from which the FTS rows are written by one statement instead of a trigger each.
BULK_MIN_ROWS = 200


_INSERT_PAPER = (f"INSERT INTO papers({', '.join(_PAPER_COLUMNS)}, first_file, first_pos, "
                 f"collection) VALUES ({', '.join('?' * (len(_PAPER_COLUMNS) + 3))})")


def _insert_papers(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    """Insert new papers and index them.

    The per-row FTS trigger costs twice the insert itself (10,000 abstracts: 0.9 s against
    0.4 s for the same rows and one ``INSERT INTO papers_fts ... SELECT``), so many new rows go
    in with the trigger dropped (inside this transaction: no other connection ever sees the
    index without it) and are indexed by one statement. New rowids are all above the old maximum.
    """
    if len(rows) < BULK_MIN_ROWS:
        conn.executemany(_INSERT_PAPER, rows)
        return
    last = conn.execute("SELECT coalesce(max(rowid), 0) FROM papers").fetchone()[0]
    conn.execute("DROP TRIGGER IF EXISTS papers_ai")
    conn.executemany(_INSERT_PAPER, rows)
    conn.execute(PAPERS_AI_TRIGGER)
    _index_new_rows(conn, last)


#: FTS5's buffer of new terms (its ``hashsize``), default and during a first build: each time
#: it fills, FTS5 writes a segment, and segments are merged as they pile up. 87k abstracts:
#: 2.6 s of CPU to index them with a 64 MiB buffer, 3.2 s with the default 1 MiB; the buffer
#: is memory for the sync's time only (set back before the commit).
FTS_HASH_BYTES = 1024 * 1024
BULK_FTS_HASH_BYTES = 64 * 1024 * 1024


def _fts_config(conn: sqlite3.Connection, name: str, value: int) -> None:
    """Set an FTS5 configuration option of the index (kept in the index, in the transaction)."""
    conn.execute("INSERT INTO papers_fts(papers_fts, rank) VALUES (?, ?)", (name, value))


def _index_new_rows(conn: sqlite3.Connection, last: int) -> None:
    """Index the papers of rowid above ``last`` in the FTS table, by one statement."""
    fts = ", ".join(r[1] for r in conn.execute("PRAGMA table_info(papers_fts)"))
    conn.execute(f"INSERT INTO papers_fts(rowid, {fts}) SELECT rowid, {fts} FROM papers_search "
                 "WHERE rowid > ?", (last,))


def _body(markup: str) -> str | None:
    """The FTS text of an abstract when it differs from the abstract (CJK, non-ASCII), else None."""
    form = search_form(markup)
    return None if form == markup else form


def _source(entry: Entry) -> str | None:
    """The abstract as in the seed file, stored only where it differs from the repaired text
    (a few per cent of abstracts): storing it twice would nearly double the index."""
    return None if entry.abstract_source == entry.abstract_markup else entry.abstract_source


def _update_vocab(conn: sqlite3.Connection, delta: Counter[str]) -> None:
    """Add ``delta`` (term → change of its document frequency) to the vocabulary."""
    if not conn.execute("SELECT 1 FROM vocab LIMIT 1").fetchone():  # a first build
        # plain inserts in key order: no conflict to look for, each row appended to the
        # B-tree (87k abstracts: ~90,000 terms in 0.06 s instead of 0.16)
        conn.executemany("INSERT INTO vocab(term, df) VALUES (?, ?)",
                         sorted((t, n) for t, n in delta.items() if n > 0))
        return
    rows = [(t, n) for t, n in delta.items() if n]
    conn.executemany(
        "INSERT INTO vocab(term, df) VALUES (?, ?) "
        "ON CONFLICT(term) DO UPDATE SET df = df + excluded.df", rows)
    conn.execute("DELETE FROM vocab WHERE df <= 0")


def sync(conn: sqlite3.Connection, seed_paths: list[Path], force: bool = False,
         progress: Progress | None = None) -> tuple[SyncReport, list[str]]:
    """Run a whole sync; returns the report (without mark re-attachment) and the added ids."""
    started = time.perf_counter()
    report = SyncReport()
    index_file = conn.execute("PRAGMA database_list").fetchone()[2]
    if index_file:  # the dictionary that parsing needs is kept beside the index
        cache_dictionary_in(Path(index_file).parent)
    added_ids: list[str] = []
    # a first build inserts into an empty index, builds its secondary indexes after the rows
    # and the FTS index in one statement: nothing is left to compact (87k abstracts: the file
    # 0.3% smaller after compact(), which took 1-1.7 s)
    first_build = not conn.execute("SELECT 1 FROM papers LIMIT 1").fetchone()
    streamed = None
    if first_build and _seed_bytes(seed_paths) >= STREAM_MIN_BYTES and (
            force or index_is_stale(conn, seed_paths)):
        streamed = _first_build(conn, seed_paths, force, progress, report)
    if streamed is not None:
        added_ids = streamed
    else:
        to_apply, removed, report.files, _ = plan_changes(conn, seed_paths, force, progress)
        if to_apply or removed:
            added_ids = apply_changes(conn, to_apply, removed, report, force)
    if force and not fts_integrity_ok(conn):  # damage in the FTS pages alone: rebuild them
        conn.execute("INSERT INTO papers_fts(papers_fts) VALUES ('rebuild')")
        report.notices.append("the full-text index was inconsistent; rebuilt it")
    report.papers = conn.execute("SELECT count(*) FROM papers").fetchone()[0]
    if report.added >= BULK_MIN_ROWS and report.added * 2 >= report.papers and not first_build:
        compact(conn)
    report.seconds = time.perf_counter() - started
    return report, added_ids


#: Bytes of seed files from which a first build writes each file while the next are parsed
#: (~200 abstracts, :data:`BULK_MIN_ROWS`).
STREAM_MIN_BYTES = 200_000


def _seed_bytes(seed_paths: list[Path]) -> int:
    total = 0
    for f in discover(seed_paths).files:
        with contextlib.suppress(OSError):
            total += f.stat().st_size
    return total


def _first_build(conn: sqlite3.Connection, seed_paths: list[Path], force: bool,
                 progress: Progress | None, report: SyncReport) -> list[str] | None:
    """A sync into an index with no papers: each file's papers are written as soon as it is
    parsed, so the writing overlaps the parsing of the next files (worker processes) instead
    of following all of it. Returns the added ids, or None when the write lock is not free at
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
        writer = _Writer(conn, report, force, bulk=True, stream=True)
        to_apply, removed, report.files, _ = plan_changes(conn, seed_paths, force, progress,
                                                          on_parsed=writer.add)
        for p in to_apply:  # the files whose fingerprint only needs refreshing
            writer.add(p)
        added = writer.finish(removed)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return added


def compact(conn: sqlite3.Connection) -> None:
    """After a (mostly) new build: merge the FTS segments into one and VACUUM the file.

    A bulk load leaves FTS5's merged-away segments as free pages and the secondary indexes
    (filled in paper-id order) two-thirds full: 10,000 abstracts, 24.3 MiB before, 23.0 after,
    for ~0.3 s. A busy database (another process reading) is left as it is: this only saves space.
    """
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("INSERT INTO papers_fts(papers_fts) VALUES ('optimize')")
        conn.execute("VACUUM")


def fts_integrity_ok(conn: sqlite3.Connection) -> bool:
    """FTS5's own integrity-check of the index against its content table."""
    try:
        conn.execute("INSERT INTO papers_fts(papers_fts, rank) VALUES ('integrity-check', 1)")
        return True
    except sqlite3.DatabaseError:
        return False


def index_is_stale(conn: sqlite3.Connection, seed_paths: list[Path]) -> bool:
    """Cheap check (stat only, nothing read) whether a sync would have anything to do."""
    found = discover(seed_paths)
    files = found.files
    known = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT path, size, mtime_ns FROM files")
             if not _under(r[0], found.missing_roots)}  # kept while their folder is missing
    if found.missing_roots and not files:
        return False  # nothing to load, and nothing is removed (see plan_changes)
    if set(known) != {str(f) for f in files}:
        return True
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            return True
        if known[str(f)] != (st.st_size, st.st_mtime_ns):
            return True
    return False


def _meta(entry: Entry) -> str | None:
    """The fields a structured seed's record gives its paper, as JSON (None for a text seed)."""
    if not entry.rich:
        return None
    return json.dumps({"title": entry.title, "authors": list(entry.authors), "year": entry.year,
                       "venue": entry.venue, "urls": list(entry.urls),
                       "code_url": entry.code_url}, ensure_ascii=False)


def _fields_of(conn: sqlite3.Connection, every: bool = False) -> dict[str, dict]:
    """Affected paper id → the fields of its first structured source (file path, position).
    ``every``: every paper is affected (a first build), temp.affected is not filled."""
    found: dict[str, str] = {}
    for paper_id, meta in conn.execute(
            "SELECT paper_id, meta FROM sources WHERE meta IS NOT NULL AND (? OR paper_id IN "
            "(SELECT id FROM temp.affected)) ORDER BY file, position", (every,)):
        found.setdefault(paper_id, meta)
    return {k: json.loads(v) for k, v in found.items()}


def _with_fields(entry: Entry, fields: dict | None) -> Entry:
    """``entry`` with a structured source's fields, or with none (as its abstract alone gives)."""
    if fields is None:
        # a title-only paper (no abstract) always has a structured source
        if not entry.rich or not entry.abstract_source:
            return entry
        from db.seeds.entry import abstract_entry

        return abstract_entry(entry.abstract_source, entry.position, entry.collection)
    return replace(entry, title=fields["title"], authors=tuple(fields["authors"]),
                   year=fields["year"], venue=fields["venue"], urls=tuple(fields["urls"]),
                   code_url=fields["code_url"], rich=True)


def _entries_of(conn: sqlite3.Connection, ids: list[str]) -> list[Entry]:
    """Entries rebuilt from the index's rows of existing papers (no seed file is read)."""
    out = []
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for row in conn.execute(
                "SELECT id, name, title, headline, coalesce(abstract_source, abstract), abstract, "
                "urls, code_url, authors, year, venue FROM papers WHERE id IN "
                f"({','.join('?' * len(chunk))})", chunk):
            out.append(Entry(
                id=row[0], position=0, collection="", abstract_source=row[4],
                abstract_markup=row[5], name=row[1], title=row[2], headline=row[3],
                urls=tuple(json.loads(row[6])), code_url=row[7],
                authors=tuple(row[8].split("; ")) if row[8] else (), year=row[9], venue=row[10],
                rich=bool(row[2] or row[8] or row[9] or row[10])))
    return out


def _terms(entry: Entry, body: str | None = "") -> set[str]:
    """The vocabulary words of a paper: name, title, abstract as the FTS sees it, authors."""
    body = _body(entry.abstract_markup) if body == "" else body
    return terms_of(" ".join(filter(None, (entry.name, entry.title,
                                           body or entry.abstract_markup, _authors(entry)))))


def _authors(entry: Entry) -> str | None:
    return "; ".join(entry.authors) or None
