"""The reader's tools in the real browser: similar papers (s, S), notes (a) and tags (#), copying
(y, Y, c), the layout key (L) and the remembered settings, on the shipped seeds."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from textual.command import CommandList

from db import Library
from db.library.export import bibtex_entry
from db.seeds.render import render_plain
from tests.tui_support import (
    _panel_text,
    app_on,
    record_notifications,
    settle,
    shipped_app,
    type_text,
    wait_for,
)
from tui.browser.app import PapertrayApp
from tui.browser.editors import TextPrompt

PARM, MENTOR, M3DT, PHN_HVVS = ("0412d482992496cb", "eb8c16cf3afbe389", "58f4bebc8eaa994b",
                                "e3276221a1d5791d")
HC_SMOE = "f0ccd52ec0b3dac0"


def _row_cells(app: PapertrayApp, paper_id: str) -> list[str]:
    return [cell.plain for cell in app.table.get_row(paper_id)]


async def test_s_lists_the_papers_like_the_cursor_paper_and_S_like_the_to_read_list(
        tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.table.current_id == PARM
        await pilot.press("s")
        await settle(pilot)
        with Library([seeds], data) as library:
            expected = [h.id for h in library.similar(PARM, limit=200).hits]
        assert app.search_bar.value == "like:0412d482"
        assert app.table.paper_ids == expected and PARM not in expected
        assert app.table.hit(app.table.current_id).name == "BATI"  # the nearest one
        await pilot.press("slash", "ctrl+u", "enter")
        await settle(pilot)
        for paper_id in (M3DT, PHN_HVVS):
            app.table.move_cursor(row=app.table.row_of(paper_id))
            await settle(pilot)
            await pilot.press("t")
            await settle(pilot)
        await pilot.press("S")
        await settle(pilot)
        assert app.search_bar.value == "like:to-read"
        assert app.table.paper_ids[:2] == [HC_SMOE, MENTOR]
        assert {app.table.hit(i).status for i in app.table.paper_ids} == {"new"}


async def test_a_writes_a_note_esc_cancels_and_u_undoes(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        assert isinstance(app.screen, TextPrompt)
        await type_text(pilot, "not this")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("a")
        await type_text(pilot, "compare with GenARM")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is app.main_screen
        with Library([seeds], data) as library:
            assert library.get(PARM).note == "compare with GenARM"
        assert "\nnote compare with GenARM\n" in _panel_text(app)
        await pilot.press("a")  # the editor starts from the note; ctrl+s saves too
        assert app.screen.input.value == "compare with GenARM"
        await pilot.press("end")
        await type_text(pilot, " first")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "\nnote compare with GenARM first\n" in _panel_text(app)
        await pilot.press("u", "u")
        await settle(pilot)
        assert "\nnote " not in _panel_text(app)
        with Library([seeds], data) as library:
            assert library.get(PARM).note == ""


async def test_hash_adds_tags_shown_in_a_column_and_found_with_tag_filter(tmp_path: Path) -> None:
    app = shipped_app(tmp_path)[0]
    notes = record_notifications(app)
    severities: list[str] = []
    notify = app.notify

    def recording(message: str, **kwargs) -> None:
        severities.append(kwargs.get("severity", "information"))
        notify(message, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("number_sign")
        await type_text(pilot, "ok %%%")
        await pilot.press("enter")
        await settle(pilot)
        assert notes == ["'%%%' is not a tag: use letters, digits and - _ . + /"]
        assert severities == ["warning"]  # the reader's input refused, no failure of papertray
        assert [c.key.value for c in app.table.columns.values()] == ["mark", "name", "headline"]
        await pilot.press("number_sign")
        await type_text(pilot, "MoE #rl")
        await pilot.press("enter")
        await settle(pilot)
        assert [c.key.value for c in app.table.columns.values()] == [
            "mark", "name", "tags", "headline"]
        assert _row_cells(app, PARM)[:3] == ["·", "PARM", "#moe #rl"]
        assert _row_cells(app, MENTOR)[2] == ""
        assert "\ntags #moe #rl\n" in _panel_text(app)
        await pilot.press("number_sign")
        await type_text(pilot, "-rl")
        await pilot.press("enter")
        await settle(pilot)
        assert _row_cells(app, PARM)[2] == "#moe"
        await pilot.press("slash")
        await type_text(pilot, "tag:moe")
        await pilot.press("enter")
        await settle(pilot)
        assert app.table.paper_ids == [PARM]


async def test_a_tag_typed_on_a_latin1_terminal_is_refused_not_cut(tmp_path: Path) -> None:
    """``#`` then ``café`` from a terminal sending Latin-1 (a LANG=C session): the byte 0xE9 is
    no UTF-8, so the terminal input becomes ``caf\N{REPLACEMENT CHARACTER}``, and the tag
    ``caf`` was added without a word (the CLI refuses such a tag, saying why)."""
    app, seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("number_sign")
        await type_text(pilot, "ok caf\ufffd")
        await pilot.press("enter")
        await settle(pilot)
        assert notes == ["'caf\\ufffd' is not a tag: it has bytes that are not UTF-8 "
                         "(is the terminal's locale UTF-8?)"]
        assert "\ntags " not in _panel_text(app)
    with Library([seeds], data) as library:
        assert library.get(PARM).tags == ()


async def test_y_Y_c_copy_link_abstract_and_bibtex(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        with Library([seeds], data) as library:
            parm = library.get(PARM)
        await pilot.press("y")
        assert app.clipboard == "https://github.com/Baijiong-Lin/PARM"
        assert notes[-1] == ("sent the link https://github.com/Baijiong-Lin/PARM to the "
                             "terminal's clipboard (OSC 52)")
        await pilot.press("Y")
        assert app.clipboard == render_plain(parm.abstract_markup)
        assert app.clipboard.startswith("Multi-objective test-time alignment aims to adapt")
        assert notes[-1] == (f"sent the abstract of PARM ({len(app.clipboard):,} characters) "
                             "to the terminal's clipboard (OSC 52)")
        await pilot.press("c")
        assert app.clipboard == bibtex_entry(parm, with_abstract=False)
        assert app.clipboard.startswith(
            "@inproceedings{2025parm_0412d482,\n  title = {PARM: Multi-objective")
        assert "abstract" not in app.clipboard and "year = {2025}" in app.clipboard
        assert notes[-1] == ("sent the BibTeX entry 2025parm_0412d482 to the terminal's "
                             "clipboard (OSC 52)")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed: the test asks "
                    "a real tmux server for its set-clipboard (.ci/run installs it)")
async def test_y_inside_tmux_says_how_to_let_the_copy_through_until_set_clipboard_is_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tmux's default set-clipboard (external) keeps a program's OSC 52: "copied" was untrue."""
    server = ["tmux", "-L", f"papertray-clipboard-{os.getpid()}", "-f", os.devnull]
    subprocess.run([*server, "new-session", "-d"], check=True, timeout=30)
    try:
        where = subprocess.run([*server, "display", "-p", "#{socket_path},#{pid},0"],
                               check=True, capture_output=True, text=True, timeout=30)
        monkeypatch.setenv("TMUX", where.stdout.strip())  # as inside a pane of that server
        app = shipped_app(tmp_path)[0]
        notes = record_notifications(app)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            await pilot.press("y")
            assert notes[-1] == ("sent the link https://github.com/Baijiong-Lin/PARM to the "
                                 "terminal's clipboard (OSC 52); for tmux to pass it on: "
                                 "set -g set-clipboard on")
            subprocess.run([*server, "set", "-g", "set-clipboard", "on"], check=True, timeout=30)
            await pilot.press("c")
            assert notes[-1] == ("sent the BibTeX entry 2025parm_0412d482 to the terminal's "
                                 "clipboard (OSC 52)")
    finally:
        subprocess.run([*server, "kill-server"], capture_output=True, timeout=30)


