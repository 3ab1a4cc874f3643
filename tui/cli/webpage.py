"""The web page of ``papertray serve``: textual-serve's server, guarded because the page can
change the reader's marks.

* The page connects its websocket to ``--public-url`` (default ``http://HOST:PORT``), so behind an
  SSH tunnel to another local port the page names the address its browser uses.
* A token (``secrets.token_urlsafe``) guards every request when the server listens on an address
  other than loopback, or on loopback with ``--token``: the page is opened once as
  ``URL/?token=TOKEN``, which sets a cookie (HttpOnly, SameSite=Strict) that the page's own
  requests (its websocket, its files) carry. A request with neither gets 403. Listening on a
  non-loopback address always uses a token: one is generated and the full URL printed once.
* A websocket opened from a page of another site (an ``Origin`` that is neither the public URL's
  nor a loopback one) gets 403 even without a token: any web page can open a websocket to
  ``127.0.0.1``, and the websocket drives the browser.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from urllib.parse import urlsplit

import click
from aiohttp import web
from textual_serve.server import Server

TOKEN_PARAMETER = "token"


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this machine's
    loopback only; a host name other than ``localhost`` is not (it may resolve anywhere)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, lower-cased and without the scheme's default port,
    as a browser sends it in ``Origin``."""
    parts = urlsplit(url.lower())
    default = {"http": 80, "https": 443}.get(parts.scheme)
    port = f":{parts.port}" if parts.port and parts.port != default else ""
    host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
    return f"{parts.scheme}://{host}{port}"


class _Redact(logging.Filter):
    """Writes ``<token>`` for the token in the log records it lets through."""

    def __init__(self, token: str):
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if self.token in message:
            record.msg, record.args = message.replace(self.token, "<token>"), None
        return True


class GuardedServer(Server):
    """textual-serve's server with the websocket's origin and the token checked first.

    ``token``: what every request must carry (None: none needed); ``page_url``: the URL said
    once the port is bound, with the token in it."""

    def __init__(self, command: str, host: str, port: int, public_url: str | None,
                 token: str | None):
        if public_url is None and ":" in host:  # an IPv6 address goes in brackets in a URL
            public_url = f"http://[{host.strip('[]')}]:{port}"
        super().__init__(command, host=host, port=port, title="papertray", public_url=public_url)
        self.token = token
        self.cookie = f"papertray-token-{port}"  # one per port: two servers on a host keep theirs
        query = f"?{TOKEN_PARAMETER}={token}" if token else ""
        self.page_url = f"{self.public_url}/{query}"

    async def _make_app(self) -> web.Application:
        # textual-serve builds its aiohttp app here and has no other hook for a middleware (a
        # private name: textual-serve is pinned below 1.2, and tests/test_serve.py fails without it)
        app = await super()._make_app()
        app.middlewares.append(self.guard)
        return app

    @web.middleware
    async def guard(self, request: web.Request, handler) -> web.StreamResponse:
        """403 for a websocket from another site, or a request without the token."""
        if request.path == "/ws" and not self.same_site(request.headers.get("Origin")):
            raise web.HTTPForbidden(text="papertray: a page of another site may not connect "
                                         "to this browser\n")
        if self.token is None:
            return await handler(request)
        given = request.query.get(TOKEN_PARAMETER) or request.cookies.get(self.cookie) or ""
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise web.HTTPForbidden(text="papertray: open the page with the URL that "
                                         "`papertray serve` printed (it ends in ?token=...)\n")
        response = await handler(request)
        if TOKEN_PARAMETER in request.query and not response.prepared:
            response.set_cookie(self.cookie, self.token, httponly=True, samesite="Strict",
                                path="/")
        return response

    def same_site(self, origin: str | None) -> bool:
        """Whether a websocket's ``Origin`` is the page's (the public URL's), a loopback
        page's, or absent (a program, not a web page, opened it)."""
        if origin is None:
            return True
        try:
            return (_origin(origin) == _origin(self.public_url)
                    or is_loopback(urlsplit(origin).hostname or ""))
        except ValueError:  # no URL ("http://[::1", a port out of range): no site of ours
            return False

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: ``serve`` says where the page is once the port is bound."""

    def serve(self, debug: bool = False) -> None:
        """Listen until ctrl+c or SIGTERM; say where the page is once the port is bound (a port
        in use raises OSError before that, and nothing claims it serves). The log of requests
        shows the token as ``<token>``: it is printed once, in that line."""
        self.initialize_logging()
        if self.token:
            logging.getLogger("aiohttp.access").addFilter(_Redact(self.token))
        web.run_app(self._make_app(), host=self.host, port=self.port,
                    print=lambda *_: click.echo(f"papertray: serving on {self.page_url} "
                                                "(ctrl+c stops)", err=True))
