"""Typing in the search bar: fast typing, keys typed ahead, pastes, superseded answers."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len
from textual import events
from textual.widgets import Static

from db import Library
from tests.tui_support import (
    _ids,
    app_on,
    burst,
    settle,
    shipped_app,
    shipped_copy,
    type_text,
    wait_for,
)
from tui.browser.widgets import SearchBar


async def test_fast_typing_leaves_the_table_equal_to_the_last_query(tmp_path: Path) -> None:
    """Type then delete a query 50 times as fast as keys come; stale answers never win."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, debounce_seconds=0.0)  # no debounce: every key searches
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        burst(app, [*"graph", *["backspace"] * 5] * 50)
        await settle(pilot)
        assert app.query_one(SearchBar).value == ""
        with Library([seeds], data) as library:
            assert app.table.paper_ids == _ids(library, "")
            burst(app, "learn")
            await settle(pilot)
            assert app.table.paper_ids == _ids(library, "learn")
            assert app.table.row_count == 21


async def test_keys_typed_ahead_go_where_they_were_meant(tmp_path: Path) -> None:
    """Over SSH keys arrive in bursts: "/wudi", Enter, "t" must search, then mark."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"wudi", "enter", "t"])
        await settle(pilot)
        assert app.query_one(SearchBar).value == "wudi"
        assert app.focused is app.table
        burst(app, ["slash", "ctrl+u", *"graph", "down", "j", "r", "3", "k", "2"])
        await settle(pilot)
        assert app.status_filter == "new"
    with Library([seeds], data) as library:
        assert [h.name for h in library.search("", "to-read").hits] == ["WUDI-Merging"]
        assert [h.name for h in library.search("", "read").hits] == ["ELoRA"]


async def test_keys_typed_after_slash_edit_the_query_in_order(tmp_path: Path) -> None:
    """Editing keys (ctrl+u, Backspace, Left) in a burst with letters act where they were typed,
    not after the letters behind them."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"wudi", "enter"])
        await settle(pilot)
        burst(app, ["slash", "ctrl+u", *"graph"])
        await settle(pilot)
        assert app.search_bar.value == "graph"
        assert app.table.row_count == 2
        burst(app, ["escape", "slash", "backspace", *"xyz"])  # "/" selects the query: replaced
        await settle(pilot)
        assert app.search_bar.value == "xyz"
        burst(app, ["backspace", "backspace", *"ab", "left", "left", "backspace", "c", "end", "d"])
        await settle(pilot)
        assert app.search_bar.value == "cabd"
        # Enter moves the focus at once; the keys typed before it still edit the query
        burst(app, ["ctrl+u", *"graphx", "backspace", "enter", "t"])
        await settle(pilot)
        assert app.search_bar.value == "graph"
        assert app.focused is app.table
        with Library([seeds], data) as library:
            assert library.get(_ids(library, "graph")[0]).status == "to-read"


async def test_a_paste_is_only_ever_search_text(tmp_path: Path) -> None:
    """A paste with an escape sequence and line breaks becomes one clean line of query; it never
    leaves the search bar nor marks a paper. Pasted on the table, it goes to the search bar,
    and keys typed after it follow it there."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        app.post_message(events.Paste("model \x1b[2J x\r\nrrr ttt\x00\u202e"))
        await settle(pilot)
        assert app.search_bar.value == "model [2J x rrr ttt"
        assert app.focused is app.search_bar.input
        app.search_bar.input.value = "a\x1b[2Jb\tc"  # whatever way text gets in, it is clean
        assert app.search_bar.value == "a [2Jb c"
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is app.table
        app.post_message(events.Paste("graph\nneural\x1b"))
        burst(app, ["space", *"net", "enter", "r"])
        await settle(pilot)
        assert app.search_bar.value == "graph neural net"
        assert app.focused is app.table
        with Library([seeds], data) as library:
            hits = _ids(library, "graph neural net")
            assert library.counts()["read"] == 1
            assert library.get(hits[0]).status == "read"


async def test_a_superseded_answer_is_never_shown_and_the_newest_query_runs_when_it_comes(
        tmp_path: Path, monkeypatch) -> None:
    """While "grap" is searched, "h" is typed: the answer for "grap" arrives superseded and is
    dropped unseen, and "graph" is searched the moment it arrives, not after the debounce
    (an hour here: the test would time out)."""
    import threading

    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, debounce_seconds=3600.0)
    started, gate = threading.Event(), threading.Event()
    search = Library.search

    def slow(library, query="", *args, **kwargs):
        if query == "grap":
            started.set()
            gate.wait(10)
        return search(library, query, *args, **kwargs)

    shown: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        show_hits = app.table.show_hits

        def spy(*args, **kwargs):
            shown.append(app._result.query)
            show_hits(*args, **kwargs)

        monkeypatch.setattr(app.table, "show_hits", spy)
        monkeypatch.setattr(Library, "search", slow)
        await pilot.press("slash")
        burst(app, "grap")
        await wait_for(pilot, started.is_set, 'the search for "grap" to start')
        burst(app, "h")
        await wait_for(pilot, lambda: app.search_bar.value == "graph", '"graph" in the bar')
        assert app._search_timer is not None  # "graph" waits: a search is on its way
        gate.set()
        await settle(pilot)
        assert shown == ["graph"]
        with Library([seeds], data) as library:
            assert app.table.paper_ids == _ids(library, "graph")


async def test_the_cursor_paper_comes_with_the_hits(tmp_path: Path, monkeypatch) -> None:
    """A search reads the paper its cursor lands on with the hits, so the panel is drawn with
    the table: no second worker is started for it."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        loads: list[str] = []
        load_paper = app.load_paper

        def counting(paper_id: str):
            loads.append(paper_id)
            return load_paper(paper_id)

        monkeypatch.setattr(app, "load_paper", counting)
        await pilot.press("slash")
        await type_text(pilot, "learning")
        await settle(pilot)
        assert app._result.query == "learning"
        assert app.panel.paper is not None and app.panel.paper.id == app.table.current_id
        assert loads == []
        await pilot.press("down", "j")  # back to the table, next paper: loaded by itself
        await settle(pilot)
        assert loads == [app.table.current_id] == [app.panel.paper.id]


async def test_the_cursor_stays_in_view_when_the_search_status_grows(tmp_path: Path) -> None:
    """A query of more than 32 words at 80 columns: the status beside the query grows ("only
    the 32 rarest of 40 words are used") and narrows the input; its end, where the cursor is, stays
    in view (Textual's Input scrolls to its cursor only as the cursor moves)."""
    app, _seeds, _data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        words = " ".join(f"graph{n}" for n in range(40))
        await type_text(pilot, words)
        await settle(pilot)
        query = app.search_bar.input
        assert query.value == words
        await wait_for(pilot, lambda: "32 rarest" in str(app.search_bar.query_one(
            "#search-status", Static).content), "the status about the words used")
        await pilot.pause()
        assert query.scroll_x <= cell_len(words) < query.scroll_x + query.content_size.width
