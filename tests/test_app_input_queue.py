"""The input queue (tui/browser/keys.py): a key waits for the screen it is for to open, for
the palette's answer, for the library to open and for the first build, and a quit saves a
note from under the palette."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.command import CommandInput, CommandPalette

from db import Library
from tests.tui_support import (
    PARM,
    _panel_text,
    app_on,
    burst,
    burst_until_exit,
    settle,
    shipped_app,
    shipped_copy,
    wait_for,
)
from tui.browser.screens import HelpScreen
from tui.browser.widgets import SyncProgress


@pytest.mark.parametrize("opener", ["question_mark", "f1", "ctrl+p"])
async def test_a_signal_right_behind_a_key_that_opens_a_screen_exits_cleanly(
        tmp_path: Path, opener: str) -> None:
    """``t u ?`` then SIGTERM (ctrl+q in the queue): the help (or palette) opens behind the
    undo's answer and the quit waits until it is built; the exit ended in ``NoMatches`` from
    a screen taken down while it was being built."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["t", "u", opener])
        app.exit_in_turn()
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 0
    with Library([seeds], data) as library:
        assert library.counts()["to-read"] == 0


async def test_a_quit_with_the_palette_over_the_note_editor_saves_the_note(
        tmp_path: Path) -> None:
    """``a hi ctrl+p ctrl+q``: the palette opened over the note editor is closed and the note
    saved, as a quit from the editor does; it was dropped."""
    seeds, data = await burst_until_exit(tmp_path, ["a", *"hi", "ctrl+p", "ctrl+q"])
    with Library([seeds], data) as library:
        assert library.get(PARM).note == "hi"


@pytest.mark.parametrize("closer", ["enter", "escape"])
async def test_a_key_the_note_editor_does_not_use_stays_in_it(tmp_path: Path,
                                                             closer: str) -> None:
    """``a hi F1 ⏎ t``: F1 means nothing in the editor; it opened the help once the editor
    had closed, and the ``t`` went to the help instead of marking."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["a", *"hi", "f1", closer, "t"])
        await settle(pilot)
        assert app.screen is app.main_screen
    with Library([seeds], data) as library:
        assert library.get(PARM).note == ("hi" if closer == "enter" else "")
        assert library.get(PARM).status == "to-read"


async def test_enter_in_the_palette_waits_for_the_commands_matching_the_text(
        tmp_path: Path) -> None:
    """``ctrl+p zzzz ⏎`` in one burst: nothing matches, so the palette stays open; the Enter
    chose the first command shown before the text was searched (the help opened)."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["ctrl+p", *"zzzz", "enter"])
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette)
                       and app.screen.query_one(CommandInput).value == "zzzz"
                       and not app.keys_waiting, "the text and Enter in the palette")
        await pilot.pause(0.3)  # (what Enter would open, it opens at once)
        assert isinstance(app.screen, CommandPalette)
        assert not any(isinstance(screen, HelpScreen) for screen in app.screen_stack)


def _gated(monkeypatch, name: str) -> threading.Event:
    """Make ``Library.<name>`` wait (in the app's worker) until the returned event is set."""
    gate, real = threading.Event(), getattr(Library, name)

    def gated(self, *args, **kwargs):
        gate.wait(60)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Library, name, gated)
    return gate


async def test_keys_typed_while_the_library_opens_act_once_it_is_open(
        tmp_path: Path, monkeypatch) -> None:
    """``j t`` typed as the browser starts, before the library is open: the second paper is
    marked; both keys were dropped."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        second = library.search("", None, 10, 0).hits[1].id
    gate = _gated(monkeypatch, "__init__")
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: "opening the library" in _panel_text(app), "the start")
        burst(app, ["j", "t"])
        await wait_for(pilot, lambda: app.keys_waiting == 2, "the keys to wait")
        gate.set()
        await settle(pilot)
    with Library([seeds], data) as library:
        assert library.get(second).status == "to-read"
        assert library.counts()["to-read"] == 1


async def test_keys_typed_during_the_first_build_act_on_the_built_index(
        tmp_path: Path, monkeypatch) -> None:
    """``/wudi ⏎ t`` typed while the first build runs (a new data folder) wait for the built
    index, then the hit of "wudi" is marked; the ``t`` could act on the empty table and be
    lost."""
    gate = _gated(monkeypatch, "sync")
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.main_screen.query_one(SyncProgress).shown,
                       "the first build")
        burst(app, ["slash", *"wudi", "enter", "t"])
        await wait_for(pilot, lambda: app.keys_waiting == 7, "the keys to wait")
        gate.set()
        await settle(pilot)
    with Library([seeds], data) as library:
        marked = [h.name for h in library.search("", None, 50, 0).hits if h.status != "new"]
    assert marked == ["WUDI-Merging"]


async def test_edits_typed_into_the_palette_in_one_burst_apply_in_order(tmp_path: Path) -> None:
    """``ctrl+p``, then ``undp ⌫ o`` in one burst gives "undo": the Backspace acted after the
    ``o`` had gone in ("undp"), and Enter could run another command than the one typed."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette)
                       and app.screen.query_one(CommandInput).has_focus, "the palette to open")
        burst(app, [*"undp", "backspace", "o"])
        await wait_for(pilot, lambda: not app.keys_waiting
                       and app.screen.query_one(CommandInput).value == "undo",
                       "the text typed", state=lambda: app.screen.query_one(CommandInput).value)


async def test_a_sync_with_nothing_shown_does_not_hold_the_keys(tmp_path: Path,
                                                                monkeypatch) -> None:
    """Under the read filter with no read paper, a sync of a changed seed file runs: ``1``
    shows every paper at once (it waited for the end of the sync, as during the first
    build)."""
    app, seeds, _ = shipped_app(tmp_path, poll_seconds=0.1)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert app.table.row_count == 0
        gate = _gated(monkeypatch, "sync")
        seed = sorted(seeds.iterdir())[0]
        seed.write_text(seed.read_text() + "\n\nA new abstract on graph sparsification.\n")
        sync_line = app.main_screen.query_one(SyncProgress)
        await wait_for(pilot, lambda: sync_line.shown, "the sync")
        await pilot.press("1")
        await wait_for(pilot, lambda: app.answered == ("", "all") and app.table.row_count,
                       "every paper, during the sync")
        assert sync_line.shown
        gate.set()
        await settle(pilot)
        assert app.header.counts["all"] == 36
