"""Layout and terminal sizes: narrow and wide layouts, tiny terminals, pages sized to fit."""

from __future__ import annotations

from pathlib import Path

from tests.tui_support import app_on, settle, shipped_app, shipped_copy, type_text, wait_for


async def test_layout_follows_the_width_and_survives_tiny_terminals(tmp_path: Path) -> None:
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.has_class("-narrow") and not app.screen.has_class("-wide")
        await pilot.resize_terminal(200, 50)
        await wait_for(pilot, lambda: app.screen.has_class("-wide"), "the wide layout")
        for width, height in [(20, 6), (200, 50), (33, 7), (120, 40), (119, 10), (20, 6)] * 2:
            await pilot.resize_terminal(width, height)
            await pilot.pause()
        await pilot.press("j", "t", "slash")
        await type_text(pilot, "graph")
        await settle(pilot)
        assert app.table.row_count == 2
        assert app.screen.has_class("-narrow")


async def test_a_taller_terminal_fills_the_table_at_the_end_of_the_list(
        tmp_path: Path, monkeypatch) -> None:
    """``G`` in a short terminal, then the window made taller (a tmux pane zoomed, 30x8 to
    250x70 at 87k papers): the table kept the short terminal's page of rows, the last paper at
    its end and the rest of the screen blank, with more papers above. It loads a page for the
    new height at once, the cursor still on the last paper."""
    monkeypatch.setattr("tui.browser.app.PAGE_SIZE", 10)  # the shipped library has 35 papers
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 8)) as pilot:
        await settle(pilot)
        assert app.table.page_size == 16 and app.table.total == 35
        await pilot.press("G")
        await settle(pilot)
        last = app.table.current_id
        assert (app.table.window_offset, app.table.row_count) == (19, 16)
        await pilot.resize_terminal(100, 40)
        await wait_for(pilot, lambda: app.table.row_count == 35, "a page for the new height",
                       state=lambda: f"{app.table.window_offset}+{app.table.row_count}")
        await settle(pilot)
        assert app.table.current_id == last


async def test_the_page_follows_the_terminal_height(tmp_path: Path) -> None:
    """The table gets a page of PAGE_SIZE hits, or of twice the terminal's height when that is
    more, so a tall terminal never shows the table ending early; a page size given is kept."""
    from tui.browser.app import PAGE_SIZE

    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        assert app.page_size == app.table.page_size == PAGE_SIZE
        await pilot.resize_terminal(100, 50)
        await wait_for(pilot, lambda: app.table.page_size == 100, "a page of 100 rows")
        assert app.page_size == 100
    app = app_on(seeds, data, page_size=10)
    async with app.run_test(size=(100, 50)) as pilot:
        await settle(pilot)
        assert app.page_size == app.table.page_size == 10
        assert app.table.row_count == 10
