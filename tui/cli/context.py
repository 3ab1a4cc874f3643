"""What every command gets from the group's options: the library, opened and synced on first
use (:class:`Context`), and the ``--status`` and ``--sort`` options the listing commands share."""

from __future__ import annotations

import click

from db import STATUSES, Library
from db.models import SORTS
from db.text import one_line

STATUS_CHOICE = click.Choice(STATUSES)
SORT_OPTION = click.option(
    "--sort", type=click.Choice(SORTS), default=None,
    help="Order: relevance (search's default), seed (list's default), name, year (newest "
         "first), status (new first) or marked (latest first).")


class Context:
    """What the group's options give every command: a lazily opened, synced library."""

    def __init__(self, seeds: tuple[str, ...], data_dir: str | None, ascii_only: bool = False):
        self.seeds = list(seeds) or None
        self.data_dir = data_dir
        self.ascii_only = ascii_only
        #: the line saying that ``--seeds`` changed the remembered library ("" when no news)
        self.news = ""
        self._library: Library | None = None

    @property
    def opened(self) -> bool:
        return self._library is not None

    def open_library(self, sync: bool = True, check_marks: bool = False) -> Library:
        """The library, opened (and synced) at the first call; closed when the command ends.
        ``check_marks``: check the marks file first and rebuild it if damaged."""
        if self._library is None:
            self._library = Library(self.seeds, self.data_dir, check_marks=check_marks)
            click.get_current_context().find_root().call_on_close(self._library.close)
            if sync:
                report = self._library.sync()
                for notice in report.notices:
                    click.echo(f"papertray: {one_line(notice)}", err=True)
                for f in report.files:  # a mistyped --seeds path is said at every command
                    if f.status == "error" and f.reason == "no such file or folder":
                        click.echo(f"papertray: seed path {one_line(f.path)}: {f.reason}",
                                   err=True)
        return self._library


pass_context = click.make_pass_decorator(Context)
