"""A one-line editor over the browser, for a paper's note (``a``) and its tags (``#``) (and the
name of a saved search); and a one-line yes-or-no question (:class:`ConfirmLine`).

Enter or ctrl+s saves (the screen is dismissed with the text), Esc cancels (dismissed with None);
ctrl+q saves, then quits (:func:`save_for_quit`).
The paper's label is shown as plain text, never as markup.

Keys come in bursts over SSH: ``a``, the note, Enter and the next key may all arrive before
the screen has handled the first. The prompt acts on its keys in the order they were typed,
whatever their timing:

* Enter, ctrl+s and Esc are priority bindings: they act as the key reaches the app, before a
  key typed after them is sent to the prompt (Enter then Esc dismisses the screen once).
* The text saved is the input's value once the input has handled every key typed before
  Enter (the input is a :class:`~tui.browser.widgets.search.QueryInput`, which edits in key
  order).
* While the prompt opens (its input not focused yet) and once it is answered, it
  :attr:`~TextPrompt.holds_keys`: the keys that arrive wait in the app's input queue
  (:mod:`tui.browser.keys`) until the prompt posts
  :class:`~tui.browser.messages.KeysWelcome`, so each key acts on the screen on top once the
  keys before it acted.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import DescendantFocus, Key
from textual.screen import ModalScreen
from textual.widgets import Static

from db.models import LibraryError
from db.text import one_line, tag_name
from tui.browser.closing import ClosesOnce
from tui.browser.messages import KeysWelcome
from tui.browser.widgets.search import QueryInput


class TextPrompt(ModalScreen[str | None], ClosesOnce):
    """Ask for one line of text about a paper: ``title`` above, ``hint`` below the field."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", priority=True, id="prompt.cancel",
                tooltip="Close, saving nothing"),
        Binding("enter", "save", "save", show=False, priority=True, id="prompt.save-enter",
                tooltip="Save and close"),
        Binding("ctrl+s", "save", "save", priority=True, id="prompt.save",
                tooltip="Save and close"),
    ]

    def __init__(self, title: str, label: str, value: str, hint: str,
                 placeholder: str = "") -> None:
        super().__init__()
        self.title_text, self.label, self.value, self.hint = title, label, value, hint
        self.placeholder = placeholder
        # Not ``_closing``: that is Textual's own flag of a message pump shutting down.
        self._input_ready = False  # the input has had the focus
        self._answered = False  # Enter, ctrl+s or Esc was pressed

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            heading = Text(self.title_text + " ", style="bold", end="")
            heading.append(one_line(self.label), "italic")
            yield Static(heading, id="prompt-title")
            yield QueryInput(self.value, placeholder=self.placeholder, id="prompt-input",
                             select_on_focus=False)
            yield Static(Text(self.hint, end=""), id="prompt-hint")

    @property
    def input(self) -> QueryInput:
        """The text field."""
        return self.query_one("#prompt-input", QueryInput)

    @property
    def holds_keys(self) -> bool:
        """Whether a key that arrives now must wait: the input has no focus yet (the key is
        for it), or the prompt was answered (the key is for the screen below)."""
        return self._answered or not self._input_ready

    def on_mount(self) -> None:
        """Focus the text field, if it is still there: an exit that began as the editor opened
        takes its widgets down before this runs."""
        for field in self.query("#prompt-input").results(QueryInput):
            field.focus()

    def on_key(self, event: Key) -> None:
        """A key the input did not use ends here: it is never for the screen below (F1 typed
        in the editor does not open the help once the editor has closed)."""
        event.stop()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        if not self._input_ready and event.widget is self.input:
            self._input_ready = True
            self.app.post_message(KeysWelcome())

    def action_save(self) -> None:
        """Close, giving back the text (once every key typed before is in it)."""
        self._answer(save=True)

    def action_cancel(self) -> None:
        """Close, giving back None (nothing is saved)."""
        self._answer(save=False)

    def _answer(self, save: bool) -> None:
        if self._answered:
            return
        self._answered = True
        self.input.call_later(self._dismiss, save)  # after the keys the input has yet to handle

    def _dismiss(self, save: bool) -> None:
        """Dismiss the prompt (not awaited: it is taken down after this callback) and let the
        keys held meanwhile go on, to the screen below."""
        if self.app.screen is self:
            self.dismiss(self.input.value if save else None)
        self.app.post_message(KeysWelcome())


class ConfirmLine(ModalScreen[bool], ClosesOnce):
    """One line at the foot of the browser asking a yes-or-no question: ``y`` answers yes,
    any other key no (the key is used up). Its result is the answer."""

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        line = Text(one_line(self.question), style="bold", end="")
        line.append("  y confirms, any other key cancels", "italic")
        yield Static(line, id="confirm-line")

    def on_key(self, event: Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(event.key == "y")
        self.app.post_message(KeysWelcome())


def tags_problem(text: str) -> str:
    """Why the tag words ``text`` (``-name`` removes one) cannot be saved, on one line; "" when
    they can (:func:`db.text.tag_name`). Said when the editor closes, not as a failed write."""
    try:
        for word in text.split():
            tag_name(word.removeprefix("-"))
    except LibraryError as exc:
        return one_line(str(exc))
    return ""


def save_for_quit(app: App) -> bool:
    """ctrl+q while a note or tags are being written: close what was opened over the editor
    (the palette, the help; their workers cancelled, as the command palette's would look up its
    list when it resumes), save them as Enter would, and True (the prompt then holds the keys
    until it is closed, ctrl+q among them). A quit keeps what was typed; Esc is the key that
    drops it."""
    prompt = next((s for s in reversed(app.screen_stack) if isinstance(s, TextPrompt)), None)
    if prompt is None or prompt.holds_keys:
        return False
    while app.screen_stack[-1] is not prompt:
        app.workers.cancel_node(app.screen_stack[-1])
        app.pop_screen()
    prompt.action_save()
    return True
