"""The results table: one window of hits (at most a page), keyed by paper id, with a mark column.

What is shown and where the cursor goes is here; how the cells are drawn is
:mod:`tui.browser.widgets.fast_table`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from db.models import Hit
from db.seeds.render import render_plain
from tui.actions import TABLE_ACTIONS
from tui.browser.bindings import bindings_of
from tui.browser.display import ascii_headline, byline, plain
from tui.browser.widgets.fast_table import FastTable
from tui.glyphs import ASCII_GLYPHS

#: A ``focus`` for :meth:`ResultsTable.show_hits`: the paper under the cursor when the window
#: arrives (not when it was asked for: the reader may have moved meanwhile).
FOLLOW_CURSOR = "follow-cursor"


class ResultsTable(FastTable, inherit_bindings=False):
    """Hits of the current query, one row per paper (the row key is the paper id).

    It never holds more than ``page_size`` rows: the app gives it a window ``offset ..
    offset + page_size`` of the ``total`` hits, and the table asks for another window with
    :class:`PageWanted` when the cursor nears an edge or ``g``/``G`` leave the window.
    Cells are ``Text`` objects, because DataTable would parse a ``str`` cell as markup.
    """

    #: The default keys (``keys.toml`` may give others: :mod:`tui.keymap`).
    BINDINGS: ClassVar[list[BindingType]] = bindings_of(TABLE_ACTIONS)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "results--new", "results--to-read", "results--read", "results--dismissed", "results--id",
        "results--name", "results--tags",
    }

    class PageWanted(Message):
        """The table wants the window of hits that starts at ``offset``.

        ``focus`` is where the cursor goes once it is loaded: :data:`FOLLOW_CURSOR`, or a row
        index (``-1`` for the last row).
        """

        def __init__(self, offset: int, focus: str | int) -> None:
            super().__init__()
            self.offset = offset
            self.focus = focus

    def __init__(self, glyphs: Mapping[str, str], page_size: int, **kwargs) -> None:
        super().__init__(cursor_type="row", show_header=False, zebra_stripes=False, **kwargs)
        self.glyphs = glyphs
        if glyphs is ASCII_GLYPHS:
            self.cut_mark = glyphs["more"]
        self.page_size = page_size
        self.window_offset = 0
        """Position of the first row among all hits (``offset`` is taken by Widget)."""
        self.total = 0
        """Number of hits of the query (loaded or not)."""
        self._hits: dict[str, Hit] = {}
        self._widths: tuple[tuple[str, int], ...] = ()
        #: what the rows show (the theme, then id, name, title, headline, status and tags per
        #: row), as last filled
        self._shown: list | None = None
        self._wanted: int | None = None
        self._wanted_focus: str | int = FOLLOW_CURSOR
        self._ahead = 0  # rows the cursor still has to move once the wanted window arrives
        self.selected: frozenset[str] = frozenset()
        """Ids of the selected papers: their rows show :data:`SELECTED` before the name."""

    # -- what the app reads ------------------------------------------------------------------
    @property
    def current_id(self) -> str | None:
        """The paper id of the cursor row, or None when the table is empty."""
        if not self.row_count:
            return None
        row = min(max(self.cursor_row, 0), self.row_count - 1)
        return self.coordinate_to_cell_key((row, 0)).row_key.value

    @property
    def paper_ids(self) -> list[str]:
        """The ids of the rows, top to bottom."""
        return list(self._hits)

    @property
    def moving(self) -> bool:
        """Whether the cursor is on its way to a paper of a window not loaded yet (``g``, ``G``
        or moves past the window's edge): keys for the cursor paper (a mark) must wait for it."""
        return self._wanted is not None and (bool(self._ahead)
                                             or self._wanted_focus != FOLLOW_CURSOR)

    def hit(self, paper_id: str) -> Hit | None:
        """The hit shown in the row of ``paper_id`` (with its latest status), if any."""
        return self._hits.get(paper_id)

    # -- what the app sets -------------------------------------------------------------------
    def show_hits(self, hits: Sequence[Hit], offset: int, total: int,
                  focus: str | int | None = None, fallback: int = 0) -> None:
        """Replace the rows with ``hits`` (the window at ``offset`` of ``total``).

        The cursor goes to the paper ``focus`` (an id, or :data:`FOLLOW_CURSOR`), or to the
        row index ``focus`` (``-1`` is the last row), or to ``fallback`` when the paper is not
        in the window (for :data:`FOLLOW_CURSOR`: the row at the cursor's position).
        """
        target = None
        if focus == FOLLOW_CURSOR:  # where the cursor is now, plus moves that wait for rows
            target = self.window_offset + self.cursor_row + self._ahead
            focus = None if self._ahead else self.current_id
            fallback = target - offset
        self._ahead = 0
        self._hits = {}
        for hit in hits:  # a paper is one row even if a page were to list it twice
            self._hits.setdefault(hit.id, hit)
        self.window_offset, self.total, self._wanted = offset, total, None
        self._fill(focus, fallback)
        if target is not None and self.row_count and focus is None:
            self._move(target - (offset + self.cursor_row))  # still beyond: carry on

    def set_status(self, paper_id: str, status: str) -> None:
        """Show ``status`` in the row of ``paper_id`` (no-op when the paper is not shown)."""
        hit = self._hits.get(paper_id)
        if hit is None or hit.status == status:
            return
        self._hits[paper_id] = dataclasses.replace(hit, status=status)
        self.update_cell(paper_id, "mark", self._mark_cell(status))
        self._shown = None  # the rows differ from what the last fill drew

    def show_selection(self, selected: Iterable[str]) -> None:
        """Show the papers ``selected`` (ids) as selected, and no other."""
        before, self.selected = self.selected, frozenset(selected)
        for paper_id in (before ^ self.selected) & self._hits.keys():
            self.update_cell(paper_id, "name", self._name_cell(self._hits[paper_id]))
        self._shown = None  # the rows differ from what the last fill drew

    def row_of(self, paper_id: str) -> int | None:
        """The row index of ``paper_id``, or None."""
        return self.get_row_index(paper_id) if paper_id in self._hits else None

    def find_status(self, status: str, step: int) -> int | None:
        """The nearest row after (``step=1``) or before (``step=-1``) the cursor with ``status``."""
        ids = list(self._hits)
        row = self.cursor_row + step
        while 0 <= row < len(ids):
            if self._hits[ids[row]].status == status:
                return row
            row += step
        return None

    # -- keys --------------------------------------------------------------------------------
    def action_cursor_down(self) -> None:
        """Next paper (in the next window when this one ends)."""
        self._move(1)

    def action_cursor_up(self) -> None:
        """Previous paper (in the previous window when this one starts)."""
        self._move(-1)

    def action_page_down(self) -> None:
        """One screen of papers down."""
        self._move(max(1, self.scrollable_content_region.height))

    def action_page_up(self) -> None:
        """One screen of papers up."""
        self._move(-max(1, self.scrollable_content_region.height))

    def _move(self, rows: int) -> None:
        """Move the cursor ``rows`` down (up if negative) among all hits, not only this window.

        Moves past the window's edge wait in ``_ahead`` for the window that holds their target,
        so keys typed ahead over a slow link are never lost.
        """
        if not rows or not self.row_count:
            return
        here = self.window_offset + self.cursor_row
        target = max(0, min(here + self._ahead + rows, self.total - 1))
        row = min(max(target - self.window_offset, 0), self.row_count - 1)
        if row != self.cursor_row:
            self.move_cursor(row=row)
        self._ahead = target - (self.window_offset + row)
        if self._ahead and self._wanted is None:
            centred = target - self.page_size // 2
            self._want(max(0, min(centred, self.total - self.page_size)), FOLLOW_CURSOR)

    def action_first(self) -> None:
        """Go to the first hit (loading the first window if it is not shown)."""
        if self.window_offset == 0:
            if self.row_count:
                self.move_cursor(row=0)
        else:
            self._want(0, 0)

    def action_last(self) -> None:
        """Go to the last hit (loading the last window if it is not shown)."""
        if self.window_offset + self.row_count >= self.total:
            if self.row_count:
                self.move_cursor(row=self.row_count - 1)
        else:
            self._want(max(0, self.total - self.page_size), -1)

    @on(DataTable.RowHighlighted)
    def _slide_window(self) -> None:
        """Near an edge of the window, ask for the window centred on the cursor."""
        if self._wanted is not None or not self.row_count:
            return
        row = self.cursor_row
        # a quarter of a page: keys already on their way still find rows while it loads
        margin = max(1, self.page_size // 4)
        more_below = self.window_offset + self.row_count < self.total
        if not ((row >= self.row_count - margin and more_below)
                or (row < margin and self.window_offset > 0)):
            return
        centred = self.window_offset + row - self.page_size // 2
        start = max(0, min(centred, self.total - self.page_size))
        if start != self.window_offset:
            self._want(start, FOLLOW_CURSOR)

    def fit_page(self) -> None:
        """The page grew (a taller terminal): ask for a window of the new size around the
        cursor when the one shown is smaller and more hits are waiting (else the table ended
        above the bottom of the screen, ``G`` then a taller window: blank rows below)."""
        if (self._wanted is not None or not self.row_count
                or self.row_count >= min(self.page_size, self.total)):
            return
        centred = self.window_offset + self.cursor_row - self.page_size // 2
        self._want(max(0, min(centred, self.total - self.page_size)), FOLLOW_CURSOR)

    def _want(self, offset: int, focus: str | int) -> None:
        self._wanted, self._wanted_focus = offset, focus
        self.post_message(self.PageWanted(offset, focus))

    # -- drawing -----------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object) -> None:
        """The rows' styles are in their cells (:meth:`_cells`): drawn anew in the new theme."""
        if self.row_count:
            self._fill(self.current_id, self.cursor_row)

    def on_resize(self, event: events.Resize) -> None:
        """Fit the headline column to the new width (rebuilding the rows, keeping the cursor)."""
        if self._column_widths() != self._widths:
            self._fill(self.current_id, self.cursor_row)

    def _column_widths(self) -> tuple[tuple[str, int], ...]:
        """The columns of the window, ``(key, width)`` left to right: the mark; the name, when
        a paper of the window has no title (a title says what the name would); the tags, when
        one has tags; the title (else the headline), in the width left; and the byline (authors,
        year, venue), when one has them."""
        width = self.scrollable_content_region.width
        hits = self._hits.values()
        columns = [("mark", 1)]
        if not hits or any(not h.title for h in hits):
            columns.append(("name", max(6, min(18, width // 5))))
        tags = min(max((len(_tags_text(h)) for h in hits), default=0), width // 5)
        if tags:
            columns.append(("tags", tags))
        bylines = [byline(h, self._venues > 1) for h in hits]
        by = min(max(map(len, bylines), default=0), width // 4 if width >= 40 else 0)
        # each column has cell padding on both sides
        used = sum(w for _k, w in columns) + by + 2 * (len(columns) + 1 + bool(by)) * \
            self.cell_padding
        columns.append(("headline", max(4, width - used)))
        if by:
            columns.append(("byline", by))
        return tuple(columns)

    @property
    def _venues(self) -> int:
        """How many venues (with their year) the window's papers have: the byline names each
        paper's only when there are several."""
        return len({(h.venue, h.year) for h in self._hits.values() if h.venue})

    def _fill(self, focus: str | int | None, fallback: int) -> None:
        widths = self._column_widths()
        # the styles are in the cells: a change of theme draws them anew
        shown = [self.app.theme, *((h.id, h.name, h.title, h.headline, h.status, h.tags,
                                    h.authors, h.year, h.venue, h.id in self.selected)
                                   for h in self._hits.values())]
        if widths == self._widths and self.columns and shown == self._shown:
            pass  # the rows shown already (a key that changed no hit): nothing to draw again
        elif widths == self._widths and self.columns:
            self.clear(columns=False)
        else:  # the width changed: the columns are rebuilt to fit it
            self._widths = widths
            self.clear(columns=True)
            for key, width in widths:
                self.add_column("" if key == "mark" else key, width=width, key=key)
        if shown != self._shown or not self.row_count:
            for hit in self._hits.values():
                self.add_row(*self._cells(hit), key=hit.id)
            self._shown = shown
            self._size_rows_now()
        if not self.row_count:
            return
        if isinstance(focus, str) and focus in self._hits:
            row = self.get_row_index(focus)
        elif isinstance(focus, int):
            row = focus if focus >= 0 else self.row_count + focus
        else:
            row = fallback
        self.move_cursor(row=min(max(row, 0), self.row_count - 1), animate=False)

    def _name_cell(self, hit: Hit) -> Text:
        """The name (else the short id; nothing for a paper with a title), after
        :data:`SELECTED` when the paper is selected."""
        ascii_only = self.glyphs is ASCII_GLYPHS
        if hit.title:
            name = Text("", end="")
        elif hit.name:
            name = plain(hit.name, self._style("name"), ascii_only)
        else:
            name = plain(hit.short_id, self._style("id"), ascii_only)
        if hit.id in self.selected:
            name = Text.assemble((SELECTED, "bold reverse"), " ", name, end="")
        return name

    def _cells(self, hit: Hit) -> tuple[Text, ...]:
        """The row of ``hit``, a cell for each column of :meth:`_column_widths`."""
        ascii_only = self.glyphs is ASCII_GLYPHS
        keys = [key for key, _width in self._widths]
        cells = {"mark": self._mark_cell(hit.status)}
        cells["headline"] = plain(render_plain(hit.title, ascii_only) if hit.title else
                                  ascii_headline(hit.headline) if ascii_only else hit.headline,
                                  ascii_only=ascii_only)
        if "name" in keys:
            cells["name"] = self._name_cell(hit)
        elif hit.id in self.selected:  # (no name column: the mark goes before the title)
            cells["headline"] = Text.assemble((SELECTED, "bold reverse"), " ",
                                              cells["headline"], end="")
        if "tags" in keys:
            cells["tags"] = plain(_tags_text(hit), self._style("tags"), ascii_only)
        if "byline" in keys:
            cells["byline"] = plain(byline(hit, self._venues > 1), self._style("id"),
                                    ascii_only)
        return tuple(cells[key] for key in keys)

    def _mark_cell(self, status: str) -> Text:
        return Text(self.glyphs[status], style=self._style(status), end="")

    def _style(self, component: str) -> Style:
        # partial: only what the .tcss sets, so the cursor row keeps its own background
        return self.get_component_rich_style(f"results--{component}", partial=True)


#: What a selected row shows before its name (a character: visible without colour too).
SELECTED = "+"


def _tags_text(hit: Hit) -> str:
    """The tags column of a hit: ``#moe #rl`` ("" when it has none)."""
    return " ".join("#" + tag for tag in hit.tags)


class ResultsPane(Vertical):
    """The results table with a line above it that explains an empty result."""

    def __init__(self, table: ResultsTable, **kwargs) -> None:
        super().__init__(**kwargs)
        self.table = table

    def compose(self) -> ComposeResult:
        yield Static(id="no-results")
        yield self.table

    def show_message(self, message: Text | None) -> None:
        """Show ``message`` (e.g. "no papers match …") above the table, or hide it (None).

        Nothing is redrawn when it is hidden and stays hidden: every update lays the whole
        screen out anew, and a search that finds papers (most searches) has no message."""
        notice = self.query_one("#no-results", Static)
        if message is None and not notice.display:
            return
        notice.update(message or "")
        notice.display = message is not None
