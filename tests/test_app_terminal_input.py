"""End to end: hostile bytes on the real ``papertray`` command's standard input, in tmux.

Each input (numbers past Unicode and past 2^31, control strings, over-long sequences, mouse
reports off the screen, a double click that closes the palette) is written to the terminal in
one write; after each the browser still answers a key. It quits with status 0 at ``q`` and the
mark made after all of them is on disk. A browser that does end on an error exits 1 and leaves
the terminal as it found it: no mouse reporting, no alternate screen.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.tmux_support import TMUX, Terminal
from tests.tui_support import papertray_command, papertray_json, shipped_copy

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")

ENVIRONMENT = ["env", "-u", "NO_COLOR", "TERM=xterm-256color", "LANG=C.UTF-8"]
BIG = b"99999999999"  # past 2**31

HOSTILE = [
    b"\x1b[" + BIG + b"u",  # a keyboard-protocol key past U+10FFFF (chr() raised)
    b"\x1b[1114112u\x1b[55296u\x1b[97;1;" + BIG + b"u",
    b"\x1b[<0;" + BIG + b";" + BIG + b"M\x1b[<0;" + BIG + b";" + BIG + b"m",
    b"\x1b[<0;900;900M\x1b[<0;900;900m\x1b[<64;900;900M",  # off the screen
    b"\x1b[48;" + BIG + b";" + BIG + b";1;1t",  # a billion-cell terminal
    b"\x1b[8;" + BIG + b";" + BIG + b"t\x1b[" + BIG + b";" + BIG + b"R",
    b"\x1b[" + b"9" * 5000 + b"u",  # more than one read
    b"\x1b]11;rgb:ffff/tttt/rrrr\x1b\\\x1b]52;c;dHI=\x07",  # OSC
    b"\x1bPtr\x1b\\\x1b_Gtr\x1b\\\x1b^tr\x1b\\\x1bXtr\x1b\\",  # DCS, APC, PM, SOS
    b"\x1b[<0;1;1M\x1b[<0;1;1m" * 3 + b"\x1b[<0;40;12M\x1b[<0;40;12m" * 3,  # clicks
    bytes(range(0x80, 0x100)) + b"\x00\x01\x05\x1c\x1d\x1e\x1f",  # not UTF-8; C0 no key binds
]


def _send(terminal: Terminal, data: bytes) -> None:
    terminal.tmux("send-keys", "-t", "main", "-H", *(f"{b:02x}" for b in data))


def _answers(terminal: Terminal, after: bytes = b"") -> None:
    """The browser still takes keys (after the input ``after``): the cursor moves down and
    back up."""
    try:
        terminal.keys("j")
        terminal.wait_for("2/35")
        terminal.keys("k")
        terminal.wait_for("1/35")
    except AssertionError as error:
        raise AssertionError(f"after {after[:60]!r}: {error}") from None


def test_hostile_bytes_are_dropped_and_the_browser_goes_on(tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    terminal = Terminal([*ENVIRONMENT, *papertray_command(), *where])
    try:
        terminal.wait_for("1/35")
        for hostile in HOSTILE:
            _send(terminal, hostile)
            _answers(terminal, hostile)
        # the palette, closed by a triple click on its background in one write
        terminal.keys("C-p")
        terminal.wait_for("Search for commands")
        _send(terminal, b"\x1b[<0;40;22M\x1b[<0;40;22m" * 3)
        terminal.wait_for("/35", absent=("Search for commands",))
        terminal.keys("Escape")  # a click that closes the palette leaves the search bar focused
        screen = terminal.wait_for("t to-read")  # the table's keys are back in the footer
        # the paper under the cursor, as its panel names it: an input split by a loaded machine
        # into several reads may have reached the browser as keys ("\x1bPtr": "t", "r"), so
        # the cursor and the counts may have moved; the mark made now must be on disk
        shown = re.search(r"\.txt:\d+ · ([0-9a-f]{8})", screen).group(1)
        terminal.keys("t")
        terminal.keys("q")
        screen = terminal.wait_for("[papertray exited 0]")
        assert "Traceback" not in screen
    finally:
        terminal.close()
    assert papertray_json(where, "show", shown)["status"] == "to-read"


def test_an_error_in_the_input_thread_exits_1_and_restores_the_terminal(tmp_path: Path) -> None:
    """Textual ends the app with a panic when its input thread fails, and left the exit status
    0; the terminal is given back with mouse reporting and the alternate screen off."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    broken = ("import tui.browser.terminal as terminal\n"
              "feed = terminal.InputPipe.feed\n"
              "def failing(self, raw, final=False):\n"
              "    if b'!' in raw:\n"
              "        raise RuntimeError('injected input failure')\n"
              "    return feed(self, raw, final)\n"
              "terminal.InputPipe.feed = failing\n"
              "from tui.cli.main import main\n"
              "main()\n")
    terminal = Terminal([*ENVIRONMENT, sys.executable, "-c", broken, "--seeds", str(seeds),
                         "--data-dir", str(data)], height=40)
    try:
        terminal.wait_for("1/35")
        assert _pane_modes(terminal) == "alternate 1 mouse 1"
        terminal.keys("!", literal=True)
        screen = terminal.wait_for("[papertray exited 1]")
        assert "injected input failure" in screen
        assert _pane_modes(terminal) == "alternate 0 mouse 0"
    finally:
        terminal.close()


def _pane_modes(terminal: Terminal) -> str:
    """Whether the program in the pane has the alternate screen and mouse reporting on."""
    return terminal.tmux("display-message", "-p", "-t", "main",
                         "alternate #{alternate_on} mouse #{mouse_any_flag}").strip()
