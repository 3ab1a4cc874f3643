"""Notes and tags: what the reader writes about a paper, kept in the marks file beside the marks.

A paper has at most one note (one line of text) and any number of tags (folded words such as
``moe`` or ``to-cite``). Every change is one short transaction that also appends to
``mark_events`` (kinds ``note`` and ``tag``), so ``undo`` takes it back like a mark, and other
windows see it (the marks file's version grows). The tables are created on opening a marks file
of an older papertray (``CREATE TABLE IF NOT EXISTS`` in :data:`db.marks.schema.MARKS_DDL`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from db.marks.history import Describe, anchor, log_event, next_batch, now
from db.models import LibraryError, MarkChange
from db.store.sqlite import write_transaction
from db.text import one_line, tag_name

#: Characters of a note kept (a note is a reminder, not a review; longer text is cut).
MAX_NOTE_CHARS = 2000


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def note_text(text: str) -> str:
    """A note as stored: one line, control characters removed, at most :data:`MAX_NOTE_CHARS`.

    A lone surrogate becomes U+FFFD: SQLite stores UTF-8, which has none (``UnicodeEncodeError``
    otherwise). Python makes one of each byte of a command-line argument that is not UTF-8 (a
    Latin-1 terminal's ``é``), and JSON may spell one (``\\ud800``, a marks file to import).
    """
    return _SURROGATE_RE.sub("\ufffd", one_line(text or "").strip())[:MAX_NOTE_CHARS]


def check_note_length(text: str) -> None:
    """Raise :class:`LibraryError` when ``text`` is longer than a note can be: a note given
    whole (the command line) is refused rather than cut, whose end would be lost unsaid."""
    length = len(one_line(text or "").strip())
    if length > MAX_NOTE_CHARS:
        raise LibraryError(f"a note is at most {MAX_NOTE_CHARS} characters and this one has "
                           f"{length}; nothing was saved")


def note_of(conn: sqlite3.Connection, paper_id: str) -> str:
    """The note of ``paper_id`` ("" when none)."""
    row = conn.execute("SELECT text FROM notes WHERE paper_id=?", (paper_id,)).fetchone()
    return row[0] if row else ""


def set_note(conn: sqlite3.Connection, paper_id: str, text: str,
             describe: Describe | None = None) -> list[MarkChange]:
    """Replace the note of ``paper_id`` (an empty ``text`` deletes it); one undoable step.

    ``describe`` (:data:`db.marks.history.Describe`) gives the paper's text, whose start is kept
    as its
    anchor (:func:`keep_anchor`) so that the note follows an edit of the abstract. Returns
    ``[MarkChange(paper_id, old, new, "note")]``, or ``[]`` when the note is unchanged.
    """
    text = note_text(text)
    stamp = now()
    with write_transaction(conn):
        old = note_of(conn, paper_id)
        if old == text:
            return []
        write_note(conn, paper_id, text, stamp)
        if text:
            keep_anchor(conn, paper_id, describe)
        log_event(conn, next_batch(conn), stamp, "note", paper_id, old, text)
    return [MarkChange(paper_id, old, text, "note")]


def write_note(conn: sqlite3.Connection, paper_id: str, text: str, stamp: str) -> None:
    """Store ``text`` as the note (delete it when ""), inside the caller's transaction."""
    if text:
        conn.execute("INSERT INTO notes(paper_id, text, updated_at) VALUES (?,?,?) "
                     "ON CONFLICT(paper_id) DO UPDATE SET text=excluded.text, "
                     "updated_at=excluded.updated_at", (paper_id, text, stamp))
    else:
        conn.execute("DELETE FROM notes WHERE paper_id=?", (paper_id,))


def change_tags(conn: sqlite3.Connection, ids: Iterable[str], tags: Iterable[str],
                remove: bool = False, describe: Describe | None = None) -> list[MarkChange]:
    """Add ``tags`` to (or with ``remove`` take them from) every paper in ``ids``; one undoable
    step (``describe``: as for :func:`set_note`). Returns one change per tag added or removed
    (tags already there, or already absent, are left out). Raises :class:`LibraryError` for a
    tag that is no tag (:func:`tag_name`).
    """
    names = list(dict.fromkeys(tag_name(t) for t in tags))
    changes: list[MarkChange] = []
    stamp = now()
    with write_transaction(conn):
        batch = next_batch(conn)
        for paper_id in dict.fromkeys(ids):
            for name in names:
                if write_tag(conn, paper_id, name, not remove, stamp):
                    old, new = (name, "") if remove else ("", name)
                    log_event(conn, batch, stamp, "tag", paper_id, old, new)
                    changes.append(MarkChange(paper_id, old, new, "tag"))
                    if not remove:
                        keep_anchor(conn, paper_id, describe)
    return changes


def write_tag(conn: sqlite3.Connection, paper_id: str, name: str, present: bool,
              stamp: str) -> bool:
    """Add (``present``) or remove one tag, inside the caller's transaction; True if it changed."""
    if present:
        cursor = conn.execute("INSERT OR IGNORE INTO tags(paper_id, tag, added_at) "
                              "VALUES (?,?,?)", (paper_id, name, stamp))
    else:
        cursor = conn.execute("DELETE FROM tags WHERE paper_id=? AND tag=?", (paper_id, name))
    return cursor.rowcount > 0


def undo_event(conn: sqlite3.Connection, kind: str, paper_id: str, old: str, new: str,
               stamp: str) -> MarkChange:
    """Take back one ``note`` or ``tag`` event inside the caller's transaction (used by
    :func:`db.marks.statuses.undo`); returns the change the undo made."""
    if kind == "note":
        current = note_of(conn, paper_id)
        write_note(conn, paper_id, old, stamp)
        return MarkChange(paper_id, current, old, "note")
    if new:  # the tag was added: remove it
        write_tag(conn, paper_id, new, False, stamp)
        return MarkChange(paper_id, new, "", "tag")
    write_tag(conn, paper_id, old, True, stamp)
    return MarkChange(paper_id, "", old, "tag")


def keep_anchor(conn: sqlite3.Connection, paper_id: str, describe: Describe | None,
                text: str | None = None) -> None:
    """Remember the start of the paper's text (:func:`db.marks.history.anchor`) and its label in
    ``annotation_anchors``, inside the caller's transaction, so that a sync can move the note and
    tags to the paper's new id when its abstract is edited (:func:`db.marks.refind.reattach`),
    even
    when the paper has no mark. ``text``: an anchor to keep when ``describe`` knows no paper
    (an import's record); an anchor already kept is then left as it is."""
    known = describe(paper_id) if describe else None
    if known:
        conn.execute("INSERT INTO annotation_anchors(paper_id, label, anchor) VALUES (?,?,?) "
                     "ON CONFLICT(paper_id) DO UPDATE SET label=excluded.label, "
                     "anchor=excluded.anchor", (paper_id, known[0], anchor(known[1])))
    elif text:
        conn.execute("INSERT OR IGNORE INTO annotation_anchors(paper_id, label, anchor) "
                     "VALUES (?,?,?)", (paper_id, None, text))


def move(conn: sqlite3.Connection, old_id: str, new_id: str) -> None:
    """Move the note and tags of ``old_id`` to ``new_id`` (a mark re-attached after an edit),
    inside the caller's transaction; what ``new_id`` has already is kept."""
    conn.execute("UPDATE OR IGNORE notes SET paper_id=? WHERE paper_id=?", (new_id, old_id))
    conn.execute("UPDATE OR IGNORE tags SET paper_id=? WHERE paper_id=?", (new_id, old_id))
    conn.execute("UPDATE OR IGNORE annotation_anchors SET paper_id=? WHERE paper_id=?",
                 (new_id, old_id))


def copy(conn: sqlite3.Connection, old_id: str, new_id: str, new_anchor: str | None) -> str:
    """Copy the mark, note and tags of ``old_id`` to ``new_id`` (another version of the paper),
    inside the caller's transaction; what ``new_id`` has already is kept. ``new_anchor``: the
    start of ``new_id``'s text, which its copies remember. Returns the status copied ("" none)."""
    conn.execute("INSERT OR IGNORE INTO marks(paper_id, status, updated_at, label, anchor) "
                 "SELECT ?, status, updated_at, label, coalesce(?, anchor) FROM marks "
                 "WHERE paper_id=?", (new_id, new_anchor, old_id))
    conn.execute("INSERT OR IGNORE INTO notes(paper_id, text, updated_at) "
                 "SELECT ?, text, updated_at FROM notes WHERE paper_id=?", (new_id, old_id))
    conn.execute("INSERT OR IGNORE INTO tags(paper_id, tag, added_at) "
                 "SELECT ?, tag, added_at FROM tags WHERE paper_id=?", (new_id, old_id))
    conn.execute("INSERT OR IGNORE INTO annotation_anchors(paper_id, label, anchor) "
                 "SELECT ?, label, coalesce(?, anchor) FROM annotation_anchors WHERE paper_id=?",
                 (new_id, new_anchor, old_id))
    row = conn.execute("SELECT status FROM marks WHERE paper_id=?", (old_id,)).fetchone()
    return row[0] if row else ""


def merge(conn: sqlite3.Connection, old_id: str, new_id: str) -> str:
    """Merge the mark, note and tags of ``old_id`` into ``new_id`` (another version of the
    paper), inside the caller's transaction: the newer mark and note win, tags are joined;
    ``old_id`` keeps nothing. Returns ``new_id``'s status after it ("" none)."""
    conn.execute("INSERT INTO marks(paper_id, status, updated_at, label, anchor) "
                 "SELECT ?, status, updated_at, label, anchor FROM marks WHERE paper_id=? "
                 "ON CONFLICT(paper_id) DO UPDATE SET status=excluded.status, "
                 "updated_at=excluded.updated_at WHERE excluded.updated_at > marks.updated_at",
                 (new_id, old_id))
    conn.execute("INSERT INTO notes(paper_id, text, updated_at) "
                 "SELECT ?, text, updated_at FROM notes WHERE paper_id=? "
                 "ON CONFLICT(paper_id) DO UPDATE SET text=excluded.text, "
                 "updated_at=excluded.updated_at WHERE excluded.updated_at > notes.updated_at",
                 (new_id, old_id))
    move(conn, old_id, new_id)  # the tags (and what of them is new_id's already is kept)
    for table in ("marks", "notes", "tags", "annotation_anchors"):
        conn.execute(f"DELETE FROM {table} WHERE paper_id=?", (old_id,))
    row = conn.execute("SELECT status FROM marks WHERE paper_id=?", (new_id,)).fetchone()
    return row[0] if row else ""


def annotations(conn: sqlite3.Connection, schema: str = "") -> list[dict]:
    """Every paper with a note or tags, for exports: ``[{"id", "note", "note_updated_at",
    "tags": [...]}]``, by id. ``schema``: ``"m."`` on a connection with the marks attached.

    Papers no longer in the index are included (their notes are kept, like orphan marks).
    """
    found: dict[str, dict] = {}

    def item(paper_id: str) -> dict:
        return found.setdefault(paper_id, {"id": paper_id, "note": "", "note_updated_at": None,
                                           "tags": []})

    for paper_id, text, at in conn.execute(f"SELECT paper_id, text, updated_at FROM "
                                           f"{schema}notes"):
        item(paper_id).update(note=text, note_updated_at=at)
    for paper_id, name in conn.execute(f"SELECT paper_id, tag FROM {schema}tags ORDER BY tag"):
        item(paper_id)["tags"].append(name)
    return [found[k] for k in sorted(found)]


def keep_missing_anchors(index: sqlite3.Connection, marks: sqlite3.Connection,
                         describe: Describe) -> None:
    """Marks, notes and tags kept without the start of their paper's text (written by a
    papertray that kept none, or rebuilt from the history by ``papertray marks repair``): keep
    it now, while their paper is still in the index (before a sync may drop its old text).
    ``index`` is the index's connection (the marks attached as ``m``), ``marks`` the marks
    file's."""
    missing = [row[0] for row in index.execute(
        "SELECT paper_id FROM m.notes UNION SELECT paper_id FROM m.tags EXCEPT "
        "SELECT paper_id FROM m.annotation_anchors")]
    unanchored = [row[0] for row in index.execute(
        "SELECT paper_id FROM m.marks WHERE anchor IS NULL")]
    known = {pid: describe(pid) for pid in {*missing, *unanchored}}
    if not any(known.values()):
        return
    with write_transaction(marks):
        for pid in missing:
            if known[pid]:
                keep_anchor(marks, pid, describe)
        for pid in unanchored:
            if known[pid]:
                label, text = known[pid]
                marks.execute("UPDATE marks SET label=?, anchor=? WHERE paper_id=? AND "
                              "anchor IS NULL", (label, anchor(text), pid))
