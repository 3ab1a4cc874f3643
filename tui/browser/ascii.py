"""The browser in plain ASCII (``papertray --ascii``, ``NO_COLOR``, a console or a locale that
cannot show Unicode): what Textual itself would draw in other characters, and no colour at all
under ``NO_COLOR``.

papertray's own glyphs come from :data:`tui.glyphs.ASCII_GLYPHS`; Textual's box borders are
switched to its ``ascii`` border style by the ``-ascii`` class on every screen
(``papertray.tcss``); this module gives the scroll bars, the key names, the progress bar and the
filter that takes the colour out of every line drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from rich.segment import Segment, Segments
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter, Monochrome, NoColor
from textual.scrollbar import ScrollBar, ScrollBarRender


class AsciiScrollBarRender(ScrollBarRender):
    """Textual's scroll bar with the thumb ``#`` on a blank track (no eighth-block characters
    at its ends)."""

    @classmethod
    def render_bar(cls, *args, **kwargs) -> Segments:  # type: ignore[override]
        bar = super().render_bar(*args, **kwargs)
        out = []
        for segment in bar.segments:
            style = segment.style or Style()
            if (style.meta or {}).get("@mouse.down") == "grab":  # the thumb
                out.append(Segment("#" * len(segment.text),
                                   Style(meta=style.meta, color=style.color, bold=True)))
            else:
                out.append(Segment(" " * len(segment.text), style))
        return Segments(out, new_lines=bar.new_lines)


class _RendererOfItsApp:
    """``ScrollBar.renderer`` as each scroll bar reads it: :class:`AsciiScrollBarRender` in an
    ASCII-only app, the renderer it stands in for in any other app of the process.

    Textual reads the renderer through the scroll bar (``self.renderer``), which is what lets
    a renderer be set per scroll bar; this descriptor chooses it by the scroll bar's app."""

    def __init__(self, default: type[ScrollBarRender]) -> None:
        self.default = default

    def __get__(self, scrollbar: ScrollBar | None, owner: type) -> type[ScrollBarRender]:
        if scrollbar is not None and getattr(scrollbar.app, "ascii_only", False):
            return AsciiScrollBarRender
        return self.default


def install_scroll_bars() -> None:
    """Draw the scroll bars of ASCII-only apps with :class:`AsciiScrollBarRender` (an app that
    is not ASCII-only keeps Textual's)."""
    if not isinstance(ScrollBar.__dict__.get("renderer"), _RendererOfItsApp):
        ScrollBar.renderer = _RendererOfItsApp(ScrollBar.renderer)  # type: ignore[assignment]


def key_name(shown: str, key: str) -> str:
    """A key as Textual shows it (``↓``), or its name when that is not ASCII (``down``)."""
    if shown.isascii():
        return shown
    return key.replace("ctrl+", "^")


@lru_cache(1024)
def _colourless(style: Style) -> Style:
    return style.without_color


class NoColour(LineFilter):
    """Every segment without its colours (foreground and background), its bold, italic,
    underline and reverse kept: the terminal gets no colour code at all.

    Textual's own filter for ``NO_COLOR`` turns colours into greys, and greys are still colour
    codes (``ESC[90m``, ``ESC[100m``); papertray's cursor and focus show by reverse video and
    bold instead (``papertray.tcss``)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(text, None if style is None else _colourless(style), control)
                for text, style, control in segments]


def without_colour(filters: Sequence[LineFilter], no_colour: NoColour) -> list[LineFilter]:
    """``filters`` (an app's) with Textual's ``NO_COLOR`` filters replaced by ``no_colour``."""
    return [f for f in filters if not isinstance(f, (Monochrome, NoColor))] + [no_colour]
