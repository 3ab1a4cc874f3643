"""``papertray serve``: the real command on a free loopback port answers the browser's page."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.tui_support import shipped_copy

DEADLINE_S = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read().decode("utf-8")


def test_serve_answers_the_page_on_loopback_and_stops(tmp_path: Path) -> None:
    port = _free_port()
    command = [sys.executable, "-m", "tui", "--seeds", str(shipped_copy(tmp_path)),
               "--data-dir", str(tmp_path / "data"), "serve", "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True)
    try:
        end = time.monotonic() + DEADLINE_S
        while True:
            try:
                status, page = _get(f"http://127.0.0.1:{port}/")
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None, server.communicate()[1]
                assert time.monotonic() < end, "papertray serve never answered"
                time.sleep(0.1)
        assert status == 200
        assert "<div>papertray</div>" in page  # the title on the page's start dialog
        assert f"ws://127.0.0.1:{port}/ws" in page  # where the page connects to the app
        assert _get(f"http://127.0.0.1:{port}/static/js/textual.js")[0] == 200
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        if server.poll() is None:
            server.kill()
            server.wait()
    stderr = server.stderr.read() if server.stderr else ""
    assert f"papertray: serving on http://127.0.0.1:{port}" in stderr
    assert "Traceback" not in stderr
