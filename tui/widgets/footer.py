"""The footer: Textual's, with the keys that matter now, rebuilt once per change of focus."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual's ``Footer``, recomposed once however many times the bindings changed before
    the next frame.

    Textual's footer rebuilds all its keys (unmounts and mounts a widget per key) each time
    the screen says its bindings changed, and moving the focus says so three times (blur,
    focus, the ancestors' focus events): ``/`` then rebuilt the footer three times, 10-15 ms
    at 87k papers that the first letter typed after it waited for. The footer shows the
    bindings as they are when it is rebuilt, so one rebuild shows the last change.
    """

    _recompose_due = False

    def bindings_changed(self, screen: Screen) -> None:
        """As ``Footer.bindings_changed``, with the rebuilds already due coalesced into one."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_due:
            self._recompose_due = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_due = False
        await self.recompose()
