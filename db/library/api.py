"""``Library``: the one API both front ends use (open, sync, search, get, mark, undo, counts).

One SQLite connection per thread (a front end may call from worker threads); WAL mode, a busy
timeout and short write transactions let several processes share one data dir.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from db.index import sync as sync_db
from db.library import choice, export, recovery, views
from db.library.connections import Connections
from db.library.recovery import recovering
from db.library.saved import SavedSearches
from db.library.transfer import MarksTransfer
from db.marks import notes as notes_db
from db.marks import refind, statuses
from db.marks.backup import maybe_backup
from db.models import SORTS, LibraryError, MarkChange, Paper, SearchResult, SyncReport
from db.seeds.discover import discover
from db.store.paths import writing

if TYPE_CHECKING:  # imported by the commands that need them (a warm `stats` needs neither)
    from db.search.spelling import Vocabulary

DEFAULT_LIMIT = 200
EXPORT_PAGE = 5000  # papers per query page while exporting


# The search modules are imported at first use: ranking, spelling and the query rewriting cost
# a warm ``papertray stats`` ~20 ms of imports it does not use.
def _search():
    from db.search import run
    return run


def _hits():
    from db.search import hits
    return hits


def _similar():
    from db.search import similar
    return similar


def _titles(conn: sqlite3.Connection, titles: list[str], collection: str) -> list:
    from db.search.known import match_titles  # (when a catalogue is matched)
    return match_titles(conn, titles, collection)


class Library(SavedSearches, MarksTransfer):
    """A reader's library: seed files, their index, and the reader's marks (and the saved
    searches and query history kept with them: :class:`SavedSearches`; marks files to carry
    them to another machine: :class:`MarksTransfer`).

    ``seeds`` are folders or files (None: the library in force, :func:`choice.choose`, said by
    :attr:`seeds_from`); ``data_dir`` holds the database files (default: platformdirs, see
    :class:`db.store.paths.DataPaths`); the index is this library's own
    (:func:`db.store.libraries.claim`), the marks file one for all. Opening does not sync;
    call :meth:`sync` (the CLI does at every command, the browser in the background).
    Raises :class:`LibraryError` when the data folder or the marks file cannot be used.
    ``check_marks`` checks the marks file first and rebuilds it if it is damaged (the browser
    and ``papertray stats`` do; said in :attr:`notices`).
    """

    def __init__(self, seeds: Sequence[str | os.PathLike[str]] | None = None,
                 data_dir: str | os.PathLike[str] | None = None, check_marks: bool = False):
        chosen, self.paths, fresh = choice.open_paths(seeds, data_dir)
        self.seed_paths, self.seeds_from = chosen.seeds, chosen.source
        self._db = Connections(self.paths, quiet_missing=fresh)
        self._lock = threading.RLock()
        self._vocabulary: Vocabulary | None = None
        self.notices: list[str] = []
        #: what is wrong with the marks file when ``check_marks`` found it damaged and could
        #: not rebuild it (another papertray has it open), else None
        self.marks_damage: str | None = None
        if check_marks:
            recovery.check_marks(self)
        marks = self._marks()  # open now, so that a bad data dir fails here and not in a worker
        #: the backup made on opening (at most every few hours), or None
        self.opening_backup = maybe_backup(marks, self.paths.marks)

    def _index(self) -> sqlite3.Connection:
        return self._db.index()

    def _marks(self) -> sqlite3.Connection:
        return self._db.marks()

    def close(self) -> None:
        """Close the library's connections (see :meth:`Connections.close`); it opens anew
        when used again."""
        self._db.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sync ----------------------------------------------------------------------------
    @recovering
    def needs_sync(self) -> bool:
        """True when a seed file was added, removed or changed since the last sync (stat only).

        Also notices a file that another papertray replaced by name (a damaged index set aside
        and built anew, a deleted cache, an unreadable marks file rebuilt): the connections move
        to the new file."""
        self._db.follow_replaced_files()
        return sync_db.index_is_stale(self._index(), self.seed_paths)

    def sync(self, force: bool = False, progress: sync_db.Progress | None = None,
             verify: bool = False) -> SyncReport:
        """Bring the index in step with the seed files; returns what changed. Unchanged files
        are only stat()ed; ``force`` re-reads everything (marks are untouched); ``verify``
        first checks the whole index (:func:`recovery.set_aside_if_damaged`). Marks whose
        paper disappeared are re-attached to near-identical new papers or counted as orphans.
        A damaged index is moved aside and rebuilt (said in ``report.notices``)."""
        if verify and not force:
            force = recovery.set_aside_if_damaged(self)
        try:
            notes_db.keep_missing_anchors(self._index(), self._marks(), self._describe)
            report, changes = sync_db.sync(self._index(), self.seed_paths, force, progress, _titles)
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise LibraryError("the index is busy in another papertray; try again") from None
            # a full disk, say, is no damage: moving the index would not help
            damage = recovery.index_damaged(self, exc)
            if damage is None:
                raise
            recovery.set_index_aside(self, damage)
            report, changes = sync_db.sync(self._index(), self.seed_paths, True, progress, _titles)
        if report.did_change:
            self._vocabulary = None
        if changes.added or changes.left or changes.merged:
            report.reattached = self._reattach(changes)
        report.orphans = len(self.orphans())
        report.notices = self.take_notices() + report.notices
        return report

    def take_notices(self) -> list[str]:
        """What the library did on its own since the last call (rebuilt a damaged index or
        marks file...), one line each; the list is emptied."""
        with self._lock:
            taken, self.notices = self.notices, []
        return self._db.take_notices() + taken

    def _reattach(self, changes: sync_db.Changes) -> int:
        orphan_ids = [row[0] for row in self.orphans()]
        orphan_ids += [row[0] for row in self.orphan_annotations()]
        return refind.follow_edits(self._index(), self._marks(), orphan_ids, *changes)

    # -- reading -------------------------------------------------------------------------
    @recovering
    def search(self, query: str = "", status: str | None = None, limit: int = DEFAULT_LIMIT,
               offset: int = 0, typing: bool = False, hidden: bool = False,
               sort: str = "relevance") -> SearchResult:
        """Hits for ``query`` (the query language of docs/search.md), best first, one page.

        Returns at most ``limit`` hits after skipping ``offset``; ``total`` counts them all. An
        empty query lists every paper in seed order. ``status`` (a status or "all") filters;
        ``hidden`` counts the hits it leaves out too (a second pass over the index).
        ``typing`` makes the last word a prefix; ``sort`` lists the same hits in another order
        of :data:`~db.models.SORTS`. ``like:ID`` and ``like:to-read`` (the whole query) give
        :meth:`similar` and :meth:`like_to_read`, by likeness. Never raises on query text;
        raises :class:`LibraryError` for an unknown status or sort.
        """
        statuses.check(status, None, "all")
        if sort not in SORTS:
            raise LibraryError(f"unknown sort {sort!r}: use {', '.join(SORTS)}")
        limit = max(0, min(int(limit), 10_000))
        offset = min(max(0, int(offset)), 2**62)  # SQLite integers are 64-bit
        target = _similar().like_target(query)
        if target is not None:
            try:
                if target == _similar().TO_READ:
                    return self.like_to_read(limit, offset)
                return self.similar(target, None if status == "all" else status, limit, offset)
            except LibraryError as exc:
                return SearchResult(query, query, str(exc), 0, [])
        return recovery.checked_search(self, query, lambda: _search().run(
            self._index(), query, status, limit, offset, self._vocab, typing, hidden, sort,
            self._db.beside))

    @recovering
    def similar(self, paper_id: str, status: str | None = None, limit: int = DEFAULT_LIMIT,
                offset: int = 0) -> SearchResult:
        """The papers most like ``paper_id`` (an id or unique prefix), best first, without it:
        bm25 over its most distinctive words (:mod:`db.search.similar`). ``status`` filters the
        hits.
        Raises :class:`LibraryError` for an unknown id or status."""
        statuses.check(status, None)
        paper = self.get(paper_id)
        return _similar().similar(self._index(), paper.id, paper.label, status,
                                  max(0, min(int(limit), 10_000)), max(0, int(offset)))

    @recovering
    def like_to_read(self, limit: int = DEFAULT_LIMIT, offset: int = 0) -> SearchResult:
        """New papers ranked by likeness to all to-read papers together (:mod:`db.search.similar`);
        no hits, with a notice, when nothing is to-read."""
        return _similar().like_to_read(self._index(), max(0, min(int(limit), 10_000)),
                                       max(0, int(offset)))
    def snippets(self, ids: Sequence[str], terms: Sequence[str],
                 marks: tuple[str, str] = ("**", "**")) -> dict[str, str]:
        """One line of each paper's abstract around its matches of ``terms``: see
        :func:`db.search.hits.snippets`."""
        return _hits().snippets(self._index(), ids, terms, marks)

    def _vocab(self) -> Vocabulary:
        if self._vocabulary is None:
            from db.search.spelling import Vocabulary

            self._vocabulary = Vocabulary.load(self._index())
        return self._vocabulary

    @recovering
    def resolve(self, prefix: str) -> str:
        """The full id of the one paper whose id starts with ``prefix`` (case-insensitive).

        Raises :class:`LibraryError` when no paper or more than one paper matches.
        """
        prefix = prefix.strip().lower()
        if not prefix or not all(c in "0123456789abcdef" for c in prefix):
            raise LibraryError(f"{prefix!r} is not a paper id (ids are hex, like 3fa2c01b)")
        rows = self._index().execute(
            "SELECT id FROM papers WHERE id >= ? AND id < ? LIMIT 2",
            (prefix, prefix + "g")).fetchall()
        if not rows:
            raise LibraryError(f"no paper has an id starting with {prefix}")
        if len(rows) > 1:
            raise LibraryError(f"id prefix {prefix} is ambiguous; type more of it")
        return rows[0][0]

    @recovering
    def get(self, paper_id: str) -> Paper:
        """The whole paper with this id or unique id prefix. Raises :class:`LibraryError`."""
        full = self.resolve(paper_id)
        conn = self._index()
        row = conn.execute(_hits().paper_row_sql() + " WHERE p.id = ?", (full,)).fetchone()
        if row is None:
            raise LibraryError(f"no paper has the id {paper_id}")
        return Paper(**_hits().paper_from_row(conn, row))

    @recovering
    def successor(self, paper_id: str, text: str) -> str | None:
        """The id now of paper ``paper_id``, whose abstract (or title) was ``text``, after the
        index changed (a sync here or in another papertray): itself, its edited version (found
        as its marks would be, :func:`db.marks.refind.successor`), or None when it is gone."""
        return refind.successor(self._index(), self._marks(), paper_id, text)

    def papers(self, query: str = "", status: str | None = None,
               ids: Sequence[str] | None = None) -> Iterator[Paper]:
        """Every paper a query finds (whole papers, best first; seed order for no query), read
        a page of :data:`EXPORT_PAGE` at a time, for exports; or, given ``ids`` (full ids),
        those papers in that order (ids the index lacks left out). Never raises on query
        text."""
        offset = 0
        while ids is None:
            result = self.search(query, status, limit=EXPORT_PAGE, offset=offset)
            yield from self._papers([h.id for h in result.hits])
            offset += len(result.hits)
            if not result.hits or offset >= result.total:
                return
        for start in range(0, len(ids), EXPORT_PAGE):
            yield from self._papers(list(ids[start:start + EXPORT_PAGE]))

    def export(self, query: str, status: str | None, fmt: str, out: TextIO,
               ids: Sequence[str] | None = None) -> int:
        """Write the papers ``query`` finds (or the papers ``ids``: :meth:`papers`) to ``out``
        in ``fmt`` (:data:`export.FORMATS`); returns how many. Raises ValueError for an
        unknown format."""
        return export.write(self.papers(query, status, ids), fmt, out, query)

    def export_file(self, path: Path, query: str = "", status: str | None = None,
                    fmt: str | None = None, ids: Sequence[str] | None = None,
                    new: bool = False) -> int:
        """:meth:`export` into ``path`` (format from its ending when ``fmt`` is None, else
        Markdown), written whole or not at all, with ``new`` never over a file that exists
        (:func:`db.store.paths.writing`). Raises OSError, :class:`LibraryError` for a database."""
        fmt = fmt or export.format_of(path)
        with writing(path, new) as out:
            return self.export(query, status, fmt, out, ids)

    def export_to_data_dir(self, query: str = "", status: str | None = None,
                           fmt: str = "md", ids: Sequence[str] | None = None
                           ) -> tuple[Path, int]:
        """:meth:`export_file` into a new file of ``exports/`` beside the marks file (the
        browser's export: :func:`export.new_file`); returns the path and how many. OSError."""
        path = export.new_file(self.exports_folder, fmt)
        return path, self.export_file(path, query, status, fmt, ids, new=True)

    @property
    def exports_folder(self) -> Path:
        """Where the browser's exports go: ``exports/`` beside the marks file."""
        return self.paths.marks.parent / "exports"

    @recovering
    def _papers(self, ids: list[str]) -> list[Paper]:
        return _hits().whole_papers(self._index(), ids)

    @recovering
    def counts(self) -> dict[str, int]:
        """``{"all", "new", "to-read", "read", "dismissed"}``: papers in the index by status."""
        return views.counts(self._index())

    @recovering
    def collections(self) -> dict[str, int]:
        """Collection label → number of papers, largest first (:func:`views.collections`)."""
        return views.collections(self._index())

    @recovering
    def orphans(self) -> list[tuple[str, str, str, str | None]]:
        """Marks whose paper is not in the index: ``(paper_id, status, updated_at, label)``."""
        return views.orphans(self._index())

    @recovering
    def orphan_annotations(self) -> list[tuple[str, str, tuple[str, ...], str, str | None]]:
        """Notes and tags whose paper is not in the index: ``(paper_id, note, tags,
        updated_at, label)``, oldest first (:func:`views.orphan_annotations`)."""
        return views.orphan_annotations(self._index())

    @recovering
    def stats(self) -> dict:
        """The ``papertray stats --json`` shape (:func:`views.stats`); a damaged marks file that
        could not be rebuilt is its first problem."""
        problems = [(str(self.paths.marks), self.marks_damage)] if self.marks_damage else []
        return views.stats(self._index(), problems + discover(self.seed_paths).problems)

    # -- marks ---------------------------------------------------------------------------
    @recovering
    def set_status(self, ids: Iterable[str], status: str) -> list[MarkChange]:
        """Set the status of papers (ids or unique prefixes) in one undoable step.

        Returns the changes made; papers already at ``status`` are skipped. Written at once
        (no save step). Raises :class:`LibraryError` for an unknown id or status.
        """
        full = [self.resolve(i) for i in ids]
        return statuses.set_status(self._marks(), full, status, self._describe)

    def index_version(self) -> int:
        """A number that changes when a sync by any process changed what the index holds (a seed
        file loaded, changed, failed or removed), so a window can tell that another papertray
        synced the seed files first. Comparable within one process only. Cheap: the files table
        (one row per seed file)."""
        return hash(tuple(self._index().execute(
            "SELECT path, sha256, status FROM files ORDER BY path")))

    def marks_version(self) -> int:
        """A number that grows with every marking step, undo and re-attachment written to the
        marks file by any process (the newest history row), so a window can tell that another
        one changed marks. Cheap: one indexed lookup."""
        return self._marks().execute("SELECT coalesce(max(seq), 0) FROM mark_events").fetchone()[0]

    def backup_marks(self, force: bool = False) -> Path | None:
        """Back up the marks file if one is due (or now, with ``force``); see
        :mod:`db.marks.backup`.

        Returns the backup's path, or None when none was due or it could not be written."""
        return maybe_backup(self._marks(), self.paths.marks, force=force)

    @recovering
    def undo(self) -> list[MarkChange]:
        """Undo the latest step (marks, a note or tags) not yet undone; returns what changed
        ([] if nothing)."""
        return statuses.undo(self._marks(), self._describe)

    @recovering
    def set_note(self, paper_id: str, text: str) -> list[MarkChange]:
        """Replace the note of a paper (id or unique prefix; "" deletes it) in one undoable
        step; returns ``[MarkChange(id, old, new, "note")]`` or ``[]`` when unchanged. Notes are
        one line of at most :data:`db.marks.notes.MAX_NOTE_CHARS`. Raises :class:`LibraryError`."""
        return notes_db.set_note(self._marks(), self.resolve(paper_id), text, self._describe)

    @recovering
    def tag(self, ids: Iterable[str], tags: Iterable[str],
            remove: bool = False) -> list[MarkChange]:
        """Add ``tags`` to the papers (ids or unique prefixes), or remove them, in one undoable
        step; returns one change per tag added or removed. Tags are folded
        (:func:`db.text.tag_name`). Raises :class:`LibraryError` for an unknown id or a bad
        tag."""
        full = [self.resolve(i) for i in ids]
        return notes_db.change_tags(self._marks(), full, tags, remove, self._describe)

    def annotations(self) -> list[dict]:
        """Every note and tag in the marks file, ``[{"id", "note", "tags"}]`` by id, for
        exports (papers gone from the index included)."""
        return notes_db.annotations(self._marks())

    def _describe(self, paper_id: str) -> tuple[str | None, str] | None:
        return views.describe(self._index(), paper_id)

    def fts_ok(self) -> bool:
        """FTS5's integrity-check of the index (True when the index is consistent)."""
        return sync_db.fts_integrity_ok(self._index())
