"""Sort orders in the browser: O goes round them, the palette picks one by name, the header
says which, and the order is remembered with the filter."""

from __future__ import annotations

from pathlib import Path

from db import Library
from tests.tui_support import app_on, palette_commands, settle, shipped_app, type_text, wait_for


def _header_text(app) -> str:
    return str(app.header.query_one("#counts").render())


def _expected(seeds: Path, data: Path, query: str, sort: str) -> list[str]:
    with Library([seeds], data) as library:
        return [h.id for h in library.search(query, limit=200, typing=True, sort=sort).hits]


async def test_O_goes_round_the_orders_and_the_header_names_the_one_in_force(
        tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert "by name" not in _header_text(app)
        await pilot.press("O")  # seed order
        await settle(pilot)
        assert "seed order" in _header_text(app)
        await pilot.press("O")
        await settle(pilot)
        assert "by name" in _header_text(app)
        assert app.table.paper_ids == _expected(seeds, data, "", "name")
        await pilot.press("slash")
        await type_text(pilot, "reinforcement learning")
        await pilot.press("enter")
        await settle(pilot)
        by_name = _expected(seeds, data, "reinforcement learning", "name")
        assert app.table.paper_ids == by_name and len(by_name) == 8
        assert app.table.paper_ids != _expected(seeds, data, "reinforcement learning",
                                                "relevance")
        await pilot.press("O", "O", "O", "O")  # year, status, marked, back to relevance
        await settle(pilot)
        assert app.sort_by == "relevance" and "by name" not in _header_text(app)
        assert app.table.paper_ids == _expected(seeds, data, "reinforcement learning",
                                                "relevance")


async def test_the_palette_picks_an_order_and_a_restart_keeps_it(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("t", "t")  # the first two papers to-read; the latest is the second
        await settle(pilot)
        commands = await palette_commands(pilot, "sort latest marked")
        await wait_for(pilot, lambda: app.screen.answered, "every provider's commands")
        prompts = [str(commands.get_option_at_index(i).prompt)
                   for i in range(commands.option_count)]
        # (the O key's own command, "Sort the papers: …", may be listed first)
        commands.highlighted = next(i for i, p in enumerate(prompts)
                                    if p.startswith("Sort: latest marked first"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.sort_by == "marked", "the order to change")
        await settle(pilot)
        expected = _expected(seeds, data, "", "marked")
        assert app.table.paper_ids == expected
        assert [app.table.hit(i).status for i in expected[:3]] == ["to-read", "to-read", "new"]
        assert "latest marked" in _header_text(app)
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.sort_by == "marked" and "latest marked" in _header_text(app)
        assert app.table.paper_ids == _expected(seeds, data, "", "marked")
