"""Saved searches and the query history in the browser (a mixin for
:class:`tui.browser.app.PapertrayApp`, whose ``BINDINGS`` name the keys ``b`` and ``B``).

``b`` saves the query shown with its status filter and sort order under a name (asked on one
line); ``B`` lists the saved searches with their counts (:mod:`tui.browser.saved_screen`),
where Enter opens one and ``x`` removes one; the palette's "Saved search: NAME" commands open
one too. ``Up`` in an empty search bar walks back through the queries searched before (kept in
the marks file, :mod:`db.marks.saved`) and ``Down`` forward again; a query is remembered when
the search bar is left.

The library is called from thread workers, as everywhere in the browser; each gives its answer
back to the app's thread (``call_from_thread``), where the state changes.
"""

from __future__ import annotations

from collections.abc import Callable

from db.library.saved import SavedCounts
from db.marks.saved import HISTORY_MAX, NAME_MAX
from db.models import MAX_QUERY_CHARS, LibraryError
from db.text import cut_at_word, one_line
from tui.browser.editors import TextPrompt
from tui.browser.saved_screen import Choice, SavedSearchesScreen


class SavingApp:
    """Saved searches and the query history; the app provides ``lib``, the search bar, the
    filter and sort, ``_run_query``, ``action_filter`` and ``action_leave_search``."""

    def _init_saving(self) -> None:
        self.query_history: list[str] = []
        """The queries searched before, the latest first (loaded once the library opens)."""
        self._history_at = -1  # the entry of the history the search bar shows, -1: none

    # -- running library calls off the app's thread -----------------------------------------
    def _in_thread(self, call: Callable[[], object], then: Callable[[object], None]) -> None:
        """Run ``call`` in a thread worker and ``then(its result)`` on the app's thread; a
        :class:`LibraryError` is said in a notification instead."""
        def work() -> None:
            try:
                result = call()
            except LibraryError as exc:
                self.call_from_thread(self.notify, one_line(str(exc)), severity="warning",
                                      markup=False)
                return
            self.call_from_thread(then, result)

        self.run_worker(work, thread=True, group="saved", exit_on_error=False)

    def load_query_history(self) -> None:
        """Read the query history (once the library is open)."""
        if self.lib is not None:
            self._in_thread(self.lib.query_history, self._history_loaded)

    def _history_loaded(self, history: object) -> None:
        self.query_history = list(history)  # type: ignore[call-overload]

    def remember_query(self, query: str) -> None:
        """Put ``query`` first in the history, here and in the marks file (as the marks file
        keeps it: :func:`db.marks.saved.remember_query`)."""
        query = cut_at_word(one_line(query).strip(), MAX_QUERY_CHARS)
        self._history_at = -1
        if not query or self.lib is None:
            return
        self.query_history = [query, *(q for q in self.query_history if q != query)]
        del self.query_history[HISTORY_MAX:]
        self._in_thread(lambda: self.lib.remember_query(query), lambda _none: None)

    def action_history(self, step: int) -> None:
        """Walk the query history in the search bar, as a shell does: ``step`` 1 shows the
        query searched before the one shown (from an empty search bar, or one showing a query
        of the history; the oldest stays), -1 the one after it, and past the newest the empty
        line. ``step`` -1 when the history is not being walked leaves the search bar, as
        Enter does: its key (Down) is the one that leaves it."""
        value = self.search_bar.value
        walking = 0 <= self._history_at < len(self.query_history) and \
            value == self.query_history[self._history_at]
        if step < 0 and not walking:
            self.action_leave_search()
            return
        if not (walking or (not value and step > 0)):
            return
        at = self._history_at + step if walking else 0
        if at >= len(self.query_history):
            return
        self._history_at = at
        self.search_bar.input.value = self.query_history[at] if at >= 0 else ""
        self.search_bar.input.action_end()

    # -- saved searches ---------------------------------------------------------------------
    def action_save_search(self) -> None:
        """Save the query shown, with its filter and sort, under a name asked for."""
        if self.lib is None:
            return
        query, status, sort = self.search_bar.value, self.status_filter, self.sort_by
        shown = one_line(query) or "every paper"

        suggested = one_line(query).strip()[:NAME_MAX]

        def save(name: str | None) -> None:
            name = (name or "").strip() or (suggested if name is not None else "")
            if name:
                self._in_thread(lambda: self.lib.save_search(name, query, status, sort),
                                self._saved)

        self.push_screen(TextPrompt(
            "Save the search", shown, "",
            self.glyphs["sep"].lstrip().join((
                "a name (empty: the query) ", "Enter saves ", "Esc cancels ",
                "B lists them")), placeholder=suggested or "a name"), save)

    def _saved(self, answer: object) -> None:
        search, replaced = answer  # type: ignore[misc]
        self.notify(f"{'replaced' if replaced else 'saved'} the search {one_line(search.name)!r}"
                    f" (B lists the saved searches)", markup=False, timeout=4)

    def action_saved_searches(self) -> None:
        """List the saved searches with their counts (Enter opens one, x removes one)."""
        if self.lib is not None:
            self._in_thread(self.lib.saved_searches, self._show_saved)

    def _show_saved(self, found: object) -> None:
        self.push_screen(SavedSearchesScreen(list(found)),  # type: ignore[call-overload]
                         self._saved_chosen)

    def _saved_chosen(self, choice: Choice) -> None:
        if choice is None or self.lib is None:
            return
        what, name = choice
        if what == "remove":
            self._in_thread(lambda: self.lib.remove_saved(name), lambda s: self.notify(
                f"removed the saved search {one_line(s.name)!r}: b saves a search again",
                markup=False, timeout=4))
            return
        self.action_open_saved(name)

    def action_open_saved(self, name: str) -> None:
        """Open the saved search ``name``: its query, filter and sort in force; it counts as
        opened (its hits are seen)."""
        if self.lib is not None:
            self._in_thread(lambda: self.lib.open_saved(name, limit=0), self._opened)

    def _opened(self, answer: object) -> None:
        search = answer[0]  # type: ignore[index]
        self.status_filter = self.header.status_filter = search.status
        self.sort_by = self.header.sort_by = search.sort
        self._save_settings()
        self.remember_query(search.query)
        self._run_query(search.query)
        self.table.focus()

    def saved_names(self) -> list[SavedCounts]:
        """The saved searches with their counts, read now (for the palette's thread)."""
        return self.lib.saved_searches() if self.lib is not None else []
