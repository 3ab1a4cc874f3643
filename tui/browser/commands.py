"""Command palette (ctrl+p) entries for triage: marks, filters, undo, search, help.

Generated from the app's own ``BINDINGS`` (each has an id and a tooltip), so the palette, the
footer and the help screen can never disagree about what a key does.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider


class TriageCommands(Provider):
    """One palette command per binding of the app that has a tooltip (except quit and the
    palette itself, which Textual lists already, and leaving the search bar)."""

    def _commands(self) -> Iterator[tuple[str, str, str]]:
        """``(name, help, action)`` for each command, in binding order."""
        app = self.app
        keys: dict[str, list[str]] = {}
        bindings: dict[str, Binding] = {}
        for binding in Binding.make_bindings(type(app).BINDINGS):
            if not binding.id or not binding.tooltip or binding.action in (
                    "quit", "command_palette", "leave_search"):
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
