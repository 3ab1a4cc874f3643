"""``papertray saved ...``: saved searches, and the watch lists they make: each says how many
of its hits are still new and how many arrived since it was last opened."""

from __future__ import annotations

import click

from db.text import one_line
from tui.cli.context import SORT_OPTION, STATUS_CHOICE, pass_context
from tui.cli.output import emit_json, print_result


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the saved searches as JSON.")
@pass_context
@click.pass_context
def saved(ctx: click.Context, obj, as_json: bool) -> None:
    """Saved searches: with no command, each with its hits, how many are new and how many
    arrived since it was last opened."""
    if ctx.invoked_subcommand is not None:
        return
    found = obj.open_library().saved_searches()
    if as_json:
        emit_json([c.to_json() for c in found])
        return
    if not found:
        click.echo("no saved searches (papertray saved add NAME QUERY saves one)")
        return
    width = max(len(c.search.name) for c in found)
    click.echo(f"{'name':<{width}}  {'hits':>6} {'new':>6} {'arrived':>7}  query")
    for c in found:
        s = c.search
        extra = "".join((f" is:{s.status}" if s.status != "all" else "",
                         f"  (by {s.sort})" if s.sort != "relevance" else ""))
        click.echo(f"{one_line(s.name):<{width}}  {c.total:>6} {c.new:>6} {c.arrived:>7}  "
                   f"{one_line(s.query)}{extra}")


@saved.command(name="add", context_settings={"ignore_unknown_options": True,
                                             "help_option_names": ["--help"]})
@click.argument("name")
@click.argument("query", nargs=-1)
@click.option("--status", type=STATUS_CHOICE, help="Only papers with this status.")
@SORT_OPTION
@pass_context
def add(obj, name: str, query: tuple[str, ...], status: str | None, sort: str | None) -> None:
    """Save QUERY (the query language) as NAME; the same NAME again replaces it."""
    search, replaced = obj.open_library().save_search(name, " ".join(query), status or "all",
                                                      sort or "relevance")
    click.echo(f"{'replaced' if replaced else 'saved'} {one_line(search.name)!r}: "
               f"{one_line(search.query) or '(every paper)'}")


@saved.command(name="run")
@click.argument("name")
@click.option("--limit", type=click.IntRange(0, 10_000), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@pass_context
def run(obj, name: str, limit: int, offset: int, as_json: bool) -> None:
    """Print the hits of the saved search NAME, as search does; this counts as opening it."""
    _search, result = obj.open_library().open_saved(name, limit, offset)
    print_result(result, as_json)


@saved.command(name="remove")
@click.argument("name")
@pass_context
def remove(obj, name: str) -> None:
    """Remove the saved search NAME."""
    search = obj.open_library().remove_saved(name)
    click.echo(f"removed {one_line(search.name)!r}: {one_line(search.query)}")


def register(cli: click.Group) -> None:
    """Add the ``saved`` group to ``cli``."""
    cli.add_command(saved)
