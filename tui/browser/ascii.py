"""The browser in plain ASCII (``papertray --ascii``, ``NO_COLOR``, a console or a locale that
cannot show Unicode): what Textual itself would draw in other characters.

papertray's own glyphs come from :data:`tui.glyphs.ASCII_GLYPHS`; Textual's box borders are
switched to its ``ascii`` border style by the ``-ascii`` class on every screen
(``papertray.tcss``); this module gives the scroll bars, the key names and the command palette.
"""

from __future__ import annotations

from rich.segment import Segment, Segments
from rich.style import Style
from textual._context import active_app
from textual.command import CommandPalette, SearchIcon
from textual.scrollbar import ScrollBar, ScrollBarRender


def _ascii_app() -> bool:
    return bool(getattr(active_app.get(None), "ascii_only", False))


class AsciiAwareScrollBarRender(ScrollBarRender):
    """Textual's scroll bar; in an ASCII-only app the thumb is ``#`` on a blank track (no
    eighth-block characters at its ends)."""

    @classmethod
    def render_bar(cls, *args, **kwargs) -> Segments:  # type: ignore[override]
        bar = super().render_bar(*args, **kwargs)
        if not _ascii_app():
            return bar
        out = []
        for segment in bar.segments:
            style = segment.style or Style()
            if (style.meta or {}).get("@mouse.down") == "grab":  # the thumb
                out.append(Segment("#" * len(segment.text),
                                   Style(meta=style.meta, color=style.color, bold=True)))
            else:
                out.append(Segment(" " * len(segment.text), style))
        return Segments(out, new_lines=bar.new_lines)


def install_scroll_bars() -> None:
    """Use :class:`AsciiAwareScrollBarRender` for every scroll bar (other apps in the process
    see Textual's own: the ASCII form applies only while an ASCII-only app is rendering)."""
    if not issubclass(ScrollBar.renderer, AsciiAwareScrollBarRender):
        ScrollBar.renderer = AsciiAwareScrollBarRender


def key_name(shown: str, key: str) -> str:
    """A key as Textual shows it (``↓``), or its name when that is not ASCII (``down``)."""
    if shown.isascii():
        return shown
    return key.replace("ctrl+", "^")


class AsciiCommandPalette(CommandPalette):
    """The command palette with ``>`` for its magnifying-glass icon and "..." for "…"."""

    def __init__(self, **kwargs) -> None:
        placeholder = kwargs.pop("placeholder", "Search for commands…").replace("…", "...")
        super().__init__(placeholder=placeholder, **kwargs)

    def on_mount(self) -> None:
        self.query_one(SearchIcon).icon = ">"
