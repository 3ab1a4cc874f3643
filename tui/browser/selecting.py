"""Selections and bulk steps in the browser (a mixin for :class:`tui.browser.app.PapertrayApp`,
whose ``BINDINGS`` name the keys ``v``, ``V`` and ``Esc``).

``v`` selects the paper under the cursor (or unselects it) and moves down; ``V`` selects every
paper the query and the filter show; ``Esc`` clears the selection. While papers are selected,
the mark keys, tags (``#``) and export (``e``) act on them instead of the cursor paper; a mark
of more than one paper first asks on one line, naming the count, and ``y`` confirms. A bulk
mark is one step of the history: one ``u`` undoes it whole. A bulk step clears the selection.
"""

from __future__ import annotations

from db.text import one_line
from tui.browser.editors import ConfirmLine, TextPrompt, tags_problem
from tui.browser.workers import MarkOp

#: Papers ``V`` selects at most (one search's hits).
SELECT_MAX = 10_000


class SelectingApp:
    """The selection and the bulk steps; the app provides the table, the search (``listing``,
    ``_query``), the marking queue (``_queue``, ``_show_status``) and ``_in_thread``."""

    def _init_selection(self) -> None:
        self.selection: dict[str, None] = {}
        """The ids of the selected papers, in the order selected."""
        self.selecting_all = False
        """``V`` is reading the papers shown: the keys typed after it wait (tui.browser.keys)."""

    def action_select(self) -> None:
        """Select the cursor paper, or unselect it, and move to the next one."""
        paper_id = self.table.current_id
        if paper_id is None:
            return
        if self.selection.pop(paper_id, 0) == 0:
            self.selection[paper_id] = None
        self._selection_shown()
        self.table.action_cursor_down()

    def action_select_all(self) -> None:
        """Select every paper the query and the filter show (at most :data:`SELECT_MAX`)."""
        if self.lib is None:
            return
        listing, query, lib = self.listing, self._query, self.lib
        self.selecting_all = True
        self._in_thread(lambda: [h.id for h in listing.search(lib, query, SELECT_MAX, 0).hits],
                        self._select_these)

    def _select_these(self, ids: object) -> None:
        self.selecting_all = False
        self.selection = dict.fromkeys(ids)  # type: ignore[call-overload]
        self._selection_shown()
        self._keys_may_go()
        self.notify(f"{len(self.selection)} papers selected: the mark keys, # and e act on "
                    "them; Esc clears", timeout=4)

    def action_clear_selection(self) -> None:
        """Clear the selection (a new query or filter clears it too: it is of the papers
        shown)."""
        if self.selection:
            self.selection = {}
            self._selection_shown()

    def _selection_shown(self) -> None:
        self.table.show_selection(self.selection)
        self._show_position()

    # -- bulk steps -------------------------------------------------------------------------
    def mark_selection(self, status: str) -> bool:
        """Mark the selected papers ``status`` (asking first when they are more than one);
        False when nothing is selected (the key then marks the cursor paper)."""
        ids = tuple(self.selection)
        if not ids:
            return False

        def answer(yes: bool | None) -> None:
            if not yes:
                self.notify("nothing marked", timeout=3)
                return
            for paper_id in ids:
                self._show_status(paper_id, status)
            self._queue(MarkOp("set", ids, status))
            self.notify(f"marked {len(ids)} papers {status} (u undoes them all)", timeout=4)
            self.action_clear_selection()

        if len(ids) == 1:
            answer(True)
        else:
            self.push_screen(ConfirmLine(f"mark {len(ids)} papers {status}?"), answer)
        return True

    def tag_selection(self) -> bool:
        """Tag the selected papers (one prompt for them all); False when none is selected."""
        ids = tuple(self.selection)
        if not ids:
            return False

        def save(text: str | None) -> None:
            if not text or not text.split():
                return
            problem = tags_problem(text)
            if problem:  # the selection stays for another try
                self.notify(problem, severity="warning", markup=False)
                return
            self._queue(MarkOp("tag", ids, text))
            self.action_clear_selection()

        self.push_screen(TextPrompt(
            "Tags for", f"{len(ids)} selected papers", "",
            self.glyphs["sep"].lstrip().join((
                "words separated by spaces; -name removes ", "Enter saves ", "Esc cancels"))),
            save)
        return True

    def export_selection(self) -> bool:
        """Export the selected papers; False when none is selected."""
        ids = tuple(self.selection)
        if not ids:
            return False
        self.ask_export(one_line(self._query), self.status_filter, ids)
        self.action_clear_selection()
        return True
