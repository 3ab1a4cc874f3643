"""Pastes the terminal does not bracket: while the search bar has the keyboard, a burst of text
with a line break in it is search text (its line breaks spaces, nothing after them a key);
elsewhere it is the keys it holds.

The browser gets what the driver's input pipe makes of the bytes a terminal sends, first
through the Textual pilot, then end to end in a real tmux pane (``paste-buffer`` without
``-p``: no brackets) with the real ``papertray`` command.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from db import Library
from tests.tmux_support import Terminal
from tests.tui_support import (
    PARM,
    SHIPPED_SEEDS,
    _ids,
    papertray_command,
    papertray_json,
    settle,
    shipped_app,
    shipped_copy,
)
from tui.browser.app import PapertrayApp
from tui.browser.bursts import READ_SIZE
from tui.browser.display import pasted_query
from tui.browser.terminal import InputPipe

#: The issue's paste as tmux sends it (a line break is CR): typed, its keys would leave the
#: search bar, then mark papers (t, r), write an export (e) and quit (q).
ISSUE_PASTE = "graph neural\rnetworks\rrrrtttq"
#: Abstracts of the shipped seeds as a reader copies them from a pager: wrapped at 72 columns,
#: blank lines between them, about 10 KB (the terminal writes it in pieces, read 4 KiB at most).
ABSTRACTS = [a for f in sorted(SHIPPED_SEEDS.glob("*.txt"))
             for a in f.read_text(encoding="utf-8").split("\n\n")[1:]][:8]
LONG_PASTE = "\n\n".join(textwrap.fill(a, 72, break_on_hyphens=False) for a in ABSTRACTS)


def send(app: PapertrayApp, text: str, *sizes: int) -> None:
    """Post what the driver posts when the terminal sends ``text``: first in reads of
    ``sizes`` bytes, then in reads of at most 4 KiB, read back to back (all at one instant)."""
    pipe, raw, reads = InputPipe(), text.encode(), []
    for size in sizes:
        reads.append(raw[:size])
        raw = raw[size:]
    reads += [raw[at:at + READ_SIZE] for at in range(0, len(raw), READ_SIZE)]
    for read in reads:
        for event in pipe.feed(read, now=0.0):
            app.post_message(event)


def _statuses(library: Library) -> dict[str, int]:
    return {status: library.counts()[status] for status in ("to-read", "read")}


@pytest.mark.parametrize(("pasted", "reads"), [
    (ISSUE_PASTE, ()),
    ("graph neural\r\nnetworks\r\nrrrtttq\r\n", ()),  # CRLF, ending with a line break
    ("graph\tneural\tnetworks\trrrtttq", ()),
    # in pieces, as a terminal may write it: a line break, then text, each a read of its own
    ("graph neural\rnetworks\r\rrrrtttq", (21, 1, 1)),
    (LONG_PASTE.replace("\n", "\r"), ()),  # 10 KB: reads of 4 KiB
], ids=["issue", "crlf-break-at-end", "tabs", "in-pieces", "abstracts-10kb"])
async def test_a_burst_of_text_in_the_search_bar_is_search_text(
        tmp_path: Path, pasted: str, reads: tuple[int, ...]) -> None:
    """The query is the paste on one line, the search bar keeps the keyboard (the next key
    typed goes on the query), no paper is marked, nothing is exported, the browser runs."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        send(app, pasted, *reads)
        send(app, "z")
        await settle(pilot)
        assert app.search_bar.value == pasted_query(pasted) + "z"
        assert app.focused is app.search_bar.input
        assert app.is_running
    assert not (data / "exports").exists()
    with Library([seeds], data) as library:
        assert _statuses(library) == {"to-read": 0, "read": 0}


