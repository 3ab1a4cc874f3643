"""Terminal input: a bracketed paste reaches the app as one paste, never as keystrokes.

Terminals wrap pasted text in ``ESC[200~ … ESC[201~`` so that an app can tell it from typing.
Textual's input parser (8.2) mishandles an ESC *inside* a paste: it reads the ESC as the start of
an escape sequence, swallows the paste text that follows it, and replays that text as key
presses (the ESC itself as ``^``) before the paste event. Pasting ``model ESC[2J x⏎rrr ttt`` then
typed ``^[2J x``, pressed Enter (leaving the search bar) and marked three papers read and three
to-read with the replayed ``rrr ttt``.

:class:`PasteGuard` sits between the terminal and Textual's parser and removes every ESC between
the paste brackets, so the parser sees a paste with no escape sequence in it and posts a single
:class:`textual.events.Paste`; :class:`PasteSafeDriver` is Textual's Linux driver with the guard
in its input loop. The app cleans the pasted text itself (one line, no control characters).
"""

from __future__ import annotations

import os
import selectors
from codecs import getincrementaldecoder

from textual.driver import Driver

#: What the terminal sends before and after pasted text (xterm's bracketed paste mode 2004).
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
_ESC = "\x1b"


class PasteGuard:
    """Removes ESC characters from bracketed pastes in a stream of terminal input.

    :meth:`feed` takes text as it is read (a bracket may be split over two reads) and returns
    what the parser should see: everything outside pastes unchanged, the brackets kept, and the
    paste text without ESC. A possible start of the closing bracket at the end of a read is held
    back until the next read, so the parser never sees a lone ESC inside a paste.

    A paste that itself contains the closing bracket (some terminals do not filter it) is taken
    to end at the last closing bracket of the read that has no opening bracket before it, so text
    pasted after a fake ``ESC[201~`` stays paste text too.
    """

    def __init__(self) -> None:
        self.in_paste = False
        """True between an opening bracket and its closing bracket."""
        self._seen = ""  # outside a paste: the last characters passed on (a split opening bracket)
        self._held = ""  # inside a paste: a possible start of the closing bracket, not passed on

    def feed(self, data: str) -> str:
        """The part of ``data`` (the next text read) that may go to the parser now."""
        out: list[str] = []
        while data:
            if not self.in_paste:
                text = self._seen + data
                at = text.find(PASTE_START)
                if at < 0:
                    out.append(data)
                    self._seen = text[-(len(PASTE_START) - 1):]
                    break
                cut = at + len(PASTE_START) - len(self._seen)  # > 0: the bracket ends in data
                out.append(data[:cut])
                data, self._seen, self.in_paste = data[cut:], "", True
            else:
                text, self._held = self._held + data, ""
                at = _closing_bracket(text)
                if at < 0:
                    keep = _bracket_prefix(text)
                    out.append(_without_esc(text[:len(text) - keep]))
                    self._held = text[len(text) - keep:]
                    break
                out.append(_without_esc(text[:at]) + PASTE_END)
                data, self.in_paste = text[at + len(PASTE_END):], False
        return "".join(out)


def _closing_bracket(text: str) -> int:
    """Index of the closing bracket that ends the paste in ``text``, or -1."""
    at = text.find(PASTE_END)
    while at >= 0:
        after = at + len(PASTE_END)
        later_end, later_start = text.find(PASTE_END, after), text.find(PASTE_START, after)
        if later_end < 0 or 0 <= later_start < later_end:
            return at
        at = later_end  # another closing bracket follows before any paste starts: this one is text
    return -1


def _bracket_prefix(text: str) -> int:
    """Length of the longest end of ``text`` that could begin the closing bracket."""
    for size in range(min(len(PASTE_END) - 1, len(text)), 0, -1):
        if text.endswith(PASTE_END[:size]):
            return size
    return 0


def _without_esc(text: str) -> str:
    return text.replace(_ESC, "")


def paste_safe(driver_class: type[Driver]) -> type[Driver]:
    """The driver to use instead of ``driver_class``: :class:`PasteSafeDriver` in place of
    Textual's Linux driver, ``driver_class`` itself otherwise (Windows, web, a driver named in
    ``TEXTUAL_DRIVER``)."""
    if _LinuxDriver is not None and driver_class is _LinuxDriver:
        return PasteSafeDriver
    return driver_class


try:  # the Linux driver imports termios: there is none on Windows
    from textual._parser import ParseError
    from textual._xterm_parser import XTermParser  # no public way to reach the parser
    from textual.drivers.linux_driver import LinuxDriver as _LinuxDriver
except ImportError:  # pragma: no cover - Windows
    _LinuxDriver = None
else:

    class PasteSafeDriver(_LinuxDriver):
        """Textual's Linux driver whose input loop passes what it reads through a
        :class:`PasteGuard` before parsing it.

        ``run_input_thread`` follows Textual 8.2's (pinned in pyproject.toml) line for line, with
        the guard added; recheck it when the pin moves.
        """

        def run_input_thread(self) -> None:
            """Wait for input and post the events parsed from it."""
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            parser = XTermParser(self._debug)
            guard = PasteGuard()
            # errors="replace": a stray byte (a Latin-1 paste, a raw C1 byte) is one "�", never
            # a crash of the input thread
            decode = getincrementaldecoder("utf-8")(errors="replace").decode

            def process(ready: list[tuple[selectors.SelectorKey, int]],
                        final: bool = False) -> None:
                for number, (_key, mask) in enumerate(ready, 1):
                    if mask & selectors.EVENT_READ:
                        data = decode(os.read(self.fileno, 1024 * 4),
                                      final=final and number == len(ready))
                        if not data:  # stdin is a pipe that was closed
                            break
                        safe = guard.feed(data)
                        if safe:  # feed("") would tell the parser the input ended
                            for event in parser.feed(safe):
                                self.process_message(event)
                for event in parser.tick():
                    self.process_message(event)

            try:
                while not self.exit_event.is_set():
                    process(selector.select(0.1))
                selector.unregister(self.fileno)
                process(selector.select(0.1), final=True)
            finally:
                selector.close()
                try:
                    for _event in parser.feed(""):
                        pass
                except (EOFError, ParseError):
                    pass
