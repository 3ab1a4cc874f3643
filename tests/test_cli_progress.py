"""``papertray sync``'s progress bar: drawn on a terminal (papers of the total, rate), never in
a pipe, a file or ``--json``, and not when there is nothing to parse."""

from __future__ import annotations

import fcntl
import json
import os
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

from tests.db_support import console_script


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERTRAY_")}
    env.update(HOME=str(tmp_path / "home"), TERM="xterm-256color", LANG="C.UTF-8")
    env.pop("NO_COLOR", None)
    return env


def _in_a_terminal(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run ``argv`` with a pseudo-terminal (100x30) as its standard input, output and error;
    its exit status and everything it wrote there."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    out, deadline = b"", time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            if not select.select([master], [], [], 0.5)[0]:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the command ended, its side of the terminal is closed
                break
            if not chunk:
                break
            out += chunk
        return proc.wait(timeout=60), out.decode("utf-8", "replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_a_first_build_on_a_terminal_draws_the_bar_and_clears_it(seeds_copy, tmp_path):
    where = ["--seeds", str(seeds_copy), "--data-dir", str(tmp_path / "data")]
    code, out = _in_a_terminal([*console_script(), *where, "sync"], _env(tmp_path))
    assert code == 0, out
    # the shipped seeds: two files, 38 abstracts; the second count is the last, all parsed
    assert "of 38 papers ·" in out and "38 of 38 papers" in out
    assert "writing the index" in out
    assert "\x1b[2K" in out  # the bar's line erased at the end
    assert "35 papers: 35 added, 0 removed" in out.replace("\r", "")
    code, again = _in_a_terminal([*console_script(), *where, "sync", "--force"], _env(tmp_path))
    assert code == 0 and "38 of 38 papers" in again
    code, unchanged = _in_a_terminal([*console_script(), *where, "sync"], _env(tmp_path))
    assert code == 0 and "papers ·" not in unchanged and "seed files" not in unchanged


def test_a_sync_into_a_pipe_or_as_json_prints_no_bar(seeds_copy, tmp_path):
    where = ["--seeds", str(seeds_copy), "--data-dir", str(tmp_path / "data")]
    piped = subprocess.run([*console_script(), *where, "sync", "--force"], capture_output=True,
                           text=True, env=_env(tmp_path), timeout=60, check=True)
    assert "\x1b" not in piped.stdout + piped.stderr
    assert "papers ·" not in piped.stdout + piped.stderr and piped.stderr == ""
    assert piped.stdout.splitlines()[-1].startswith("35 papers: 35 added")
    code, out = _in_a_terminal([*console_script(), *where, "sync", "--force", "--json"],
                               _env(tmp_path))
    assert code == 0
    assert json.loads(out)["papers"] == 35  # the terminal got the JSON and nothing else
