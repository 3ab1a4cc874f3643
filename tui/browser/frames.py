"""Frames and the garbage collector, timed around keystrokes: the screen waits (briefly) for the
answer to a key that changed the query, so the key's echo, the hits and the paper are drawn in
one frame; and Python's full garbage collection runs between keys, not while an answer is drawn.
"""

from __future__ import annotations

import contextlib
import gc

from textual.timer import Timer

from tui.browser.base import BrowserBase
from tui.browser.widgets import KeysFooter

#: Seconds the screen may wait, after a key changed the query, for the answer to that query
#: before it is drawn anyway (:meth:`FramesApp._hold_paint`).
PAINT_HOLD_S = 0.05
#: Seconds after an answer is shown before a full garbage collection that is due soon runs
#: (:meth:`FramesApp._collect_while_idle`), and how many middle-generation collections
#: before it is due count as soon (a typed key brings about one).
IDLE_GC_S = 0.02
IDLE_GC_AHEAD = 3


class FramesApp(BrowserBase):
    """When the screen is drawn and when the garbage collector runs.

    The other parts of the app provide ``_search_pending`` and ``keys_waiting``.
    """

    def _init_frames(self) -> None:
        self._heap_frozen = False
        self._paint_hold: Timer | None = None
        self._paint_batch = contextlib.ExitStack()  # the batch of a paint hold
        self._gc_timer: Timer | None = None

    def _hold_paint(self) -> None:
        """Draw nothing until the answer to the query just typed is shown (at most
        :data:`PAINT_HOLD_S`): then the key's echo in the search bar, the hits and the paper
        are drawn in one frame.

        Textual draws at most one frame per 1/60 s. Drawn on its own, the echo takes that
        frame and the answer, a few ms later, waits for the next: up to 17 ms (a third of
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

    def _answer_shown(self) -> None:
        """An answer was put on the screen: freeze the heap after the first (the startup
        objects all exist by then), else collect the garbage once it is drawn if a full
        collection is due soon."""
        if not self._heap_frozen:
            self._heap_frozen = True
            self._freeze_heap_soon()
        elif self._gc_timer is None:  # once this answer is on the screen
            self._gc_timer = self.set_timer(IDLE_GC_S, self._collect_while_idle)

    def _freeze_heap_soon(self) -> None:
        """:func:`freeze_heap` once the next frame is drawn."""
        self.call_after_refresh(freeze_heap)

    def _collect_while_idle(self) -> None:
        """Run Python's full garbage collection now, between keys, when it is due soon.

        A full collection (every tenth middle one) walks every object allocated since
        :func:`freeze_heap` and frees the cycles Textual's drawing leaves
        (10-30 ms at 87k papers); left to itself it runs in the middle of drawing a
        keystroke's answer.
        Run here, just after an answer was drawn, it usually finds no key waiting.
        """
        self._gc_timer = None
        if self._search_pending or self.keys_waiting or self._paint_hold is not None:
            return  # a key is being answered: not now
        middle_collections = gc.get_count()[2]
        if middle_collections >= gc.get_threshold()[2] - IDLE_GC_AHEAD:
            gc.collect()


def freeze_heap() -> None:
    """Put every object alive now beyond the reach of Python's cyclic garbage collector.

    The browser keeps a large heap of long-lived objects (Textual, its stylesheet, the
    library); every few hundred thousand allocations Python's oldest-generation collection
    walks all of them: 50-60 ms at 87k papers, landing on whichever keystroke is being
    drawn (2 of 20 keys of bench/browser.py's typed query). After ``gc.freeze()`` that walk
    covers only what was allocated since, and takes a few ms. Called once the first page is
    shown (the startup objects all exist by then), and again after a sync.
    """
    gc.freeze()
