"""Screens that close under a click: a double or triple click arrives in one read, its clicks
queued for the screen before the first one has closed it. Each screen closes once
(tui.browser.closing): a second close popped the main screen ("Can't pop screen") and ended
the browser, and a second click on a palette command ran the command again."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widget import Widget

from tests.tui_support import palette_commands, settle, shipped_app, wait_for
from tui.browser.app import PapertrayApp
from tui.browser.commands import TriagePalette
from tui.browser.editors import TextPrompt
from tui.browser.screens import HelpScreen

SIZE = (100, 40)


def clicks_in_one_read(app: PapertrayApp, x: int, y: int, times: int) -> None:
    """Post the mouse events of ``times`` clicks at ``(x, y)`` all at once, as the terminal's
    driver posts what it parsed from one read (Textual's pilot waits between clicks)."""
    for _ in range(times):
        for kind in (events.MouseDown, events.MouseUp):
            app.post_message(kind(None, x, y, 0, 0, 1, False, False, False,
                                  screen_x=x, screen_y=y))


def inside(widget: Widget, dx: int, dy: int) -> tuple[int, int]:
    """The screen position ``(dx, dy)`` cells into ``widget``."""
    return widget.region.x + dx, widget.region.y + dy


async def _quit(pilot, app: PapertrayApp) -> None:
    """The app still answers a key, and quits cleanly at ``q``."""
    await pilot.press("q")
    await wait_for(pilot, lambda: not app.is_running, "the app to quit")
    assert app.return_code == 0


@pytest.mark.parametrize("times", [2, 3])
async def test_clicks_on_the_palettes_background_close_it_once(tmp_path: Path, times: int):
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, TriagePalette), "the palette")
        await settle(pilot)
        clicks_in_one_read(app, SIZE[0] // 2, SIZE[1] - 2, times)  # below its list
        await wait_for(pilot, lambda: app.screen is app.main_screen, "the palette to close")
        await settle(pilot)
        assert len(app.screen_stack) == 1
        await pilot.press("j")  # the table has the keys again
        await settle(pilot)
        assert app.table.cursor_row == 1
        await _quit(pilot, app)


@pytest.mark.parametrize("times", [2, 3])
async def test_clicks_on_a_palette_command_run_it_once(tmp_path: Path, times: int):
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first = app.table.current_id
        commands = await palette_commands(pilot, "mark the paper to-read")
        await settle(pilot)
        clicks_in_one_read(app, *inside(commands, 4, 1), times)
        await wait_for(pilot, lambda: app.screen is app.main_screen, "the palette to close")
        await settle(pilot)
        assert app.header.counts["to-read"] == 1  # marked once: the next paper is still new
        assert app.table.hit(first).status == "to-read"
        await _quit(pilot, app)


@pytest.mark.parametrize("opener", ["question_mark", "a"])
async def test_clicks_anywhere_on_the_help_and_the_editor_leave_them_working(
        tmp_path: Path, opener: str):
    """Clicks on every part of the help and the note editor, and outside them, close nothing
    by surprise and end nothing; Esc then closes them once."""
    app = shipped_app(tmp_path)[0]
    kind = HelpScreen if opener == "question_mark" else TextPrompt
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press(opener)
        await wait_for(pilot, lambda: isinstance(app.screen, kind), f"the {kind.__name__}")
        await settle(pilot)
        for x, y in [(0, 0), (SIZE[0] // 2, SIZE[1] // 2), (SIZE[0] - 1, SIZE[1] - 1),
                     (SIZE[0] // 2, 1), (5, SIZE[1] // 2)]:
            clicks_in_one_read(app, x, y, 3)
            await pilot.pause()
        await settle(pilot)
        assert isinstance(app.screen, kind)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main_screen, "the screen to close")
        await settle(pilot)
        assert len(app.screen_stack) == 1
        await _quit(pilot, app)


async def test_a_second_dismiss_of_a_closed_screen_closes_nothing_else(tmp_path: Path):
    """The help over the note editor: the help dismissed twice closes the help only."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), "the editor")
        prompt = app.screen
        await settle(pilot)
        app.push_screen(HelpScreen([]))
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        help_screen = app.screen
        help_screen.dismiss()
        help_screen.dismiss()
        await pilot.pause()
        assert app.screen is prompt
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main_screen, "the editor to close")
        await settle(pilot)
        await _quit(pilot, app)
