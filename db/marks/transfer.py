"""Marks that travel: export them to a JSON file, and merge such a file into the marks.

The file (``papertray marks export``) holds every mark with its paper id, status and time, and
enough of the paper to find it when ids differ (another version of a seed file): its title or
name and the normalized start of its abstract (:func:`db.marks.history.anchor`). A paper set back
to
*new* is written too (status ``new``, from the history), so that the reset travels as well.

Merging (``papertray marks import``): per paper, the newer ``updated_at`` wins; on a tie the
marks here are kept, so a second import of the same file changes nothing. A mark whose id is
not in the index is re-attached to the paper whose text it matches (rapidfuzz ratio >=
:data:`db.marks.history.REATTACH_MIN_RATIO`, as a sync does), else kept as an orphan — never
dropped.
Every change is one ``mark`` batch in ``mark_events``: ``papertray undo`` undoes an import.

Notes and tags (:mod:`db.marks.notes`) travel in the same file, under ``annotations``: a note is
merged
like a mark (the newer note wins; an empty note from the other side never erases one here), tags
are merged as a union (a tag removed on one machine is not removed on the other by an import).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from db.marks import exported
from db.marks import notes as notes_db
from db.marks.history import ANCHOR_CHARS, Describe, log_event, next_batch, now
from db.marks.statuses import status_of
from db.models import STATUSES, LibraryError, MarkChange
from db.store.sqlite import write_transaction
from db.text import one_line

if TYPE_CHECKING:
    from db.marks.refind import Finder

FORMAT = "papertray-marks"
VERSION = 1
_STAMP_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z")



@dataclass(slots=True)
class ImportSummary:
    """What an import did. ``changed`` are the marks written (old → new status, per paper)."""

    read: int = 0
    changed: list[MarkChange] = field(default_factory=list)
    reattached: int = 0  # records whose id was unknown, matched to a paper by its text
    orphans: int = 0  # records kept as orphan marks (no paper here has their id or text)
    unchanged: int = 0  # same status here already
    older: int = 0  # ours is newer (or as new): kept ours
    invalid: int = 0  # records without an id, a known status or an ISO 8601 UTC time
    notes: int = 0  # notes written (newer than ours, or new here)
    tags: int = 0  # tags added
    saved: int = 0  # saved searches added (a name taken here keeps ours)
    saved_invalid: int = 0  # saved searches skipped: not an object, no name or query, …

    def line(self) -> str:
        """The one-line summary the CLI prints."""
        parts = [f"{len(self.changed)} changed"]
        parts += [f"{n} {what}" for n, what in (
            (self.reattached, "re-attached by text"), (self.orphans, "kept as orphans"),
            (self.unchanged, "unchanged"), (self.older, "older than yours (kept yours)"),
            (self.invalid, "invalid (skipped)"),
            (self.notes, _plural(self.notes, "note") + " written"),
            (self.tags, _plural(self.tags, "tag") + " added"),
            (self.saved, _searches(self.saved) + " added"),
            (self.saved_invalid, _searches(self.saved_invalid) + " invalid (skipped)")) if n]
        return f"read {self.read} marks: " + ", ".join(parts)

    def to_json(self) -> dict:
        return {"read": self.read, "changed": [
            {"id": c.paper_id, "old": c.old, "new": c.new} for c in self.changed],
            "reattached": self.reattached, "orphans": self.orphans,
            "unchanged": self.unchanged, "older": self.older, "invalid": self.invalid,
            "notes": self.notes, "tags": self.tags, "saved": self.saved,
            "saved_invalid": self.saved_invalid}


def export_marks(index: sqlite3.Connection) -> dict:
    """The marks file's content as JSON data (``index`` has the marks attached as ``m``).

    ``{"format", "version", "exported_at", "marks": [{"id", "status", "updated_at", "title",
    "label", "anchor"}], "annotations": [{"id", "note", "note_updated_at", "tags", "title",
    "label", "anchor"}]}``; both sorted by id; ``title`` is null for a paper without one.
    """
    rows = index.execute(
        "SELECT k.paper_id, k.status, k.updated_at, p.title, "
        "coalesce(p.name, k.label, p.headline), k.anchor FROM m.marks k "
        "LEFT JOIN papers p ON p.id = k.paper_id").fetchall()
    # papers set back to new: their latest marking step, when no mark row is left
    latest: dict[str, tuple[str, str]] = {}
    for paper_id, new_status, at in index.execute(
            "SELECT paper_id, new_status, at FROM m.mark_events WHERE kind IN ('mark', 'undo') "
            "ORDER BY seq"):
        latest[paper_id] = (new_status, at)
    marked = {r[0] for r in rows}
    for paper_id, (status, at) in latest.items():
        if status == "new" and paper_id not in marked:
            paper = index.execute("SELECT title, coalesce(name, headline) FROM papers "
                                  "WHERE id=?", (paper_id,)).fetchone() or (None, None)
            rows.append((paper_id, "new", at, *paper, None))
    rows.sort()
    return {"format": FORMAT, "version": VERSION, "exported_at": now(), "marks": [
        {"id": r[0], "status": r[1], "updated_at": r[2], "title": r[3], "label": r[4],
         "anchor": r[5]} for r in rows], "annotations": _export_annotations(index)}


def _export_annotations(index: sqlite3.Connection) -> list[dict]:
    from db.marks.history import anchor

    found = []
    for item in notes_db.annotations(index, schema="m."):
        paper = index.execute("SELECT title, coalesce(name, headline), coalesce(nullif("
                              "abstract, ''), title) FROM papers WHERE id=?",
                              (item["id"],)).fetchone()
        if paper:
            title, label, text = paper
            found.append({**item, "title": title, "label": label,
                          "anchor": anchor(text) if text else None})
            continue
        # an orphan: the text kept when the note or tags were written (or the mark's) still
        # finds the paper on a machine that has it, maybe under another id
        kept = index.execute(
            "SELECT x.label, x.anchor FROM m.annotation_anchors x WHERE x.paper_id = ?1 "
            "UNION ALL SELECT k.label, k.anchor FROM m.marks k WHERE k.paper_id = ?1",
            (item["id"],)).fetchall()
        label = next((r[0] for r in kept if r[0]), None)
        text = next((r[1] for r in kept if r[1]), None)
        found.append({**item, "title": None, "label": label, "anchor": text})
    return found


def read_file(data: bytes) -> tuple[list, list, list]:
    """``(marks, annotations, saved searches)`` records of an exported marks file, or of an
    export of papers as JSON (:mod:`db.marks.exported`). Raises :class:`LibraryError`."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise LibraryError(f"not a papertray marks file (not JSON: {exc})") from None
    except RecursionError:  # [[[[…: nested deeper than Python parses
        raise LibraryError("not a papertray marks file (JSON nested too deeply)") from None
    if exported.is_export(doc):
        return (*[[_sane(r) for r in part] for part in exported.marks_of(doc)], [])
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(
            doc.get("marks"), list):
        raise LibraryError("not a papertray marks file (write one with `papertray marks export`)")
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise LibraryError(f"not a papertray marks file (version {one_line(repr(version))[:40]}"
                           " is no version number)")
    if version > VERSION:
        raise LibraryError(f"marks file version {version} is newer than this papertray reads; "
                           "update papertray")
    annotations, saved = doc.get("annotations", []), doc.get("saved_searches", [])
    return ([_sane(r) for r in doc["marks"]],
            [_sane(r) for r in annotations] if isinstance(annotations, list) else [],
            saved if isinstance(saved, list) else [])


