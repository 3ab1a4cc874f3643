"""The reading view (Enter on a row): one paper full screen with every field, the whole abstract,
the note and tags; j/k the next and previous paper of the list (across windows of hits); the
mark keys mark the paper shown, written at once, the view staying; Escape back to the list
with the cursor on the paper last shown; keys typed ahead act in order; and at 80x24 on
TERM=linux, in a real terminal, only the abstract's own text is not ASCII."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Static

from db import Library
from db.seeds.render import render_plain
from tests.tmux_support import TMUX, Terminal
from tests.tui_support import (
    ODD_SEEDS,
    PARM,
    _ids,
    app_on,
    burst,
    copy_files,
    papertray_command,
    record_notifications,
    settle,
    shipped_app,
    shipped_copy,
)
from tui.browser.app import PapertrayApp
from tui.browser.reading_screen import ReadingScreen
from tui.browser.screens import HelpScreen
from tui.browser.widgets import AbstractPanel

WUDI = "655e745abdb86cb1"


def _view(app: PapertrayApp) -> ReadingScreen:
    screen = app.screen
    assert isinstance(screen, ReadingScreen), f"the screen on top is {screen!r}"
    return screen


def _view_text(app: PapertrayApp) -> str:
    """The text the reading view shows: its top line, then the paper."""
    view = _view(app)
    place = view.query_one("#reading-place", Static).content
    body = view.query_one("#reading-paper", AbstractPanel).query_one("#abstract-body", Static)
    return "\n".join(c.plain if isinstance(c, Text) else str(c)
                     for c in (place, body.content))


def _flat(text: str) -> str:
    return " ".join(text.split())


async def test_enter_opens_the_paper_with_every_field_its_note_tags_and_whole_abstract(
        tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        library.set_note(PARM, "compare with [bold]GenARM[/bold]")
        library.tag([PARM], ["moe", "to-cite"])
        paper = library.get(PARM)
    app = app_on(seeds, data)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        text = _view_text(app)
        assert text.startswith(" 1/35 · all papers\nPARM  · new\n")
        assert "code https://github.com/Baijiong-Lin/PARM" in text
        assert "tags #moe #to-cite" in text
        assert "note compare with [bold]GenARM[/bold]" in text  # as typed, never markup
        abstract = _flat(render_plain(paper.abstract_markup))
        assert abstract in _flat(text)  # the whole of it, to its last word
        assert _view(app).paper_id == PARM
        assert app.table.current_id == PARM  # the list stays where it was


async def test_j_and_k_read_the_next_and_previous_paper_of_the_list(tmp_path: Path) -> None:
    app, _, _ = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        order = app.table.paper_ids
        await pilot.press("j", "enter")
        await settle(pilot)
        assert _view(app).paper_id == order[1]
        for key, at in (("j", 2), ("j", 3), ("k", 2), ("space", 2)):
            await pilot.press(key)
            await settle(pilot)
            assert _view(app).paper_id == order[at], key
            assert _view_text(app).startswith(f" {at + 1}/35 · ")
        view = _view(app).query_one("#reading-paper", AbstractPanel)
        while view.scroll_y < view.max_scroll_y:  # space at the end of a paper: the next one
            await pilot.press("space")
            await settle(pilot)
        await pilot.press("space")
        await settle(pilot)
        assert _view(app).paper_id == order[3]
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.main_screen
        assert app.table.current_id == order[3]  # the cursor on the paper last shown
        assert app.panel.paper is not None and app.panel.paper.id == order[3]


async def test_the_mark_keys_mark_the_paper_shown_on_disk_and_the_view_stays(
        tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("j", "enter", "t")
        await settle(pilot)
        assert _view(app).paper_id == WUDI  # the view stays on the paper it marked
        assert "WUDI-Merging  » to-read" in _view_text(app)
        with Library([seeds], data) as library:  # written at once, read by another connection
            assert library.get(WUDI).status == "to-read"
            assert library.get(PARM).status == "new"
        assert app.header.counts["to-read"] == 1
        said = record_notifications(app)
        await pilot.press("y")  # the copy keys work in the view, on the paper shown
        await settle(pilot)
        assert any("https://github.com/nathanielyvo/WUDI-Merging" in s for s in said), said
        await pilot.press("r")
        await settle(pilot)
        assert "WUDI-Merging  ✓ read" in _view_text(app)
        await pilot.press("u")  # undo in the view: the read mark is taken back
        await settle(pilot)
        assert _view(app).paper_id == WUDI
        assert "WUDI-Merging  » to-read" in _view_text(app)
        with Library([seeds], data) as library:
            assert library.get(WUDI).status == "to-read"
        await pilot.press("escape")
        await settle(pilot)
        assert app.table.current_id == WUDI
        assert app.table.hit(WUDI).status == "to-read"


async def test_the_view_marks_the_paper_shown_not_the_selection(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        order = app.table.paper_ids
        await pilot.press("v")  # PARM selected, the cursor on WUDI-Merging
        await settle(pilot)
        await pilot.press("enter", "d")
        await settle(pilot)
        with Library([seeds], data) as library:
            assert [library.get(i).status for i in order[:2]] == ["new", "dismissed"]


async def test_keys_typed_ahead_act_in_order_in_and_after_the_view(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        order = app.table.paper_ids
        burst(app, ["enter", "j", "t", "j", "r", "escape", "d"])
        await settle(pilot)
        assert app.screen is app.main_screen
        with Library([seeds], data) as library:
            statuses = [library.get(i).status for i in order[:4]]
        # t and r in the view stay on their paper; d on the list marks the paper last shown
        assert statuses == ["new", "to-read", "dismissed", "new"]
        assert app.table.current_id == order[3]
        burst(app, ["enter", "escape", "escape", "x"])  # the second Esc is the list's
        await settle(pilot)
        assert app.screen is app.main_screen and app.screen_stack == [app.main_screen]
        with Library([seeds], data) as library:
            assert library.get(order[3]).status == "new"
        assert app.table.current_id == order[4]
        burst(app, ["slash", *"zzzzqqq", "enter", "enter", "t"])  # no paper: nothing opens
        await settle(pilot)
        assert app.screen is app.main_screen and app.table.current_id is None


async def test_j_reads_across_windows_of_hits_and_stops_at_the_last_paper(
        tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        every = _ids(library, "", limit=100)
    app = app_on(seeds, data, page_size=6)
    said = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        burst(app, ["j"] * 8)  # past the window of 6: the next window is loaded on the way
        await settle(pilot)
        assert _view(app).paper_id == every[8] and app.table.row_count <= 6
        assert _view_text(app).startswith(" 9/35 · ")
        burst(app, ["j"] * 30)  # to the last paper, and on: it stays there
        await settle(pilot)
        assert _view(app).paper_id == every[-1]
        assert "the last paper of the list" in said
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert app.table.current_id == every[-1]
        with Library([seeds], data) as library:
            assert library.get(every[-1]).status == "to-read"


async def test_the_view_shows_untrusted_text_as_it_is_and_its_keys_are_in_the_help(
        tmp_path: Path) -> None:
    seeds = copy_files(tmp_path / "seeds", [ODD_SEEDS / "brackets.txt"])
    app = app_on(seeds, tmp_path / "data")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert app.panel.paper is not None
        abstract = _flat(render_plain(app.panel.paper.abstract_markup))
        assert "[" in abstract and abstract in _flat(_view_text(app))
        await pilot.press("question_mark")
        await settle(pilot)
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        reading = [(line.keys, line.description) for line in help_screen.lines
                   if line.section.startswith("Reading a paper")]
        assert reading[0] == ("j", "Read the next paper of the list")
        assert ("r t d x", "Mark the paper shown read, to-read, dismissed, new (the view stays "
                "on it and shows its new status)") in reading
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ReadingScreen)  # the help closes back to the view


# -- a real terminal ----------------------------------------------------------------------------

@pytest.mark.skipif(TMUX is None, reason="tmux is not installed: this test drives the real "
                    "command in tmux (.ci/run installs it)")
def test_the_view_at_80x24_on_a_linux_console_is_ascii_but_the_abstract(tmp_path: Path) -> None:
    """TERM=linux (a console whose fonts lack ✓): Enter on C-3PO, whose abstract has an em
    dash; the screen shows the paper, and no character but the abstract's own is not ASCII."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    with Library([seeds], data) as library:
        library.sync()
        c3po = library.get(library.search("C-3PO", limit=1).hits[0].id)
    abstract = render_plain(c3po.abstract_markup)
    assert "—" in abstract
    terminal = Terminal(["env", "-u", "NO_COLOR", "TERM=linux", "LANG=C.UTF-8",
                         *papertray_command(), *where])
    try:
        terminal.wait_for("1/35")
        terminal.keys("/")
        terminal.keys("C-3PO", literal=True)
        terminal.wait_for("1/1")
        terminal.keys("Enter")
        terminal.wait_for("enter open")  # the table has the keyboard: Enter opens the paper
        terminal.keys("Enter")
        screen = terminal.wait_for(" 1/1 | all papers | query: C-3PO", "C-3PO  . new",
                                   "j next", "esc back")
        assert "Inspired by human search behavior—typically" in _flat(screen)
        assert {c for c in screen if ord(c) > 127} <= set(abstract)
        terminal.keys("t")
        terminal.wait_for("C-3PO  > to-read")
        terminal.keys("Escape")
        terminal.wait_for("> to-read 1", "enter open")
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    with Library([seeds], data) as library:
        assert library.get(c3po.id).status == "to-read"
