"""End to end in a real terminal (tmux, 80x24, TERM=linux and NO_COLOR): the sort key, a
selection marked in bulk, and saved searches, with the command line writing the same data
folder from beside the browser."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.tmux_support import TMUX, Terminal
from tests.tui_support import papertray_command, papertray_json, shipped_copy

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed: the end-to-end test drives the real command in "
    "tmux (.ci/run installs it)")


def test_sort_select_bulk_mark_and_saved_searches_beside_the_command_line(
        tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    terminal = Terminal(["env", "TERM=linux", "NO_COLOR=1", "LANG=C.UTF-8",
                         *papertray_command(), *where])
    try:
        terminal.wait_for("1/35")
        terminal.keys("O", "O")  # by name: the cursor stays on its paper, PARM
        terminal.wait_for("by name", "18/35")
        terminal.keys("g")
        screen = terminal.wait_for("1/35")
        assert screen.splitlines()[2].split()[1] == "AMF"  # the first row, A to Z
        terminal.keys("v", "v")
        screen = terminal.wait_for("2 selected")
        rows = screen.splitlines()[2:4]
        assert [r.split()[1:3] for r in rows] == [["+", "AMF"], ["+", "BATI"]]
        terminal.keys("t")
        terminal.wait_for("mark 2 papers to-read?  y confirms")
        terminal.keys("y")
        terminal.wait_for(">  AMF", ">  BATI", absent=("2 selected",))
        # the command line saves a search while the browser is open on the same marks
        subprocess.run([*papertray_command(), *where, "saved", "add", "rl", "reinforcement",
                        "learning"], check=True, capture_output=True, timeout=60)
        terminal.keys("B")
        screen = terminal.wait_for("saved searches", "rl", "8 hits")
        terminal.keys("Enter")
        terminal.wait_for("/ reinforcement learning", "1/8")
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    hits = papertray_json(where, "list", "--status", "to-read", "--sort", "name")["hits"]
    assert [h["name"] for h in hits] == ["AMF", "BATI"]
    saved = papertray_json(where, "saved")
    assert [(s["name"], s["total"], s["arrived"]) for s in saved] == [("rl", 8, 0)]
