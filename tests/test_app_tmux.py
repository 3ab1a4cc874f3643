"""End to end: the real ``papertray`` command in a real terminal (tmux, 80x24).

Types a query, marks the hit to-read with ``t``, quits with ``q``, and asks the command line
whether the mark landed. Runs on a private tmux server (its own socket, no user config), polls
the screen with a deadline instead of sleeping, and always kills the server.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest

from db import Library
from tests.tmux_support import DEADLINE_S, TMUX, Terminal
from tests.tui_support import papertray_command, papertray_json, shipped_copy

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed: the end-to-end test drives the real command in "
    "tmux (.ci/run installs it)")


@pytest.mark.parametrize("writes", ["key by key", "one write"])
def test_type_mark_quit_and_the_mark_is_on_disk(tmp_path: Path, writes: str) -> None:
    """``/wudi⏎t`` then ``q``, a key at a time or sent in one write while the table has the
    keyboard (keys typed ahead over a slow link, read at once: no paste, though text and a
    line break come together): it searches, leaves the search bar and marks the paper."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    environment = ["env", "-u", "NO_COLOR", "-u", "LC_ALL", "-u", "LC_CTYPE",
                   "TERM=xterm-256color", "LANG=C.UTF-8"]  # Unicode marks, whatever CI has
    terminal = Terminal([*environment, *papertray_command(), *where])
    try:
        terminal.wait_for("1/35")
        if writes == "one write":
            terminal.keys("/wudi", "Enter", "t")  # one send-keys: one write to the terminal
        else:
            terminal.keys("/")
            terminal.keys("wudi", literal=True)
            terminal.wait_for("1/1")
            terminal.keys("Enter")
            # the table has the keyboard (its keys in the footer) before "t" is typed: sent
            # at once, "⏎t" is one read, which in the search bar is a paste (test "one write")
            terminal.wait_for("t to-read")
            terminal.keys("t")
        terminal.wait_for("» to-read 1", "WUDI-Merging  » to-read")
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()

    hits = papertray_json(where, "list", "--status", "to-read")["hits"]
    assert [(h["name"], h["status"]) for h in hits] == [("WUDI-Merging", "to-read")]


@pytest.mark.parametrize("signal_name", ["TERM", "HUP", "INT"])
def test_a_signal_quits_cleanly_and_keeps_the_mark(tmp_path: Path, signal_name: str) -> None:
    """kill -TERM / -HUP (an SSH connection dropped) / -INT: exit 0, the terminal's normal screen
    is back, and the mark made just before is on disk."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    pid_file = tmp_path / "pid"
    command = ["sh", "-c", f'echo $$ > {shlex.quote(str(pid_file))}; exec "$@"', "sh",
               "env", "TERM=xterm-256color", "LANG=C.UTF-8", *papertray_command(), *where]
    terminal = Terminal(command)
    try:
        terminal.wait_for("1/35")
        terminal.keys("t")
        terminal.wait_for("» to-read 1")
        os.kill(int(pid_file.read_text()), signal.Signals[f"SIG{signal_name}"])
        screen = terminal.wait_for("[papertray exited 0]")
        assert "1/35" not in screen  # the alternate screen is gone: the terminal is restored
    finally:
        terminal.close()
    assert [h["name"] for h in papertray_json(where, "list", "--status", "to-read")["hits"]] == [
        "PARM"]


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting for its parent does not)."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True,
                           text=True, timeout=10, check=False).stdout.strip()
    return bool(state) and not state.startswith("Z")


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
def test_the_browser_ends_when_its_tmux_server_is_killed(tmp_path: Path,
                                                         ascii_mode: bool) -> None:
    """``tmux kill-server`` (the terminal is gone, as when an SSH connection drops) with the
    browser a child of the pane's shell: it is gone within seconds, not left running for
    hours with no terminal, and the mark made before is on disk."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    pid_file = tmp_path / "pid"
    command = ["sh", "-c", f'echo $$ > {shlex.quote(str(pid_file))}; exec "$@"', "sh",
               "env", "-u", "NO_COLOR", "TERM=xterm-256color", "LANG=C.UTF-8", *papertray_command(),
               *where, *(["--ascii"] if ascii_mode else [])]
    terminal = Terminal(command)
    try:
        terminal.wait_for("1/35")
        terminal.keys("t")
        terminal.wait_for("> to-read 1" if ascii_mode else "» to-read 1")
        pid = int(pid_file.read_text())
    finally:
        terminal.close()
    end = time.monotonic() + 5.0
    while _running(pid):
        if time.monotonic() > end:
            os.kill(pid, signal.SIGKILL)
            raise AssertionError("papertray still ran 5 s after its tmux server was killed")
        time.sleep(0.05)
    assert [h["name"] for h in papertray_json(where, "list", "--status", "to-read")["hits"]] == [
        "PARM"]


