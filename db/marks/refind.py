"""Finding a paper again by its text: the matcher that re-attaches marks, notes and tags.

A mark (or a note, or tags) remembers the normalized start of its paper's abstract
(:func:`db.marks.history.anchor`). When the paper's id is gone (its abstract was edited, or the
record
comes from another machine's seed files), the paper whose anchor is nearly the same (rapidfuzz
ratio >= :data:`db.marks.history.REATTACH_MIN_RATIO`) takes it over.

Comparing one anchor with every paper's cost ~3 ms per 1,000 papers (300 unknown marks against
9,339 papers: 27 s). So the comparison runs on a few candidates only: an anchor equal to a
paper's (a dict lookup, or the id itself for a short abstract), else the papers the index ranks
highest (bm25) for the anchor's :data:`QUERY_WORDS` rarest words. Two anchors with a ratio of
90 share nearly every word, so the paper sought ranks first among those words; a short anchor or
CJK text with too few indexed words is compared with every candidate as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from db.index.schema import BM25_WEIGHTS
from db.marks import notes
from db.marks.history import (
    ANCHOR_CHARS,
    REATTACH_MIN_RATIO,
    anchor,
    current_id,
    log_event,
    next_batch,
    now,
)
from db.store.sqlite import write_transaction
from db.text import paper_id as id_of
from db.text import tokens

#: The anchor's rarest words (by the index's document frequency) that make the FTS query.
QUERY_WORDS = 8
#: Papers the FTS query proposes; the ratio is computed for these only.
CANDIDATES = 30
#: A pool of candidates this small (the papers a sync just added) is compared whole.
SMALL_POOL = 500
#: An anchor with fewer indexed words than this is compared with every candidate.
MIN_WORDS = 3


class Finder:
    """Finds, for an anchor, the paper whose anchor is nearly the same.

    ``index``: a connection to the index. ``pool``: ``{paper_id: anchor}`` of the papers that may
    be found (the ones a sync added), or None for every paper in the index (read lazily, and
    only for anchors the index cannot narrow down). ``anchor_of``: :func:`db.marks.history.anchor`.
    Each paper is found at most once (:meth:`take`), so two orphans never land on one paper.
    """

    def __init__(self, index: sqlite3.Connection, pool: dict[str, str] | None,
                 anchor_of: Callable[[str], str], min_ratio: float):
        self.index, self.pool, self.anchor_of, self.min_ratio = index, pool, anchor_of, min_ratio
        self.taken: set[str] = set()
        self._exact: dict[str, str] | None = None
        self._everything: dict[str, str] | None = None

    def take(self, paper_id: str) -> None:
        """``paper_id`` has been given an orphan: it is not offered again."""
        self.taken.add(paper_id)

    def anchor(self, paper_id: str) -> str | None:
        """The anchor of paper ``paper_id`` as found (what a mark moved to it remembers now)."""
        if self.pool is not None and paper_id in self.pool:
            return self.pool[paper_id]
        row = self.index.execute("SELECT coalesce(nullif(abstract, ''), title) FROM papers "
                                 "WHERE id=?", (paper_id,)).fetchone()
        return self.anchor_of(row[0]) if row and row[0] else None

    def find(self, anchor: str) -> str | None:
        """The id of the paper whose anchor matches ``anchor`` best (ratio >= the minimum), or
        None."""
        if not anchor:
            return None
        found = self._exactly(anchor)
        if found:
            return found
        if self.pool is not None and len(self.pool) <= SMALL_POOL:
            return self._best(anchor, self.pool)
        candidates = self._candidates(anchor)
        if candidates is None:  # too few words to ask the index: compare with all of them
            return self._best(anchor, self.pool if self.pool is not None else self._all())
        return self._best(anchor, candidates)

    def _exactly(self, anchor: str) -> str | None:
        if self.pool is not None:
            if self._exact is None:
                self._exact = {}
                for pid, text in self.pool.items():
                    self._exact.setdefault(text, pid)
            found = self._exact.get(anchor)
            return found if found and found not in self.taken else None

        if len(anchor) >= ANCHOR_CHARS:  # a cut anchor is not the whole abstract
            return None
        pid = id_of(anchor)  # a short abstract's anchor is all of it: its id says the paper
        row = self.index.execute("SELECT coalesce(nullif(abstract, ''), title) FROM papers "
                                 "WHERE id=?", (pid,)).fetchone()
        if row and pid not in self.taken and self.anchor_of(row[0]) == anchor:
            return pid
        return None

    def _candidates(self, anchor: str) -> dict[str, str] | None:
        """``{id: anchor}`` of the papers the index ranks best for the anchor's rarest words,
        or None when the anchor has too few words the index knows."""

        found = tokens(anchor)
        words = list(dict.fromkeys(t for t in found if len(t) > 1))
        df: dict[str, int] = {}
        for start in range(0, len(words), 500):
            chunk = words[start:start + 500]
            df.update(self.index.execute(
                f"SELECT term, df FROM vocab WHERE term IN ({','.join('?' * len(chunk))})",
                chunk).fetchall())
        known = sorted((w for w in words if df.get(w)), key=lambda w: (df[w], w))
        if len(known) < MIN_WORDS:
            # the index knows every word of its papers: a text of many words it does not know
            # is like none of them (CJK text and short titles are compared with all papers)
            return {} if anchor.isascii() and len(found) >= 2 * MIN_WORDS else None
        expression = " OR ".join(f'"{w}"' for w in known[:QUERY_WORDS])  # letters and digits
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        try:
            rows = self.index.execute(
                f"SELECT p.id, coalesce(nullif(p.abstract, ''), p.title) FROM (SELECT rowid, "
                f"bm25(papers_fts, {weights}) AS score FROM papers_fts WHERE papers_fts MATCH ? "
                "ORDER BY score LIMIT ?) hit JOIN papers p ON p.rowid = hit.rowid",
                (expression, CANDIDATES)).fetchall()
        except sqlite3.OperationalError:  # a query FTS5 refuses: compare with all papers
            return None
        if self.pool is not None:
            return {pid: self.pool[pid] for pid, _ in rows if pid in self.pool}
        return {pid: self.anchor_of(text) for pid, text in rows if text}

    def _all(self) -> dict[str, str]:
        if self._everything is None:
            self._everything = {pid: self.anchor_of(text) for pid, text in self.index.execute(
                "SELECT id, coalesce(nullif(abstract, ''), title) FROM papers") if text}
        return self._everything

    def _best(self, anchor: str, choices: dict[str, str]) -> str | None:
        from rapidfuzz import fuzz

        best, best_score = None, -1.0
        for pid, text in choices.items():
            if pid in self.taken:
                continue
            score = fuzz.ratio(anchor, text, score_cutoff=max(self.min_ratio, best_score))
            if score > best_score and score >= self.min_ratio:
                best, best_score = pid, score
        return best


def reattach(conn: sqlite3.Connection, orphan_ids: list[str],
             finder: Finder) -> list[tuple[str, str, str]]:
    """Move orphaned marks, notes and tags to near-identical new papers (rapidfuzz ratio >=
    REATTACH_MIN_RATIO, found by ``finder``: :class:`db.marks.refind.Finder` over the papers a sync
    just added).

    ``orphan_ids`` are papers the index no longer has that have a mark, a note or tags. A mark
    travels by its own anchor; a note or tags of an unmarked paper by the anchor stored when
    they were written (``annotation_anchors``). A paper that already has a mark is never
    overwritten, and what it has of notes and tags is kept. Each move is recorded in
    ``mark_events`` (kind ``reattach``: a mark's status, or "" for notes and tags alone).
    Returns ``(old id, new id, anchor the orphan had)`` of each move.
    """
    if not orphan_ids:
        return []
    wanted = set(orphan_ids)
    statuses: dict[str, tuple[str, str | None]] = {}
    for paper_id, status, text in conn.execute("SELECT paper_id, status, anchor FROM marks"):
        if paper_id in wanted:
            statuses[paper_id] = (status, text)
        else:
            finder.take(paper_id)
    kept = dict(conn.execute("SELECT paper_id, anchor FROM annotation_anchors"))
    lost = []
    for paper_id in dict.fromkeys(orphan_ids):
        status, text = statuses.get(paper_id, ("", None))
        text = text or kept.get(paper_id)  # a mark of an older papertray may have no anchor
        if text:
            lost.append((paper_id, status, text))
    moved = []
    stamp = now()
    with write_transaction(conn):
        batch = next_batch(conn)
        for old_id, status, text in lost:
            new_id = finder.find(text)
            if not new_id:
                continue
            finder.take(new_id)
            # the mark, note and tags remember the text they moved to: the next small edit is
            # measured from it, not from the text they were first written for
            now_anchor = finder.anchor(new_id)
            if status:
                conn.execute("UPDATE marks SET paper_id=?, anchor=coalesce(?, anchor) "
                             "WHERE paper_id=?", (new_id, now_anchor, old_id))
            notes.move(conn, old_id, new_id)
            conn.execute("UPDATE annotation_anchors SET anchor=coalesce(?, anchor) "
                         "WHERE paper_id=?", (now_anchor, new_id))
            log_event(conn, batch, stamp, "reattach", old_id, status, status, new_id)
            moved.append((old_id, new_id, text))
    return moved


def copy_to_versions(conn: sqlite3.Connection, donors: list[tuple[str, str]],
                     finder: Finder) -> int:
    """Give every other new version of a marked paper a copy of its mark, note and tags.

    A paper in two seed files edited in one of them (or edited differently in each) becomes
    two papers or more: the one that kept the old text (or took the marks over, :func:`reattach`)
    and each edited version. ``donors`` are ``(id, anchor)`` of those that hold marks, notes or
    tags, with the text they had before the sync; each new paper ``finder`` finds for that text
    (ratio >= the minimum), not yet marked, noted or tagged, takes a copy (``mark_events`` kind
    ``copy``, ``other`` the new id). From then on each version has marks of its own. Returns
    how many papers took a copy.
    """
    if not donors:
        return 0
    for (paper_id,) in conn.execute("SELECT paper_id FROM marks UNION SELECT paper_id FROM notes "
                                    "UNION SELECT paper_id FROM tags"):
        finder.take(paper_id)
    copied = 0
    stamp = now()
    with write_transaction(conn):
        batch = next_batch(conn)
        for donor, text in donors:
            while new_id := finder.find(text):
                finder.take(new_id)
                status = notes.copy(conn, donor, new_id, finder.anchor(new_id))
                log_event(conn, batch, stamp, "copy", donor, status, status, new_id)
                copied += 1
    return copied


def follow_edits(index: sqlite3.Connection, marks: sqlite3.Connection, orphan_ids: list[str],
                 added: list[str], left: list[str], merged: list[tuple[str, str]] = ()) -> int:
    """After a sync: marks, notes and tags follow their paper's edits. The orphans'
    (``orphan_ids``) move to the paper the sync ``added`` whose text is nearly theirs
    (:func:`reattach`); every other new version of a marked paper takes a copy
    (:func:`copy_to_versions`: of a paper that ``left`` a seed file and is still in another, or
    of an orphan that moved); an orphan left with a version of it still in the index merges
    into it (:func:`merge_into_versions`). Returns how many papers took marks, notes or tags.
    ``index`` is a connection to the index (the marks attached as ``m``), ``marks`` to the
    marks file. First of all, what a title-only paper had follows it to the abstract it is one
    paper with now (``merged``: :func:`follow_titles`)."""
    titles = follow_titles(index, marks, list(merged))
    kept = _annotated(index, left)
    moved: list[tuple[str, str, str]] = []
    copied = 0
    if added and (orphan_ids or kept):
        candidates = {}
        for start in range(0, len(added), 500):
            chunk = added[start:start + 500]
            candidates.update(
                (pid, anchor(text)) for pid, text in index.execute(
                    f"SELECT id, coalesce(nullif(abstract, ''), title) FROM papers WHERE id IN "
                    f"({','.join('?' * len(chunk))})", chunk) if text)
        finder = Finder(index, candidates, anchor, REATTACH_MIN_RATIO)
        moved = reattach(marks, orphan_ids, finder)
        copied = copy_to_versions(marks, [(new, text) for _, new, text in moved] + kept, finder)
    gone = {old for old, _, _ in moved}
    joined = merge_into_versions(index, marks, [o for o in orphan_ids if o not in gone])
    return titles + len(moved) + copied + joined


def merge_into_versions(index: sqlite3.Connection, marks: sqlite3.Connection,
                        orphan_ids: list[str]) -> int:
    """Merge each orphan that has a version in the index (a paper it gave a copy to, or took
    one from: ``mark_events`` kind ``copy``) into that version: the newer mark and the newer
    note win, tags are joined (``reattach`` in ``mark_events``). A paper in two seed files,
    edited in one and later edited the same way (or set back) in the other, is one paper
    again, with one mark. Returns how many orphans merged."""
    if not orphan_ids:
        return 0
    wanted = set(orphan_ids)
    versions: dict[str, list[str]] = {}
    for donor, taker in marks.execute("SELECT paper_id, other FROM mark_events "
                                      "WHERE kind='copy' ORDER BY seq DESC"):
        if donor in wanted:
            versions.setdefault(donor, []).append(taker)
        if taker in wanted:
            versions.setdefault(taker, []).append(donor)
    moves = []
    for orphan, found in versions.items():
        here = next((pid for pid in found if index.execute(
            "SELECT 1 FROM papers WHERE id=?", (pid,)).fetchone()), None)
        if here:
            moves.append((orphan, here))
    return _merge(marks, moves)


def _merge(marks: sqlite3.Connection, moves: list[tuple[str, str]],
           anchors: dict[str, str] | None = None) -> int:
    """Merge the marks, notes and tags of each ``(old id, new id)`` into the new id (the newer
    mark and note win, tags are joined), recorded as ``reattach`` in ``mark_events``; with
    ``anchors`` (new id → its text's anchor), what moved remembers the new paper's text.
    Returns how many merged."""
    if not moves:
        return 0
    stamp = now()
    with write_transaction(marks):
        batch = next_batch(marks)
        for orphan, here in moves:
            status = notes.merge(marks, orphan, here)
            if anchors and here in anchors:
                for table in ("marks", "annotation_anchors"):
                    marks.execute(f"UPDATE {table} SET anchor=? WHERE paper_id=?",
                                  (anchors[here], here))
            log_event(marks, batch, stamp, "reattach", orphan, status, status, here)
    return len(moves)


def follow_titles(index: sqlite3.Connection, marks: sqlite3.Connection,
                  merged: list[tuple[str, str]]) -> int:
    """After a sync that made catalogue titles one paper with their abstracts, or a title
    alone again (:mod:`db.index.catalogue`): the marks, notes and tags of each paper that the
    index has no more (``(old id, new id)`` in ``merged``: a title-only paper, or an abstract
    gone from the seed files) merge into the paper that took its place, as an orphan's merge
    into its other version (:func:`merge_into_versions`). Returns how many merged."""
    if not merged:
        return 0
    wanted = dict(merged)
    held = {pid for (pid,) in marks.execute(
        "SELECT paper_id FROM marks UNION SELECT paper_id FROM notes "
        "UNION SELECT paper_id FROM tags") if pid in wanted}
    moves = [(old, wanted[old]) for old in sorted(held) if not index.execute(
        "SELECT 1 FROM papers WHERE id=?", (old,)).fetchone()]
    anchors = {}
    for _, new in moves:
        row = index.execute("SELECT coalesce(nullif(abstract, ''), title) FROM papers "
                            "WHERE id=?", (new,)).fetchone()
        if row:
            anchors[new] = anchor(row[0])
    return _merge(marks, moves, anchors)


def _annotated(index: sqlite3.Connection, ids: list[str]) -> list[tuple[str, str]]:
    """``(id, anchor)`` of the papers ``ids`` still in the index with a mark, note or tags."""
    found = []
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        found += [(pid, anchor(text)) for pid, text in index.execute(
            f"SELECT id, coalesce(nullif(abstract, ''), title) FROM papers WHERE id IN "
            f"({','.join('?' * len(chunk))}) AND (id IN (SELECT paper_id FROM m.marks) "
            "OR id IN (SELECT paper_id FROM m.notes) OR id IN (SELECT paper_id FROM m.tags))",
            chunk) if text]
    return found


def successor(index: sqlite3.Connection, marks: sqlite3.Connection, paper_id: str,
              text: str) -> str | None:
    """The id now of the paper that was ``paper_id`` with abstract (or title) ``text`` before
    the index changed, whoever changed it: ``paper_id`` while the index has it, else the paper
    its marks went to (``mark_events``), else the paper whose text is nearly the same, found as
    an orphan mark's paper is (:class:`Finder` over the whole index), else None (gone)."""
    def present(pid: str) -> bool:
        return index.execute("SELECT 1 FROM papers WHERE id=?", (pid,)).fetchone() is not None

    if present(paper_id):
        return paper_id
    now_id = current_id(marks, paper_id)
    if now_id != paper_id and present(now_id):
        return now_id
    return Finder(index, None, anchor, REATTACH_MIN_RATIO).find(anchor(text)) if text else None
