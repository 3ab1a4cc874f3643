"""``papertray serve``: the browser in a web page (textual-serve); the options, and the token
chosen. The server and its guard are in ``tui.cli.webpage``, imported when ``serve`` runs (every
other command starts without aiohttp)."""

from __future__ import annotations

import secrets
import shlex
import sys
from urllib.parse import urlsplit

import click


def _public_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An http(s) URL with a host and no path, query or fragment, without a trailing slash."""
    if value is None:
        return None
    try:
        parts = urlsplit(value.strip())
        parts.port  # noqa: B018 (raises ValueError for a port that is no number or out of range)
    except ValueError:  # "http://[::1:9000": an unclosed bracket
        parts = None
    if (parts is None or parts.scheme not in ("http", "https") or not parts.hostname
            or parts.path.strip("/") or parts.query or parts.fragment):
        raise click.BadParameter(f"{value!r} is not like http://localhost:9000", ctx, param)
    return f"{parts.scheme}://{parts.netloc}"


def _host(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A name or address to listen on, an IPv6 address without its URL brackets ("[::1]")."""
    host = value.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or any(c in host for c in "[]/ "):
        raise click.BadParameter(f"{value!r} is no host name or address, like 127.0.0.1",
                                 ctx, param)
    return host


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, callback=_host,
              help="The address to listen on (keep the default and use an SSH tunnel). Any "
                   "other than loopback gets a token.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--public-url", metavar="URL", callback=_public_url,
              help="The address the web browser opens, e.g. http://localhost:9000 at the end of "
                   "an SSH tunnel. Default: http://HOST:PORT.")
@click.option("--token", "want_token", is_flag=True,
              help="Require a token on loopback too (always required on other addresses).")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, public_url: str | None,
          want_token: bool) -> None:
    """Serve the browser as a web page (textual-serve) until ctrl+c."""
    obj = ctx.obj
    command = [sys.executable, "-m", "tui"]
    for seed in obj.seeds or ():
        command += ["--seeds", seed]
    if obj.data_dir:
        command += ["--data-dir", obj.data_dir]
    if obj.ascii_only:
        command.append("--ascii")
    from tui.cli.webpage import GuardedServer, is_loopback

    token = secrets.token_urlsafe(32) if want_token or not is_loopback(host) else None
    GuardedServer(shlex.join(command), host, port, public_url, token).serve()


def register(cli: click.Group) -> None:
    """Add ``serve`` to ``cli``."""
    cli.add_command(serve)
