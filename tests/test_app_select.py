"""Selections and bulk steps in the browser: v, V and Esc; the mark keys, # and e on the
selected papers; a bulk mark asked on one line and undone by one u; the selected rows marked
with a character, visible without colour."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from db import Library
from tests.tui_support import (
    burst,
    record_notifications,
    settle,
    shipped_app,
    type_text,
    wait_for,
)
from tui.browser.editors import ConfirmLine
from tui.browser.widgets.results import SELECTED


def _statuses(seeds: Path, data: Path, ids: list[str]) -> list[str]:
    with Library([seeds], data) as library:
        return [library.get(i).status for i in ids]


def _row_text(app, paper_id: str) -> str:
    return " ".join(cell.plain for cell in app.table.get_row(paper_id))


async def test_v_selects_and_a_mark_key_marks_them_all_once_y_confirms(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path, ascii_only=True)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first = app.table.paper_ids[:3]
        await pilot.press("v", "v", "v", "k", "v")  # the third unselected again
        await settle(pilot)
        assert list(app.selection) == first[:2] and app.table.cursor_row == 3
        assert _row_text(app, first[0]).split()[1] == SELECTED
        assert SELECTED not in _row_text(app, first[2]).split()[:2]
        assert "2 selected" in str(app.query_one("#search-status", Static).content)
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmLine), "the question")
        assert "mark 2 papers to-read?" in str(app.screen.query_one("#confirm-line").render())
        await pilot.press("n")  # any key but y: nothing marked
        await settle(pilot)
        assert _statuses(seeds, data, first[:2]) == ["new", "new"] and notes[-1] == \
            "nothing marked"
        assert list(app.selection) == first[:2]
        await pilot.press("r", "y")
        await settle(pilot)
        assert _statuses(seeds, data, first[:2]) == ["read", "read"]
        assert app.selection == {} and app.header.counts["read"] == 2
        await pilot.press("u")  # one undo takes back the whole bulk step
        await settle(pilot)
        assert _statuses(seeds, data, first[:2]) == ["new", "new"]


async def test_V_selects_every_paper_shown_and_esc_clears(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_text(pilot, "reinforcement learning")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("V")
        await wait_for(pilot, lambda: len(app.selection) == 8, "every hit selected")
        with Library([seeds], data) as library:
            expected = [h.id for h in library.search("reinforcement learning", typing=True).hits]
        assert list(app.selection) == expected
        await pilot.press("escape")
        await settle(pilot)
        assert app.selection == {} and not any(
            SELECTED in _row_text(app, i).split()[:2] for i in app.table.paper_ids)
        await pilot.press("escape")  # nothing selected: Esc does nothing, nothing breaks
        await settle(pilot)
        assert app.screen is app.main_screen


async def test_tags_and_export_act_on_the_selected_papers(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        ids = app.table.paper_ids
        await pilot.press("v", "j", "v", "number_sign")
        await type_text(pilot, "batch")
        await pilot.press("enter")
        await settle(pilot)
        with Library([seeds], data) as library:
            tagged = [h.id for h in library.search("tag:batch").hits]
        assert sorted(tagged) == sorted([ids[0], ids[2]])
        await pilot.press("v", "v", "e")
        await wait_for(pilot, lambda: any(n.startswith("exported") for n in notes), "export")
        written = next((data / "exports").glob("*.md")).read_text(encoding="utf-8")
        assert written.count("- [ ]") == 2


async def test_a_mark_key_typed_with_V_marks_the_whole_selection(tmp_path: Path) -> None:
    """V and t read together: t waits for V's papers, then asks about all of them."""
    app, _seeds, _data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["V", "t"])
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmLine), "the question")
        assert "mark 35 papers to-read?" in str(app.screen.query_one("#confirm-line").render())


async def test_a_new_query_or_filter_clears_the_selection(tmp_path: Path) -> None:
    app, _seeds, _data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("v", "v")
        await settle(pilot)
        assert len(app.selection) == 2
        await pilot.press("slash")
        await type_text(pilot, "reinforcement")
        await pilot.press("enter")
        await settle(pilot)
        assert app.selection == {}
        await pilot.press("V")
        await wait_for(pilot, lambda: len(app.selection) == app.table.total, "all selected")
        await pilot.press("2")
        await settle(pilot)
        assert app.selection == {}