async def test_a_paste_right_after_the_slash_that_opens_the_search_bar(tmp_path: Path) -> None:
    """``/`` and then a paste, before the browser has handled the ``/``: the paste is search
    text, as the search bar has the keyboard at its turn."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        send(app, "/")
        send(app, ISSUE_PASTE)
        await settle(pilot)
        assert app.search_bar.value == "graph neural networks rrrtttq"
        assert app.focused is app.search_bar.input
    with Library([seeds], data) as library:
        assert _statuses(library) == {"to-read": 0, "read": 0}


async def test_keys_typed_ahead_on_the_table_stay_keys(tmp_path: Path) -> None:
    """Over a slow link ``/wudi⏎t`` typed on the table comes in one read: it searches, then
    marks the paper found; then ``1⏎t`` shows every paper and marks the cursor paper again
    (``t`` again: it stays to-read)."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        send(app, "/wudi\rt")
        await settle(pilot)
        assert app.search_bar.value == "wudi"
        assert app.focused is app.table
        with Library([seeds], data) as library:
            wudi = _ids(library, "wudi")
            assert len(wudi) == 1 and library.get(wudi[0]).status == "to-read"
        send(app, "1\rt")
        await settle(pilot)
        assert app.search_bar.value == "wudi"
    with Library([seeds], data) as library:
        assert _statuses(library) == {"to-read": 1, "read": 0}


async def test_a_burst_in_the_note_editor_is_its_keys(tmp_path: Path) -> None:
    """The note editor is no search bar: ``first look⏎t`` in one read writes the note, saves
    it with Enter, and marks the paper with ``t``."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        send(app, "a")
        send(app, "first look\rt")
        await settle(pilot)
        assert app.screen is app.main_screen
    with Library([seeds], data) as library:
        assert library.get(PARM).note == "first look"
        assert library.get(PARM).status == "to-read"


def _browser(tmp_path: Path) -> tuple[Terminal, list[str]]:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    return Terminal(["env", "-u", "NO_COLOR", "TERM=xterm-256color", "LANG=C.UTF-8",
                     *papertray_command(), *where]), where


@pytest.mark.parametrize(("pasted", "shown", "then"), [
    # (the query's end is shown: the status beside it may narrow the search bar)
    ("graph neural\nnetworks\nrrrtttq", "neural networks rrrtttq ", " rrrtttqz "),
    # CRLF, a line break at the end
    ("graph neural\r\nnetworks\r\n", "neural networks  ", " networks z "),
    (LONG_PASTE + "\nrrrtttq", " rrrtttq ", " rrrtttqz "),  # 10 KB: tmux writes it in pieces
], ids=["issue", "crlf-break-at-end", "abstracts-10kb"])
def test_an_unbracketed_paste_in_tmux_is_only_search_text(tmp_path: Path, pasted: str,
                                                          shown: str, then: str) -> None:
    """``tmux paste-buffer`` without ``-p`` sends the text as if typed, without brackets,
    into the search bar: the query is the paste on one line, the browser still runs (``z``
    goes on the query), no paper is marked and no export written; ``q`` then quits with 0."""
    terminal, where = _browser(tmp_path)
    buffer = tmp_path / "paste.txt"
    buffer.write_text(pasted, encoding="utf-8")
    try:
        terminal.wait_for("1/35")
        terminal.keys("/")
        terminal.wait_for("esc results")  # the footer of the search bar
        terminal.tmux("load-buffer", "-b", "plain", str(buffer))
        terminal.tmux("paste-buffer", "-b", "plain", "-t", "main")  # no -p: no brackets
        terminal.wait_for(shown)
        terminal.keys("z", literal=True)
        terminal.wait_for(then, "» to-read 0  4 ✓ read 0", "esc results")
        terminal.keys("Escape")
        terminal.wait_for("t to-read")  # the table's keys are back in the footer
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    assert papertray_json(where, "list", "--status", "to-read")["hits"] == []
    assert papertray_json(where, "stats")["status"] == {"new": 35, "to-read": 0, "read": 0,
                                                        "dismissed": 0}
    assert not (tmp_path / "data" / "exports").exists()
