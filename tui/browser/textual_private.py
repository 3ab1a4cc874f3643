"""Every private Textual name the browser uses, each with why, and the Textual version it was
checked against. Everything else in papertray uses Textual's public API.

Two are imported here and used from here (the terminal's input parser). The others are
methods papertray's subclasses override, or attributes they read, where Textual offers no
public hook: each is listed in :data:`PRIVATE_NAMES`, and ``tests/test_textual_private.py``
fails when one is gone from the installed Textual. Recheck them all when the Textual pin in
pyproject.toml moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual._parser import ParseError
from textual._xterm_parser import XTermParser

__all__ = ["PRIVATE_NAMES", "RUN_INPUT_THREAD_SHA256", "ParseError", "Private", "XTermParser"]

#: The Textual version every name below was checked against (pyproject.toml pins 8.2.x).
CHECKED = "8.2.8"


@dataclass(frozen=True, slots=True)
class Private:
    """``owner.name``: a private name of Textual (``owner`` a module or a class, dotted), the
    Textual version it was checked against, and why papertray needs it."""

    owner: str
    name: str
    why: str
    checked: str = CHECKED


_DRIVER = "textual.drivers.linux_driver.LinuxDriver"
_TABLE = "textual.widgets.DataTable"
_TABLE_DRAWS = "FastTable draws one-line Text cells without Rich's render pipeline: "

PRIVATE_NAMES: tuple[Private, ...] = (
    # -- the terminal's input and output (tui.browser.terminal) --------------------------------
    Private("textual._xterm_parser", "XTermParser",
            "the input parser PasteSafeDriver feeds itself: no public hook sits before it"),
    Private("textual._parser", "ParseError",
            "what that parser raises when the input ends in the middle of a sequence"),
    Private(_DRIVER, "_file",
            "the terminal's output stream, wrapped so that a dead terminal ends the app"),
    Private(_DRIVER, "_sigcont_application",
            "SIGCONT's handler, overridden to resume only after a suspension"),
    # -- screens that close once (tui.browser.closing) ------------------------------------------
    Private("textual.message_pump.MessagePump", "_on_message",
            "overridden by ClosesOnce: the one method every message to a screen goes through "
            "before its handlers, where input to a closed screen is dropped"),
    # -- the results table's drawing (tui.browser.widgets.fast_table) --------------------------
    Private(_TABLE, "_render_cell", _TABLE_DRAWS + "one cell, overridden"),
    Private(_TABLE, "_render_line_in_row", _TABLE_DRAWS + "one row line, overridden"),
    Private(_TABLE, "_get_styles_to_render_cell", _TABLE_DRAWS + "a cell's cursor styles"),
    Private(_TABLE, "_get_row_style", _TABLE_DRAWS + "a row's style"),
    Private(_TABLE, "_should_highlight", _TABLE_DRAWS + "whether the cursor is on a cell"),
    Private(_TABLE, "_row_locations", _TABLE_DRAWS + "the row key of a row index"),
    Private(_TABLE, "_column_locations", _TABLE_DRAWS + "the column key of a column index"),
    Private(_TABLE, "_data", _TABLE_DRAWS + "a cell's value"),
    Private(_TABLE, "_update_count", _TABLE_DRAWS + "part of the key of a drawn cell"),
    Private(_TABLE, "_pseudo_class_state", _TABLE_DRAWS + "part of the key of a drawn cell"),
    Private(_TABLE, "_show_hover_cursor", _TABLE_DRAWS + "whether the hover row is drawn"),
    Private(_TABLE, "_labelled_row_exists", _TABLE_DRAWS + "rows with labels go to DataTable"),
    Private(_TABLE, "_row_label_column_width", _TABLE_DRAWS + "the width left for a row"),
    Private(_TABLE, "_cell_render_cache", _TABLE_DRAWS + "drawn cells, kept as DataTable does"),
    Private(_TABLE, "_row_render_cache", _TABLE_DRAWS + "drawn rows, kept as DataTable does"),
    Private(_TABLE, "_row_renderable_cache", "emptied by FastTable._clear_caches"),
    Private(_TABLE, "_line_cache", "emptied by FastTable._clear_caches"),
    Private(_TABLE, "_offset_cache", "emptied by FastTable._clear_caches"),
    Private(_TABLE, "_ordered_row_cache", "emptied by FastTable._clear_caches"),
    Private(_TABLE, "_clear_caches",
            "overridden to free the cached lines now, not in a full garbage collection"),
    Private("textual.cache.LRUCache", "_cache",
            "the entries of a cache, freed one by one by FastTable._clear_caches"),
    Private(_TABLE, "_update_dimensions",
            "overridden: rows of fixed-width columns are not measured one by one"),
    Private(_TABLE, "_require_update_dimensions",
            "the table's size is worked out as the rows are added, not in a second frame"),
    Private(_TABLE, "_new_rows", "the rows added since the table's size was worked out"),
    Private(_TABLE, "_total_row_height", "the table's height, for its virtual size"),
    # -- one layout per keystroke (tui.browser.widgets) ----------------------------------------
    Private("textual.widget.Widget", "_size_updated",
            "the abstract's text takes its new size without a second layout"),
    Private("textual.widgets.Footer", "_bindings_ready",
            "set as Footer.bindings_changed sets it, by the footer that rebuilds once a frame"),
)

#: SHA-256 of the source of ``LinuxDriver.run_input_thread`` in Textual :data:`CHECKED`, which
#: ``PasteSafeDriver.run_input_thread`` follows line for line (with the paste guard and the
#: end of input added): a change in Textual's is a change to carry over.
RUN_INPUT_THREAD_SHA256 = "d796af6d69db337d6fa6bd463984f7d17188d991dbb22f60efb92a8a9619507c"
