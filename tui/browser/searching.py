"""The searching half of the browser: the query, the status filter, which answer is shown, the
window of hits in the table, the paper in the abstract panel, and keys typed ahead.

:class:`SearchingApp` is the base of :class:`tui.browser.app.PapertrayApp`, which adds the layout,
the bindings, syncing and marks. Every search gets a request number; only the answer to the
newest request is shown, so a slow answer for an old query never overwrites a newer one.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
from collections import deque

from rich.text import Text
from textual import events, on
from textual.app import App
from textual.command import CommandPalette
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable

from db.models import Paper, SearchResult
from db.text import one_line
from tui.browser.display import said
from tui.browser.editors import KeysWelcome, TextPrompt
from tui.browser.screens import HELP_CLOSE_KEYS, HelpScreen
from tui.browser.widgets import (
    AbstractPanel,
    KeysFooter,
    ResultsPane,
    ResultsTable,
    SearchBar,
    StatusHeader,
)
from tui.browser.workers import (
    LibraryWorkers,
    NoNewPaper,
    PageLoaded,
    PaperLoaded,
    freeze_heap,
    while_running,
)

#: Keys that are never held back (see :meth:`SearchingApp.on_event`).
_NEVER_HELD = ("ctrl+c",)
#: Seconds ctrl+q waits behind keys typed before it that wait themselves (for a search answer,
#: a note being written...), at most: those keys act first (``/wudi⏎ t ctrl+q`` marks, then
#: quits), but a step that never ends must not keep the keyboard's way out from working.
QUIT_WAIT_S = 2.0
#: Seconds the screen may wait, after a key changed the query, for the answer to that query
#: before it is drawn anyway (:meth:`SearchingApp._hold_paint`).
PAINT_HOLD_S = 0.05
#: Seconds after an answer is shown before a full garbage collection that is due soon runs
#: (:meth:`SearchingApp._collect_while_idle`), and how many middle-generation collections
#: before it is due count as soon (a typed key brings about one).
IDLE_GC_S = 0.02
IDLE_GC_AHEAD = 3
#: Seconds keys typed after Esc or Enter in the command palette wait for it to close, at most
#: (it closes at once at Esc, and at an Enter that chooses a command; an Enter that chooses none
#: leaves it open, and the keys then go to it after this long).
PALETTE_CLOSE_S = 1.0
#: Seconds a key that needs the cursor paper (``a``, ``#``, copies) waits for it to load, at
#: most (:meth:`SearchingApp._waits_for_paper`; a paper loads in a few ms).
PAPER_WAIT_S = 2.0
#: Actions of the table's keys that need the cursor paper in the panel (a note, tags, copies).
_PAPER_ACTIONS = ("edit_note", "add_tags", "copy(")
#: Keys (besides printable ones) that edit the query in the search bar.
_EDITING = ("backspace", "delete", "ctrl+u", "ctrl+w", "ctrl+k", "ctrl+x", "ctrl+v")


class SearchingApp(LibraryWorkers, App[None]):
    """Search state and its handlers; subclasses compose ``#search``, ``#results``,
    ``#results-pane`` and ``#abstract`` and set ``debounce_seconds``."""

    debounce_seconds: float
    _syncing = False  # the subclass says when a sync runs
    _leaving = False  # exit() was called: keys typed since are not acted on
    # ... and when a step only the marks file can answer (an undo, a note, tags) is on its way
    _unpredicted_pending = False

    def _init_search(self) -> None:
        self.status_filter = "all"
        """The status filter: all, new, to-read or read."""
        self._query = ""  # the query of the newest request (or of the armed timer)
        self._request = 0  # number of the newest search request; older answers are dropped
        self._applied = 0  # number of the answer the table shows
        self._sent = 0  # number of the newest request a worker was started for
        self._search_timer: Timer | None = None
        self._result: SearchResult | None = None
        self._paper_wanted: str | None = None
        self._paper_shown: str | None = None
        self._held_keys: list[events.Key | events.Paste] = []
        self._replaying: deque[events.Key | events.Paste] = deque()  # released, on their way back
        self._ghosts: list[events.Key | events.Paste] = []  # released, then held again meanwhile
        self._awaiting_input = False
        # the command palette Esc or Enter was sent to, or the help a closing key was sent to:
        # keys wait until it is closed (else the key typed after Esc went to the palette's input
        # as it was being taken down, and was lost; or to the help, and reached the table after
        # a ctrl+q typed behind it had quit)
        self._palette_leaving: Screen | None = None
        self._paper_wait: tuple[str, float] | None = None  # a paper waited for, until when
        self._heap_frozen = False
        self._paint_hold: Timer | None = None
        self._paint_batch = contextlib.ExitStack()  # the batch of a paint hold
        self._gc_timer: Timer | None = None

    def _save_settings(self) -> None:
        """Remember the filter (the subclass knows where)."""

    def _predicted(self) -> dict[str, str]:
        """Paper id → the status that marks still on their way will give it (the subclass
        knows; an answer read before they were written shows them anyway)."""
        return {}

    @property
    def main_screen(self) -> Screen:
        """The screen with the search bar, table and panel (the help may be on top of it).

        Widgets are looked up here, never on ``self.screen``: a worker's answer may arrive
        while another screen is shown.
        """
        return self.screen_stack[0]

    @property
    def table(self) -> ResultsTable:
        """The results table."""
        return self.main_screen.query_one("#results", ResultsTable)

    @property
    def panel(self) -> AbstractPanel:
        """The abstract panel."""
        return self.main_screen.query_one("#abstract", AbstractPanel)

    @property
    def header(self) -> StatusHeader:
        """The top line: collections and the filters with their counts."""
        return self.main_screen.query_one(StatusHeader)

    @property
    def search_bar(self) -> SearchBar:
        """The search bar."""
        return self.main_screen.query_one("#search", SearchBar)

    @property
    def _search_pending(self) -> bool:
        return self._search_timer is not None or self._applied != self._request

    # -- running searches --------------------------------------------------------------------
    @on(SearchBar.QueryChanged)
    def _query_changed(self) -> None:
        # The input's value, not the message's: messages of keys typed ahead arrive late.
        query = self.search_bar.value
        if query == self._query:
            if not self._search_pending:
                self._release_paint()  # a key that left the query as it was
            return
        self._query = query
        # a key that finds no search on its way searches at once (a debounce for every key was
        # 80 ms of each keystroke's latency); keys that come faster than searches are coalesced:
        # the newest query waits for the answer on its way (which is dropped, _page_loaded) or
        # for the debounce, whichever comes first
        busy = self._search_timer is not None or self._applied != self._request
        self._hold_paint()
        self._request += 1  # whatever is on its way is stale now
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        if self.debounce_seconds > 0 and busy:
            self._search_timer = self.set_timer(self.debounce_seconds, self._search)
        else:
            self._search()

    def _search(self, focus: str | int | None = None, offset: int = 0, fallback: int = 0):
        """Run the query with the filter; only the answer to this request will be shown."""
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        if self.lib is None:
            return
        self._request += 1
        self._sent = self._request
        self.load_page(self._request, self._query, self.status_filter, offset, focus, fallback)

    @on(ResultsTable.PageWanted)
    def _page_wanted(self, message: ResultsTable.PageWanted) -> None:
        if self._search_pending or self.lib is None:
            return  # a newer search is coming; it replaces the window anyway
        self._request += 1
        self._sent = self._request
        self.load_page(self._request, self._query, self.status_filter, message.offset,
                       message.focus)

    @on(PageLoaded)
    @while_running
    def _page_loaded(self, message: PageLoaded) -> None:
        if message.request != self._request:  # superseded: never shown
            if message.request == self._sent and self._search_timer is not None:
                self._search()  # the newest query waited for this answer: its turn now
            return
        if message.result is None:  # skipped by a worker that was cancelled: ask again
            self._search(focus=message.focus, offset=message.offset, fallback=message.fallback)
            return
        self._applied = message.request
        result = self._result = message.result
        self.table.show_hits(result.hits, message.offset, result.total, message.focus,
                             message.fallback)
        for paper_id, status in self._predicted().items():  # marks not written when it was read
            self.table.set_status(paper_id, status)
        self.main_screen.query_one(ResultsPane).show_message(self._empty_message(result))
        self._follow_cursor(force=True, ready=message.paper)
        self._release_keys()
        self._release_paint()
        if not self._heap_frozen:
            self._heap_frozen = True
            self.call_after_refresh(freeze_heap)
        elif self._gc_timer is None:  # once this answer is on the screen
            self._gc_timer = self.set_timer(IDLE_GC_S, self._collect_while_idle)

    @on(NoNewPaper)
    @while_running
    def _no_new_paper(self, message: NoNewPaper) -> None:
        if message.request == self._sent != self._request and self._search_timer is not None:
            self._search()  # superseded, and the newest query waited for it (_page_loaded)
        elif message.request == self._request:
            self._applied = message.request
            self.notify(f"no new paper {'below' if message.step > 0 else 'above'}", timeout=3)
            self._release_keys()

    def _hold_paint(self) -> None:
        """Draw nothing until the answer to the query just typed is shown (at most
        :data:`PAINT_HOLD_S`): then the key's echo in the search bar, the hits and the paper
        are drawn in one frame.

        Textual draws at most one frame per 1/60 s. Drawn on its own, the echo took that
        frame and the answer, a few ms later, waited for the next: up to 17 ms (a third of
        the keystroke budget) spent waiting. A slow answer leaves the echo waiting no more
        than :data:`PAINT_HOLD_S`.
        """
        if self._paint_hold is None:
            self._paint_batch = contextlib.ExitStack()  # App.batch_update(), ended by release
            self._paint_batch.enter_context(self.batch_update())
            self._paint_hold = self.set_timer(PAINT_HOLD_S, self._release_paint)

    def _release_paint(self) -> None:
        """Let the screen draw again (what changed meanwhile is drawn in the next frame)."""
        hold, self._paint_hold = self._paint_hold, None
        if hold is None:
            return
        hold.stop()
        self._paint_batch.close()
        if self.screen_stack:
            self.screen.check_idle()  # the screen looks for changes to draw when it idles
            for footer in self.main_screen.query(KeysFooter):
                footer.rebuild()  # the keys of a focus moved meanwhile, in the next frame

    @property
    def paint_held(self) -> bool:
        """Whether frames are held back for the answer to a key (:meth:`_hold_paint`)."""
        return self._paint_hold is not None

    def _collect_while_idle(self) -> None:
        """Run Python's full garbage collection now, between keys, when it is due soon.

        A full collection (every tenth middle one) walks every object allocated since
        :func:`tui.browser.workers.freeze_heap` and frees the cycles Textual's drawing leaves
        (10-30 ms at 87k papers); left to itself it runs in the middle of drawing a
        keystroke's answer.
        Run here, just after an answer was drawn, it usually finds no key waiting.
        """
        self._gc_timer = None
        if self._search_pending or self._held_keys or self._paint_hold is not None:
            return  # a key is being answered: not now
        middle_collections = gc.get_count()[2]
        if middle_collections >= gc.get_threshold()[2] - IDLE_GC_AHEAD:
            gc.collect()

    def _empty_message(self, result: SearchResult) -> Text | None:
        """The line above an empty table: why it is empty."""
        if result.total:
            return None
        if not self.header.counts.get("all"):
            return Text(f"building the index{self.glyphs['more']}" if self._syncing else
                        "the library is empty: no seed file has an abstract (papertray --help "
                        "says where they are read from)", end="")
        status = "" if self.status_filter == "all" else self.status_filter
        if not result.query.strip():
            return Text(f"no {status} papers" if status else "no papers", end="")
        message = Text("no papers match ", end="")
        message.append(one_line(result.query), "bold")
        if status:
            message.append(f" among {status} papers")
        return message

    def _show_position(self) -> None:
        table, result = self.table, self._result
        status = Text(end="", no_wrap=True, overflow="ellipsis")
        if result is not None:
            if table.row_count:
                status.append(f"{table.window_offset + table.cursor_row + 1}/{table.total}")
            else:
                status.append("0/0")
            if result.notice:
                notice = said(one_line(result.notice), getattr(self, "ascii_only", False))
                status.append("  " + notice, "italic")
        self.search_bar.show_status(status)

    # -- filters and jumps -------------------------------------------------------------------
    def action_filter(self, status: str) -> None:
        """Show only papers with ``status`` (``all`` shows every paper)."""
        self.status_filter = status
        self.header.status_filter = status
        self._save_settings()
        self._search(focus=self.table.current_id)

    def action_next_new(self, step: int) -> None:
        """Go to the next (``step`` 1) or previous (-1) new paper, loading other windows."""
        table = self.table
        row = table.find_status("new", step)
        if row is not None:
            table.move_cursor(row=row)
            return
        start = table.window_offset + table.row_count if step > 0 else table.window_offset - 1
        if not table.row_count or start < 0 or start >= table.total:
            self.notify(f"no new paper {'below' if step > 0 else 'above'}", timeout=3)
        elif not self._search_pending:
            self._request += 1
            self._sent = self._request
            self.find_new(self._request, self._query, self.status_filter, start, step)

    # -- the paper under the cursor ----------------------------------------------------------
    @on(DataTable.RowHighlighted, "#results")
    @while_running
    def _row_highlighted(self) -> None:
        self._follow_cursor()

    def _follow_cursor(self, force: bool = False, ready: Paper | None = None) -> None:
        """Load the cursor paper into the abstract panel (unless it is on its way); ``ready``
        is a paper read with the hits, shown at once if it is the cursor paper."""
        self._show_position()
        paper_id = self.table.current_id
        if paper_id is None:
            self._paper_wanted = self._paper_shown = None
            hint = "press / to change the query"
            if self.status_filter != "all":
                hint += ", or 1 to show all papers"
            self.panel.show_message(Text(hint, style="italic"))
            return
        if force or paper_id != self._paper_wanted:
            self._paper_wanted = paper_id
            if ready is not None and ready.id == paper_id:
                self._show_paper(paper_id, ready)
            else:
                self.load_paper(paper_id)

    @on(PaperLoaded)
    @while_running
    def _paper_loaded(self, message: PaperLoaded) -> None:
        self._show_paper(message.paper_id, message.paper)

    def _show_paper(self, paper_id: str, paper: Paper | None) -> None:
        """Show ``paper`` (None: it left the library) in the panel if it is the cursor paper."""
        hit = self.table.hit(paper_id)
        if paper_id != self.table.current_id or hit is None:
            if paper_id == self._paper_wanted:
                # it came while the cursor was away for a moment; the cursor may be back on it
                # by now with no new highlight event to ask again, so ask for the cursor's paper
                self._paper_wanted = None
                self._follow_cursor()
            return
        self._paper_shown = paper_id
        self._paper_wait = None
        if self._held_keys and not self._replaying and not self._holding_keys():
            self._release_keys()  # a key that waited for this paper (_waits_for_paper)
        if paper is None:
            self.panel.show_message(
                Text(f"this paper left the library; syncing{self.glyphs['more']}"))
            return
        if paper.status != hit.status:  # the row knows best: a mark may be on its way to disk
            paper = dataclasses.replace(paper, status=hit.status)
        self.panel.show_paper(paper, self._result.terms if self._result else ())

    # -- entering and leaving the search bar -------------------------------------------------
    def action_focus_search(self) -> None:
        """Put the keyboard in the search bar (drawn with the answer to the first key typed
        after ``/``, or after :data:`PAINT_HOLD_S`)."""
        self._hold_paint()
        self.search_bar.focus_query()

    def action_leave_search(self) -> None:
        """Back to the results table, at once (the next key may already be a mark).

        Keys typed into the query just before may not have reached the input yet; keys for
        the table wait until they have, and until their search is shown (:meth:`on_event`).
        """
        self.main_screen.set_focus(self.table)
        self._awaiting_input = True
        self.search_bar.input.call_later(self._input_caught_up)

    def _input_caught_up(self) -> None:
        """Runs after the input handled every key sent to it: search its value now."""
        self._awaiting_input = False
        if self.search_bar.value != self._query:
            self._query = self.search_bar.value
            self._search()
        if not self._holding_keys():
            self._release_keys()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``/`` types a slash while searching; Enter, Down and Esc leave only the search bar."""
        if action in ("focus_search", "leave_search"):
            if self.screen is not self.main_screen:
                return False  # the help or the palette has the keys
            searching = self.focused is self.search_bar.input
            return searching if action == "leave_search" else not searching
        return True

    def exit(self, *args, **kwargs) -> None:
        """Exit (see Textual's ``App.exit``); keys that arrive from now on are dropped: the
        exit waits for its turn in the app's queue, behind the keys typed after ``q``, and
        those acted (``q`` then ``u`` in one burst undid the last mark on the way out)."""
        self._leaving = True
        super().exit(*args, **kwargs)

    def exit_in_turn(self) -> None:
        """Exit as ctrl+q typed now does, for an exit asked from outside the keys (SIGTERM,
        SIGHUP, the terminal going away): after the keys already received, those held back
        included (:data:`QUIT_WAIT_S` at most), and with a note or tags being written saved.
        :meth:`exit` at once dropped the keys typed before it that still waited in the app's
        queue (``t t`` then SIGTERM: no mark made), and a queued exit still dropped the keys
        held back (``/wudi⏎ t``, then the connection drops: no mark) and the note typed."""
        self.post_message(events.Key("ctrl+q", None))

    # -- keys typed ahead --------------------------------------------------------------------
    async def on_event(self, event: events.Event) -> None:
        """Keys and pastes as they arrive: hold them while the table is about to change, run
        the table's keys at once, send a paste to the search bar.

        Over SSH keys come in bursts: after ``/wudi⏎t`` the ``t`` may arrive before the hits
        of "wudi" do, and would mark whatever row the old answer had under the cursor; after
        ``u`` a ``t`` must toggle the status the undo gave back, which only the marks file
        knows; after ``G t`` the ``t`` is for the last paper, whose window is still on its way.
        Such keys wait, in order, until the newest answer is shown; ctrl+c never waits, and
        ctrl+q waits only behind keys that wait (a prompt or the palette that closes is
        one), for :data:`QUIT_WAIT_S` at most; in the note or tags editor it saves first
        (:meth:`_save_prompt`). Held keys are posted again when released; a key that arrives
        while they are on their way waits behind them, so keys are always handled in the
        order typed.
        """
        if (self._leaving or not self.screen_stack) and isinstance(
                event, events.Key | events.Paste):
            # typed after q (for the shell, maybe): "q" then "u" undid the last mark; or a held
            # key posted again reaches an app whose screens are gone (Textual's teardown)
            return
        if (not isinstance(event, events.Key | events.Paste) or event.is_forwarded
                or (isinstance(event, events.Key) and event.key in _NEVER_HELD)):
            await super().on_event(event)
            return
        for i, ghost in enumerate(self._ghosts):
            if event is ghost:  # a released key held again meanwhile: its copy is in the queue
                del self._ghosts[i]
                return
        replayed = bool(self._replaying) and event is self._replaying[0]
        if isinstance(event, events.Key) and event.key == "ctrl+q":
            first = replayed or not (self._replaying or self._held_keys)  # no key before it
            saving = first and self._save_prompt()  # it then waits for the prompt to close
            # no key typed before it waits; a prompt or the palette that closes (Enter or Esc
            # typed before it) is such a key: the note Enter saved was written after the quit
            if not (replayed or saving or self._replaying or self._held_keys
                    or self._screen_holds_keys()):
                await super().on_event(event)
                return
            if not replayed:
                self.set_timer(QUIT_WAIT_S, self._quit_anyway)  # it waits, not for ever
        if replayed:
            self._replaying.popleft()
            # waiting again: it and the keys behind it go back in line
            if self._holding_keys() or self._waits_for_paper(event):
                rest = list(self._replaying)
                self._replaying.clear()
                self._ghosts += rest
                self._held_keys[0:0] = [_copy(key) for key in (event, *rest)]
                return
        elif (self._replaying or self._held_keys or self._holding_keys()
              or self._waits_for_paper(event)):
            self._held_keys.append(_copy(event))  # typed after the held keys: behind them
            if (not self._replaying and not self._holding_keys()
                    and not self._waits_for_paper(self._held_keys[0])):
                self._release_keys()
            return
        if isinstance(event, events.Key) and self.screen_stack and (
                (event.key in ("escape", "enter") and isinstance(self.screen, CommandPalette))
                or (event.key in HELP_CLOSE_KEYS and isinstance(self.screen, HelpScreen))):
            # it closes at Esc (at Enter too, when a command is chosen: ⏎ t lost the t, typed
            # into the input going away): the next keys are not its
            self._palette_leaving = self.screen
            self.set_timer(PALETTE_CLOSE_S, self._palette_closed)  # should it stay open after all
        await self._dispatch_input(event)
        if replayed and not self._replaying and self._held_keys and not self._holding_keys():
            self._release_keys()

    async def _dispatch_input(self, event: events.Key | events.Paste) -> None:
        """Handle a key or paste that may go ahead now.

        A key for the table runs its binding here, as it arrives. Textual would forward it to
        the table and run the binding when the key has bubbled back up to the app, so that a
        key of a burst would arrive (and be checked for holding) before the ones ahead of it
        had acted: ``t u t`` would decide to hold the second ``t`` before ``u`` had run.
        """
        main = self.main_screen
        if (self.screen is main and self.focused is self.search_bar.input
                and self.lib is not None and (isinstance(event, events.Paste)
                                              or event.is_printable or event.key in _EDITING)):
            self._hold_paint()  # the query is about to change: echo it with its answer
        if isinstance(event, events.Paste):
            if self.screen is main and self.focused is not self.search_bar.input:
                self.search_bar.paste(event.text)  # a paste is search text, wherever the focus
                return
        elif self.screen is main and self.focused is self.table:
            if not self.app_focus:  # as Textual does for a key (terminals may not report focus)
                self.app_focus = True
            active = main.active_bindings.get(event.key)
            if active is not None and await self.run_action(active.binding.action, active.node):
                return
        await super().on_event(event)

    def _holding_keys(self) -> bool:
        if self._screen_holds_keys():
            return True
        if self.lib is None or self.focused is not self.table:
            return False
        return (self._awaiting_input or self._search_pending or self._unpredicted_pending
                or self.table.moving)

    def _screen_holds_keys(self) -> bool:
        """Whether the screen on top is opening or closing (a key that arrives now is for the
        screen that will be on top then)."""
        screen = self.screen_stack[-1] if self.screen_stack else None
        if isinstance(screen, TextPrompt) and screen.holds_keys:
            return True  # it opens or closes: a key is for its input, or for the screen below
        return screen is not None and screen is self._palette_leaving  # Esc was sent to it

    def _waits_for_paper(self, event: events.Key | events.Paste) -> bool:
        """Whether ``event`` is a key for the table whose action needs the cursor paper in the
        panel (``a``, ``#``, the copy keys) while that paper is on its way: ``j a`` typed
        quickly opened no editor ("still loading") and the note's text went to the table as
        keys. It goes on once the paper is shown (:meth:`_show_paper`: it came, or it left the
        library), or after :data:`PAPER_WAIT_S` (then the action says it is still loading)."""
        if (not isinstance(event, events.Key) or len(self.screen_stack) != 1
                or self.focused is not self.table):
            return False  # (no screen: the app is closing, a timer calls this still)
        paper_id = self.table.current_id
        if paper_id is None or paper_id == self._paper_shown:
            return False
        active = self.main_screen.active_bindings.get(event.key)
        if active is None or not active.binding.action.startswith(_PAPER_ACTIONS):
            return False
        now = time.monotonic()
        if self._paper_wait is None or self._paper_wait[0] != paper_id:
            self._paper_wait = (paper_id, now + PAPER_WAIT_S)
            self.set_timer(PAPER_WAIT_S, self._keys_welcome)
        return now < self._paper_wait[1]  # else waited long enough for it: the key goes on

    def _save_prompt(self) -> bool:
        """ctrl+q while a note or tags are being written: save them, as Enter would, and True
        (the prompt then holds the keys until it is closed, ctrl+q among them).

        Esc is the key that drops what was typed. A quit dropped it too, silently, and for
        good (``a``, a note, ctrl+q in one burst; or a long note not yet saved), where a note
        saved by mistake is one ``u`` away from gone."""
        screen = self.screen_stack[-1] if self.screen_stack else None
        if isinstance(screen, TextPrompt) and not screen.holds_keys:
            screen.action_save()
            return True
        return False

    def _quit_anyway(self) -> None:
        """ctrl+q waited :data:`QUIT_WAIT_S` behind keys that still wait: quit now."""
        if self.is_running and not self._leaving:
            self.exit()

    @on(CommandPalette.Closed)
    def _palette_closed(self) -> None:
        """The palette is closed (or did not close within :data:`PALETTE_CLOSE_S` of Esc):
        the keys held since Esc go on."""
        self._palette_leaving = None
        self._keys_welcome()

    @on(KeysWelcome)
    def _keys_welcome(self) -> None:
        if (not self._replaying and self._held_keys and not self._holding_keys()
                and not self._waits_for_paper(self._held_keys[0])):
            self._release_keys()

    def _release_keys(self) -> None:
        """Post the held keys again, in order (:meth:`on_event` handles or holds them anew)."""
        held, self._held_keys = self._held_keys, []
        self._replaying.extend(held)
        for key in held:
            self.post_message(key)


def _copy(event: events.Key | events.Paste) -> events.Key | events.Paste:
    """A fresh event for a key or paste that will be posted again."""
    if isinstance(event, events.Paste):
        return events.Paste(event.text)
    return events.Key(event.key, event.character)
