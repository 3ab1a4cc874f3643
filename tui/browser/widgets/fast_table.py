"""A DataTable that draws its cells cheaply: the results table's drawing, apart from its window
of hits.

Textual's DataTable renders each cell through Rich (``Styled(Padding(cell))`` and
``Console.render_lines``: about 0.1 ms a cell, 10-15 ms for a 37-row screen at each keystroke)
and measures every cell of every new row (``Text.__rich_measure__``) only to size columns that
have fixed widths here. :class:`FastTable` gives the same segments for one-line ``Text`` cells
in fixed-width columns (tests/test_table_drawing.py compares them with DataTable's own) and
falls back to DataTable for anything else (a header, row labels, fixed rows or columns,
auto-width columns or rows taller than one line). The private names of DataTable it uses are
listed in :mod:`tui.browser.textual_private`.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.coordinate import Coordinate
from textual.geometry import Size
from textual.widgets import DataTable

from tui.browser.display import cut

#: DataTable's LRU caches that its ``_clear_caches`` empties (tui.browser.textual_private).
_CLEARED_CACHES = ("_row_render_cache", "_cell_render_cache", "_row_renderable_cache",
                   "_line_cache", "_offset_cache", "_ordered_row_cache")


class FastTable(DataTable):
    """DataTable with cheaper drawing for one-line ``Text`` cells in fixed-width columns."""

    #: What ends a one-line cell cut to its column: None for the cell's own ``overflow``
    #: (Rich's "…" for "ellipsis"), else this text (``...`` in an ASCII-only browser).
    cut_mark: str | None = None

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._cell_styles: dict[tuple, Style] = {}  # see _render_cell

    def _size_rows_now(self) -> None:
        """Work out the table's size for the rows just added now, not when the table next
        idles (as DataTable does): the rows and the layout they need are drawn in one frame."""
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            new_rows = set(self._new_rows)
            self._new_rows.clear()
            self._update_dimensions(new_rows)

    def _render_cell(self, row_index: int, column_index: int, base_style: Style, width: int,
                     cursor: bool = False, hover: bool = False) -> list[list[Segment]]:
        """One cell as one line of segments, ``width`` cells wide (padding included)."""
        flags = self._lines_flags or self._flags()
        fixed_rows, fixed_columns, padding, show_cursor, show_hover, fg_css, bg_css = flags
        if row_index < 0 or column_index < 0 or fixed_rows or fixed_columns:
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        row_key = self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        key = (row_key, column_key, base_style, cursor, hover, show_hover,
               self._update_count, self._pseudo_class_state)
        lines = self._cell_render_cache.get(key)
        if lines is not None:
            return lines
        cell = self._data[row_key].get(column_key)
        row = self.rows[row_key]
        if not isinstance(cell, Text) or row.height != 1 or "\n" in cell.plain:
            return super()._render_cell(row_index, column_index, base_style, width, cursor,
                                        hover)
        component, post = self._get_styles_to_render_cell(
            False, False, False, hover, cursor, show_cursor, show_hover, fg_css, bg_css)
        # the same cell position and styles at every keystroke: composed once
        style_key = (row_index, column_index, base_style, component)
        pre = self._cell_styles.get(style_key)
        if pre is None:
            if len(self._cell_styles) > 4096:
                self._cell_styles.clear()
            pre = base_style + Style.from_meta({"row": row_index, "column": column_index})
            pre = self._cell_styles[style_key] = pre + component
        console = self.app.console
        pad = padding
        inner = max(0, width - 2 * pad)
        text = cell.plain
        if "\t" not in text and len(text) <= inner and cell.cell_len <= inner:
            line = cell  # fits: Text.wrap would give it back as it is
        elif self.cut_mark is not None and "\t" not in text:
            line = cut(cell, inner, self.cut_mark)
        else:  # as Text.__rich_console__ cuts a line that may not wrap (justify and overflow
            # as DataTable's console options leave them: Rich's defaults)
            line = cell.wrap(console, inner, justify=cell.justify or "default",
                             overflow=cell.overflow or "fold", no_wrap=True)[0]
        if not line.plain:
            segments = []
        elif line.spans:
            segments = list(line.render(console))
        else:  # Text.render drops the base style of a Text without spans
            segments = [Segment(line.plain, console.get_style(line.style) if line.style else None)]
        segments = Segment.adjust_line_length(segments, inner)
        if pad:
            segments = [Segment(" " * pad), *segments, Segment(" " * pad)]
        lines = [list(Segment.apply_style(segments, style=pre, post_style=post))]
        self._cell_render_cache[key] = lines
        return lines

    def _render_line_in_row(self, row_key, line_no: int, base_style: Style,
                            cursor_location: Coordinate, hover_location: Coordinate):
        """DataTable's row line for a data row with a row cursor, no row labels and no fixed
        columns, without the header and background styles (computed for every row by
        DataTable, used there only by labels and other cursor types)."""
        row_index = self._row_locations.get(row_key)
        if (row_index is None or self.cursor_type != "row" or self.fixed_columns
                or (self._labelled_row_exists and self.show_row_labels)):
            return super()._render_line_in_row(row_key, line_no, base_style, cursor_location,
                                               hover_location)
        key = (row_key, line_no, base_style, cursor_location, hover_location, "row",
               self.show_cursor, self._show_hover_cursor, self._update_count,
               self._pseudo_class_state)
        cached = self._row_render_cache.get(key)
        if cached is not None:
            return cached
        highlight = self._should_highlight
        row_style = self._get_row_style(row_index, base_style)
        cells = []
        table_width = 0
        for column_index, column in enumerate(self.ordered_columns):
            width = column.get_render_width(self)
            table_width += width
            location = Coordinate(row_index, column_index)
            cells.append(self._render_cell(
                row_index, column_index, row_style, width,
                cursor=highlight(cursor_location, location, "row"),
                hover=highlight(hover_location, location, "row"))[line_no])
        extend, _ = self._get_styles_to_render_cell(
            False, False, False, highlight(hover_location, Coordinate(row_index, 0), "row"),
            row_index == cursor_location.row, self.show_cursor, self._show_hover_cursor,
            False, False)
        extend = row_style + extend + Style.from_meta(
            {"row": row_index, "column": 0, "out_of_bounds": True})
        remaining = max(0, self.size.width - table_width - self._row_label_column_width)
        cells.append([Segment(" " * remaining, extend)])
        pair = ([], cells)
        self._row_render_cache[key] = pair
        return pair

    @property
    def rich_style(self) -> Style:
        """The widget's style (DOMNode's, worked out from its ancestors' CSS: kept for the
        lines of one :meth:`render_lines`, as DataTable asks for it at every line)."""
        style = self._lines_style
        return style if style is not None else super().rich_style

    _lines_style: Style | None = None
    _lines_flags: tuple | None = None

    def _flags(self) -> tuple:
        """The reactive attributes a cell's drawing reads (each read of a reactive costs
        about as much as the rest of an unchanged cell)."""
        return (self.fixed_rows, self.fixed_columns, self.cell_padding, self.show_cursor,
                self._show_hover_cursor, self.cursor_foreground_priority == "css",
                self.cursor_background_priority == "css")

    def render_lines(self, crop):
        self._lines_style = self._lines_flags = None
        self._lines_style, self._lines_flags = self.rich_style, self._flags()
        try:
            return super().render_lines(crop)
        finally:
            self._lines_style = self._lines_flags = None

    def _clear_caches(self) -> None:
        """DataTable's caches emptied, their entries freed now rather than by the cyclic
        garbage collector.

        An ``LRUCache`` keeps its entries in a ring of lists that ``clear()`` leaves behind
        as cyclic garbage, rendered cells and lines included: about 2,500 objects at each
        keystroke, which made Python's full collection (50-60 ms, on whichever keystroke it
        fell) come every ten keys or so. Breaking the ring lets reference counting free them.
        """
        for name in _CLEARED_CACHES:  # the ones DataTable._clear_caches empties
            cache = getattr(self, name, None)
            if isinstance(cache, LRUCache):
                for entry in getattr(cache, "_cache", {}).values():
                    entry.clear()
        super()._clear_caches()

    def _update_dimensions(self, new_rows) -> None:
        """The table's virtual size; new rows are not measured when no column fits its
        content and every row is one line (the columns' widths are set by :meth:`_fill`)."""
        if (any(column.auto_width for column in self.columns.values())
                or any(row.height != 1 or row.label is not None for row in self.rows.values())):
            super()._update_dimensions(new_rows)
            return
        width = sum(column.get_render_width(self) for column in self.columns.values())
        self.virtual_size = Size(width + self._row_label_column_width,
                                 self._total_row_height
                                 + (self.header_height if self.show_header else 0))
