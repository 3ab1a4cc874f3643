"""Keys typed ahead: the one place that orders the browser's input.

Every key and paste reaches :meth:`KeysApp.on_event` first. A key that arrives while the table
is about to change (a search, a window or a paper on its way; a prompt or the palette opening
or closing) is held, and posted again, in order, once the newest answer is shown; the table's
keys run their binding as they arrive. A new screen or key is safe when what it waits for
makes :meth:`KeysApp._holding_keys` true, and ends with a call to
:meth:`KeysApp._release_keys` (or a :class:`~tui.browser.editors.KeysWelcome` message).
"""

from __future__ import annotations

import time
from collections import deque

from textual import events, on
from textual.command import CommandPalette
from textual.screen import Screen

from tui.browser.base import BrowserBase
from tui.browser.editors import KeysWelcome, TextPrompt
from tui.browser.screens import HELP_CLOSE_KEYS, HelpScreen

#: Keys that are never held back (see :meth:`KeysApp.on_event`).
_NEVER_HELD = ("ctrl+c",)
#: Seconds ctrl+q waits behind keys typed before it that wait themselves (for a search answer,
#: a note being written...), at most: those keys act first (``/wudi⏎ t ctrl+q`` marks, then
#: quits), but a step that never ends must not keep the keyboard's way out from working.
QUIT_WAIT_S = 2.0
#: Seconds keys typed after Esc or Enter in the command palette wait for it to close, at most
#: (it closes at once at Esc, and at an Enter that chooses a command; an Enter that chooses none
#: leaves it open, and the keys then go to it after this long).
PALETTE_CLOSE_S = 1.0
#: Seconds a key that needs the cursor paper (``a``, ``#``, copies) waits for it to load, at
#: most (:meth:`KeysApp._waits_for_paper`; a paper loads in a few ms).
PAPER_WAIT_S = 2.0
#: Actions of the table's keys that need the cursor paper in the panel (a note, tags, copies).
_PAPER_ACTIONS = ("edit_note", "add_tags", "copy(")
#: Keys (besides printable ones) that edit the query in the search bar.
_EDITING = ("backspace", "delete", "ctrl+u", "ctrl+w", "ctrl+k", "ctrl+x", "ctrl+v")


class KeysApp(BrowserBase):
    """Keys and pastes in the order typed: held while the table is about to change, then
    posted again; the search bar entered and left at once.

    The other parts of the app provide ``lib``, the search state (``_query``, ``_search``,
    ``_search_pending``, ``_paper_shown``), ``_unpredicted_pending`` (marks) and
    ``_hold_paint`` (frames).
    """

    def _init_keys(self) -> None:
        self._leaving = False  # exit() was called: keys typed since are not acted on
        self._held_keys: list[events.Key | events.Paste] = []
        self._replaying: deque[events.Key | events.Paste] = deque()  # released, on their way back
        self._ghosts: list[events.Key | events.Paste] = []  # released, then held again meanwhile
        self._awaiting_input = False
        # the command palette Esc or Enter was sent to, or the help a closing key was sent to:
        # keys wait until it is closed, then go to the screen below (ctrl+q behind them too)
        self._palette_leaving: Screen | None = None
        self._paper_wait: tuple[str, float] | None = None  # a paper waited for, until when

    # -- entering and leaving the search bar -------------------------------------------------
    def action_focus_search(self) -> None:
        """Put the keyboard in the search bar (drawn with the answer to the first key typed
        after ``/``, or after :data:`tui.browser.frames.PAINT_HOLD_S`)."""
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
        those must not act (``q u`` in one burst quits without undoing the last mark)."""
        self._leaving = True
        super().exit(*args, **kwargs)

    def exit_in_turn(self) -> None:
        """Exit as ctrl+q typed now does, for an exit asked from outside the keys (SIGTERM,
        SIGHUP, the terminal going away): after the keys already received, those held back
        included (:data:`QUIT_WAIT_S` at most), and with a note or tags being written saved:
        ``/wudi⏎ t`` then the connection drops still marks the paper."""
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
            # typed after q (for the shell, maybe), or a held key posted again to an app whose
            # screens are gone (Textual's teardown): not for the app
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
            # at once only when no key typed before it waits; a prompt or the palette that
            # closes (Enter or Esc typed before it) is such a key
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
            # it closes at Esc (at Enter too, when a command is chosen): the next keys are for
            # the screen below
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
        quickly opens the editor on the paper ``j`` went to. It goes on once the paper is shown
        (``_show_paper``: it came, or it left the library), or after :data:`PAPER_WAIT_S` (then
        the action says it is still loading)."""
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

        Esc is the key that drops what was typed; a quit keeps it (``a``, a note, ctrl+q in
        one burst saves the note): a note saved by mistake is one ``u`` away from gone."""
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
