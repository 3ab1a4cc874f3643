"""Catalogues: seed files of titles without abstracts, made one with the abstracts they describe.

A conference publishes a catalogue (titles, authors, oral or poster, links; no abstracts) next
to lists of abstracts without titles (the shipped seeds). A seed file whose records have no
abstract at all is a catalogue: each of its titles is looked up among the library's abstracts
(``match_titles``, papertray's known-item search: :func:`db.search.known.match_titles`), and a
title that finds its abstract with a clear margin gives that paper its fields (title, authors,
year, venue, links...) as a structured source of it does: the catalogue's record becomes a
source of the abstract's paper, whose id (and so its marks) stays. A title that finds no
abstract, or cannot tell two apart, stays a paper of its own (title only).

The sync holds catalogues back (:class:`Held`, in front of :class:`db.index.write.Writer`)
until every other file is written, in the same write transaction, and then matches them
against the index as it now is: a catalogue that changed, and every catalogue when papers came
or went (an abstract edited, added or removed). Each re-match starts clean (the catalogue's old
sources taken out first), so that what a title finds does not depend on earlier matches.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import fields, replace
from pathlib import Path

from db.index.plan import Planned
from db.index.rows import details_of, entries_of, meta_json, prepare_file
from db.index.write import Changes, Writer
from db.models import SyncReport
from db.seeds.entry import Entry
from db.seeds.formats import title_id

#: ``match_titles(conn, titles, collection)`` → one ``(paper id or None, outcome)`` per title
#: of a catalogue of ``collection`` ("ICML 2025"), in order; outcome "matched", "ambiguous" or
#: "unmatched"; at most one title per paper. Reads the index.
MatchTitles = Callable[[sqlite3.Connection, list[str], str], list[tuple[str | None, str]]]

_ENTRY_FIELDS = frozenset(f.name for f in fields(Entry))


def is_catalogue(p: Planned) -> bool:
    """Whether a parsed seed file is a catalogue: records, and not one with an abstract."""
    return (p.status == "loaded" and bool(p.entries)
            and not any(e.abstract_source for e in p.entries or ()))


class Held:
    """A :class:`~db.index.write.Writer` that holds catalogues back until :meth:`finish`, and
    then writes them matched against the papers written before them. Same methods as the
    writer's (``add``, ``add_part``, ``finish``)."""

    def __init__(self, writer: Writer, match_titles: MatchTitles):
        self.writer, self.match_titles = writer, match_titles
        self.conn, self.report, self.force = writer.conn, writer.report, writer.force
        self.held: dict[str, Planned] = {}
        self.parts: dict[str, list[tuple]] = {}  # path → parts with no abstract, not yet written
        self.mixed: set[str] = set()  # paths with a part that has abstracts
        self.parsed: set[str] = set()  # paths parsed (or unreadable) in this sync

    def add(self, p: Planned) -> None:
        """Write a file as the writer does, or hold it back when it is a catalogue."""
        path = str(p.path)
        if p.status not in ("touched", "kept"):
            self.parsed.add(path)
        if path in self.held:
            return
        if is_catalogue(p):
            self.parts.pop(path, None)
            self.held[path] = p
            return
        for part in self.parts.pop(path, ()):
            self.writer.add_part(*part)
        self.writer.add(p)

    def add_part(self, path: Path, collection: str, entries: list[Entry],
                 prepared: tuple) -> None:
        """A part of a large file: written at once when the file has an abstract so far, else
        kept until the whole file is known (:meth:`add`)."""
        key = str(path)
        if key not in self.mixed and not any(e.abstract_source for e in entries):
            self.parts.setdefault(key, []).append((path, collection, entries, prepared))
            return
        self.mixed.add(key)
        for part in self.parts.pop(key, ()):
            self.writer.add_part(*part)
        self.writer.add_part(path, collection, entries, prepared)

    def finish(self, removed: list[str]) -> Changes:
        """Finish the writer, then match and write the catalogues (module docstring)."""
        first = self.writer.finish(removed)
        conn = self.conn
        for path in {*self.parsed, *removed} - set(self.held):  # no catalogue (any more)
            conn.execute("DELETE FROM catalogue WHERE file=?", (path,))
        plans = list(self.held.values())
        stored = _stored(conn, set(self.held))
        if stored and _abstracts_moved(conn, first.added + first.left):  # matched again
            plans += [_with_entries(conn, p) for p in stored]
        if not plans:
            return first
        second = self._rematch(plans, set(first.added))
        return Changes(first.added + second.added, sorted({*first.left, *second.left}),
                       second.merged)

    def _rematch(self, plans: list[Planned], new: set[str]) -> Changes:
        """Take the catalogues' old sources out, match their titles, write them again; the
        report counts what changed against the index before (not the steps between; ``new``:
        papers the sync added before, counted already)."""
        conn, paths = self.conn, [str(p.path) for p in plans]
        ids_before = _sourced(conn, paths)
        unchanged = [path for path in paths if path not in self.held]
        at_before = _places(conn, unchanged)
        before = _fields(conn, ids_before)
        scratch = SyncReport()
        Writer(conn, scratch, self.force, bulk=False).finish(paths)
        merged: list[tuple[str, str]] = []
        for p in plans:
            p.entries, outcomes, found = self._matched(p.entries or [], p.collection)
            merged += found
            # the fields an abstract without this catalogue as a source has in the index now
            before.update(_fields(conn, {pid for _, pid in found} - before.keys() - new))
            p.prepared, p.vocab, p.extras = prepare_file(p.entries)
            conn.execute("DELETE FROM catalogue WHERE file=?", (str(p.path),))
            conn.executemany(
                "INSERT OR REPLACE INTO catalogue(file, position, outcome, meta) VALUES (?,?,?,?)",
                [(str(p.path), position, outcome, meta)
                 for position, outcome, meta in outcomes])
        writer = Writer(conn, scratch, self.force, bulk=False)
        for p in plans:
            writer.add(p)
        written = writer.finish([])
        ids_after = _sourced(conn, paths)
        # an entry of an unchanged catalogue whose paper changed (its abstract gone: the title
        # alone again, or a title-only paper now one with its abstract): marks follow it
        at_after = _places(conn, unchanged)
        merged += [(pid, at_after[place]) for place, pid in at_before.items()
                   if at_after.get(place, pid) != pid]
        now = _fields(conn, ids_before | ids_after)
        added = [i for i in written.added if i not in ids_before]
        self.report.added += len(added)
        self.report.removed += sum(i not in now for i in ids_before)
        self.report.changed += sum(i in now and now[i] != old for i, old in before.items())
        return Changes(added, sorted(ids_before - ids_after), merged)

    def _matched(self, records: list[Entry], collection: str
                 ) -> tuple[list[Entry], list[tuple[int, str, str]], list[tuple[str, str]]]:
        """The catalogue's entries with each matched record made its abstract's entry, what
        each found (position, outcome, its record's fields), and ``(title id, abstract id)`` of
        each match."""
        found = self.match_titles(self.conn, [e.title or "" for e in records], collection)
        abstracts = {e.id: e for e in entries_of(self.conn, [pid for pid, _ in found if pid])}
        entries, outcomes, merged = [], [], []
        for record, (pid, outcome) in zip(records, found, strict=True):
            outcomes.append((record.position, outcome, meta_json(record) or "{}"))
            if pid and pid in abstracts:
                entries.append(merged_entry(abstracts[pid], record))
                merged.append((record.id, pid))
            else:
                entries.append(record)
        return entries, outcomes, merged


