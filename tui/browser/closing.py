"""Screens that close once: the base of every screen papertray pushes (the help, the note and
tag editors, the command palette).

A screen closes from a handler of its own (a click on the palette's background or on one of
its commands, a key). A double or triple click comes in one read, so its clicks are queued for
the screen before the first has closed it, and each would close it again: Textual's
``Screen.dismiss`` pops whatever screen is on top, and then the main screen ("Can't pop
screen"), and a second click on a palette command runs the command twice. Textual leaves a
dismiss that is not the top screen's to the app (Textualize/textual#2575, #4884).

:class:`ClosesOnce` holds the rule in one place: a screen that is not on top of the stack
(closed already, or with another screen over it) dismisses nothing, and drops the input that
still reaches it (keys, mouse events, and what its widgets make of them: a chosen option, a
pressed button, a submitted input). A new screen derives from it, after its Textual base
(``class HelpScreen(ModalScreen[None], ClosesOnce)``: Textual takes a screen's styles from its
first base).
"""

from __future__ import annotations

from textual import events
from textual.await_complete import AwaitComplete
from textual.message import Message
from textual.screen import Screen


class ClosesOnce(Screen):
    """A screen that closes once, whatever the input queued for it (the module's rule)."""

    @property
    def on_top(self) -> bool:
        """Whether this screen is the one on top of the app's stack (it gets the input)."""
        stack = self.app.screen_stack
        return bool(stack) and stack[-1] is self

    def dismiss(self, result=None) -> AwaitComplete:
        """Close the screen with ``result`` (Textual's ``Screen.dismiss``), only if it is on top:
        once it is closed, or covered by another, a dismiss does nothing."""
        if not self.on_top:
            return AwaitComplete.nothing()
        return super().dismiss(result)

    async def _on_message(self, message: Message) -> None:
        """Every message the screen handles comes here first (``textual_private``): input that
        reaches the screen once it is no longer on top stops here, before any handler of the
        screen (or of its Textual base) acts on it."""
        if _is_input(message) and not self.on_top:
            return
        await super()._on_message(message)


def _is_input(message: Message) -> bool:
    """Whether ``message`` is the reader's input: a key, a mouse event, or what a widget makes
    of them (a message about a widget: an option chosen, a button pressed, an input submitted)."""
    if isinstance(message, events.InputEvent):
        return True
    return not isinstance(message, events.Event) and message.control is not None
