"""The top line (collections and the status filters with live counts) and the sync progress line."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.renderables.bar import Bar
from textual.widgets import ProgressBar, Static

from tui.browser.display import plain
from tui.browser.widgets.line import CutLine
from tui.glyphs import ASCII_GLYPHS
from tui.progress import ProgressFigures

#: Columns the collections keep at least beside the tabs; where the tabs with their words
#: leave fewer, the tabs name the active filter's status only (each keeps its glyph).
NAMES_ROOM = 12
#: The filter keys, in the order of the header's tabs: (key, status).
FILTERS = (("1", "all"), ("2", "new"), ("3", "to-read"), ("4", "read"), ("5", "dismissed"))
#: How the header names a sort order other than relevance (db.models.SORTS).
SORT_LABELS = {"seed": "seed order", "name": "by name", "year": "by year",
               "status": "new first", "marked": "latest marked"}


class StatusHeader(Horizontal):
    """``papertray · ICML 2025`` on the left (the collections alone where both do not fit);
    ``1 all 35  2 · new 33  3 » to-read 1  4 ✓ read 1  5 × dismissed 0`` on the right, the
    active filter drawn in reverse video (visible without colour)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"header--active", "header--key"}

    collections: reactive[dict[str, int]] = reactive(dict, always_update=True)
    """Collection label → number of papers (from the library)."""
    counts: reactive[dict[str, int]] = reactive(dict, always_update=True)
    """Papers by status: ``all``, ``new``, ``to-read``, ``read``, ``dismissed``."""
    status_filter: reactive[str] = reactive("all")
    """The active filter: all, new, to-read, read or dismissed."""
    sort_by: reactive[str] = reactive("relevance")
    """The sort order (db.models.SORTS); shown unless it is relevance."""

    def __init__(self, glyphs: Mapping[str, str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.glyphs = glyphs

    def compose(self) -> ComposeResult:
        cut_mark = self.glyphs["more"] if self.glyphs is ASCII_GLYPHS else None
        yield CutLine(cut_mark, id="collections")
        yield Static(id="counts")

    def on_mount(self) -> None:
        self._draw()

    def watch_collections(self) -> None:
        self._draw()

    def watch_counts(self) -> None:
        self._draw()

    def watch_status_filter(self) -> None:
        self._draw()

    def watch_sort_by(self) -> None:
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        tabs = self._tabs(words=True)
        if self.size.width and self.size.width - tabs.cell_len < NAMES_ROOM:
            tabs = self._tabs(words=False)
        names = Text("papertray", style="bold", end="")
        if self.collections:
            several = len(self.collections) > 1
            labels = plain(self.glyphs["sep"].join(
                f"{label} ({n})" if several else label for label, n in self.collections.items()),
                ascii_only=self.glyphs is ASCII_GLYPHS)
            # the collections before the program's name, when both do not fit beside the tabs
            room = self.size.width - tabs.cell_len - 2
            if len(names) + len(self.glyphs["sep"]) + labels.cell_len > room:
                names = labels
            else:
                names.append(self.glyphs["sep"])
                names.append_text(labels)
        self.query_one("#collections", CutLine).update(names)
        self.query_one("#counts", Static).update(tabs)

    def _tabs(self, words: bool) -> Text:
        """`` 1 all 35  2 · new 33 …``: each filter's key, glyph, status and count; without
        ``words``, the status named on the active filter's tab only (`` 2 · 33``)."""
        tabs = Text(end="", no_wrap=True, overflow="ellipsis")
        active = self.get_component_rich_style("header--active", partial=True)
        key_style = self.get_component_rich_style("header--key", partial=True)
        if self.sort_by in SORT_LABELS:
            tabs.append(f" {SORT_LABELS[self.sort_by]} {self.glyphs['sep'].strip()}")
        for key, status in FILTERS:
            label = status if status == "all" else f"{self.glyphs[status]} {status}"
            if not words and status not in ("all", self.status_filter):
                label = self.glyphs[status]
            count = self.counts.get(status)
            piece = Text(end="")
            piece.append(f" {key}", key_style)
            piece.append(f" {label} {self.glyphs['none'] if count is None else count} ")
            if status == self.status_filter:
                piece.stylize(active)
            tabs.append_text(piece)
        return tabs


class AsciiBar(Bar):
    """Textual's progress bar in ASCII and without colour: ``#`` (bold) where it is filled,
    ``-`` where it is not (Textual's ``━`` tells the two apart by colour only)."""

    def __rich_console__(self, console, options):
        width = self.width or options.max_width
        start, end = (min(max(0, round(at)), width) for at in self.highlight_range)
        end = max(start, end)
        yield Text.assemble("-" * start, ("#" * (end - start), "bold"), "-" * (width - end),
                            end="")


class AsciiProgressBar(ProgressBar):
    """A :class:`ProgressBar` drawn with :class:`AsciiBar`."""

    BAR_RENDERABLE = AsciiBar


class SyncProgress(Horizontal):
    """``building the index ━━━━━╸━━━ 41,210 of 87,409 papers · 3,862/s · 12 s left``: shown
    while a sync runs, hidden otherwise (:class:`tui.progress.ProgressFigures`; ``writing the
    index`` once every paper is parsed); its bar in ASCII (``###---``) when ``ascii_only``."""

    def __init__(self, ascii_only: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.ascii_only = ascii_only
        self._label = "syncing seed files"
        self._figures = ProgressFigures(0.0)

    def compose(self) -> ComposeResult:
        yield Static("syncing seed files", id="sync-label")
        bar = AsciiProgressBar if self.ascii_only else ProgressBar
        yield bar(total=None, show_eta=False, show_percentage=False, id="sync-bar")
        yield Static(id="sync-count")

    def start(self, label: str) -> None:
        """Show the line with ``label`` and a bar that waits for the first count."""
        self._label, self._figures = label, ProgressFigures(time.monotonic())
        self.query_one("#sync-label", Static).update(Text(label, end=""))
        self.query_one("#sync-count", Static).update("")
        self.query_one(ProgressBar).update(total=None, progress=0)
        self.add_class("-active")

    def advance(self, done: int, total: int) -> None:
        """``done`` of ``total`` papers parsed (:data:`db.index.sync.Progress`)."""
        label = "writing the index" if done >= total else self._label
        self.query_one("#sync-label", Static).update(Text(label, end=""))
        self.query_one(ProgressBar).update(total=max(total, 1), progress=done)
        figures = self._figures.text(done, total, time.monotonic())
        self.query_one("#sync-count", Static).update(Text(figures, end=""))

    def stop(self) -> None:
        """Hide the line."""
        self.remove_class("-active")

    @property
    def shown(self) -> bool:
        """Whether the line is shown (a sync runs)."""
        return self.has_class("-active")