def _sane(record: object) -> object:
    """A record whose ``title``, ``label`` and ``anchor`` are one-line strings or None (a file
    from elsewhere may hold numbers, lists or escape sequences there)."""
    if not isinstance(record, dict):
        return record
    texts = {key: one_line(value)[:limit] or None if isinstance(value, str) else None
             for key, limit in (("title", 1000), ("label", 1000), ("anchor", ANCHOR_CHARS))
             for value in (record.get(key),)}
    return {**record, **texts}


def import_marks(conn: sqlite3.Connection, records: list, known: Callable[[str], bool],
                 finder: Finder, annotations: list = (),
                 describe: Describe | None = None) -> ImportSummary:
    """Merge exported ``records`` (and ``annotations``: notes and tags) into the marks file
    (``conn``) in one transaction and one undoable batch.

    ``known(id)`` tells whether the index has a paper; ``finder`` (:class:`db.marks.refind.Finder`
    over the whole index) finds a paper by a record's anchor; ``describe`` gives a paper's text
    for the anchor kept with its notes and tags. Returns what changed; see the module.
    """
    summary = ImportSummary(read=len(records))
    homes = _Homes(known, finder)
    # Matching a record's text costs a few ms (20,000 records from other seed files: 2 min).
    # It is done before the write lock is taken, which a browser open on the same marks needs
    # for every mark: held all that time, the marks made meanwhile failed ("database is locked").
    homes.match([*(r for r in records if _valid(r) and r["status"] != "new"),
                 *(r for r in annotations if _valid_annotation(r))])
    with write_transaction(conn):
        batch = next_batch(conn)
        marked = {r[0] for r in conn.execute("SELECT paper_id FROM marks")}
        for record in records:
            _merge_mark(conn, batch, record, homes, marked, summary)
        annotated = {r[0] for r in conn.execute("SELECT paper_id FROM notes UNION "
                                                "SELECT paper_id FROM tags")}
        for record in annotations:
            if _valid_annotation(record):
                paper_id = homes.home(record, annotated) or record["id"]
                if _merge_annotation(conn, batch, paper_id, record, summary):
                    notes_db.keep_anchor(conn, paper_id, describe, record.get("anchor"))
    return summary


