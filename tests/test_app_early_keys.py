"""Keys typed while the browser starts, in a real terminal (tmux): ``j j t`` typed at once,
before the app has drawn anything (the keys wait in the terminal, and may be read in one go)
and while the library is opened or built, act as keys once it is ready: the third paper is
marked to-read, and the search bar stays empty (they once became the query ``jjt``)."""

from __future__ import annotations

import pytest

from db import Library
from tests.tmux_support import TMUX, Terminal
from tests.tui_support import papertray_command, papertray_json, shipped_copy

pytestmark = pytest.mark.skipif(
    TMUX is None, reason="tmux is not installed: the end-to-end test drives the real command in "
    "tmux (.ci/run installs it)")


@pytest.mark.parametrize("start", ["first build", "built before"])
@pytest.mark.parametrize("writes", ["one write", "key by key"])
def test_keys_typed_as_the_browser_starts_act_as_keys(tmp_path, start: str, writes: str):
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    if start == "built before":
        with Library([seeds], data) as library:
            library.sync()
    environment = ["env", "-u", "NO_COLOR", "-u", "LC_ALL", "-u", "LC_CTYPE",
                   "TERM=xterm-256color", "LANG=C.UTF-8"]
    terminal = Terminal([*environment, *papertray_command(), *where])
    try:
        if writes == "one write":
            terminal.keys("jjt", literal=True)
        else:
            for key in "jjt":
                terminal.keys(key)
        screen = terminal.wait_for("» to-read 1", "4/35")  # marked, and the cursor moved on
        assert "jjt" not in screen
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    listed = papertray_json(where, "list")["hits"]
    assert [h["status"] for h in listed[:4]] == ["new", "new", "to-read", "new"]
