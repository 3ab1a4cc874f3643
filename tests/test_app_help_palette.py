"""The help screen and the command palette, and ctrl+z over every screen."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList

from db import Library
from tests.tui_support import (
    ODD_SEEDS,
    app_on,
    burst,
    copy_files,
    palette_commands,
    settle,
    shipped_app,
    shipped_copy,
    type_text,
    wait_for,
)
from tui.actions import ACTIONS, SEARCH_BAR
from tui.browser.app import PapertrayApp
from tui.browser.commands import TriagePalette
from tui.browser.screens import HelpScreen


async def test_help_is_built_from_the_bindings(tmp_path: Path) -> None:
    """The help lists every binding; the app keeps working under it (a sync lands meanwhile)."""
    seeds = shipped_copy(tmp_path)
    app = app_on(seeds, tmp_path / "data", poll_seconds=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "f1")  # from the search bar too
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        copy_files(seeds, [ODD_SEEDS / "latex.txt"])
        await wait_for(pilot, lambda: app.header.counts.get("all") == 37, "a sync under the help")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        lines = app.screen.lines
        described = {line.description for line in lines}
        for binding in PapertrayApp.BINDINGS:  # the search bar's own keys are not the table's
            if binding.action != "command_palette" and ACTIONS[
                    binding.id.partition(".")[2]].where != SEARCH_BAR:
                assert binding.tooltip in described
        pairs = [(line.keys, line.description) for line in lines]
        assert ("↓ j", "Move to the next paper") in pairs
        assert any(line.keys == "q ^q" for line in lines)
        (undo_keys, note), = app.screen.marks  # noqa: RUF100 - one row, from the bindings
        assert undo_keys == "u" and "shares one undo history" in note
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), "help to close")
        assert app.focused is app.table


async def test_command_palette_runs_triage_commands(tmp_path: Path) -> None:
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first = app.table.current_id
        await palette_commands(pilot, "mark the paper to-read")
        await pilot.press("enter")
        await settle(pilot)
        assert app.table.hit(first).status == "to-read"


async def test_keys_typed_after_enter_in_the_palette_act_after_its_command(
        tmp_path: Path) -> None:
    """``ctrl+p``, a command, then ``⏎ t`` (and ``ctrl+q``) in one burst: the ``t`` went to the
    palette's input as the palette was closing and was lost; ctrl+q behind it quit before the
    palette's command ran. Keys typed after Enter wait for the palette to close, as after Esc."""
    for keys in (["enter", "t"], ["enter", "t", "ctrl+q"]):
        app, seeds, data = shipped_app(tmp_path / str(len(keys)))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            first, second = app.table.paper_ids[:2]
            await palette_commands(pilot, "mark the paper to-read")
            burst(app, keys)
            if "ctrl+q" in keys:
                await wait_for(pilot, lambda app=app: not app.is_running, "the app to exit")
            else:
                await wait_for(pilot, lambda app=app, second=second: app.table.hit(
                    second).status != "new", "the second mark")
                await settle(pilot)
        with Library([seeds], data) as library:
            assert [(h.id, h.status) for h in library.search("", None, 50, 0).hits
                    if h.status != "new"] == [(first, "to-read"), (second, "to-read")], keys


async def test_ctrl_z_suspends_over_every_screen(tmp_path: Path) -> None:
    """ctrl+z (suspend to the shell) did nothing while the note or tags editor, the help or the
    command palette was open: a screen over the main one took the key and the app's binding was
    never asked (and ``fg`` typed next went into the note). It suspends on every screen, and the
    screen, with what was typed, is there when the browser comes back."""
    app = shipped_app(tmp_path)[0]
    suspended: list[str] = []
    app.action_suspend_process = lambda: suspended.append(type(app.screen).__name__)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for opening in ("a", "number_sign", "question_mark", "ctrl+p"):
            await pilot.press(opening)
            await wait_for(pilot, lambda: len(app.screen_stack) == 2, f"the screen of {opening}")
            if opening in ("a", "number_sign"):
                await type_text(pilot, "hi")
            await pilot.press("ctrl+z")
            await settle(pilot)
            if opening in ("a", "number_sign"):
                assert app.screen.input.value == "hi"
            await pilot.press("escape")
            await wait_for(pilot, lambda: len(app.screen_stack) == 1, "the screen to close")
        await pilot.press("ctrl+z")
    assert suspended == ["TextPrompt", "TextPrompt", "HelpScreen", "TriagePalette",
                         "Screen"]


async def test_a_page_key_read_with_ctrl_p_leaves_the_palette_working(tmp_path: Path) -> None:
    """``ctrl+p`` and a page key read together: the key reaches the palette's list of commands
    before it is drawn, and does nothing (Textual's list raised KeyError and ended the app);
    the palette then runs a command as ever. Each key three times: whether the list is drawn
    before the key comes depends on timing."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for page_key in ["pagedown", "pageup"] * 3:
            burst(app, ["ctrl+p", page_key])
            await wait_for(pilot, lambda: isinstance(app.screen, TriagePalette)
                           and app.screen.query_one(CommandList).option_count > 0
                           and not app.keys_waiting, "the palette's commands, and the page key")
            await pilot.press("escape")
            await wait_for(pilot, lambda: len(app.screen_stack) == 1, "the palette to close")
        first = app.table.current_id
        commands = await palette_commands(pilot, "mark the paper to-read")
        await wait_for(pilot, lambda: commands.option_count == 1, "one hit")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.table.hit(first).status == "to-read", "the mark")