@dataclass(slots=True)
class _Homes:
    """Where an imported record belongs here: its own id, or the paper its text (its
    ``anchor``) matches. ``matched`` holds the matches made ahead (anchor → id or None)."""

    known: Callable[[str], bool]
    finder: Finder
    matched: dict[str, str | None] = field(default_factory=dict)

    def match(self, records: list[dict]) -> None:
        """Match the anchor of each record whose id the index does not know."""
        for record in records:
            text = record.get("anchor")
            if text and text not in self.matched and not self.known(record["id"]):
                self.matched[text] = self.finder.find(text)

    def home(self, record: dict, here: set[str]) -> str | None:
        """The paper a record of an unknown id (not in the index, not in ``here``) is
        re-attached to: the one its text matches; None when the id is known, or nothing
        matches."""
        if self.known(record["id"]) or record["id"] in here or not record.get("anchor"):
            return None
        text = record["anchor"]
        return self.matched[text] if text in self.matched else self.finder.find(text)


def _merge_mark(conn: sqlite3.Connection, batch: int, record: object, homes: _Homes,
                marked: set[str], summary: ImportSummary) -> None:
    """Merge one exported mark: written (and logged in ``batch``) when it is newer than the
    mark here and differs; ``marked`` (the ids with a mark row) gains its paper. What happened
    is counted in ``summary``."""
    if not _valid(record):
        summary.invalid += 1
        return
    paper_id = _mark_home(record, homes, marked, summary)
    if paper_id is None:
        return
    old, ours = _current(conn, paper_id)
    if ours is not None and ours >= record["updated_at"]:
        summary.older += old != record["status"]
        summary.unchanged += old == record["status"]
        return
    if old == record["status"]:
        summary.unchanged += 1
        return
    _write(conn, paper_id, record)
    marked.add(paper_id)
    # the record's own time: a reset to new carries it on to the next export
    log_event(conn, batch, record["updated_at"], "mark", paper_id, old, record["status"],
              "import")
    summary.changed.append(MarkChange(paper_id, old, record["status"]))


def _mark_home(record: dict, homes: _Homes, marked: set[str],
               summary: ImportSummary) -> str | None:
    """The id a valid mark record is merged into: its own when the index or the marks know it;
    else the paper its text matches (counted re-attached), or its own id (counted an orphan).
    None for an unknown paper set back to new: there is nothing to keep (counted unchanged)."""
    paper_id = record["id"]
    if homes.known(paper_id) or paper_id in marked:
        return paper_id
    found = homes.home(record, marked) if record["status"] != "new" else None
    if found:
        summary.reattached += 1
        return found
    if record["status"] == "new":
        summary.unchanged += 1
        return None
    summary.orphans += 1
    return paper_id


