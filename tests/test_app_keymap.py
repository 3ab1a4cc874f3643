"""Your own keys in the browser: a keys.toml that moves a key works in the pilot (the new key
acts, the old one no longer does), the footer, the help and the palette show the key in force,
the quit that works anywhere and the help's closing keys follow the file, and a bad file is one
notice and the default keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList
from textual.widgets._footer import FooterKey

from db import Library
from tests.tui_support import (
    burst,
    palette_commands,
    record_notifications,
    settle,
    shipped_app,
    wait_for,
)
from tui.browser.app import PapertrayApp
from tui.browser.screens import HelpScreen
from tui.keymap import KEYS_FILE, config_dir


def _keys_file(text: str, folder: Path | None = None) -> Path:
    """Write ``text`` as keys.toml in ``folder`` (default: the config folder the app reads)."""
    folder = folder or config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / KEYS_FILE
    path.write_text(text, encoding="utf-8")
    return path


def _footer(app: PapertrayApp) -> list[tuple[str, str]]:
    """``(key shown, description)`` of each key in the footer, left to right."""
    return [(key.key_display, key.description) for key in app.main_screen.query(FooterKey)]


def _statuses(seeds: Path, data: Path) -> dict[str, str]:
    """Every mark on disk, by paper id."""
    with Library([seeds], data) as library:
        return {hit.id: hit.status for hit in library.search("", None, 100).hits
                if hit.status != "new"}


async def test_a_moved_mark_key_marks_and_the_old_key_no_longer_does(tmp_path: Path) -> None:
    _keys_file('mark-read = "R"\ndown = ["ctrl+n"]\n')
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first = app.table.current_id
        burst(app, ["r", "j"])  # the old keys of mark-read and down: nothing
        await settle(pilot)
        assert app.table.current_id == first and _statuses(seeds, data) == {}
        burst(app, ["R"])
        await settle(pilot)
        second = app.table.current_id
        assert second != first and _statuses(seeds, data) == {first: "read"}
        burst(app, ["ctrl+n"])  # down moved to ctrl+n
        await settle(pilot)
        third = app.table.current_id
        assert third not in (first, second)
        burst(app, ["t"])  # to-read kept its key
        await settle(pilot)
    assert _statuses(seeds, data) == {first: "read", third: "to-read"}


async def test_the_footer_help_and_palette_show_the_keys_in_force(tmp_path: Path) -> None:
    _keys_file('mark-read = "R"\nhelp = "h"\nundo = ["U", "ctrl+u"]\nsimilar = "f"\n')
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: ("R", "read") in _footer(app), "the footer's new key")
        # the footer keeps its order: a rebound key is not moved to its end
        assert _footer(app) == [("h", "help"), ("⏎", "open"), ("R", "read"), ("t", "to-read"),
                                ("d", "dismiss"), ("U", "undo"), ("q", "quit"),
                                ("^p", "palette")]
        await pilot.press("question_mark")  # no longer the help's key
        await settle(pilot)
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("h")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        pairs = [(line.keys, line.description) for line in app.screen.lines]
        read = "Mark the paper read and go to the next one (a read paper stays read)"
        assert ("R", read) in pairs
        assert ("h", "Show all keys and the query syntax") in pairs
        assert [keys for keys, _ in app.screen.marks] == ["U ^u"]
        assert ("like:0412d482", "papers most like that one (f); like:to-read: like your list "
                "(S)") in app.screen.syntax
        await pilot.press("h")  # the help's key closes it too
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), "help to close")
        commands: CommandList = await palette_commands(pilot, "mark the paper read")
        shown = [str(commands.get_option_at_index(n).prompt)
                 for n in range(commands.option_count)]
        assert any("key: R" in prompt and "Mark the paper read" in prompt for prompt in shown)
        await pilot.press("escape")


async def test_the_quit_that_works_anywhere_follows_the_file(tmp_path: Path) -> None:
    """The input queue knows the quit key in force: ``t f10`` marks, then quits in turn; the
    footer shows the palette's key in force."""
    _keys_file('quit-anywhere = "f10"\npalette = "f2"\n')
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: _footer(app)[-1] == ("f2", "palette"), "the palette's key")
        first = app.table.current_id
        burst(app, ["t", "f10"])
        await wait_for(pilot, lambda: not app.is_running, "the app to quit")
    assert _statuses(seeds, data) == {first: "to-read"}


BAD = [
    ('mark-reed = "R"\n', 'line 1: unknown action "mark-reed" (did you mean mark-read?)'),
    ('mark-read = "pgdown"\n', 'line 1: unknown key "pgdown"'),
    ('mark-read = "R"\nmark-to-read = "R"\n',
     'line 2: "R" is given to two actions, mark-read and mark-to-read'),
    ('mark-read = "R"\n[[oops\n',
     "line 2: not TOML (expected ']]' at the end of an array declaration)"),
]


@pytest.mark.parametrize(("text", "said"), BAD, ids=["action", "key", "two-actions", "toml"])
async def test_a_bad_file_is_one_notice_and_the_default_keys(tmp_path: Path, text: str,
                                                             said: str) -> None:
    _keys_file(text)
    app, seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        shown = "~/" + (config_dir() / KEYS_FILE).relative_to(Path.home()).as_posix()
        assert notes == [f"{shown} {said}; the default keys are used"]
        assert ("r", "read") in _footer(app)
        first = app.table.current_id
        burst(app, ["r"])
        await settle(pilot)
    assert _statuses(seeds, data) == {first: "read"}


async def test_papertray_config_dir_is_the_folder_read(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _keys_file('mark-to-read = "T"\n', tmp_path / "elsewhere")
    _keys_file('mark-to-read = "Z"\n')  # the platform's folder: not read
    monkeypatch.setenv("PAPERTRAY_CONFIG_DIR", str(tmp_path / "elsewhere"))
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert ("T", "to-read") in _footer(app)
        first = app.table.current_id
        burst(app, ["T"])
        await settle(pilot)
    assert _statuses(seeds, data) == {first: "to-read"}


async def test_two_actions_swap_their_keys(tmp_path: Path) -> None:
    """Textual's keymap takes a swap: t marks read and r to-read, and the footer says so."""
    _keys_file('mark-read = "t"\nmark-to-read = "r"\n')
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: ("t", "read") in _footer(app), "the footer's keys")
        assert ("r", "to-read") in _footer(app)
        first = app.table.current_id
        burst(app, ["t"])
        await settle(pilot)
        second = app.table.current_id
        burst(app, ["r"])
        await settle(pilot)
    assert _statuses(seeds, data) == {first: "read", second: "to-read"}


async def test_the_reading_view_takes_the_mark_keys_in_force_and_its_own(tmp_path: Path) -> None:
    """keys.toml moves mark-read to R: R marks read in the reading view too (the same binding
    id), r no longer does; read-next moved to n (next-new's key on the results only)."""
    _keys_file('mark-read = "R"\nread-next = "n"\n')
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        order = app.table.paper_ids
        burst(app, ["enter", "r", "j"])  # the old keys: nothing
        await settle(pilot)
        assert app.table.current_id == order[0] and _statuses(seeds, data) == {}
        burst(app, ["R", "n", "t"])
        await settle(pilot)
        footer = [(key.key_display, key.description) for key in app.screen.query(FooterKey)]
        assert ("R", "read") in footer and ("n", "next") in footer
    assert _statuses(seeds, data) == {order[0]: "read", order[1]: "to-read"}
