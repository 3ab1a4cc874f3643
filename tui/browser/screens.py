"""The help screen. Its key list is generated from the active key bindings, never kept by hand."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.browser.closing import ClosesOnce

#: The query language in brief (docs/search.md has the whole of it); ``{action}`` is the key of
#: that action in force.
QUERY_SYNTAX = (
    ("graph neural", "papers with all the words (the last one may be unfinished)"),
    ('"exact phrase"', "the words in this order"),
    ("-word", "papers without the word"),
    ("transform*", "words starting with transform"),
    ("rl OR reinforcement", "either word"),
    ("is:to-read has:code", "filters: is:new, is:to-read, is:read, is:dismissed, has:code"),
    ("-is:read -has:code", "a filter with - excludes what it names"),
    ("in:icml", "papers whose collection or seed file name contains icml"),
    ("tag:moe", "papers you tagged moe (your notes' words are searched too)"),
    ("like:0412d482", "papers most like that one ({similar}); like:to-read: like your list "
                      "({like-to-read})"),
    ("au:vedaldi", "papers with an author of that name (au:andrea_vedaldi for both names)"),
    ("year:>=2024 venue:icml", "by year (year:2024, year:2020..2023) and venue"),
    ("decision:oral track:main", "fields of paper lists: decision (oral, spotlight, poster), "
                                 "track, kw: (keywords), area:"),
)


@dataclass(frozen=True, slots=True)
class KeyHelp:
    """One line of help: a section, the keys of one binding, and what they do."""

    section: str
    keys: str
    description: str


def key_help(active: Mapping[str, ActiveBinding], key_display: Callable[[Binding], str],
             section_of: Callable[[object], str | None],
             order: Sequence[str] = ()) -> list[KeyHelp]:
    """Lines of help for ``active`` (``Screen.active_bindings``), one per action and section,
    in the ``order`` of their binding ids (those not in it last, as ``active`` has them).

    Keys of one action are joined, single characters first (``↓ j``, ``q ^q``); bindings without
    an id or a description (Textual's own system keys) are left out, and so are nodes that
    ``section_of`` maps to None.
    """
    grouped: dict[tuple[str, str], tuple[list[str], Binding]] = {}
    for active_binding in active.values():
        binding, section = active_binding.binding, section_of(active_binding.node)
        if section is None or not binding.id or not binding.description or binding.system:
            continue
        keys, _ = grouped.setdefault((section, binding.action), ([], binding))
        shown = key_display(binding)
        if shown not in keys:
            keys.append(shown)
    position = {binding_id: n for n, binding_id in enumerate(order)}
    ordered = sorted(grouped.items(), key=lambda item: position.get(item[1][1].id, len(order)))
    return [KeyHelp(section, " ".join(sorted(keys, key=len)),
                    binding.tooltip or binding.description)
            for (section, _), (keys, binding) in ordered]


#: The keys that close the help by default: Esc and the default keys of help and quit (the app
#: gives it Esc and those in force, and holds the keys typed after one until it is closed).
HELP_CLOSE_KEYS = ("escape", "q", "question_mark", "f1")


class HelpScreen(ModalScreen[None], ClosesOnce):
    """Every key of the main screen, grouped by where it works, and the query syntax."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(",".join(HELP_CLOSE_KEYS), "dismiss", "close", id="help.close",
                tooltip="Close the help"),
    ]

    def __init__(self, lines: list[KeyHelp], marks: Sequence[tuple[str, str]] = (),
                 keys: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.lines = lines
        self.marks = list(marks)
        """The "Marks" section: ``(keys, note)`` rows (where marks live, who shares undo)."""
        shown = {"similar": "s", "like-to-read": "S", **(keys or {})}
        self.syntax = [(text, note.format_map(shown)) for text, note in QUERY_SYNTAX]
        """The "Query syntax" section, with the keys in force (``keys``: by action name)."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(self._body(), id="help-body")

    def on_mount(self) -> None:
        box = self.query_one("#help-box")
        box.border_title = "papertray keys"
        box.border_subtitle = "esc close"

    def _body(self) -> Group:
        sections: dict[str, list[tuple[str, str]]] = {}
        for line in self.lines:
            sections.setdefault(line.section, []).append((line.keys, line.description))
        if self.marks:
            sections["Marks"] = self.marks
        sections["Query syntax"] = self.syntax
        width = max(len(keys) for rows in sections.values() for keys, _ in rows)
        parts: list[Text | Table] = []
        for title, rows in sections.items():
            if parts:
                parts.append(Text(""))
            parts.append(Text(title, style="bold underline"))
            grid = Table.grid(padding=(0, 2))
            grid.add_column(no_wrap=True, style="bold", width=width)
            grid.add_column()
            for keys, description in rows:
                grid.add_row(Text(keys), Text(description))
            parts.append(grid)
        return Group(*parts)
