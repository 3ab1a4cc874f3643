"""The ``papertray`` command line. Every command syncs first (instant when nothing changed).

JSON output (``--json``) is a contract documented in docs/cli.md. A user error prints one line
on stderr and exits 1; there are no tracebacks. Plain ``papertray`` opens the browser.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import sys
import textwrap

import click

from db import LibraryError
from db.seeds.render import render_plain
from db.store.paths import write_privately
from db.text import one_line
from tui.cli.context import SORT_OPTION, STATUS_CHOICE, Context, pass_context
from tui.cli.export import register as register_export
from tui.cli.keys import register as register_keys
from tui.cli.library import register as register_library
from tui.cli.library import remember_given
from tui.cli.marks import register as register_marks
from tui.cli.output import emit_json, print_changes, print_result, width
from tui.cli.reader import register as register_reader
from tui.cli.saved import register as register_saved
from tui.cli.serve import register as register_serve
from tui.cli.sync_bar import is_terminal, sync_bar

STATS_COLLECTIONS = 10  # collections `stats` names; a JSON file of many venues has hundreds


def _non_empty(ctx: click.Context, param: click.Parameter, value):
    """An empty path would silently mean "the current folder" or "the default folders"."""
    values = value if isinstance(value, tuple) else (value,)
    if any(v is not None and not str(v).strip() for v in values):
        raise click.BadParameter("an empty path; give a folder or file", ctx, param)
    return value


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--seeds", "seeds", multiple=True, metavar="PATH", callback=_non_empty,
              help="A seed folder or file (repeatable), remembered as the library of the "
                   "commands that follow. Default: $PAPERTRAY_SEEDS, the remembered library "
                   "(papertray library) or the shipped seeds.")
@click.option("--data-dir", metavar="DIR", envvar="PAPERTRAY_DATA_DIR", callback=_non_empty,
              help="Keep index.sqlite and marks.sqlite in DIR. Default: $PAPERTRAY_DATA_DIR or "
                   "the platform's cache and data folders.")
@click.option("--ascii", "ascii_only", is_flag=True,
              help="The browser without colour and in ASCII only (as NO_COLOR does).")
@click.version_option(package_name="papertray")
@click.pass_context
def cli(ctx: click.Context, seeds: tuple[str, ...], data_dir: str | None,
        ascii_only: bool) -> None:
    """papertray: search, skim and triage research-paper abstracts.

    Without a command, opens the browser.
    """
    write_privately()  # before any command (or the browser) writes a file
    ctx.obj = Context(seeds, data_dir, ascii_only)
    if seeds:  # the seeds given once are the library until changed
        ctx.obj.news = remember_given(seeds, data_dir)
    if ctx.invoked_subcommand is None:
        from tui.browser.app import run_app  # the only way in to the browser: Textual loads here

        status = run_app(ctx.obj.seeds, ctx.obj.data_dir, ascii_only=ascii_only or None)
        if status:  # the browser ended on an error: not a success for a script or a shell
            sys.exit(status)


@cli.result_callback()
@pass_context
def _after(obj: Context, *args: object, **kwargs: object) -> None:
    """Say what the library did on its own while a command ran (e.g. rebuilt a damaged index),
    and that ``--seeds`` changed the remembered library."""
    if obj.opened:
        for notice in obj.open_library(sync=False).notices:
            click.echo(f"papertray: {one_line(notice)}", err=True)
    if obj.news:
        click.echo(obj.news, err=True)


@cli.command()
@click.option("--force", is_flag=True,
              help="Rebuild the index from nothing, re-reading every seed file (marks are kept).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_context
def sync(obj: Context, force: bool, as_json: bool) -> None:
    """Load new and changed seed files into the index, after reading the whole index to check
    it (a damaged one is rebuilt). On a terminal, a bar on stderr shows the papers parsed."""
    library = obj.open_library(sync=False)
    with sync_bar(show=not as_json and is_terminal(sys.stderr)) as progress:
        report = library.sync(force=force, verify=True, progress=progress)
    if as_json:
        emit_json(report.to_json())
        return
    for notice in report.notices:
        click.echo(f"papertray: {one_line(notice)}", err=True)
    for f in report.files:
        reason = f" ({one_line(f.reason)})" if f.reason else ""
        click.echo(f"{f.status:>9}  {f.entries:>5} entries  {one_line(f.path)}{reason}")
    click.echo(f"{report.papers} papers: {report.added} added, {report.removed} removed, "
               f"{report.changed} changed, {report.reattached} marks re-attached, "
               f"{report.orphans} orphan marks ({report.seconds:.2f} s)")
    if report.matched or report.ambiguous or report.unmatched:
        click.echo(f"catalogue: {report.matched} titles matched, {report.ambiguous} ambiguous, "
                   f"{report.unmatched} unmatched")


@cli.command(context_settings={"ignore_unknown_options": True,
                               "help_option_names": ["--help"]})  # "-has:code" is a query
@click.argument("query", nargs=-1)
@click.option("--status", type=STATUS_CHOICE, help="Only papers with this status.")
@click.option("--limit", type=click.IntRange(0, 10_000), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@click.option("--snippet", is_flag=True,
              help="Under each hit, the part of its abstract that matched, matches in **…**.")
@SORT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@pass_context
def search(obj: Context, query: tuple[str, ...], status: str | None, limit: int, offset: int,
           snippet: bool, sort: str | None, as_json: bool) -> None:
    """Search the papers (the query language: docs/search.md); best hits first."""
    library = obj.open_library()
    result = library.search(" ".join(query), status, limit, offset, typing=True, hidden=True,
                            sort=sort or "relevance")
    snippets = library.snippets([h.id for h in result.hits], result.terms) if snippet else None
    print_result(result, as_json, snippets)


@cli.command(name="list")
@click.option("--status", type=STATUS_CHOICE, help="Only papers with this status.")
@click.option("--limit", type=click.IntRange(0, 10_000), default=50, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@SORT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print papers as JSON.")
@pass_context
def list_(obj: Context, status: str | None, limit: int, offset: int, sort: str | None,
          as_json: bool) -> None:
    """List papers in seed order (or another, --sort)."""
    print_result(obj.open_library().search("", status, limit, offset, sort=sort or "seed"),
                 as_json)


@cli.command()
@click.argument("paper_id")
@click.option("--json", "as_json", is_flag=True, help="Print the paper as JSON.")
@pass_context
def show(obj: Context, paper_id: str, as_json: bool) -> None:
    """Show one paper (an id or a unique prefix of one) with its whole abstract."""
    paper = obj.open_library().get(paper_id)
    data = paper.to_json()
    if as_json:
        emit_json(data)
        return
    columns = min(width(), 100)
    head = [
        ("id", paper.id), ("name", paper.name),
        ("title", render_plain(paper.title) if paper.title else None),
        ("authors", ", ".join(paper.authors)),
        ("venue", " ".join(str(v) for v in (paper.venue, paper.year) if v)),
        ("decision", paper.decision), ("track", paper.track), ("area", paper.area),
        ("keywords", "; ".join(paper.keywords)),
        ("status", paper.status), ("tags", " ".join(paper.tags)), ("note", paper.note),
        ("collection", paper.collection),
        ("sources", ", ".join(f"{s.file}:{s.position}" for s in paper.sources)),
        ("code", paper.code_url),
    ]
    for key, value in head:
        if value:
            click.echo(f"{key + ':':<12}{one_line(str(value))}")
    if data["abstract"]:
        click.echo()
        click.echo(textwrap.fill(one_line(data["abstract"]), width=columns, break_on_hyphens=False))
    other = [(kind, url) for kind, url in paper.links if kind != "code"]
    if other:
        click.echo()
        for kind, url in other:
            click.echo(f"{kind + ':':<12}{one_line(url)}")


@cli.command()
@click.argument("paper_ids", nargs=-1, required=True)
@click.option("--read", "status", flag_value="read", help="Mark as read.")
@click.option("--to-read", "status", flag_value="to-read", help="Mark as to-read.")
@click.option("--dismissed", "status", flag_value="dismissed",
              help="Mark as dismissed (not interested).")
@click.option("--new", "status", flag_value="new", help="Clear the mark (back to new).")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@pass_context
def mark(obj: Context, paper_ids: tuple[str, ...], status: str | None, as_json: bool) -> None:
    """Mark papers (ids or unique prefixes) read, to-read, dismissed or new. Written at once;
    a paper that has the status already keeps it."""
    if status is None:
        raise click.UsageError("say which status: --read, --to-read, --dismissed or --new")
    library = obj.open_library()
    changes = library.set_status(paper_ids, status)
    kept = len({library.resolve(i) for i in paper_ids}) - len(changes)
    print_changes(changes, as_json, f"marked {len(changes)} paper(s) {status}"
                  + (f" ({kept} {status} already, kept)" if kept else ""))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@pass_context
def undo(obj: Context, as_json: bool) -> None:
    """Undo the latest marking step, note or tagging (repeatable)."""
    changes = obj.open_library().undo()
    what = "mark(s)" if all(c.kind == "mark" for c in changes) else "change(s)"
    print_changes(changes, as_json, f"undid {len(changes)} {what}" if changes
                   else "nothing to undo")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@pass_context
def stats(obj: Context, as_json: bool) -> None:
    """Counts of papers, entries, files, collections, statuses and problems."""
    library = obj.open_library(check_marks=True)
    data = library.stats()
    data["library"] = {"seeds": [str(p) for p in library.seed_paths],
                       "from": library.seeds_from, "index": str(library.paths.index),
                       "marks": str(library.paths.marks)}
    if as_json:
        emit_json(data)
        return
    s = data["status"]
    click.echo(f"papers:       {data['papers']} ({data['entries']} entries in {data['files']} "
               "files)")
    click.echo(f"status:       {s['new']} new, {s['to-read']} to-read, {s['read']} read, "
               f"{s['dismissed']} dismissed")
    collections = list(data["collections"].items())
    for label, n in collections[:STATS_COLLECTIONS]:
        click.echo(f"collection:   {one_line(label)} ({n})")
    if len(collections) > STATS_COLLECTIONS:
        rest = collections[STATS_COLLECTIONS:]
        click.echo(f"collection:   and {len(rest)} more, {sum(n for _, n in rest)} papers "
                   "(--json lists every one)")
    click.echo(f"orphan marks: {data['orphan_marks']}")
    if data["orphan_annotations"]:
        click.echo(f"orphan notes/tags: {data['orphan_annotations']}")
    for p in data["problems"]:
        click.echo(f"problem:      {one_line(p['file'])}: {one_line(p['reason'] or '')}")
    click.echo(f"library:      {one_line(', '.join(data['library']['seeds']))} "
               f"({library.seeds_from})")
    click.echo(f"index:        {library.paths.index}")
    click.echo(f"marks:        {library.paths.marks}")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the orphans as JSON.")
@pass_context
def orphans(obj: Context, as_json: bool) -> None:
    """Marks, notes and tags whose paper is no longer in any seed file (kept, never deleted)."""
    library = obj.open_library()
    rows = library.orphans()
    annotated = library.orphan_annotations()
    if as_json:
        found = {r[0]: {"id": r[0], "status": r[1], "updated_at": r[2], "label": r[3],
                        "note": "", "tags": []} for r in rows}
        for pid, note, tags, updated, label in annotated:
            item = found.setdefault(pid, {"id": pid, "status": "new", "updated_at": updated,
                                          "label": label})
            item.update(note=note, tags=list(tags))
        emit_json(list(found.values()))
        return
    for pid, status, updated, label in rows:
        click.echo(f"{pid[:8]}  {status:<8} {updated[:19]}  {one_line(label or '')}")
    if not rows:
        click.echo("no orphan marks")
    for pid, note, tags, updated, label in annotated:
        what = " ".join(f"#{t}" for t in tags)
        what = f"{what} note: {note}" if note and what else (f"note: {note}" if note else what)
        click.echo(f"{pid[:8]}  {'notes':<8} {updated[:19]}  {one_line(label or '')}"
                   f"{'  ' if label else ''}{one_line(what)}")


register_marks(cli)
register_reader(cli)
register_saved(cli)
register_export(cli)
register_serve(cli)
register_keys(cli)
register_library(cli)


_signalled = [signal.SIGINT]
#: the signals received: a KeyboardInterrupt raised while a finalizer runs (a connection given
#: back by the garbage collector) is handed to sys.unraisablehook and dropped by Python, and the
#: command would go on and exit 0; it is checked again when the command returns
_received: list[signal.Signals] = []


def _interrupt(signum: int, frame: object) -> None:
    _signalled[0] = signal.Signals(signum)
    _received.append(_signalled[0])
    raise KeyboardInterrupt  # unwinds like ctrl+c: an open transaction rolls back


def _unraisable(info: object) -> None:
    """Python's hook for an exception it cannot raise (one from a finalizer): an interrupt
    that struck there is already in ``_received``, so it is not printed as a traceback; any
    other goes to Python's own hook."""
    if isinstance(getattr(info, "exc_value", None), KeyboardInterrupt) and _received:
        return
    sys.__unraisablehook__(info)