async def test_Y_on_a_paper_without_abstract_says_so_and_keeps_the_clipboard(
        tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "titles.json").write_text('[{"title": "Only a [bold]title[/bold]"}]')
    app = app_on(seeds, tmp_path / "data")
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.copy_to_clipboard("what the reader copied before")
        await pilot.press("Y")
        await wait_for(pilot, lambda: "no abstract" in " ".join(notes), "the notice")
        assert notes[-1] == "this paper has no abstract; c copies a citation"
        assert app.clipboard == "what the reader copied before"


async def test_filter_theme_and_layout_are_remembered_and_a_bad_file_is_ignored(
        tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert app.main_screen.has_class("-wide")
        await pilot.press("2", "L")  # new papers only; layout: stacked
        await settle(pilot)
        assert app.main_screen.has_class("-narrow") and not app.main_screen.has_class("-wide")
        app.theme = "nord"
        await pilot.pause()
    app = app_on(seeds, data)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert (app.status_filter, app.theme, app.layout_choice) == ("new", "nord", "stacked")
        assert app.header.status_filter == "new"
        assert app.main_screen.has_class("-narrow")
        await pilot.press("L")  # side by side
        await settle(pilot)
        assert app.main_screen.has_class("-wide")
    (data / "settings.json").write_text('{"filter": "read", "theme": ', encoding="utf-8")
    app = app_on(seeds, data)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert notes[0].startswith("settings file settings.json ignored (JSONDecodeError)")
        assert (app.status_filter, app.layout_choice, app.table.row_count) == ("all", "auto", 35)


async def _choose_in_palette(pilot, text: str) -> None:
    app = pilot.app
    await type_text(pilot, text)
    await wait_for(pilot, lambda: app.screen.query_one(CommandList).option_count > 0,
                   f"palette hits for {text!r}")
    await pilot.press("enter")


async def test_a_theme_chosen_in_the_palette_is_remembered(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "textual-dark"
        await pilot.press("ctrl+p")
        await _choose_in_palette(pilot, "theme")  # Textual's own "Theme" command
        await _choose_in_palette(pilot, "gruvbox")
        await wait_for(pilot, lambda: app.theme == "gruvbox", "the theme to change")
        await settle(pilot)
    assert '"theme": "gruvbox"' in (data / "settings.json").read_text(encoding="utf-8")
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.theme == "gruvbox"


def test_a_settings_file_nested_too_deeply_is_ignored_with_a_notice(tmp_path):
    from tui.browser.settings import Settings

    path = tmp_path / "settings.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    settings, notice = Settings.load(path)  # was: RecursionError, the browser ended at start
    assert (settings.filter, settings.theme, settings.layout) == ("all", None, "auto")
    assert notice == ("settings file settings.json ignored (RecursionError); defaults are used "
                      "and it is rewritten on the next change")


async def test_a_note_too_long_for_a_note_is_said_to_be_cut(tmp_path: Path) -> None:
    """A pasted note of 2,507 characters was cut to 2,000 without a word."""
    app, seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt), "the note editor")
        app.screen.input.insert_text_at_cursor("word " * 500 + "THE END")  # as a paste does
        await pilot.press("enter")
        await settle(pilot)
        await wait_for(pilot, lambda: bool(notes), "a notification")
        assert notes == ["note cut to its first 2000 characters: the last 507 of 2507 were not "
                         "saved"]
        with Library([seeds], data) as library:
            assert library.get(PARM).note == "word " * 400


async def test_settings_that_cannot_be_written_are_said_not_remembered_once(
        tmp_path: Path) -> None:
    app, _seeds, data = shipped_app(tmp_path)
    (data / "settings.json").mkdir(parents=True)  # no file can be written in its place
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("L", "L", "3")  # two layouts and a filter: three settings not written
        await settle(pilot)
    assert [n for n in notes if "remembered" in n] == [
        f"the filter, sort, theme and layout are not remembered: {data / 'settings.json'} "
        "cannot be written"]