def merged_entry(abstract: Entry, record: Entry) -> Entry:
    """The abstract's entry with the fields the catalogue's ``record`` gives (whatever
    :func:`db.index.rows.meta_json` stores of a record), at the record's place: its links
    first, then the abstract's."""
    given = _values(json.loads(meta_json(record) or "{}"))
    given["urls"] = tuple(dict.fromkeys((*given.get("urls", ()), *abstract.urls)))
    given["code_url"] = given.get("code_url") or abstract.code_url
    return replace(abstract, **given, position=record.position, collection=record.collection,
                   rich=True)


def _values(meta: dict) -> dict:
    """A source's fields (:func:`db.index.rows.meta_json`) as an entry's: lists made tuples,
    the details object made its fields, other keys left out."""
    values = {k: tuple(v) if isinstance(v, list) else v for k, v in meta.items()
              if k in _ENTRY_FIELDS}
    if meta.get("details"):
        values.update(details_of(meta["details"]))
    return values


def record_entry(position: int, collection: str, meta: str) -> Entry:
    """A catalogue's record as its seed file gave it, from the fields kept in ``catalogue``."""
    given = _values(json.loads(meta))
    title = given.get("title") or ""
    entry = Entry(id=title_id(title), position=position, collection=collection,
                  abstract_source="", abstract_markup="", name=None, title=None, headline="",
                  urls=(), code_url=None)
    return replace(entry, **given, rich=True)