def _stop_on_signals() -> None:
    """SIGTERM, SIGHUP and SIGINT (unless it is ignored, as for a job started in the background)
    stop the command as ctrl+c does, through :func:`_interrupt`."""
    sys.unraisablehook = _unraisable
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)


def main() -> None:
    """Console-script entry point: run the CLI, turning expected failures into one line.

    SIGTERM and SIGHUP stop a command the way ctrl+c does (exit 130 after "interrupted"); a sync
    that is stopped rolls back, so the previous index stays whole.
    """
    _stop_on_signals()
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show "…" or "✓" gets "?"
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="replace")
    try:
        cli.main(prog_name="papertray", standalone_mode=False)
        if _received:  # the interrupt was dropped where it struck: it still ends the command
            raise KeyboardInterrupt
    except SystemExit:
        if type(sys.stdout).__name__ == "_PacifyFlushWrapper":
            sys.exit(0)  # click met a closed pipe (`papertray list | head`): that is success
        raise
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("papertray: interrupted", err=True)
        sys.exit(128 + _signalled[0])  # 130 for ctrl+c, 143 for SIGTERM, 129 for SIGHUP
    except click.UsageError as exc:
        # one line, like every other user error (click's own show() prints usage and a hint on
        # three more lines): the message, then where to read how the command is used
        where = exc.ctx.command_path if exc.ctx else "papertray"
        click.echo(f"papertray: {one_line(exc.format_message())} (see: {where} --help)", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"papertray: {one_line(exc.format_message())}", err=True)
        sys.exit(exc.exit_code)
    except LibraryError as exc:
        click.echo(f"papertray: {one_line(str(exc))}", err=True)
        sys.exit(1)
    except (sqlite3.Error, OSError) as exc:
        if isinstance(exc, BrokenPipeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        text = one_line(str(exc))
        if any(w in text.lower() for w in ("readonly", "read-only", "unable to open", "permission",
                                           "not permitted")):
            text += " (check that the data folder and its files can be written; " \
                    "`papertray stats` shows where they are)"
        click.echo(f"papertray: {text}", err=True)
        sys.exit(1)
