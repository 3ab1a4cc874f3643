"""``papertray similar / note / tag``: the reader's tools after the first skim.

``similar`` prints hits in the shape of ``search``; ``note`` and ``tag`` print changes in the
shape of ``mark`` (each undoable with ``papertray undo``).
"""

from __future__ import annotations

import click

from db.marks.notes import check_note_length
from db.text import one_line
from tui.cli.context import STATUS_CHOICE, pass_context
from tui.cli.output import emit_json, print_changes, print_result


@click.command()
@click.argument("paper_id", required=False)
@click.option("--to-read", "to_read", is_flag=True,
              help="New papers most like all your to-read papers (instead of ID).")
@click.option("--status", type=STATUS_CHOICE, help="Only papers with this status.")
@click.option("--limit", type=click.IntRange(0, 10_000), default=10, show_default=True)
@click.option("--offset", type=click.IntRange(0), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@pass_context
def similar(obj, paper_id: str | None, to_read: bool, status: str | None, limit: int,
            offset: int, as_json: bool) -> None:
    """Papers most like paper ID (bm25 over its most distinctive words), best first."""
    if bool(paper_id) == to_read:
        raise click.UsageError("give a paper ID or --to-read (not both)")
    if to_read and status not in (None, "new"):
        raise click.UsageError(f"--to-read finds new papers only; --status {status} "
                               "does not go with it")
    library = obj.open_library()
    if to_read:
        result = library.like_to_read(limit, offset)
    else:
        result = library.similar(paper_id, status, limit, offset)
    print_result(result, as_json)


@click.command()
@click.argument("paper_id")
@click.argument("text", nargs=-1)
@click.option("--clear", is_flag=True, help="Delete the note.")
@click.option("--json", "as_json", is_flag=True, help="Print the change (or the note) as "
              "JSON.")
@pass_context
def note(obj, paper_id: str, text: tuple[str, ...], clear: bool, as_json: bool) -> None:
    """Set the note of paper ID to TEXT (one line; undoable); without TEXT, print it."""
    library = obj.open_library()
    if not text and not clear:
        paper = library.get(paper_id)
        if as_json:
            emit_json({"id": paper.id, "note": paper.note})
        else:
            click.echo(one_line(paper.note) or "(no note)")
        return
    if text and clear:
        raise click.UsageError("give TEXT or --clear, not both")
    check_note_length(" ".join(text))
    changes = library.set_note(paper_id, "" if clear else " ".join(text))
    print_changes(changes, as_json, "note saved" if changes else "note unchanged")


@click.command()
@click.argument("paper_id")
@click.argument("names", nargs=-1, required=True)
@click.option("--remove", is_flag=True, help="Remove the tags instead of adding them.")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@pass_context
def tag(obj, paper_id: str, names: tuple[str, ...], remove: bool, as_json: bool) -> None:
    """Add tags NAME... to paper ID (find them with tag:NAME in a query); undoable."""
    changes = obj.open_library().tag([paper_id], names, remove=remove)
    verb = "removed" if remove else "added"
    print_changes(changes, as_json, f"{verb} {len(changes)} tag(s)")


def register(cli: click.Group) -> None:
    """Add ``similar``, ``note`` and ``tag`` to ``cli``."""
    for command in (similar, note, tag):
        cli.add_command(command)