def _stored(conn: sqlite3.Connection, but: set[str]) -> list[Planned]:
    """The catalogues the index has (read whole before), but those in ``but``, as files
    parsed, without their entries (:func:`_with_entries`)."""
    return [Planned(Path(path), display, size, mtime_ns, sha256, "loaded", reason or "",
                    collection or "")
            for path, display, size, mtime_ns, sha256, reason, collection in conn.execute(
                "SELECT path, display, size, mtime_ns, sha256, reason, collection FROM files "
                "WHERE status = 'loaded' AND path IN (SELECT file FROM catalogue)")
            if path not in but]


def _with_entries(conn: sqlite3.Connection, p: Planned) -> Planned:
    """A stored catalogue with its records (as its file gave them) rebuilt from the index."""
    p.entries = [record_entry(position, p.collection, meta) for position, meta in conn.execute(
        "SELECT position, meta FROM catalogue WHERE file=? ORDER BY position", (str(p.path),))]
    return p


def _sourced(conn: sqlite3.Connection, paths: Iterable[str]) -> set[str]:
    """Ids of the papers the files ``paths`` are sources of."""
    found: set[str] = set()
    for path in paths:
        found.update(r[0] for r in conn.execute("SELECT paper_id FROM sources WHERE file=?",
                                                (path,)))
    return found


def _abstracts_moved(conn: sqlite3.Connection, ids: list[str]) -> bool:
    """Whether any of the papers ``ids`` (added, or that lost a source) is gone, or is an
    abstract: only those change what a catalogue's titles find (title-only papers added by a
    file of titles do not)."""
    for at in range(0, len(ids), 500):
        chunk = ids[at:at + 500]
        marks = ",".join("?" * len(chunk))
        known = conn.execute(f"SELECT count(*) FROM papers WHERE id IN ({marks})",
                             chunk).fetchone()[0]
        if known < len(set(chunk)) or conn.execute(
                f"SELECT 1 FROM papers WHERE id IN ({marks}) AND abstract != '' LIMIT 1",
                chunk).fetchone():
            return True
    return False


def _places(conn: sqlite3.Connection, paths: list[str]) -> dict[tuple[str, int], str]:
    """``{(file, position): paper id}`` of every source in the files ``paths``."""
    found = {}
    for path in paths:
        found.update(((path, position), pid) for position, pid in conn.execute(
            "SELECT position, paper_id FROM sources WHERE file=?", (path,)))
    return found


def _fields(conn: sqlite3.Connection, ids: set[str]) -> dict[str, tuple]:
    """``{id: row}`` of the papers ``ids`` that exist (the columns a sync writes)."""
    ordered, out = sorted(ids), {}
    for at in range(0, len(ordered), 500):
        chunk = ordered[at:at + 500]
        out.update((row[0], row[1:]) for row in conn.execute(
            "SELECT id, name, title, headline, authors, year, venue, code_url, urls, details, "
            f"collection FROM papers WHERE id IN ({','.join('?' * len(chunk))})", chunk))
    return out


def counts(conn: sqlite3.Connection) -> dict[str, int]:
    """The catalogues' entries in the index by outcome: matched, ambiguous, unmatched."""
    found = dict(conn.execute("SELECT outcome, count(*) FROM catalogue GROUP BY outcome"))
    return {k: found.get(k, 0) for k in ("matched", "ambiguous", "unmatched")}
