"""One line of text that says where it is cut, in any characters."""

from __future__ import annotations

from rich.text import Text
from textual.app import RenderResult
from textual.widgets import Static

from tui.browser.display import CutText


class CutLine(Static):
    """A one-line ``Static`` whose text, cut to the widget's width, ends with ``cut_mark``
    (``...`` in an ASCII-only browser, where CSS ``text-overflow: ellipsis`` would draw
    ``…``); with ``cut_mark`` None its CSS ``text-overflow`` decides."""

    def __init__(self, cut_mark: str | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cut_mark = cut_mark

    def render(self) -> RenderResult:
        content = self.content
        if self.cut_mark is None or not isinstance(content, Text):
            return super().render()
        return CutText(content, self.cut_mark)
