"""How the commands print: hits one per line, changes one per paper, or JSON (``--json``, a
contract documented in the README). Text from the seed files is always one line."""

from __future__ import annotations

import json
import shutil
import sys

import click

from db.seeds.render import render_plain
from db.text import one_line
from tui.glyphs import ASCII_GLYPHS, GLYPHS


def glyph(status: str) -> str:
    """The mark of ``status``: Unicode when standard output can show it, else ASCII."""
    encoding = (sys.stdout.encoding or "").lower()
    return (GLYPHS if "utf" in encoding else ASCII_GLYPHS)[status]


def width() -> int:
    """The terminal's width in columns (at least 40)."""
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def emit_json(data: object) -> None:
    """Print ``data`` as indented JSON, non-ASCII characters as they are."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def hit_line(hit, columns: int) -> str:
    """One hit as a line of at most ``columns`` characters: short id, mark, title (or name
    and headline)."""
    if hit.title:  # a real title says more than name and headline together
        text = f"{hit.short_id}  {glyph(hit.status)}  {one_line(render_plain(hit.title))}"
        return text if len(text) <= columns else text[: columns - 1] + "…"
    label = one_line(hit.name or "")
    text = f"{hit.short_id}  {glyph(hit.status)}  {label[:24]:<16}  {one_line(hit.headline)}"
    return text if len(text) <= columns else text[: columns - 1] + "…"


def print_result(result, as_json: bool, snippets: dict[str, str] | None = None) -> None:
    """Print a page of hits (with each one's snippet, if given), then on stderr how many more
    there are or that none matched."""
    if as_json:
        data = result.to_json()
        if snippets is not None:
            for hit in data["hits"]:
                hit["snippet"] = snippets.get(hit["id"], "")
        emit_json(data)
        return
    if result.notice:
        click.echo(f"({one_line(result.notice)})", err=True)
    if result.hidden:
        click.echo(f"({result.hidden} more have another status: leave out --status to see "
                   "them)", err=True)
    columns = width() if sys.stdout.isatty() else 10_000
    for hit in result.hits:
        click.echo(hit_line(hit, columns))
        if snippets is not None:
            click.echo("    " + one_line(snippets.get(hit.id, "")))
    shown = len(result.hits)
    if shown < result.total:
        click.echo(f"… {shown} of {result.total} shown (use --limit/--offset)", err=True)
    elif not result.total:
        click.echo("no papers match", err=True)


def print_changes(changes, as_json: bool, summary: str) -> None:
    """Print ``summary`` and one line per change (a mark, a note or a tag), or the changes as
    JSON."""
    if as_json:
        emit_json({"changed": [c.to_json() for c in changes]})
        return
    click.echo(summary)
    for c in changes:
        if c.kind == "tag":
            click.echo(f"  {c.paper_id[:8]}  tag {'+' + c.new if c.new else '-' + c.old}")
        elif c.kind == "note":
            click.echo(f"  {c.paper_id[:8]}  note {one_line(c.old) or '(none)'!r} → "
                       f"{one_line(c.new) or '(none)'!r}")
        else:
            click.echo(f"  {c.paper_id[:8]}  {c.old} → {c.new}")