def _valid(record: object) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("id"), str)
            and re.fullmatch(r"[0-9a-f]{16}", record["id"]) is not None
            and record.get("status") in STATUSES
            and isinstance(record.get("updated_at"), str)
            and _stamp_ok(record["updated_at"]))


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


def _searches(n: int) -> str:
    return "saved search" if n == 1 else "saved searches"


def _valid_annotation(record: object) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("id"), str)
            and re.fullmatch(r"[0-9a-f]{16}", record["id"]) is not None
            and isinstance(record.get("note", ""), str)
            and isinstance(record.get("tags", []), list)
            and (not record.get("note") or (
                isinstance(record.get("note_updated_at"), str)
                and _stamp_ok(record["note_updated_at"]))))


def _merge_annotation(conn: sqlite3.Connection, batch: int, paper_id: str, record: dict,
                      summary: ImportSummary) -> bool:
    """Merge one paper's note (the newer wins) and tags (union), logging undoable events;
    True when something was written."""
    before = summary.notes + summary.tags
    def log(kind: str, old: str, new: str, at: str) -> None:
        log_event(conn, batch, at, kind, paper_id, old, new, "import")

    note = notes_db.note_text(record.get("note", ""))
    if note:
        row = conn.execute("SELECT text, updated_at FROM notes WHERE paper_id=?",
                           (paper_id,)).fetchone()
        if row is None or (row[1] < record["note_updated_at"] and row[0] != note):
            notes_db.write_note(conn, paper_id, note, record["note_updated_at"])
            log("note", row[0] if row else "", note, record["note_updated_at"])
            summary.notes += 1
    stamp = now()
    for tag in record.get("tags", []):
        try:
            name = notes_db.tag_name(tag) if isinstance(tag, str) else None
        except LibraryError:
            name = None
        if name and notes_db.write_tag(conn, paper_id, name, True, stamp):
            log("tag", "", name, stamp)
            summary.tags += 1
    return summary.notes + summary.tags > before


def _stamp_ok(stamp: str) -> bool:
    """An ISO 8601 UTC time as papertray writes it, of a real date, not in the future."""
    if _STAMP_RE.fullmatch(stamp) is None or stamp > _soon():
        return False
    try:
        datetime.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S")
    except ValueError:  # 2025-13-45T99:99:99Z
        return False
    return True


def _soon() -> str:
    """A time a little ahead of now: a mark "from the future" (a wrong clock) is refused."""
    later = datetime.now(UTC).timestamp() + 24 * 3600
    return datetime.fromtimestamp(later, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _current(conn: sqlite3.Connection, paper_id: str) -> tuple[str, str | None]:
    """``(status, when it was set)`` here; the time is None for a paper never marked."""
    row = conn.execute("SELECT status, updated_at FROM marks WHERE paper_id=?",
                       (paper_id,)).fetchone()
    if row:
        return row[0], row[1]
    last = conn.execute("SELECT max(at) FROM mark_events WHERE paper_id=? AND kind IN "
                        "('mark', 'undo')", (paper_id,)).fetchone()[0]
    return status_of(conn, paper_id), last


def _write(conn: sqlite3.Connection, paper_id: str, record: dict) -> None:
    """Set the mark with the record's own time, so that merging the other way agrees."""
    if record["status"] == "new":
        conn.execute("DELETE FROM marks WHERE paper_id=?", (paper_id,))
        return
    conn.execute(
        "INSERT INTO marks(paper_id, status, updated_at, label, anchor) VALUES (?,?,?,?,?) "
        "ON CONFLICT(paper_id) DO UPDATE SET status=excluded.status, "
        "updated_at=excluded.updated_at, label=coalesce(label, excluded.label), "
        "anchor=coalesce(anchor, excluded.anchor)",
        (paper_id, record["status"], record["updated_at"],
         record.get("title") or record.get("label"), record.get("anchor")))
