"""A one-line editor over the browser, for a paper's note (``a``) and its tags (``#``).

Enter or ctrl+s saves (the screen is dismissed with the text), Esc cancels (dismissed with None).
The paper's label is shown as plain text, never as markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from db.text import one_line


class TextPrompt(ModalScreen[str | None]):
    """Ask for one line of text about a paper: ``title`` above, ``hint`` below the field."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="prompt.cancel", tooltip="Close, saving nothing"),
        Binding("ctrl+s", "save", "save", id="prompt.save", tooltip="Save and close"),
    ]

    def __init__(self, title: str, label: str, value: str, hint: str,
                 placeholder: str = "") -> None:
        super().__init__()
        self.title_text, self.label, self.value, self.hint = title, label, value, hint
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            heading = Text(self.title_text + " ", style="bold", end="")
            heading.append(one_line(self.label), "italic")
            yield Static(heading, id="prompt-title")
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input",
                        select_on_focus=False)
            yield Static(Text(self.hint, end=""), id="prompt-hint")

    @property
    def input(self) -> Input:
        """The text field."""
        return self.query_one("#prompt-input", Input)

    def on_mount(self) -> None:
        self.input.focus()

    @on(Input.Submitted)
    def action_save(self) -> None:
        """Close, giving back the text."""
        self.dismiss(self.input.value)

    def action_cancel(self) -> None:
        """Close, giving back None (nothing is saved)."""
        self.dismiss(None)
