"""What a keystroke costs the browser's frames: a key that edits the query is drawn with its
answer (and no later than ``PAINT_HOLD_S`` after it), the footer is rebuilt once when the focus
moves, and ``is_settled`` waits for the text typed to be the query searched."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from textual import events
from textual.widgets._footer import FooterKey

from tests.tui_support import settle, shipped_app, type_text, wait_for
from tui.browser import frames
from tui.browser.app import PapertrayApp
from tui.browser.widgets import KeysFooter


def _footer(app: PapertrayApp) -> list[str]:
    return [key.description for key in app.main_screen.query(FooterKey)]


async def test_the_footer_follows_the_focus_rebuilt_once_per_move(tmp_path: Path,
                                                                 monkeypatch) -> None:
    app = shipped_app(tmp_path)[0]
    rebuilds: list[float] = []
    recompose = KeysFooter.recompose

    async def counted(self):
        rebuilds.append(time.monotonic())
        return await recompose(self)

    monkeypatch.setattr(KeysFooter, "recompose", counted)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_for(pilot, lambda: "open" in _footer(app), "the table's keys")
        assert "results" not in _footer(app)
        before = len(rebuilds)
        await pilot.press("slash")
        await type_text(pilot, "graph")
        await settle(pilot)
        await wait_for(pilot, lambda: "results" in _footer(app), "the search bar's keys",
                       state=lambda: str(_footer(app)))
        assert "open" not in _footer(app) and "to-read" not in _footer(app)
        # blur, focus and the ancestors' focus events: Textual's footer rebuilt three times
        assert len(rebuilds) - before == 1
        await pilot.press("enter")
        await settle(pilot)
        await wait_for(pilot, lambda: "to-read" in _footer(app), "the table's keys again")
        assert "results" not in _footer(app)


async def test_a_key_is_drawn_with_its_answer_or_after_the_hold(tmp_path: Path,
                                                                monkeypatch) -> None:
    """Frames wait for the answer to a typed key; a slow search lets them go after
    ``PAINT_HOLD_S`` (the echo of the key is never held longer)."""
    app = shipped_app(tmp_path)[0]
    seen: list[tuple[str, float, bool]] = []  # (what, when, whether the answer was shown)
    hold, release = app._hold_paint, app._release_paint

    def holding() -> None:
        seen.append(("hold", time.monotonic(), app._applied == app._request))
        hold()

    def releasing() -> None:
        seen.append(("release", time.monotonic(), app._applied == app._request))
        release()

    monkeypatch.setattr(app, "_hold_paint", holding)
    monkeypatch.setattr(app, "_release_paint", releasing)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        seen.clear()
        app.post_message(events.Key("r", "r"))
        await settle(pilot)
        assert app.search_bar.value == "r" and app._applied == app._request
        assert seen[0][0] == "hold"  # as the key reached the app, before its search
        released = [s for s in seen if s[0] == "release"]
        assert released and released[0][2]  # let go by the answer, once it was shown
        assert not app.paint_held and not app._batch_count

        gate = threading.Event()
        search = app.lib.search

        def slow(*args, **kwargs):
            gate.wait(5)
            return search(*args, **kwargs)

        monkeypatch.setattr(app.lib, "search", slow)
        seen.clear()
        await type_text(pilot, "l")
        await wait_for(pilot, lambda: any(s[0] == "release" for s in seen) and not app.paint_held,
                       "the hold to end without an answer", state=lambda: str(seen))
        waited = next(s[1] for s in seen if s[0] == "release") - seen[0][1]
        assert frames.PAINT_HOLD_S * 0.9 <= waited < frames.PAINT_HOLD_S + 1.0
        assert app._search_pending and not app._batch_count  # drawn, though not answered
        gate.set()
        await settle(pilot)
        assert app.search_bar.value == "rl" and app._query == "rl" and app.table.row_count


async def test_settled_waits_for_the_typed_text_to_be_searched(tmp_path: Path) -> None:
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        everything = app.table.total
        app.search_bar.input.value = "reinforcement"  # its Changed message not handled yet
        assert not app.is_settled
        await settle(pilot)
        assert app._query == "reinforcement"
        assert 0 < app.table.total < everything


async def test_the_abstract_panel_scrolls_the_whole_text_of_each_paper(tmp_path: Path) -> None:
    """The text's new size is taken without a second layout: the panel still scrolls exactly
    the text of the paper shown, longer or shorter than the one before."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        heights = set()
        for _ in range(6):
            await pilot.press("j")
            await settle(pilot)
            await pilot.pause()
            panel, body = app.panel, app.panel.query_one("#abstract-body")
            lines = body.get_content_height(panel.container_size, app.size, body.size.width)
            assert body.size.height == lines
            assert panel.virtual_size.height == lines
            assert panel.max_scroll_y == max(0, lines - panel.scrollable_content_region.height)
            heights.add(lines)
            await pilot.press(*["J"] * 30)  # (space at the end would go to the next paper)
            await pilot.pause()
            assert panel.scroll_y == panel.max_scroll_y  # the end of the text, not beyond
        assert len(heights) > 2  # papers of different lengths
