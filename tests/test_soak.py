"""Two browsers and the command line on one library, with random kills (``scripts/soak.py``).

Real processes on real files: the browsers in tmux, the commands as subprocesses, ``kill -9`` of
either side. After each of the steps the marks file is sound, every mark acknowledged is on
disk, nothing changed on disk without its history, and every live browser shows what is on disk
within the live-reload interval. The script runs longer soaks (``--steps 2000``).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import soak  # noqa: E402


@pytest.mark.skipif(shutil.which("tmux") is None, reason="the browsers run in tmux (.ci/run "
                    "installs it)")
def test_browsers_and_commands_with_kills_lose_nothing(tmp_path: Path) -> None:
    lines: list[str] = []
    kills = soak.run(tmp_path, steps=200, papers=2000, browsers=2, seed=20261202,
                     log=lines.append)
    assert len(lines) == 200 and all(": ok (" in line for line in lines)
    assert kills >= 20  # of browsers and of commands midway, about one step in seven
