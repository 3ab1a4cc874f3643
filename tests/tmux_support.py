"""A real terminal for tests: the real command in a tmux pane on a private tmux server."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid

TMUX = shutil.which("tmux")
#: Seconds a screen may take to show what a test waits for (generous: the suite may run beside
#: another heavy job).
DEADLINE_S = 30.0


class Terminal:
    """One tmux session on a private server."""

    def __init__(self, command: list[str], width: int = 80, height: int = 24) -> None:
        self.socket = f"papertray-test-{uuid.uuid4().hex[:12]}"
        shell = shlex.join(command) + '; echo "[papertray exited $?]"; sleep 60'
        self.tmux("-f", os.devnull, "new-session", "-d", "-s", "main", "-x", str(width),
                  "-y", str(height), shell)

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True,
                              timeout=10, check=True)
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "main")

    def keys(self, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", "main", *(["-l"] if literal else []), *keys)

    def wait_for(self, *texts: str, absent: tuple[str, ...] = (),
                 deadline_s: float = DEADLINE_S) -> str:
        """Poll the screen until it shows every one of ``texts`` at once and none of ``absent``
        (a frame painted halfway may show the one before the other); fail with the last screen
        otherwise."""
        end = time.monotonic() + deadline_s
        while True:
            screen = self.screen()
            if all(text in screen for text in texts) and not any(t in screen for t in absent):
                return screen
            if time.monotonic() > end:
                raise AssertionError(f"the screen never showed {texts!r} without {absent!r}; "
                                     f"last screen:\n{screen}")
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([TMUX or "tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=10, check=False)
