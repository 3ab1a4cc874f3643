"""Command palette (ctrl+p) entries for triage: marks, filters, undo, search, help, and one
entry per sort order.

Generated from the app's own ``BINDINGS`` (each has an id and a tooltip), so the palette, the
footer and the help screen can never disagree about what a key does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from functools import partial
from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.command import (
    CommandInput,
    CommandList,
    CommandPalette,
    DiscoveryHit,
    Hit,
    Hits,
    Provider,
    SearchIcon,
)
from textual.content import Content
from textual.markup import escape
from textual.widgets import Input
from textual.worker import Worker

from db.models import SORTS
from tui.actions import APP_ACTIONS, SEARCH_BAR
from tui.browser.bindings import in_force
from tui.browser.closing import ClosesOnce
from tui.browser.messages import KeysWelcome


class TriagePalette(CommandPalette, ClosesOnce):
    """Textual's command palette, saying whether the commands it shows are those for the text
    typed into it (:attr:`answered`): an Enter typed right after the text waits for them
    (:mod:`tui.browser.keys`), else it would choose from the commands of the text before."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("pagedown", "page_commands(1)", "Next page", show=False),
        Binding("pageup", "page_commands(-1)", "Previous page", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._searched = ""  # the text of the newest search started (the palette's own handler)

    @on(Input.Changed)
    def _text_changed(self, event: Input.Changed) -> None:
        self._searched = event.value
        self.app.post_message(KeysWelcome())

    @on(Worker.StateChanged)
    def _search_changed(self) -> None:
        self.app.post_message(KeysWelcome())

    def action_page_commands(self, direction: int) -> None:
        """Move the highlight a page down (``direction`` 1) or up (-1) the list of commands.

        Textual's option list pages by the lines it has laid out, and it lays none out until it
        has a size: a page key that comes with the commands, before the list is drawn (ctrl+p
        and PageDown read together), raised ``KeyError`` and ended the browser. Then the key
        does nothing, as on an empty list."""
        commands = self.query_one(CommandList)
        if not commands.scrollable_content_region:
            return
        (commands.action_page_down if direction > 0 else commands.action_page_up)()

    @property
    def answered(self) -> bool:
        """Whether the commands shown are those for the text in the input: the palette has
        seen the text's last change and no search of it runs."""
        if self.query_one(CommandInput).value != self._searched:
            return False
        return not any(worker.node is self and not worker.is_finished
                       for worker in self.app.workers)


class AsciiCommandPalette(TriagePalette):
    """The command palette with ``>`` for its magnifying-glass icon and "..." for "…"."""

    def __init__(self, **kwargs) -> None:
        placeholder = kwargs.pop("placeholder", "Search for commands…").replace("…", "...")
        super().__init__(placeholder=placeholder, **kwargs)

    def on_mount(self) -> None:
        self.query_one(SearchIcon).icon = ">"


class TriageCommands(Provider):
    """One palette command per action of the app (except quit and the palette itself, which
    Textual lists already, and the search bar's own: leaving it, its history), with its keys
    in force."""

    def _commands(self) -> Iterator[tuple[str, str, str]]:
        """``(name, help, action)`` for each command, in binding order."""
        app = self.app
        keys: dict[str, list[str]] = {}
        bindings: dict[str, Binding] = {}
        actions = (action for action in APP_ACTIONS if action.where != SEARCH_BAR)
        for binding in in_force(actions, app.keys_in_force.keys):
            if not binding.id or not binding.tooltip or binding.action in (
                    "quit", "command_palette"):
                continue
            bindings.setdefault(binding.id, binding)
            keys.setdefault(binding.id, []).append(app.get_key_display(binding))
        for binding_id, binding in bindings.items():
            yield binding.tooltip, "key: " + " ".join(keys[binding_id]), binding.action

    def _run(self, action: str):
        return partial(self.app.run_action, action)

    async def discover(self) -> Hits:
        for name, help_text, action in self._commands():
            yield DiscoveryHit(name, self._run(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, action in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), self._run(action), text=name,
                          help=help_text)


#: The palette's name of each sort order (db.models.SORTS).
SORT_NAMES = {"relevance": "relevance (best first)", "seed": "seed order", "name": "name (A to Z)",
              "year": "year (newest first)", "status": "status (new first)",
              "marked": "latest marked first"}


class SortCommands(Provider):
    """"Sort: name (A to Z)" and the like: the palette picks a sort order by name, where the
    sort key goes round them."""

    def _commands(self) -> Iterator[tuple[str, str]]:
        for order in SORTS:
            yield f"Sort: {SORT_NAMES[order]}", f"sort('{order}')"

    async def discover(self) -> Hits:
        for name, action in self._commands():
            yield DiscoveryHit(name, partial(self.app.run_action, action))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, action in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), partial(self.app.run_action, action),
                          text=name)


class SavedSearchCommands(Provider):
    """"Saved search: NAME" for each saved search, which opens it (``B`` lists them with their
    counts)."""

    async def startup(self) -> None:
        # the saved searches are read in a thread, as every library call of the browser
        self.names = [c.search.name for c in await asyncio.to_thread(self.app.saved_names)]

    def _open(self, name: str):
        return partial(self.app.action_open_saved, name)

    async def discover(self) -> Hits:
        for name in self.names:  # a name is the reader's text, never markup
            yield DiscoveryHit(Content(f"Saved search: {name}"), self._open(name))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name in self.names:
            text = f"Saved search: {name}"
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(escape(text)), self._open(name), text=text)
