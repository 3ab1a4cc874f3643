"""``papertray marks ...``: the marks file's backups (listing, making, restoring).

These commands work on the marks file directly, without opening the library, so that they still
work when the marks file cannot be read (that is when a restore is wanted).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from db.marks import backup, repair
from db.models import LibraryError
from db.store.files import refuse_database
from db.store.paths import DataPaths, writing
from db.text import one_line
from tui.cli.context import pass_context

#: A marks file is read up to this size (every paper of an 87,000-abstract library marked,
#: noted and tagged is about 150 MiB).
MAX_MARKS_FILE_BYTES = 512 << 20


@click.group()
def marks() -> None:
    """Backups of your marks, and marks files to carry them to another machine."""


@marks.command(name="backups")
@click.option("--json", "as_json", is_flag=True, help="Print the backups as JSON.")
@pass_context
def list_backups(obj, as_json: bool) -> None:
    """List the backups of the marks file, newest first."""
    found = backup.backups(DataPaths.resolve(obj.data_dir).marks)
    if as_json:
        click.echo(json.dumps([{"path": str(p), "bytes": p.stat().st_size} for p in found],
                              indent=2))
        return
    for path in found:
        click.echo(one_line(str(path)))
    if not found:
        click.echo("no backups yet (one is made when papertray opens, every few hours)")


@marks.command(name="backup")
@pass_context
def make_backup(obj) -> None:
    """Back up the marks file now."""
    library = obj.open_library(sync=False)
    made = library.opening_backup or library.backup_marks(force=True)
    if made is None:
        raise click.ClickException("could not write a backup (see the data folder's rights)")
    click.echo(f"backed up to {one_line(str(made))}")


@marks.command(name="restore")
@click.argument("source", required=False, type=click.Path(exists=True, dir_okay=False,
                                                      path_type=Path))
@pass_context
def restore(obj, source: Path | None) -> None:
    """Put back SOURCE or the newest readable backup; the current file is kept beside it."""
    target = DataPaths.resolve(obj.data_dir).marks
    try:
        chosen, aside = backup.restore(target, source)
    except (FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    moved = f"; what it held is kept as {aside.name}" if aside else ""
    click.echo(f"restored the marks from {one_line(chosen.name)}{moved}")


@marks.command(name="repair")
@pass_context
def repair_marks(obj) -> None:
    """Check the marks file; if it is damaged, rebuild it from what can be read, the newest
    backup and the mark history (the damaged file is kept)."""
    target = DataPaths.resolve(obj.data_dir).marks
    try:
        done = repair.repair(target) if repair.check(target) != "ok" else None
    except LibraryError as exc:
        raise click.ClickException(one_line(str(exc))) from None
    if done is None:
        click.echo(f"the marks file {one_line(str(target))} is sound (integrity_check: ok)")
        return
    click.echo(one_line(done.notice()))


@marks.command(name="export")
@click.argument("target", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@pass_context
def export_marks(obj, target: Path) -> None:
    """Write every mark (id, status, time, title and start of the abstract) to TARGET
    (- for standard output)."""
    data = obj.open_library().export_marks()
    if str(target) == "-":
        click.echo(json.dumps(data, ensure_ascii=False, indent=1))
        return
    try:
        with writing(target) as out:
            out.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        raise click.ClickException(
            f"cannot write {one_line(str(target))}: {exc.strerror or exc}") from None
    click.echo(f"exported {len(data['marks'])} marks to {one_line(str(target))}", err=True)


@marks.command(name="import")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, allow_dash=True,
                                      path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print what changed as JSON.")
@pass_context
def import_marks(obj, source: Path, as_json: bool) -> None:
    """Merge a marks file from `marks export` (- for standard input): per paper the newer
    mark wins (undoable)."""
    library = obj.open_library()
    try:
        if str(source) != "-":
            refuse_database(source, "a marks file to import")
        # /dev/zero or a huge file must not eat the memory: read at most the limit
        with (click.open_file("-", "rb") if str(source) == "-" else source.open("rb")) as fh:
            data = fh.read(MAX_MARKS_FILE_BYTES + 1)
    except OSError as exc:
        raise click.ClickException(
            f"cannot read {one_line(str(source))}: {exc.strerror or exc}") from None
    if len(data) > MAX_MARKS_FILE_BYTES:
        raise click.ClickException(f"{one_line(str(source))} is larger than "
                                   f"{MAX_MARKS_FILE_BYTES >> 20} MiB: not a marks file")
    summary = library.import_marks(data)
    if as_json:
        click.echo(json.dumps(summary.to_json(), indent=2))
        return
    click.echo(summary.line())
    for change in summary.changed:
        click.echo(f"  {change.paper_id[:8]}  {change.old} → {change.new}")


def register(cli: click.Group) -> None:
    """Add the ``marks`` group to ``cli``."""
    cli.add_command(marks)
