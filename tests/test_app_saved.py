"""Saved searches, the query history and the session in the browser: b saves the search shown,
B lists the saved searches with their counts, the palette opens one, Up in an empty search bar
brings back earlier queries, and a restart puts back the query and the cursor paper."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import OptionList

from db import Library
from tests.tui_support import (
    app_on,
    burst,
    palette_commands,
    record_notifications,
    settle,
    shipped_app,
    type_text,
    wait_for,
)
from tui.browser.saved_screen import SavedSearchesScreen
from tui.keymap import KEYS_FILE, config_dir


async def _search(pilot, query: str) -> None:
    await pilot.press("slash", "ctrl+u")
    await type_text(pilot, query)
    await pilot.press("enter")
    await settle(pilot)


def _saved(seeds: Path, data: Path) -> dict[str, tuple[str, str, str]]:
    with Library([seeds], data) as library:
        return {c.search.name: (c.search.query, c.search.status, c.search.sort)
                for c in library.saved_searches()}


async def test_b_saves_the_search_shown_and_B_lists_and_opens_them(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _search(pilot, "reinforcement learning")
        await pilot.press("b", "enter")  # no name typed: the query is the name
        await wait_for(pilot, lambda: any(n.startswith("saved the search") for n in notes),
                       "the search to be saved")
        await pilot.press("2", "O", "O")  # new papers only, by name
        await _search(pilot, "graph")
        await pilot.press("b")
        await type_text(pilot, "new graphs")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(_saved(seeds, data)) == 2, "two saved searches")
        assert _saved(seeds, data) == {
            "reinforcement learning": ("reinforcement learning", "all", "relevance"),
            "new graphs": ("graph", "new", "name")}
        await pilot.press("B")
        await wait_for(pilot, lambda: isinstance(app.screen, SavedSearchesScreen),
                       "the saved searches")
        options = app.screen.query_one(OptionList)
        lines = [str(options.get_option_at_index(i).prompt) for i in range(2)]
        assert lines[0].split()[:8] == ["new", "graphs", "2", "hits", "2", "new", "0",
                                        "arrived"]
        assert lines[1].split()[:7] == ["reinforcement", "learning", "8", "hits", "8", "new",
                                        "0"]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.search_bar.value == "reinforcement learning",
                       "the saved search to open")
        await settle(pilot)
        assert (app.status_filter, app.sort_by, app.table.total) == ("all", "relevance", 8)
        await pilot.press("B")
        await wait_for(pilot, lambda: isinstance(app.screen, SavedSearchesScreen),
                       "the saved searches")
        await pilot.press("x")  # the first: new graphs
        await wait_for(pilot, lambda: list(_saved(seeds, data)) == ["reinforcement learning"],
                       "the saved search to go")
        await settle(pilot)
        assert app.screen is app.main_screen and app.table.total == 8


async def test_the_palette_opens_a_saved_search(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    with Library([seeds], data) as library:
        library.save_search("graph by name", "graph", sort="name")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        commands = await palette_commands(pilot, "saved search graph")
        await wait_for(pilot, lambda: app.screen.answered, "every provider's commands")
        prompts = [str(commands.get_option_at_index(i).prompt)
                   for i in range(commands.option_count)]
        commands.highlighted = prompts.index("Saved search: graph by name")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.search_bar.value == "graph", "the search to open")
        await settle(pilot)
        assert app.sort_by == "name" and app.header.sort_by == "name"


async def test_up_in_an_empty_search_bar_walks_back_through_earlier_queries(
        tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for query in ("graph", "mixture of experts", "graph"):
            await _search(pilot, query)
        await pilot.press("slash", "ctrl+u", "up")
        assert app.search_bar.value == "graph"
        await pilot.press("up")
        assert app.search_bar.value == "mixture of experts"
        await pilot.press("up")  # the oldest: it stays
        assert app.search_bar.value == "mixture of experts"
        await pilot.press("ctrl+u")
        await type_text(pilot, "moe")
        await pilot.press("up")  # a query being typed is left alone
        assert app.search_bar.value == "moe"
        await pilot.press("enter")
        await settle(pilot)
    with Library([seeds], data) as library:
        assert library.query_history() == ["moe", "graph", "mixture of experts"]


async def test_down_while_walking_the_history_steps_forward_not_out_of_the_search_bar(
        tmp_path: Path) -> None:
    """Down while walking the history with Up left the search bar: Down is the key that leaves
    it, and walking was no state it knew of. As in a shell, Down now steps to the next newer
    query, past the newest to the empty line, and leaves only when not walking."""
    app, _seeds, _data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for query in ("graph", "mixture of experts", "diffusion"):
            await _search(pilot, query)
        burst(app, ["slash", "ctrl+u", "up", "up", "up", "down"])  # at once, as over SSH
        await settle(pilot)
        assert (app.focused, app.search_bar.value) == (app.search_bar.input,
                                                       "mixture of experts")
        await pilot.press("down")
        assert (app.focused, app.search_bar.value) == (app.search_bar.input, "diffusion")
        await pilot.press("down")  # past the newest: the empty line, still in the search bar
        assert (app.focused, app.search_bar.value) == (app.search_bar.input, "")
        await pilot.press("down")  # not walking the history: back to the results
        await settle(pilot)
        assert app.focused is app.table
        burst(app, ["slash", "ctrl+u", "up", "down", "down", "j"])  # Down leaves; j moves
        await settle(pilot)
        assert (app.focused, app.search_bar.value, app.table.cursor_row) == (app.table, "", 1)


async def test_keys_toml_gives_the_history_other_keys(tmp_path: Path) -> None:
    """The history's keys come from the table of actions, so keys.toml can move them."""
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / KEYS_FILE).write_text('history-back = "f5"\nhistory-forward = "f6"\n',
                                          encoding="utf-8")
    app, _seeds, _data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for query in ("graph", "diffusion"):
            await _search(pilot, query)
        await pilot.press("slash", "ctrl+u", "f5", "f5")
        assert app.search_bar.value == "graph"
        await pilot.press("f6")
        assert (app.focused, app.search_bar.value) == (app.search_bar.input, "diffusion")
        await pilot.press("up")  # no longer a key of the history
        assert app.search_bar.value == "diffusion"


