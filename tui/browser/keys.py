"""The browser's input pipeline: every key and paste, in the order typed, through one queue.

::

    keys, pastes, bursts ─┐
    SIGTERM, SIGHUP ──────┴─► on_event ─► queue  [ / w u d i ⏎ t ctrl+q ]
      (as ctrl+q)                           │
                                            │ _pump: the head goes once what it needs
                                            │ is ready (_need_of); the rest wait behind it
                                            ▼
                                        _dispatch ─► the table's or the reading view's
                                                  │  binding, at once
                                                  └► Textual's routing (search bar, prompts,
                                                     help, palette)

    an answer shown, the cursor paper shown, marks written, a screen built,
    a prompt opened or answered, the palette or help closed ──► _keys_may_go ─► _pump

What the head of the queue waits for (:meth:`KeysApp._need_of`):

* **the screen on top**: a screen a key before it opened, until it is built; a prompt that is
  opening or was answered (the key is for its input, or for the screen below); the palette
  or help after the key that closes it (:data:`WAIT_LIMIT_S` at most: an Enter that chooses
  no command leaves the palette open);
* **the palette's answer**, for a key to the palette: its input has handled the key before
  it (its edits then come in the order typed), and for Enter, the commands that match the
  text are shown (:data:`WAIT_LIMIT_S` at most);
* **the search bar's keys**, for a key of an action that reads the query shown (the
  history's Up and Down, whatever keys ``keys.toml`` gives them): the search bar has handled
  the keys sent to it before (``/``, ctrl+u, Up in one burst walk from the empty line);
* **the newest answer**, for a key to the table or to the reading view (a view of the
  table's cursor paper): the library is opening or the first build runs, the search bar has
  keys still to handle, a search or a window of hits is on its way, or a mark's new status is
  not known yet (after ``/wudi⏎t`` the ``t`` marks a hit of "wudi"; after ``u`` a ``t``
  toggles the status the undo gave back);
* **the cursor paper**, for a key whose action reads it (``a``, ``#``, ``o``, the copy keys,
  space, Enter, and the reading view's keys that scroll it; :data:`WAIT_LIMIT_S` at most, then
  the action says it is still loading).

A burst of text read at once with a line break or a tab in it (a paste the terminal did not
bracket, or keys typed ahead: :mod:`tui.browser.bursts`) waits in the queue as one; at its turn
it is search text if the search bar has the keyboard (the later reads of the burst follow the
first), and its keys, back at the head of the queue, otherwise.

ctrl+q (the quit that works anywhere, whatever key ``keys.toml`` gives it) is a key in the
queue: it quits once the keys typed before it have acted, saving a note or tags being written
first; should they still wait after :data:`WAIT_LIMIT_S`, it quits
anyway. A signal that ends the browser queues a ctrl+q (:meth:`KeysApp.exit_in_turn`). ctrl+c
never waits. Keys that arrive after the exit began are dropped.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from textual import events, on
from textual.command import CommandPalette
from textual.screen import Screen
from textual.timer import Timer

from tui.browser.base import BrowserBase
from tui.browser.bursts import TextBurst
from tui.browser.commands import TriagePalette
from tui.browser.editors import TextPrompt, save_for_quit
from tui.browser.messages import KeysWelcome
from tui.browser.reading_screen import ReadingScreen
from tui.browser.screens import HelpScreen

#: Seconds a key waits at most for the palette or help to close, or for the cursor paper to
#: load (a paper loads in a few ms); and how long ctrl+q waits behind keys that wait: a step
#: that never ends must not keep the keyboard's way out from working.
WAIT_LIMIT_S = 2.0
#: Keys that never wait in the queue.
_NEVER_QUEUED = ("ctrl+c",)
#: Actions of the table's keys that need the cursor paper in the panel (a note, tags, copies,
#: and scrolling it: space at the abstract's end goes to the next paper; opening the reading
#: view, and scrolling the paper it shows).
_PAPER_ACTIONS = ("edit_note", "add_tags", "copy(", "open_link(", "scroll_abstract(", "open_paper",
                  "scroll(")
#: Keys (besides printable ones) that edit the query in the search bar.
_EDITING = ("backspace", "delete", "ctrl+u", "ctrl+w", "ctrl+k", "ctrl+x", "ctrl+v")

Input = events.Key | events.Paste | TextBurst


@dataclass(frozen=True)
class _Need:
    """What the head of the queue waits for: ``what`` (the module docstring's list), the
    ``subject`` waited for (a screen, a paper id) and whether the wait is ``limited`` to
    :data:`WAIT_LIMIT_S`."""

    what: str
    subject: object = None
    limited: bool = False


class KeysApp(BrowserBase):
    """The input pipeline (the module docstring); the search bar entered and left at once.

    The other parts of the app provide ``lib``, ``opening`` and ``_syncing`` (syncing), the
    search state (``_query``, ``_search``, ``_search_pending``, ``_paper_shown``),
    ``_unpredicted_pending`` (marks) and ``_hold_paint`` (frames); they call
    :meth:`_keys_may_go` when a state a key may wait for becomes ready.
    """

    def _init_keys(self, quit_keys: tuple[str, ...], help_close_keys: tuple[str, ...],
                   query_keys: tuple[str, ...]) -> None:
        """``quit_keys``: the keys in force of the quit that works anywhere (ctrl+q by
        default); ``help_close_keys``: those that close the help; ``query_keys``: those of
        the actions that read the query shown (the history's)."""
        self._quit_keys, self._help_close_keys = quit_keys, help_close_keys
        self._query_keys = query_keys
        self._search_typing: object = None  # the newest key sent to the search bar, unhandled
        self._inputs: deque[Input] = deque()
        self._pumping = False
        self._leaving = False  # exit() was called: keys that arrive now are dropped
        self._awaiting_input = False  # the search bar was left with keys still to handle
        self._closing_screen: Screen | None = None  # the palette or help sent its closing key
        # the palette whose input has keys to handle, and the newest key's token
        self._typing_into: tuple[Screen, object] | None = None
        self._clock: tuple[_Need, Timer] | None = None  # a limited need, timed
        self._given_up: _Need | None = None  # a limited need waited out: it holds no key
        self._burst = (0, False)  # (number, pasted) of the newest burst: its later reads follow

    @property
    def keys_waiting(self) -> int:
        """How many keys and pastes wait in the queue for their turn (0: every key typed has
        acted, or was dropped by an exit)."""
        return len(self._inputs)

    # -- entering and leaving the search bar -------------------------------------------------
    def action_focus_search(self) -> None:
        """Put the keyboard in the search bar (drawn with the answer to the first key typed
        after ``/``, or after :data:`tui.browser.frames.PAINT_HOLD_S`)."""
        self._hold_paint()
        self.search_bar.focus_query()

    def action_leave_search(self) -> None:
        """Back to the results table, at once (the next key may already be a mark); keys for
        the table wait until the search bar has handled the keys sent to it, and for the
        answer to its query."""
        self.main_screen.set_focus(self.table)
        self._awaiting_input = True
        self.search_bar.input.call_later(self._input_caught_up)

    def _input_caught_up(self) -> None:
        """Runs after the search bar handled every key sent to it: search its value now."""
        self._awaiting_input = False
        if self.search_bar.value != self._query:
            self._query = self.search_bar.value
            self._search()
        self.remember_query(self._query)
        self._save_settings()  # the session: the query
        self._keys_may_go()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``/`` types a slash while searching; Enter, Esc and the history's keys (Up, Down)
        act only in the search bar (on the table they are its own)."""
        if action in ("focus_search", "leave_search", "history"):
            if self.screen is not self.main_screen:
                return False  # the help or the palette has the keys
            searching = self.focused is self.search_bar.input
            return not searching if action == "focus_search" else searching
        return True

    # -- leaving -----------------------------------------------------------------------------
    def exit(self, *args, **kwargs) -> None:
        """Exit (see Textual's ``App.exit``), dropping the keys still queued and those that
        arrive from now on: ``q u`` in one burst quits without undoing the last mark."""
        self._leaving = True
        self._inputs.clear()
        for screen in self.screen_stack[1:]:
            self._stop_workers_of(screen)
        super().exit(*args, **kwargs)

    def _stop_workers_of(self, screen: Screen) -> None:
        """Cancel the workers a screen runs before it is taken down: the command palette's
        search of commands looks up its list when it resumes, and the list is gone then."""
        self.workers.cancel_node(screen)

    def exit_in_turn(self) -> None:
        """Exit as ctrl+q typed now does, for an exit asked from outside the keys (SIGTERM,
        SIGHUP, the terminal going away): after the keys already received, with a note or
        tags being written saved."""
        self.post_message(events.Key(self._quit_keys[0], None))

    def _quit_anyway(self) -> None:
        """ctrl+q waited :data:`WAIT_LIMIT_S` behind keys that still wait: quit now."""
        if self.is_running and not self._leaving:
            self.exit()

    # -- the queue ---------------------------------------------------------------------------
    async def on_event(self, event: events.Event) -> None:
        """Every event reaches the app here: keys and pastes join the queue, a mouse event
        outside the screen is dropped (Textual takes the focus from every widget for it: the
        table would no longer get its keys), the rest go on."""
        if isinstance(event, events.MouseEvent) and not event.is_forwarded and not (
                self.size.region.contains(int(event.screen_x), int(event.screen_y))):
            return
        if not isinstance(event, Input) or event.is_forwarded:
            await super().on_event(event)
        elif self._leaving or not self.screen_stack:
            return  # typed after a quit (for the shell, maybe), or the app's screens are gone
        elif isinstance(event, events.Key) and event.key in _NEVER_QUEUED:
            await super().on_event(event)
        else:
            self._inputs.append(event)
            if self._is_quit(event):
                self.set_timer(WAIT_LIMIT_S, self._quit_anyway)
            await self._pump()

    async def _pump(self) -> None:
        """Dispatch keys from the head of the queue while what each needs is ready."""
        if self._pumping:
            return  # the running pump takes the keys queued meanwhile
        self._pumping = True
        try:
            while self._inputs and self.screen_stack and not self._leaving:
                head = self._inputs[0]
                if self._is_quit(head) and save_for_quit(self):
                    return  # the prompt saves and closes; the quit waits for it
                need = self._need_of(head)
                if need is not None and need != self._given_up:
                    self._time(need)
                    return
                if need is None:
                    self._given_up = None
                self._stop_clock()
                self._inputs.popleft()
                top = self.screen_stack[-1]
                await self._dispatch(head)
                if self.screen_stack and self.screen_stack[-1] is not top:
                    # a screen opened: the keys behind wait until it is mounted
                    self.screen_stack[-1].call_later(self._keys_may_go)
        finally:
            self._pumping = False

    def _need_of(self, event: Input) -> _Need | None:
        """What ``event`` must wait for before it acts (the module docstring), or None."""
        screen = self.screen_stack[-1]
        if not screen.is_mounted or (isinstance(screen, TextPrompt) and screen.holds_keys):
            return _Need("the screen on top", screen)
        if screen is self._closing_screen:
            return _Need("the screen on top", screen, limited=True)
        if isinstance(screen, TriagePalette) and not self._is_quit(event) and (
                (self._typing_into is not None and self._typing_into[0] is screen)
                or (_is_enter(event) and not screen.answered)):
            return _Need("the palette's answer", screen, limited=True)
        if (screen is self.main_screen and self.focused is self.search_bar.input
                and self._search_typing is not None and isinstance(event, events.Key)
                and event.key in self._query_keys):
            return _Need("the search bar's keys")
        if self._is_quit(event) or not self._for_the_list(screen):
            return None
        if self.lib is None:
            return _Need("the newest answer") if self.opening else None
        if (self._awaiting_input or self._search_pending or self._unpredicted_pending
                or self.selecting_all or self.table.moving
                or (self._syncing and not self.header.counts.get("all"))):
            return _Need("the newest answer")
        paper_id = self.table.current_id
        if (isinstance(event, events.Key) and paper_id is not None
                and paper_id != self._paper_shown):
            active = screen.active_bindings.get(event.key)
            # (the reading view runs the app's actions: "app.copy('link')")
            action = active.binding.action.removeprefix("app.") if active is not None else ""
            if action.startswith(_PAPER_ACTIONS):
                return _Need("the cursor paper", paper_id, limited=True)
        return None

    def _for_the_list(self, screen: Screen) -> bool:
        """Whether the keys for ``screen`` (the one on top) act on the results' cursor paper:
        the table's, and the reading view's (its paper is the cursor paper)."""
        if isinstance(screen, ReadingScreen):
            return True
        return screen is self.main_screen and self.focused is self.table

    def _search_typed(self, token: object) -> None:
        """The search bar has handled the key of ``token`` (and those before it)."""
        if self._search_typing is token:
            self._search_typing = None
            self._keys_may_go()

    def _typed(self, token: object) -> None:
        """The palette's input has handled the key of ``token`` (and those before it)."""
        if self._typing_into is not None and self._typing_into[1] is token:
            self._typing_into = None
            self._keys_may_go()

    def _time(self, need: _Need) -> None:
        """Start the clock of a limited ``need`` (once per need): after :data:`WAIT_LIMIT_S`
        it no longer holds keys."""
        if not need.limited or (self._clock is not None and self._clock[0] == need):
            return
        self._stop_clock()
        self._clock = (need, self.set_timer(WAIT_LIMIT_S, self._give_up))

    def _stop_clock(self) -> None:
        if self._clock is not None:
            self._clock[1].stop()
            self._clock = None

    def _give_up(self) -> None:
        if self._clock is not None:
            self._given_up, self._clock = self._clock[0], None
            self._keys_may_go()

    def _keys_may_go(self) -> None:
        """A state a key may wait for changed (an answer or the cursor paper shown, marks
        written, a screen opened or closed): let the pump look at the head of the queue, in
        the app's turn."""
        if self._inputs:
            self.post_message(KeysWelcome())

    @on(KeysWelcome)
    async def _keys_welcome(self) -> None:
        await self._pump()

    @on(CommandPalette.Closed)
    def _screen_closed(self) -> None:
        """The palette or help closed: the keys typed after its closing key go on."""
        self._closing_screen = None
        self._keys_may_go()

    async def _dispatch(self, event: Input) -> None:
        """Act on a key or paste whose turn it is.

        A key for the table runs its binding here: Textual would forward it to the table and
        run the binding once it bubbled back up to the app, after the pump had looked at the
        keys behind it (``t u t`` would let the second ``t`` go before ``u`` had run). A paste
        is search text, never keys, wherever the focus is; a burst of text is a paste or its
        keys (:meth:`_pasted`).
        """
        if isinstance(event, TextBurst):
            if not self._pasted(event):
                self._inputs.extendleft(reversed(event.keys))  # they go next, in order
                return
            event = events.Paste(event.text)
        main = self.main_screen
        if (self.screen is main and self.focused is self.search_bar.input
                and self.lib is not None and (isinstance(event, events.Paste)
                                              or event.is_printable or event.key in _EDITING)):
            self._hold_paint()  # the query is about to change: echo it with its answer
        if isinstance(event, events.Paste):
            if self.screen is main and self.focused is not self.search_bar.input:
                self.search_bar.paste(event.text)
                return
        elif self._for_the_list(self.screen):
            if not self.app_focus:  # as Textual does for a key (terminals may not report focus)
                self.app_focus = True
            active = self.screen.active_bindings.get(event.key)
            if active is not None and await self.run_action(active.binding.action, active.node):
                return
        elif isinstance(self.screen, TriagePalette) and event.key not in ("escape", "enter"):
            await self._to_palette(event)
            return
        elif ((event.key in ("escape", "enter") and isinstance(self.screen, CommandPalette))
              or (event.key in self._help_close_keys and isinstance(self.screen, HelpScreen))):
            self._closing_screen, self._given_up = self.screen, None  # the next keys wait for it
        query = self.search_bar.input
        if self.screen is main and self.focused is query:
            self._search_typing = token = object()
            query.call_later(self._search_typed, token)  # after the input has handled it
        await super().on_event(event)

    def _is_quit(self, event: Input) -> bool:
        """Whether ``event`` is a key of the quit that works anywhere (ctrl+q by default)."""
        return isinstance(event, events.Key) and event.key in self._quit_keys

    def _pasted(self, burst: TextBurst) -> bool:
        """Whether ``burst`` is search text: its first read is when the search bar has the
        keyboard as it comes to its turn, and every later read of it is as the first was."""
        number, pasted = self._burst
        if burst.number != number:
            pasted = self.screen is self.main_screen and self.focused is self.search_bar.input
            self._burst = (burst.number, pasted)
        return pasted

    async def _to_palette(self, event: events.Key) -> None:
        """A key for the palette's text, in the order typed: an editing key of its input
        (Backspace, ctrl+w...) runs its binding here, as the table's keys do; the next key
        waits until the input has handled this one (:meth:`_need_of`)."""
        palette, field = self.screen, self.focused
        active = palette.active_bindings.get(event.key)
        if not (field is not None and active is not None and active.node is field
                and await self.run_action(active.binding.action, field)):
            await super().on_event(event)
        if field is not None:
            token = object()
            self._typing_into = (palette, token)
            field.call_later(self._typed, token)


def _is_enter(event: Input) -> bool:
    return isinstance(event, events.Key) and event.key == "enter"
