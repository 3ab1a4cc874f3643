"""``papertray serve``: the real command on a free port answers the browser's page, names the
websocket at ``--public-url``, asks for the token it printed wherever it is needed, and refuses
websockets from other sites."""

from __future__ import annotations

import asyncio
import contextlib
import re
import selectors
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.tui_support import shipped_copy

DEADLINE_S = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The status, the body and the Set-Cookie header of a GET; an HTTP error is a status too."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return (response.status, response.read().decode("utf-8"),
                    response.headers.get("Set-Cookie", ""))
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8"), ""


def _serving_line(server: subprocess.Popen) -> str:
    """The line in which the server says where it serves, read as it comes (30 s at most)."""
    assert server.stderr is not None
    end = time.monotonic() + DEADLINE_S
    text = ""
    with selectors.DefaultSelector() as selector:
        selector.register(server.stderr, selectors.EVENT_READ)
        while "serving on" not in text:
            assert time.monotonic() < end, f"papertray serve never said it serves: {text!r}"
            if selector.select(timeout=0.5):
                line = server.stderr.readline()
                assert line, f"papertray serve ended: {text!r}"
                text += line
    return text.strip().splitlines()[-1]


@contextlib.contextmanager
def _serving(tmp_path: Path, *options: str) -> Iterator[tuple[int, str, list[str]]]:
    """A running ``papertray serve`` on a free port: (the port, its serving line, the lines it
    wrote on stderr and then on stdout, filled in once it stopped)."""
    port = _free_port()
    command = [sys.executable, "-m", "tui", "--seeds", str(shipped_copy(tmp_path)),
               "--data-dir", str(tmp_path / "data"), "serve", "--port", str(port), *options]
    log = tmp_path / "stdout"  # textual-serve's log of requests
    with log.open("w") as stdout:
        server = subprocess.Popen(command, stdout=stdout, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, text=True)
    after: list[str] = []
    try:
        yield port, _serving_line(server), after
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        if server.poll() is None:
            server.kill()
            server.wait()
        after.extend((server.stderr.read() if server.stderr else "").splitlines())
        after.extend(log.read_text(encoding="utf-8", errors="replace").splitlines())