async def test_a_restart_puts_back_the_query_and_the_cursor_paper(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _search(pilot, "learning")
        await pilot.press("j", "j", "j")
        await settle(pilot)
        cursor = app.table.current_id
        assert app.table.row_of(cursor) == 3
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.search_bar.value == "learning"
        assert app.table.current_id == cursor and app.panel.paper.id == cursor


async def test_a_saved_search_named_like_markup_is_shown_as_typed_in_the_palette(
        tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    with Library([seeds], data) as library:
        library.save_search("[/]", "graph")
        library.save_search("[bold]x[/bold]", "model")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        commands = await palette_commands(pilot, "saved search")
        await wait_for(pilot, lambda: app.screen.answered, "every provider's commands")
        prompts = {str(commands.get_option_at_index(i).prompt)
                   for i in range(commands.option_count)}
        assert {"Saved search: [/]", "Saved search: [bold]x[/bold]"} <= prompts


#: A query of 1,500 characters of whole words (the search reads up to 2,000).
LONG_QUERY = " ".join(f"graph{n}" for n in range(215))


async def test_a_long_query_is_restored_whole_at_startup(tmp_path: Path) -> None:
    """A query of 1,500 characters came back from settings.json cut at 1,000 characters,
    mid-word: the length the history keeps, not the one the search reads."""
    assert 1400 < len(LONG_QUERY) < 2000
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _search(pilot, LONG_QUERY)
    with Library([seeds], data) as library:
        assert library.query_history()[0] == LONG_QUERY
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.search_bar.value == LONG_QUERY


def test_a_query_longer_than_a_search_reads_is_restored_cut_at_a_word(tmp_path: Path) -> None:
    """A restored query past MAX_QUERY_CHARS is cut after a whole word, and the notice says so."""
    from db.search.query import MAX_QUERY_CHARS
    from tui.browser.settings import Settings

    path = tmp_path / "settings.json"
    query = " ".join(["transformers"] * 200)  # 2,599 characters
    path.write_text(json.dumps({"query": query}), encoding="utf-8")
    settings, notice = Settings.load(path)
    kept = " ".join(["transformers"] * 153)  # 1,988 characters: a 154th word would pass 2,000
    assert settings.query == kept and len(kept) <= MAX_QUERY_CHARS
    assert notice == ("the query restored was cut to its first 1988 characters (whole words; "
                      "a search reads at most 2000)")
