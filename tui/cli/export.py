"""``papertray export``: one query's papers as a Markdown checklist, CSV, JSON or BibTeX."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from db.library.export import FORMATS
from db.text import one_line
from tui.cli.context import STATUS_CHOICE, pass_context

_WORD = "\x00"  # marks a query word that starts with "-" while click parses the options


class _QueryCommand(click.Command):
    """A command whose arguments are a query: ``-has:code`` and ``-word`` are query words, not
    bundles of short options (click would read ``-has:code`` as ``-o de``); ``-o`` is spelt
    apart from its file. The value of an option (``-o -notes.md``) is the option's, as typed."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        taking = {name for param in self.params if isinstance(param, click.Option)
                  and not param.is_flag and not param.count for name in param.opts}
        marked = [_WORD + a if a.startswith("-") and not a.startswith("--") and len(a) > 2
                  and (i == 0 or args[i - 1] not in taking) else a for i, a in enumerate(args)]
        return super().parse_args(ctx, marked)


def register(cli: click.Group) -> None:
    """Add the ``export`` command to ``cli``."""

    @cli.command(cls=_QueryCommand, context_settings={"help_option_names": ["--help"]})
    @click.argument("query", nargs=-1)
    @click.option("--status", type=STATUS_CHOICE, help="Only papers with this status.")
    @click.option("--format", "fmt", type=click.Choice(list(FORMATS)),
                  help="Markdown checklist, CSV, JSON or BibTeX. Default: from the output "
                       "file's ending (.md, .csv, .json, .bib), else md.")
    @click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True,
                                                    path_type=Path),
                  help="Write to this file (default, or -: standard output).")
    @pass_context
    def export(obj, query: tuple[str, ...], status: str | None, fmt: str | None,
               output: Path | None) -> None:
        """Export the papers a query finds (all papers without one), best first."""
        library = obj.open_library()
        text = " ".join(q.removeprefix(_WORD) for q in query)
        if output is None or str(output) == "-":
            library.export(text, status, fmt or "md", sys.stdout)
            return
        try:
            count = library.export_file(output, text, status, fmt)
        except OSError as exc:
            raise click.ClickException(
                f"cannot write {one_line(str(output))}: {exc.strerror or exc}") from None
        click.echo(f"exported {count} papers to {one_line(str(output))}", err=True)