async def _websocket_status(url: str, **options) -> int:
    """101 when a websocket to ``url`` opens (it is then closed), else the HTTP status."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        cookie = options.pop("cookie", None)
        if cookie:
            session.cookie_jar.update_cookies({cookie[0]: cookie[1]})
        try:
            async with session.ws_connect(url, timeout=aiohttp.ClientWSTimeout(ws_close=10),
                                          **options):
                return 101
        except aiohttp.WSServerHandshakeError as error:
            return error.status


def test_serve_answers_the_page_on_loopback_and_stops(tmp_path: Path) -> None:
    with _serving(tmp_path) as (port, line, after):
        status, page, cookie = _get(f"http://127.0.0.1:{port}/")
        assert status == 200
        assert "<div>papertray</div>" in page  # the title on the page's start dialog
        assert f"ws://127.0.0.1:{port}/ws" in page  # where the page connects to the app
        assert cookie == ""  # loopback without --token: no token
        assert _get(f"http://127.0.0.1:{port}/static/js/textual.js")[0] == 200
    assert line == f"papertray: serving on http://127.0.0.1:{port}/ (ctrl+c stops)"
    assert not any("Traceback" in text for text in after)


def test_serve_page_connects_to_the_public_url_behind_a_tunnel(tmp_path: Path) -> None:
    with _serving(tmp_path, "--public-url", "https://localhost:9443/") as (port, line, _):
        status, page, _ = _get(f"http://127.0.0.1:{port}/")
        assert status == 200
        assert 'data-session-websocket-url="wss://localhost:9443/ws"' in page
        assert "https://localhost:9443/static/" in page
        assert f"127.0.0.1:{port}" not in page
    assert line == "papertray: serving on https://localhost:9443/ (ctrl+c stops)"


@pytest.mark.parametrize("options", [("--host", "0.0.0.0"), ("--token",)],
                         ids=["every-address", "loopback-with-token"])
def test_serve_asks_every_request_for_the_token_it_printed_once(
        tmp_path: Path, options: tuple[str, ...]) -> None:
    with _serving(tmp_path, *options) as (port, line, after):
        printed = re.fullmatch(r"papertray: serving on (http://\S+/)\?token=([\w-]+) "
                               r"\(ctrl\+c stops\)", line)
        assert printed, line
        token = printed[2]
        assert len(token) >= 40  # secrets.token_urlsafe(32)
        base = f"http://127.0.0.1:{port}"
        for path in ("/", "/?token=wrong", f"/?token={token[:-1]}", "/static/js/textual.js",
                     "/download/x"):
            assert _get(base + path)[0] == 403, path
        status, page, cookie = _get(f"{base}/?token={token}")
        assert status == 200 and "<div>papertray</div>" in page
        assert cookie.startswith(f"papertray-token-{port}={token};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert _get(f"{base}/static/js/textual.js",
                    {"Cookie": f"papertray-token-{port}={token}"})[0] == 200
        assert asyncio.run(_websocket_status(f"ws://127.0.0.1:{port}/ws")) == 403
        assert asyncio.run(_websocket_status(
            f"ws://127.0.0.1:{port}/ws", cookie=(f"papertray-token-{port}", "wrong"))) == 403
        assert asyncio.run(_websocket_status(
            f"ws://127.0.0.1:{port}/ws", cookie=(f"papertray-token-{port}", token))) == 101
    assert sum(token in text for text in [line, *after]) == 1  # said once: the log has <token>
    assert any("GET /?token=<token>" in text for text in after)


def test_serve_refuses_a_websocket_opened_by_another_site(tmp_path: Path) -> None:
    """Any web page can open a websocket to 127.0.0.1: the page's origin decides, not the
    address (the public URL's, with its default port left out as browsers do, or loopback)."""
    with _serving(tmp_path, "--public-url", "https://papers.example:443") as (port, _, _):
        url = f"ws://127.0.0.1:{port}/ws"

        def status(origin: str) -> int:
            return asyncio.run(_websocket_status(url, headers={"Origin": origin}))

        assert status("https://evil.example") == 403
        assert status(f"http://127.0.0.1.evil.example:{port}") == 403
        assert status("http://papers.example") == 403  # another scheme: another site
        assert status("https://papers.example") == 101
        assert status(f"http://localhost:{port}") == 101
        # an Origin that is no URL was a 500 and a traceback in the log: it is no site of ours
        assert status("https://papers.example:99999") == 403
        assert status(f"http://localhost:{port}:80") == 403
        assert status("http://[::1") == 403


def test_serve_on_a_port_in_use_says_so_and_never_that_it_serves(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "tui", "--data-dir", str(tmp_path / "data"), "serve",
             "--port", str(port)], capture_output=True, text=True, timeout=60,
            stdin=subprocess.DEVNULL)
    assert result.returncode == 1
    assert "serving on" not in result.stderr
    assert "address already in use" in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("url", ["http://[::1:9000", "http://localhost:99999",
                                 "http://localhost:9000x", "http://:9000"])
def test_serve_refuses_a_public_url_with_no_host_or_port_a_browser_can_use(tmp_path: Path,
                                                                          url: str) -> None:
    """Found by trying them: an unclosed bracket was a traceback; the others served a page
    whose websocket could never connect (a port out of range: a 500 for every websocket)."""
    command = [sys.executable, "-m", "tui", "--seeds", str(shipped_copy(tmp_path)),
               "--data-dir", str(tmp_path / "data"), "serve", "--port", str(_free_port()),
               "--public-url", url]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=DEADLINE_S,
                                stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"papertray serve --public-url {url} served instead of refusing it")
    assert result.returncode == 2
    assert "is not like http://localhost:9000" in result.stderr
    assert "Traceback" not in result.stderr


def test_serve_refuses_a_public_url_with_a_path(run_cli) -> None:
    result = run_cli("serve", "--public-url", "http://localhost:9000/papers")
    assert result.exit_code != 0
    assert "is not like http://localhost:9000" in result.stderr


@pytest.mark.parametrize("host", ["", "  ", "[::1", "http://example.org"])
def test_serve_refuses_a_host_that_is_no_host(run_cli, host: str) -> None:
    """An empty host listened everywhere and printed the URL http://:PORT, which opens
    nothing; a URL or a half-bracketed address is no host either."""
    result = run_cli("serve", "--host", host)
    assert result.exit_code == 2
    assert "is no host name or address, like 127.0.0.1" in result.stderr


@pytest.mark.skipif(not socket.has_ipv6, reason="no IPv6")
def test_serve_takes_an_ipv6_host_in_brackets(tmp_path: Path) -> None:
    """``--host [::1]``, as an IPv6 address is written in a URL, listens on ::1 (without the
    brackets, "Name or service not known"), on loopback: no token."""
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")
    with _serving(tmp_path, "--host", "[::1]") as (port, line, _after):
        assert f"serving on http://[::1]:{port}/ " in line, line
        assert _get(f"http://[::1]:{port}/")[0] == 200
