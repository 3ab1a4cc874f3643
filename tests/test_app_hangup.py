"""End to end: the real ``papertray`` browser in a pseudo-terminal that goes away.

An SSH connection that drops, a terminal window closed, a tmux server killed: the terminal is
hung up. The browser must then exit promptly (nothing to restore, nothing more to write) and
keep every mark made before; it must not live on, spinning on a read that returns nothing or
blocked on a write that can never finish. Each test runs the command in a pty of its own,
waits on conditions (bytes on the screen, a mark on disk, the process's end), never sleeps.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path

import pytest

from tests.tui_support import papertray_command, papertray_json, shipped_copy

DEADLINE_S = 20.0
#: The end must come this soon after the terminal went away (a hung browser never ends).
EXIT_S = 5.0


class PtyBrowser:
    """``papertray --ascii`` on a fresh pty (80x24), the test holding the terminal's end.

    ``controlling``: the pty is the process's controlling terminal (it leads its own session,
    as a shell in a terminal window does), so a hang-up sends it SIGHUP and SIGCONT; otherwise
    the terminal just stops answering (reads end, writes fail) and no signal says so.
    """

    def __init__(self, seeds: Path, data: Path, controlling: bool) -> None:
        self.where = ["--seeds", str(seeds), "--data-dir", str(data)]
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        environment.update(TERM="xterm-256color", LANG="C.UTF-8")

        def take_terminal() -> None:  # runs in the child, after setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen(
            [*papertray_command(), *self.where, "--ascii"], stdin=slave, stdout=slave, stderr=slave,
            env=environment, start_new_session=True,
            preexec_fn=take_terminal if controlling else None)
        os.close(slave)
        self.output = bytearray()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        """Drain the terminal (an unread pty would block the app's writes) into ``output``,
        until :meth:`hang_up` (a read in progress would keep the terminal open: closing a
        descriptor does not end a read on it)."""
        while not self._closing.is_set():
            if not select.select([self.master], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:  # EIO: the app's side is closed
                return
            if not data:
                return
            with self._lock:
                self.output += data

    def wait_for(self, text: str) -> None:
        """Wait until the app has written ``text`` (its bytes in one piece) to the terminal."""
        wanted = text.encode()
        end = time.monotonic() + DEADLINE_S
        while True:
            with self._lock:
                if wanted in self.output:
                    return
            assert self.process.poll() is None, f"papertray exited: {self.process.returncode}"
            assert time.monotonic() < end, f"the browser never wrote {text!r}"
            time.sleep(0.02)

    def keys(self, text: str) -> None:
        os.write(self.master, text.encode())

    def hang_up(self) -> None:
        """Close the terminal's end, as a dropped SSH connection or a killed tmux does."""
        self._closing.set()
        self._reader.join()
        os.close(self.master)
        self.master = -1

    def to_read(self) -> list[str]:
        """The names of the papers marked to-read, read from disk by the command line."""
        return [hit["name"] for hit in papertray_json(self.where, "list", "--status",
                                                      "to-read")["hits"]]

    def wait_marked(self, name: str) -> None:
        end = time.monotonic() + DEADLINE_S
        while name not in self.to_read():
            assert time.monotonic() < end, f"{name} was never marked to-read on disk"
            time.sleep(0.05)

    def wait_exit(self) -> int:
        """The exit status, which must come within :data:`EXIT_S`; a browser still running
        then is killed (and the test fails)."""
        try:
            return self.process.wait(timeout=EXIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"papertray still ran {EXIT_S:.0f} s after its terminal went "
                                 "away") from None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        if self.master >= 0:
            self.hang_up()


@pytest.mark.parametrize("controlling", [True, False], ids=["hangup-signals", "no-signal"])
def test_the_browser_ends_when_its_terminal_goes_away(tmp_path: Path, controlling: bool) -> None:
    """The terminal is closed after a mark: the browser exits within seconds (0 when SIGHUP
    told it; when no signal comes, its reads ending tell it) and the mark is on disk."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    browser = PtyBrowser(seeds, data, controlling)
    try:
        browser.wait_for("PARM")
        browser.keys("t")
        browser.wait_marked("PARM")
        browser.hang_up()
        assert browser.wait_exit() == 0
    finally:
        browser.close()
    assert browser.to_read() == ["PARM"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_signal_after_a_stray_sigcont_still_ends_the_browser(tmp_path: Path,
                                                               signum: signal.Signals) -> None:
    """SIGCONT with no suspension before it (the kernel sends one with every hang-up) leaves
    the browser as it was: the terminal is not set up a second time (a second input loop and
    writer), keys still work, and SIGTERM or SIGHUP ends it with the mark made just before on
    disk."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    browser = PtyBrowser(seeds, data, controlling=True)
    try:
        browser.wait_for("PARM")
        browser.process.send_signal(signal.SIGCONT)
        browser.keys("t")
        browser.wait_for("> to-read 1")
        assert browser.output.count(b"\x1b[?1049h") == 1  # the alternate screen, entered once
        browser.process.send_signal(signum)
        assert browser.wait_exit() == 0
    finally:
        browser.close()
    assert browser.to_read() == ["PARM"]
