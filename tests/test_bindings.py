"""Key bindings: none on ctrl+h/i/j/m (terminals send those for Backspace, Tab and Enter), and
every binding of ours has an id and a tooltip, so the footer, help and palette can use them."""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding
from textual.command import CommandPalette
from textual.dom import DOMNode

from tests.tui_support import app_on, settle, shipped_copy, wait_for
from tui.browser.app import PapertrayApp
from tui.browser.screens import HelpScreen
from tui.browser.widgets import AbstractPanel, ResultsPane, ResultsTable, SearchBar, StatusHeader

#: Keys a terminal cannot tell apart from Backspace (ctrl+h), Tab (ctrl+i), Enter (ctrl+j, ctrl+m).
FORBIDDEN = {"ctrl+h", "ctrl+i", "ctrl+j", "ctrl+m"}
OURS = (PapertrayApp, HelpScreen, ResultsTable, SearchBar, AbstractPanel, StatusHeader,
        ResultsPane)


def _bindings(cls: type) -> list[Binding]:
    """Every binding a class has, its own and inherited (``BINDINGS`` along the MRO)."""
    found: list[Binding] = []
    for klass in cls.__mro__:
        found += Binding.make_bindings(klass.__dict__.get("BINDINGS", []))
    return found


def _keys(cls: type) -> set[str]:
    return {key.strip() for binding in _bindings(cls) for key in binding.key.split(",")}


def test_no_class_of_ours_binds_ctrl_h_i_j_m() -> None:
    for cls in OURS:
        assert not _keys(cls) & FORBIDDEN, cls.__name__


def test_every_binding_of_ours_has_an_id_and_a_tooltip() -> None:
    for cls in OURS:
        for binding in Binding.make_bindings(cls.__dict__.get("BINDINGS", [])):
            assert binding.id and binding.tooltip, (cls.__name__, binding.key)


async def test_no_node_of_the_running_app_binds_ctrl_h_i_j_m(tmp_path: Path) -> None:
    """Every widget and screen the app shows, Textual's own included (Input, DataTable, Footer,
    the command palette), on the main screen, the help screen and the palette."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    seen: set[type] = set()

    def check(nodes: list[DOMNode]) -> None:
        for node in nodes:
            seen.add(type(node))
            assert not _keys(type(node)) & FORBIDDEN, type(node).__name__

    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        check([app, *app.screen.walk_children(with_self=True)])
        assert not set(app.screen.active_bindings) & FORBIDDEN
        await pilot.press("slash")
        assert not set(app.screen.active_bindings) & FORBIDDEN
        await pilot.press("escape")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        check(list(app.screen.walk_children(with_self=True)))
        await pilot.press("escape", "ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        check(list(app.screen.walk_children(with_self=True)))
        assert not set(app.screen.active_bindings) & FORBIDDEN
    assert {ResultsTable, SearchBar, HelpScreen} <= seen
    assert any(issubclass(kind, CommandPalette) for kind in seen)  # the app's own palette
