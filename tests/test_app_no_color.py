"""``NO_COLOR`` and ``--ascii``, end to end: the bytes the real ``papertray`` command writes to
a Linux console (``TERM=linux``, 80x24, a private tmux server) hold no colour code on any
screen, the cursor still shows in reverse video, and a line cut to the terminal's width ends
with ``...``.

tmux records every byte the command writes (``pipe-pane``) from before the command starts:
the command waits on a tmux channel that the test signals once the recording runs.
"""

from __future__ import annotations

import os
import re
import shlex
import uuid
from pathlib import Path

import pytest

from tests.tmux_support import TMUX, Terminal
from tests.tui_support import papertray_command, shipped_copy

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed: these tests read the bytes the real command "
    "writes to a terminal (.ci/run installs tmux)")

#: SGR parameters that set a colour: 30-38 and 40-48 (38 and 48 take an extended colour),
#: 90-97 and 100-107 (the bright ones). 39 and 49 (the terminal's own colours) set none.
_COLOUR_PARAMS = {*range(30, 39), *range(40, 49), *range(90, 98), *range(100, 108)}


class RecordedTerminal(Terminal):
    """A :class:`Terminal` that records the bytes its command writes to ``record``."""

    def __init__(self, command: list[str], record: Path) -> None:
        assert TMUX is not None
        self.socket = f"papertray-test-{uuid.uuid4().hex[:12]}"
        gate = shlex.join([TMUX, "-L", self.socket, "wait-for", "papertray-start"])
        shell = (f'{gate} && {shlex.join(command)}; echo "[papertray exited $?]"; sleep 60')
        self.tmux("-f", os.devnull, "new-session", "-d", "-s", "main", "-x", "80", "-y", "24",
                  shell)
        self.tmux("pipe-pane", "-o", "-t", "main", f"cat >> {shlex.quote(str(record))}")
        self.tmux("wait-for", "-S", "papertray-start")


def sgr_parameters(written: bytes) -> list[list[int]]:
    """The parameters of every SGR sequence (``ESC[...m``) in ``written``, one list each
    (``ESC[m`` is ``[0]``)."""
    return [[int(n) if n else 0 for n in re.split(r"[;:]", params.decode())]
            for params in re.findall(rb"\x1b\[([0-9;:]*)m", written)]


def colour_codes(written: bytes) -> list[list[int]]:
    """The SGR sequences in ``written`` that set a colour."""
    return [params for params in sgr_parameters(written) if _COLOUR_PARAMS & set(params)]


def _browse(terminal: Terminal) -> dict[str, str]:
    """Every screen of the browser once, each waited for and returned by name: the main
    screen, a search, a mark, the help, the palette, a note being written and a notification."""
    screens = {"main": terminal.wait_for("1/35")}
    terminal.keys("/")
    terminal.keys("model", literal=True)
    screens["search"] = terminal.wait_for("/ model", "1/22")
    terminal.keys("Escape", "j", "k", "t")
    screens["marked"] = terminal.wait_for("> to-read 1")
    screens["help"] = _visit(terminal, "?", "papertray keys")
    screens["palette"] = _visit(terminal, "C-p", "Search for commands...", "Down")
    screens["note"] = _visit(terminal, "a", "Note on", "a draft")
    terminal.keys("c")
    screens["notification"] = terminal.wait_for("sent the BibTeX entry")
    terminal.keys("q")
    terminal.wait_for("[papertray exited 0]")
    return screens


def _visit(terminal: Terminal, key: str, shows: str, then: str = "") -> str:
    """Open a screen with ``key``, wait for ``shows``, type ``then`` (a key name, or text when
    it has a space) and its screen; close it with Escape. Returns the screen open."""
    terminal.keys(key)
    screen = terminal.wait_for(shows)
    if then:
        terminal.keys(then, literal=" " in then)
        screen = terminal.wait_for(then) if " " in then else terminal.wait_for(shows)
    terminal.keys("Escape")
    terminal.wait_for("t to-read", absent=(shows,))
    return screen


def _row(screen: str, name: str) -> str:
    """The results table's row of the paper named ``name``, without the scroll bar."""
    line = next(line for line in screen.splitlines() if re.match(rf" [.>x] +{name} ", line))
    return line.rstrip(" #")


@pytest.mark.parametrize("how", ["NO_COLOR=1", "--ascii"])
def test_no_colour_code_reaches_the_terminal_on_any_screen(tmp_path: Path, how: str) -> None:
    """``NO_COLOR=1`` or ``--ascii`` on a Linux console: not one SGR colour parameter (30-38,
    40-48, 90-97, 100-107) in all the bytes written, through a search, marks, the help, the
    palette, the note editor, a notification and the first build of the index; the cursor row
    in reverse video (SGR 7); cut rows end with ``...``."""
    seeds, data, record = shipped_copy(tmp_path), tmp_path / "data", tmp_path / "written"
    environment = ["env", "-u", "NO_COLOR", "TERM=linux", "LANG=C.UTF-8"]
    option = ["--ascii"] if how == "--ascii" else []
    if how == "NO_COLOR=1":
        environment.append(how)
    terminal = RecordedTerminal([*environment, *papertray_command(), "--seeds", str(seeds),
                                 "--data-dir", str(data), *option], record)
    try:
        screens = _browse(terminal)
    finally:
        terminal.close()
    written = record.read_bytes()
    assert b"papertray" in written  # the recording holds what was drawn
    assert colour_codes(written) == []
    assert any(7 in params for params in sgr_parameters(written))  # the cursor row
    row = _row(screens["main"], "PARM")
    assert row.startswith(" .  PARM             Multi-objective test-time alignment aims")
    assert row.endswith("...") and len(row) <= 79, row
    assert _row(screens["search"], "1c07dcbf").endswith("..."), screens["search"]
    assert "…" not in "".join(screens.values())


def test_colours_are_sent_without_no_color(tmp_path: Path) -> None:
    """The same console without ``NO_COLOR``: the browser draws in ASCII, in colour (what
    :func:`colour_codes` finds, so that the test above can fail)."""
    seeds, data, record = shipped_copy(tmp_path), tmp_path / "data", tmp_path / "written"
    terminal = RecordedTerminal(["env", "-u", "NO_COLOR", "TERM=linux", "LANG=C.UTF-8",
                                 *papertray_command(), "--seeds", str(seeds),
                                 "--data-dir", str(data)], record)
    try:
        terminal.wait_for("1/35")
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    assert len(colour_codes(record.read_bytes())) > 10


def test_sgr_parameters_are_read_one_by_one() -> None:
    """The parser the tests above rely on: ``ESC[m`` is a reset, ``38;5;n`` a colour, bold
    and reverse are not colours."""
    written = b"\x1b[m\x1b[1;7mcursor\x1b[0m\x1b[38;5;240mgrey\x1b[39;49m\x1b[100m"
    assert sgr_parameters(written) == [[0], [1, 7], [0], [38, 5, 240], [39, 49], [100]]
    assert colour_codes(written) == [[38, 5, 240], [100]]
