"""``papertray library``: the library in force (which seed files), remembered between commands.

The group's ``--seeds`` remembers the paths it is given (:func:`remember_given`); ``library
PATH...`` sets them, ``library --reset`` goes back to the shipped seeds. Neither opens nor syncs
the index: showing the library costs no build.
"""

from __future__ import annotations

import os

import click

from db.library import choice
from db.store.paths import DataPaths
from db.text import one_line
from tui.cli.context import Context, pass_context
from tui.cli.output import emit_json

FROM = {"--seeds": "--seeds (given to this command)",
        "PAPERTRAY_SEEDS": "PAPERTRAY_SEEDS (it wins over the remembered library)",
        "remembered": "remembered (papertray library PATH... changes it, --reset forgets it)",
        "shipped": "the shipped seeds (papertray library PATH... or --seeds PATH to change it)"}


def remember_given(seeds: tuple[str, ...], data_dir: str | None) -> str:
    """Remember the group's ``--seeds`` as the library; returns the line that says so, or ""
    when that is no news (:func:`db.library.choice.remember`: the same again, or a first
    library on a fresh data folder). The group prints it once the command has succeeded: a
    failed command ends on its one line of error."""
    replaced = choice.remember(seeds, DataPaths.resolve(data_dir))
    if replaced is None:
        return ""
    return (f"papertray: the library is now {_paths(seeds)} (was {_paths(replaced)}; "
            "`papertray library` shows it)")


def _paths(paths) -> str:
    return one_line(", ".join(os.path.abspath(os.path.expanduser(str(p))) for p in paths))


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


def _print(data: dict) -> None:
    click.echo(f"library:  {one_line(', '.join(data['seeds']))}")
    click.echo(f"from:     {FROM[data['from']]}")
    click.echo(f"index:    {one_line(data['index']) if data['index'] else 'not built yet'}")
    click.echo(f"marks:    {one_line(data['marks'])} (one for every library)")
    if data["indexes"]:
        click.echo(f"indexes kept ({len(data['indexes'])}; past {data['max_indexes']} or "
                   f"{data['max_bytes'] // 2**30} GB the least recently used is pruned):")
    for kept in data["indexes"]:
        mark = "*" if kept["in_force"] else " "
        click.echo(f"  {mark} {_size(kept['bytes']):>9}  {kept['used'][:16].replace('T', ' ')}"
                   f"  {one_line(', '.join(kept['seeds']))}")


def register(cli: click.Group) -> None:
    """Add ``library`` to the group."""

    @cli.command()
    @click.argument("paths", nargs=-1, metavar="[PATH]...")
    @click.option("--reset", is_flag=True,
                  help="Forget the remembered library: the shipped seeds are the default again.")
    @click.option("--json", "as_json", is_flag=True, help="Print the library as JSON.")
    @pass_context
    def library(obj: Context, paths: tuple[str, ...], reset: bool, as_json: bool) -> None:
        """Show the library in force (its seed paths, where that came from, its index), or
        remember PATH... (seed folders or files) as the library of the commands that follow."""
        if reset and paths:
            raise click.UsageError("give PATH... or --reset, not both")
        data_paths = DataPaths.resolve(obj.data_dir)
        if reset:
            choice.forget(data_paths)
        elif paths:
            if any(not p.strip() for p in paths):
                raise click.UsageError("an empty path; give a folder or file")
            choice.set_library(paths, data_paths)
        seeds = None if (reset or paths) else obj.seeds
        data = choice.describe(seeds, obj.data_dir)
        if as_json:
            emit_json(data)
        else:
            _print(data)
        if (reset or paths) and data["from"] == "PAPERTRAY_SEEDS":
            click.echo("papertray: PAPERTRAY_SEEDS is set and wins over the remembered library "
                       "while it is", err=True)