@pytest.mark.parametrize("ascii_mode", [False, True], ids=["unicode", "ascii"])
def test_ctrl_z_suspends_and_fg_draws_the_browser_again(tmp_path: Path, ascii_mode: bool) -> None:
    """In an interactive shell: ctrl+z stops the browser (the shell says so), ``fg`` brings it
    back drawn whole on a cleared screen (not blank until something changes), keys still act,
    ``q`` quits with status 0 and both marks, the one before and the one after, are on disk."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    browser = ["env", "-u", "NO_COLOR", "TERM=xterm-256color", "LANG=C.UTF-8", *papertray_command(),
               *where, *(["--ascii"] if ascii_mode else [])]
    terminal = Terminal(["env", "PS1=$ ", "bash", "--norc", "--noprofile", "-i"])
    to_read, read = ("> to-read 1", "x read 1") if ascii_mode else ("» to-read 1", "✓ read 1")
    try:
        terminal.wait_for("$")
        terminal.keys(shlex.join(browser), literal=True)
        terminal.keys("Enter")
        terminal.wait_for("1/35")
        terminal.keys("t")
        terminal.wait_for(to_read)
        terminal.keys("C-z")
        terminal.wait_for("Stopped")
        terminal.keys("clear; fg", literal=True)
        terminal.keys("Enter")
        terminal.wait_for("2/35", to_read, "q quit")
        terminal.keys("r")
        terminal.wait_for(read)
        terminal.keys("q")
        terminal.wait_for("\n$")  # the shell's prompt again (fg waits for the browser)
        terminal.keys("echo browser-exited-$?", literal=True)  # fg's status: the browser's
        terminal.keys("Enter")
        terminal.wait_for("browser-exited-0\n")
    finally:
        terminal.close()
    marked = {h["name"]: h["status"] for h in papertray_json(where, "list")["hits"]
              if h["status"] != "new"}
    assert marked == {"PARM": "to-read", "WUDI-Merging": "read"}


def test_a_paste_with_an_escape_and_a_line_break_is_only_search_text(tmp_path: Path) -> None:
    """A bracketed paste of ``model ESC[2J x⏎rrr ttt`` into the search bar (tmux paste-buffer
    -p, as a terminal sends it): the query is that text on one line without the ESC, the search
    bar keeps the keyboard, and no key of the paste marks a paper."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    pasted = tmp_path / "paste.txt"
    pasted.write_bytes(b"model \x1b[2J x\nrrr ttt")
    terminal = Terminal(["env", "TERM=xterm-256color", "LANG=C.UTF-8", *papertray_command(),
                         *where])
    try:
        terminal.wait_for("1/35")
        terminal.keys("/")
        terminal.wait_for("esc results")  # the footer of the search bar
        terminal.tmux("load-buffer", "-b", "hostile", str(pasted))
        terminal.tmux("paste-buffer", "-p", "-b", "hostile", "-t", "main")
        terminal.wait_for("/ model [2J x rrr ttt ")
        terminal.keys("z", literal=True)  # still typing into the query
        screen = terminal.wait_for("/ model [2J x rrr tttz ", "» to-read 0  4 ✓ read 0")
        assert "^[" not in screen
        terminal.keys("Escape")
        terminal.wait_for("⏎ open")  # the table's keys are back in the footer
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    assert papertray_json(where, "stats")["status"] == {"new": 35, "to-read": 0, "read": 0,
                                                        "dismissed": 0}


def test_quitting_during_the_first_build_is_prompt_and_leaves_a_whole_index(tmp_path: Path):
    """SIGTERM while the index is being built: the app stops reading at the next seed file and
    exits 0 without finishing the build (which takes seconds: 18,000 abstracts), and the index
    it leaves is consistent and empty (the build's one transaction rolled back)."""
    seeds, data = tmp_path / "many", tmp_path / "data"
    seeds.mkdir()
    words = ("graph", "neural", "policy", "reward", "tensor", "sparse", "kernel", "robust")
    for f in range(60):
        abstracts = [" ".join(words[(f * 7 + i * j) % len(words)] for j in range(120)) +
                     f" paper {f}-{i}." for i in range(300)]
        (seeds / f"part{f:02d}.txt").write_text("Many 2024\n\n" + "\n\n".join(abstracts) + "\n",
                                                encoding="utf-8")
    pid_file = tmp_path / "pid"
    command = ["sh", "-c", f'echo $$ > {shlex.quote(str(pid_file))}; exec "$@"', "sh",
               "env", "TERM=xterm-256color", "LANG=C.UTF-8", *papertray_command(), "--seeds",
               str(seeds), "--data-dir", str(data)]
    terminal = Terminal(command)
    try:
        terminal.wait_for("building the index")
        os.kill(int(pid_file.read_text()), signal.SIGTERM)
        terminal.wait_for("[papertray exited 0]", deadline_s=60)
    finally:
        terminal.close()
    with Library([seeds], data) as library:
        assert library.fts_ok()
        assert library.counts()["all"] == 0  # stopped, not finished: all or nothing


def test_bytes_that_are_not_utf8_do_not_crash_the_browser(tmp_path: Path) -> None:
    """A Latin-1 paste or a stray byte from the terminal becomes a replacement character."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    terminal = Terminal(["env", "TERM=xterm-256color", "LANG=C.UTF-8", *papertray_command(),
                         "--seeds", str(seeds), "--data-dir", str(data)])
    try:
        terminal.wait_for("1/35")
        terminal.keys("/")
        terminal.tmux("send-keys", "-t", "main", "-H", "77", "ff", "75", "64", "69")  # w\xffudi
        screen = terminal.wait_for("w\ufffdudi")
        assert "Traceback" not in screen and "UnicodeDecodeError" not in screen
        terminal.keys("C-u")
        terminal.keys("wudi", literal=True)
        terminal.wait_for("1/1")  # still answering
        terminal.keys("Escape")
        terminal.wait_for("t to-read")  # the table's keys are back in the footer
        terminal.keys("q")
        assert "Traceback" not in terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()


def _colours(screen_with_escapes: str) -> set[tuple[int, ...]]:
    """Every foreground/background colour in a ``capture-pane -e`` screen, as RGB or as an
    xterm 256-colour index (one-tuple)."""
    found: set[tuple[int, ...]] = set()
    for params in re.findall(r"\x1b\[([0-9;]*)m", screen_with_escapes):
        numbers = [int(n) for n in params.split(";") if n]
        for i, n in enumerate(numbers):
            if n in (38, 48) and numbers[i + 1:i + 2] == [5]:
                found.add((numbers[i + 2],))
            elif n in (38, 48) and numbers[i + 1:i + 2] == [2]:
                found.add(tuple(numbers[i + 2:i + 5]))
    return found


@pytest.mark.parametrize("how", ["--ascii", "NO_COLOR=1"])
def test_ascii_and_no_color_draw_no_colour_and_ascii_marks(tmp_path: Path, how: str) -> None:
    """``papertray --ascii`` and ``NO_COLOR``: no colour on screen, not even greys, marks as
    ``.`` ``>`` ``x`` (test_app_no_color reads every byte written)."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    environment = ["env", "-u", "NO_COLOR", "TERM=xterm-256color", "LANG=C.UTF-8"]
    if how == "NO_COLOR=1":
        environment.append(how)
    terminal = Terminal([*environment, *papertray_command(), *where,
                         *(["--ascii"] if how == "--ascii" else [])])
    try:
        terminal.wait_for("1/35")
        terminal.keys("t")
        screen = terminal.wait_for("> to-read 1", ">  PARM", ".  WUDI-Merging")
        assert "»" not in screen and "✓" not in screen
        colours = _colours(terminal.tmux("capture-pane", "-e", "-p", "-t", "main"))
        assert colours == set()
    finally:
        terminal.close()


def _wait_gone(terminal: Terminal, text: str) -> None:
    end = time.monotonic() + DEADLINE_S
    while text in terminal.screen():
        assert time.monotonic() < end, f"{text!r} stayed on the screen"
        time.sleep(0.05)


def test_ascii_draws_every_screen_in_ascii(tmp_path: Path) -> None:
    """``papertray --ascii`` at 80x24: the main screen, a notification, the tag editor, the help
    and the command palette hold no character outside ASCII except the abstracts' own text
    (separators, the footer's bar, borders, scroll bars, key names and the palette's icon)."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    allowed = {c for f in seeds.glob("*.txt") for c in f.read_text(encoding="utf-8")
               if not c.isascii()}  # the abstracts' text is shown as it is

    def drawn(screen: str) -> set[str]:
        return {c for c in screen if not c.isascii() and c not in allowed}

    terminal = Terminal(["env", "-u", "NO_COLOR", "TERM=xterm-256color", "LANG=C.UTF-8",
                         *papertray_command(), "--seeds", str(seeds), "--data-dir", str(data),
                         "--ascii"])
    try:
        # the abstract panel is painted after the table's count: wait for both
        screens = {"main": terminal.wait_for("1/35", "ICML 2025 | 000_cd03ecd68f8352ab.txt:1")}
        terminal.keys("t")
        screens["marked"] = terminal.wait_for("> to-read 1")
        terminal.keys("y")
        screens["notification"] = terminal.wait_for("sent the link")
        terminal.keys("#")
        screens["tags"] = terminal.wait_for("Tags for")
        terminal.keys("Escape")
        _wait_gone(terminal, "Tags for")
        terminal.keys("?")
        screens["help"] = terminal.wait_for("papertray keys")
        terminal.keys("Escape")
        _wait_gone(terminal, "papertray keys")
        terminal.keys("C-p")
        screens["palette"] = terminal.wait_for("Search for commands...")
        for name, screen in screens.items():
            assert not drawn(screen), f"{name}: {sorted(drawn(screen))}\n{screen}"
        assert "ICML 2025 | 000_cd03ecd68f8352ab.txt:1" in screens["main"]
        assert "5 - dismissed 0" in screens["main"]
        assert "|^p palette" in screens["main"]
        assert "j down" in screens["help"]
    finally:
        terminal.close()


def test_escape_then_a_key_typed_quickly_are_two_keys(tmp_path: Path) -> None:
    """Escape and ``j`` sent in one write (as they come over SSH when typed quickly) close the
    note editor, saving nothing, and move the cursor: Textual's parser alone read them as
    alt+j, the editor stayed open and took the ``j``."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    terminal = Terminal(["env", "TERM=xterm-256color", "LANG=C.UTF-8", *papertray_command(),
                         *where])
    try:
        terminal.wait_for("1/35")
        terminal.keys("a")
        terminal.wait_for("Note on")
        terminal.keys("zqxnote", literal=True)
        terminal.wait_for("zqxnote")
        terminal.keys("Escape", "j")  # one send-keys: one write to the terminal
        screen = terminal.wait_for("2/35", absent=("Note on",))
        assert "zqxnotej" not in screen
        terminal.keys("/")
        terminal.keys("graph", literal=True)
        terminal.wait_for("/2")
        terminal.keys("Escape", "t")  # leave the search bar, mark the paper
        terminal.wait_for("to-read 1")
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    assert len(papertray_json(where, "list", "--status", "to-read")["hits"]) == 1
    assert papertray_json(where, "search", "zqxnote")["total"] == 0  # Escape saved no note


def test_a_browser_that_ends_on_an_error_exits_non_zero(tmp_path: Path) -> None:
    """The browser ending on an exception (here one put into its start) exited 0, as if the
    reader had quit: a script or `papertray && ...` took it for a success."""
    import sys

    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    broken = ("import tui.browser.app\n"
              "def boom(self):\n"
              "    raise RuntimeError('injected failure')\n"
              "tui.browser.app.PapertrayApp.compose = boom\n"
              "from tui.cli.main import main\n"
              "main()\n")
    terminal = Terminal(["env", "TERM=xterm-256color", "LANG=C.UTF-8", sys.executable, "-c",
                         broken, "--seeds", str(seeds), "--data-dir", str(data)], height=40)
    try:
        screen = terminal.wait_for("[papertray exited 1]")
        assert "RuntimeError: injected failure" in screen
    finally:
        terminal.close()
