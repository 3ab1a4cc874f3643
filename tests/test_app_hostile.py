"""Hostile text through the search bar: generated strings, pasted and typed, never crash the
browser, and the table always shows exactly what the library answers for the query shown."""

from __future__ import annotations

import random
from pathlib import Path

from textual import events

from db import Library
from tests.tui_support import settle, shipped_app


def _hostile_strings(seed: int = 11, n: int = 8) -> list[str]:
    rng = random.Random(seed)
    alphabet = ('abc xyz "-*:()[]{}\\/$%^&|~`\'' + "\x00\x07\x08\x1b\r\n\t\x7f\x9b"
                + "éüñ图神经网络ＧＰＴ\u202e\u200b\ufeff🙂" + "[bold red][/INST][link=x]")
    made = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(n)]
    return [*made, "graph " * 1700, "\x1b[2J\x1b]52;c;aGk=\x07", "is:bogus OR -", '"unclosed']


async def test_generated_strings_in_the_search_bar(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        with Library([seeds], data) as library:
            for text in _hostile_strings():
                await pilot.press("slash", "ctrl+u")
                app.search_bar.post_message(events.Paste(text))  # as a terminal pastes it
                await settle(pilot)
                shown = app.search_bar.value
                assert "\x1b" not in shown and "\n" not in shown and "\x00" not in shown
                expected = library.search(shown, None, 200, 0, typing=True)
                assert app.table.paper_ids == [h.id for h in expected.hits], repr(text)
                await pilot.press("escape", "j", "k")  # keys on the results do no harm
                await settle(pilot)
        assert app.is_running
