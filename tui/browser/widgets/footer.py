"""The footer: Textual's, with the keys that matter now, rebuilt once per frame at most."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual's ``Footer``, rebuilt once after the next frame however many times the bindings
    changed before it, and not while the app holds its frames back (``paint_held``).

    Textual's footer rebuilds all its keys (unmounts and mounts a widget per key) each time
    the screen says its bindings changed, and moving the focus says so three times (blur,
    focus, the ancestors' focus events): ``/`` would rebuild the footer three times, 10-15 ms
    at 87k papers in front of the search for the first letter typed after it, which a fast
    typist sends with it. The footer shows the bindings as they are when it is rebuilt, so
    one rebuild shows the last change; while the app holds its frames back for a search
    (:meth:`tui.browser.frames.FramesApp._hold_paint`) the rebuild waits, and the app asks for
    it with :meth:`rebuild` once that search is drawn.
    """

    _rebuild_due = False
    _rebuild_asked = False

    def bindings_changed(self, screen: Screen) -> None:
        """As ``Footer.bindings_changed``: note the change, rebuild after the next frame."""
        self._bindings_ready = True  # as Footer.bindings_changed does (textual_private)
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self._rebuild_due = True
            if not getattr(self.app, "paint_held", False):
                self.rebuild()

    def rebuild(self) -> None:
        """Rebuild after the next frame, if the bindings changed since the last rebuild."""
        if self._rebuild_due and not self._rebuild_asked:
            self._rebuild_asked = True
            self.call_after_refresh(self._rebuild_now)

    def _rebuild_now(self) -> None:
        self._rebuild_asked = False
        if getattr(self.app, "paint_held", False):
            return  # frames held back run these callbacks with no frame: the app asks again
        if self._rebuild_due:
            self._rebuild_due = False
            # in the footer's own message loop: recompose binds its keys to the node running
            self.call_later(self.recompose)
