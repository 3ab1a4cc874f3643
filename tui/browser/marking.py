"""Marks, notes, tags, undo and export, as the browser makes them.

A mark is shown at once (the row, the panel, the counts) and written by a worker; each
:class:`~tui.browser.messages.MarksSaved` then shows what the marks file holds for the papers
it touched. An undo is not predicted (the history is on disk and shared with other windows),
nor are a note and tags (the rows and the paper are read anew once written): keys for the table
wait in the input queue until the answer is shown (:mod:`tui.browser.keys`), so a mark after an
undo toggles the true status, and ``a`` right after a note was saved edits that note, not the
one before it.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from textual import on

from db.models import SHORT_ID_LEN, MarkChange
from db.text import one_line
from tui.browser.base import BrowserBase
from tui.browser.editors import TextPrompt
from tui.browser.messages import Exported, MarksSaved, while_running
from tui.browser.widgets import FOLLOW_CURSOR
from tui.browser.workers import MarkOp

#: Papers an undo's notice names; a larger undo (a bulk mark from the command line) says how
#: many more.
UNDO_SAID = 3


class MarkingApp(BrowserBase):
    """The marking steps on their way to the marks file, and what the app shows of them.

    The other parts of the app provide ``lib``, the workers (``queue_mark``, ``ask_export``),
    the counts (``_counts``, ``_show_counts`` and ``_marks_version``, from syncing), the search
    (``_query``, ``status_filter``, ``_search``) and the input pipeline (``_keys_may_go``).
    """

    def _init_marks(self) -> None:
        self._unsaved: list[MarkOp] = []  # marking steps queued or being written, in order
        self._reread_rows = False  # a note or tag was written: search again once all are
        self._reread_focus: str | None = None  # the paper an undo changed: the cursor's

    @property
    def marks_pending(self) -> int:
        """Marking steps made in this window and not yet written to the marks file (0: every
        mark, note, tag and undo made here is on disk)."""
        return len(self._unsaved)

    @property
    def _unpredicted_pending(self) -> bool:
        return any(op.kind in ("undo", "note", "tag") for op in self._unsaved)

    def _predicted(self) -> dict[str, str]:
        """Paper id → the status its unsaved marks will give it."""
        return {paper_id: op.status for op in self._unsaved if op.kind == "set"
                for paper_id in op.ids}

    def action_mark(self, status: str) -> None:
        """Mark the cursor paper ``status`` (:meth:`mark_cursor_paper`) and move on, or the
        selected papers (``x`` is the key back to new)."""
        if self.lib is not None and self.mark_selection(status):
            return  # the selected papers, not the cursor paper
        if self.mark_cursor_paper(status):
            self.table.action_cursor_down()

    def mark_cursor_paper(self, status: str) -> bool:
        """Mark the cursor paper ``status``, the cursor staying on it (the reading view's
        marks; ``action_mark`` then moves on); False when there is no paper to mark.

        A paper that has that status already keeps it, and a notice says so. Shown at once in
        the row, the panel and the counts; written by a worker right away.
        """
        table = self.table
        paper_id = table.current_id
        hit = table.hit(paper_id) if paper_id else None
        if hit is None or self.lib is None:
            return False
        if hit.status == status:
            self.notify(f"{one_line(hit.label)} is {status} already: kept", timeout=3,
                        markup=False)
        else:
            self._show_status(hit.id, status)
            if self._counts:
                counts = dict(self._counts)
                counts[hit.status] -= 1
                counts[status] += 1
                self._show_counts(counts)
            self._queue(MarkOp("set", (hit.id,), status))
        return True

    def action_undo(self) -> None:
        """Undo the latest marking step made on this data folder, in this window or another
        (the history is on disk: this survives a restart)."""
        if self.lib is not None:
            self._queue(MarkOp("undo"))

    def action_export(self) -> None:
        """Write the current query's papers (with the status filter) to a file, off the UI
        thread; :meth:`_exported` shows where."""
        if self.lib is not None and not self.export_selection():
            self.ask_export(self._query, self.status_filter)

    def action_export_to(self) -> None:
        """Ask for the file to export the papers shown (or selected) to, the data folder's
        exports/ offered; its ending picks the format. A file that exists is not replaced."""
        if self.lib is None:
            return
        offered = self.lib.exports_folder / f"papertray-{self._export_stamp()}.md"
        ids = tuple(self.selection)

        def write(answer: str | None) -> None:
            path = os.path.expanduser(answer.strip()) if answer else ""
            if not path:
                return
            if os.path.exists(path):
                self.notify(f"{one_line(path)} exists: name another file", severity="warning",
                            markup=False, timeout=6)
                return
            self.ask_export(one_line(self._query), self.status_filter, ids, path)
            if ids:
                self.action_clear_selection()

        what = f"{len(ids)} selected papers" if ids else "the papers shown"
        self.push_screen(TextPrompt(
            "Export", what, str(offered),
            "the ending picks the format: .md .csv .json .bib; Enter writes, Esc cancels"),
            write)

    @staticmethod
    def _export_stamp() -> str:
        return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")

    @on(Exported)
    @while_running
    def _exported(self, message: Exported) -> None:
        if message.error:
            self.notify(f"export failed: {one_line(message.error)}", severity="error",
                        markup=False)
        elif not message.count:  # (a checklist of no papers was written, and said so)
            self.notify("nothing to export: no paper matches the query and filter", timeout=5)
        else:
            self.notify(f"exported {message.count} papers to {one_line(message.path)}",
                        markup=False, timeout=10)

    def _queue(self, op: MarkOp) -> None:
        self._unsaved.append(op)
        self.queue_mark(op)

    @on(MarksSaved)
    @while_running
    def _marks_saved(self, message: MarksSaved) -> None:
        del self._unsaved[:message.done]
        predicted = self._predicted()
        for paper_id, status in message.statuses.items():
            if paper_id not in predicted:  # else a newer mark of it is on its way: keep that
                self._show_status(paper_id, status)
        for changes in message.undone:
            if not changes:
                self.notify("nothing to undo", timeout=3)
                continue
            self.notify(self._undo_said(changes), timeout=5, markup=False)
            self._reread_focus = changes[0].paper_id  # the cursor goes to the paper undone
            row = self.table.row_of(changes[0].paper_id)
            if row is not None:
                self.table.move_cursor(row=row)
        self._reread_rows = self._reread_rows or bool(message.annotated)
        if not self._unsaved:  # else the counts shown include marks still on their way
            self._show_counts(message.counts)
            focus, self._reread_focus = self._reread_focus, None
            if self._reread_rows:  # a note or tags changed: read the rows and the paper anew
                self._reread_rows = False
                # the cursor paper by its id: read with the rows, it is in the panel by the time
                # the keys held meanwhile go on (a key "a" edits the note just written); if the
                # change took it out of the results (tag:moe, -moe) the cursor keeps its row;
                # an undo that brings a paper back into them puts the cursor on it
                self._search(focus=focus or self.table.current_id or FOLLOW_CURSOR,
                             offset=self.table.window_offset, fallback=self.table.cursor_row)
        if message.only_ours and self._marks_version == message.version_before:
            self._marks_version = message.version  # else the poll shows the others' steps
        for error in message.errors:
            self.notify(f"mark not saved: {one_line(error)}", severity="error", markup=False)
        self._keys_may_go()

    def _undo_said(self, changes: list[MarkChange]) -> str:
        """``undid: PARM to-read → new``: which papers one undo changed, and how (the first
        :data:`UNDO_SAID` of them, then how many more)."""
        said = []
        for change in changes[:UNDO_SAID]:
            hit = self.table.hit(change.paper_id)
            label = one_line(hit.label if hit is not None else change.paper_id[:SHORT_ID_LEN])
            if change.kind == "note":
                said.append(f"{label} note {'restored' if change.new else 'removed'}")
            elif change.kind == "tag":
                said.append(f"{label} tag {'+' + change.new if change.new else '-' + change.old}")
            else:
                said.append(f"{label} {change.old} → {change.new}")
        more = len(changes) - UNDO_SAID
        return "undid: " + "; ".join(said) + (f"; and {more} more" if more > 0 else "")

    def _show_status(self, paper_id: str, status: str) -> None:
        self.table.set_status(paper_id, status)
        self.panel.set_status(paper_id, status)
