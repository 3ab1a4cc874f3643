"""Terminal input: a bracketed paste reaches the app as one paste, never as keystrokes.

Terminals wrap pasted text in ``ESC[200~ … ESC[201~`` so that an app can tell it from typing.
Textual's input parser reads an ESC *inside* a paste as the start of an escape sequence, and the
paste text after it as key presses (``r`` and ``t`` in a pasted line would mark papers).

:class:`PasteGuard` sits between the terminal and Textual's parser and removes every ESC between
the paste brackets, so the parser sees a paste with no escape sequence in it and posts a single
:class:`textual.events.Paste`; :class:`PasteSafeDriver` is Textual's Linux driver with the guard
in its input loop. The app cleans the pasted text itself (one line, no control characters).
ESC followed by a key in one read is the Escape key and that key (:class:`EscapeKeys`), not Alt.
A paste the terminal does not bracket comes as a burst of text (:mod:`tui.browser.bursts`).

Terminal output and a terminal that goes away: a dropped SSH connection, a closed window or a
killed tmux hangs the terminal up. Its reads then return nothing (or EIO), its writes fail with
EIO, and the kernel sends SIGCONT with the hang-up. Textual's driver keeps reading, its writer
thread stops at the first failed write (the app's thread then blocks on the writer's full
queue, and no signal is handled), and it sets the terminal up again at any SIGCONT.
:class:`PasteSafeDriver` (the driver the browser uses on Linux and macOS) ends its input loop
and asks the app to exit when the input ends, writes through a :class:`TerminalOutput` that
drops everything after the first failed write (and asks the app to exit too), and resumes at
SIGCONT only after a suspension. The app's exit then runs as at ``q``: queued marks are
written, the library closed; nothing is written to the dead terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import selectors
import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING

from textual import constants
from textual.driver import Driver
from textual.events import Event, Key

from tui.browser.bursts import READ_SIZE, BurstWatch, TextBurst
from tui.browser.textual_private import ParseError, XTermParser

if TYPE_CHECKING:
    from textual.app import App

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


#: ESC followed by anything but what begins a sequence a terminal sends as input ("[" CSI: arrows,
#: mouse, pastes, mode reports; "O" SS3: F1-F4, application cursor keys; "]" OSC and "\\" ST:
#: colour reports) or a key Textual reads from ESC and one character (backspace: alt+backspace,
#: delete a word; "b" and "f": macOS Option+left/right, a word left and right): the Escape key,
#: and then that key, typed quickly. Another ESC, a letter of SS2/SOS/DCS/PM/APC ("N", "X", "P",
#: "^", "_": no terminal sends those as input; Esc N is not alt+shift+n) and a control key (Esc
#: Tab is not shift+tab, Esc Enter is Escape and Enter) included.
_ESCAPE_THEN_KEY_RE = re.compile("\x1b(?=[^\x08\x7f\\[\\]O\\\\bf])")


class EscapeKeys:
    """Tells the Escape key from Alt in terminal input: ESC then a key, read together, is the
    Escape key and the key.

    A terminal sends Alt+j as ESC j, so Textual's parser reads ESC and j arriving within its
    escape delay as alt+j; but over SSH, Escape then ``j`` typed quickly come in one read as
    well, and they are two keys (the note editor closes, the table moves). papertray binds
    no Alt key, so :meth:`feed` splits the
    text at an ESC followed by a key (:data:`_ESCAPE_THEN_KEY_RE`) and the driver posts the
    Escape key there itself. An ESC that ends a read is held back (the next read may start an
    escape sequence: an arrow key split in two) and is the Escape key once the next read
    starts with a key or :data:`textual.constants.ESCAPE_DELAY` passes with nothing read
    (:meth:`due`), as Textual's parser decides for a lone ESC.
    """

    def __init__(self) -> None:
        self._held_since: float | None = None  # monotonic time of a held ESC, or None

    def feed(self, text: str, now: float) -> list[str | None]:
        """The pieces of ``text`` for the parser, in order, with None where the Escape key goes."""
        if self._held_since is not None:
            self._held_since = None
            text = "\x1b" + text
        out: list[str | None] = []
        for i, piece in enumerate(_ESCAPE_THEN_KEY_RE.split(text)):
            if i:
                out.append(None)
            if piece:
                out.append(piece)
        last = out[-1] if out else None
        if last is not None and last.endswith("\x1b"):
            self._held_since = now  # it may begin a sequence that the next read completes
            out[-1] = last[:-1]
            if not out[-1]:
                out.pop()
        return out

    def due(self, now: float) -> bool:
        """True (once) when the held ESC has waited the escape delay: it is the Escape key."""
        if self._held_since is None or now - self._held_since < constants.ESCAPE_DELAY:
            return False
        self._held_since = None
        return True

    def wait(self, longest: float, now: float) -> float:
        """Seconds the input loop may wait for input before :meth:`due` must be asked."""
        if self._held_since is None:
            return longest
        return max(0.0, min(longest, self._held_since + constants.ESCAPE_DELAY - now))


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


class TerminalOutput:
    """The terminal's output stream (``sys.__stderr__`` for Textual) for a terminal that may
    go away: the first ``write`` or ``flush`` that fails (``OSError``: EIO once the terminal is
    hung up, EPIPE; ``ValueError``: the stream was closed) calls ``on_gone`` (once, in the
    writing thread) and every later write is dropped, so Textual's writer thread keeps
    draining its queue (a full queue would block the app's thread) and nothing more reaches
    the dead terminal. Anything else (``fileno``, ``isatty``...) is the stream's own.
    """

    def __init__(self, stream: IO[str], on_gone: Callable[[], None]) -> None:
        self._stream = stream
        self._on_gone = on_gone
        #: True once a write or flush has failed: the terminal is gone for good.
        self.gone = False

    def write(self, text: str) -> int:
        """Write ``text``; returns its length in characters, written or dropped."""
        if not self.gone:
            try:
                self._stream.write(text)
            except (OSError, ValueError):
                self._lost()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._lost()

    def _lost(self) -> None:
        self.gone = True
        self._on_gone()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def paste_safe(driver_class: type[Driver]) -> type[Driver]:
    """The driver to use instead of ``driver_class``: :class:`PasteSafeDriver` in place of
    Textual's Linux driver, ``driver_class`` itself otherwise (Windows, web, a driver named in
    ``TEXTUAL_DRIVER``)."""
    if _LinuxDriver is not None and driver_class is _LinuxDriver:
        return PasteSafeDriver
    return driver_class


class InputPipe:
    """Bytes read from the terminal to Textual events, in order: decoded as UTF-8 (a stray
    byte, a Latin-1 paste or a raw C1 byte, is one "\ufffd", never a crash of the input thread),
    through a :class:`PasteGuard` and :class:`EscapeKeys`, then Textual's parser; a read that
    is part of a burst of text becomes one event (:class:`~tui.browser.bursts.BurstWatch`)."""

    def __init__(self, parser: XTermParser) -> None:
        self.parser = parser
        self.guard = PasteGuard()
        self.escapes = EscapeKeys()
        self.bursts = BurstWatch()
        self.decode = getincrementaldecoder("utf-8")(errors="replace").decode

    def feed(self, raw: bytes, final: bool = False, now: float | None = None) -> Iterator[Event]:
        """The events of ``raw`` (``final``: the last bytes the terminal will send; ``now``:
        when they were read, monotonic seconds, by default now): one
        :class:`~tui.browser.bursts.TextBurst` holding them when ``raw`` is part of a burst of
        text (a paste the terminal did not bracket, or keys typed ahead)."""
        data = self.decode(raw, final=final)
        at = time.monotonic() if now is None else now
        burst = self.bursts.burst_of(data, len(raw), at, self.guard.in_paste)
        if burst is None:
            yield from self._events(data, at)
        else:
            yield TextBurst(burst.text, list(self._events(data, at)), burst.number)
        self.bursts.done(time.monotonic() if now is None else now)  # once they were posted

    def _events(self, data: str, now: float) -> Iterator[Event]:
        for piece in self.escapes.feed(self.guard.feed(data), now):
            if piece is None:
                yield Key("escape", "\x1b")
            else:  # (never ""; feed("") would tell the parser the input ended)
                yield from self.parser.feed(piece)

    def tick(self) -> Iterator[Event]:
        """The events due with no new bytes: a lone ESC that waited the escape delay, and
        what the parser holds for its own timeouts."""
        if self.escapes.due(time.monotonic()):
            yield Key("escape", "\x1b")
        yield from self.parser.tick()

    def wait(self, longest: float) -> float:
        """Seconds to wait for input, at most ``longest`` (less while an ESC is held)."""
        return self.escapes.wait(longest, time.monotonic())

    def close(self) -> None:
        """Tell the parser the input ended."""
        with contextlib.suppress(EOFError, ParseError):
            for _event in self.parser.feed(""):
                pass


try:  # the Linux driver imports termios: there is none on Windows
    from textual.drivers.linux_driver import LinuxDriver as _LinuxDriver
except ImportError:  # pragma: no cover - Windows
    _LinuxDriver = None
else:

    class PasteSafeDriver(_LinuxDriver):
        """Textual's Linux driver whose input loop passes what it reads through a
        :class:`PasteGuard` before parsing it, and that lets the app exit when its terminal
        goes away (see the module's notes): the input ends (a read returns no bytes or
        fails), or a write fails. A SIGCONT resumes only a driver that was suspended.

        ``run_input_thread`` follows Textual's loop step for step, with the bytes read going
        through an :class:`InputPipe` and the end of input added
        (:data:`~tui.browser.textual_private.RUN_INPUT_THREAD_SHA256`).
        """

        def __init__(self, app: App, *, debug: bool = False, **kwargs) -> None:
            super().__init__(app, debug=debug, **kwargs)
            self._exit_app = getattr(app, "exit_in_turn", app.exit)  # after the keys read
            self._app_loop = asyncio.get_running_loop()  # the app's: exits are asked from threads
            self._parser_debug = debug
            self._file = TerminalOutput(self._file, self._terminal_gone)  # (textual_private)
            self._gone = threading.Event()
            self._suspended = False

        @property
        def terminal_gone(self) -> bool:
            """True once the terminal went away (its input ended or a write to it failed)."""
            return self._gone.is_set()

        def _terminal_gone(self) -> None:
            """Ask the app to exit, once, from any thread: the terminal went away."""
            if self._gone.is_set():
                return
            self._gone.set()
            with contextlib.suppress(RuntimeError):  # a closed loop: the app has ended
                self._app_loop.call_soon_threadsafe(self._exit_app)

        def suspend_application_mode(self) -> None:
            self._suspended = True
            super().suspend_application_mode()

        def resume_application_mode(self) -> None:
            self._suspended = False
            super().resume_application_mode()

        def _sigcont_application(self, *_args) -> None:  # (textual_private)
            """SIGCONT: resume only after a suspension (SIGTSTP, ``ctrl+z``), never on a dead
            terminal. The kernel sends SIGCONT with every hang-up."""
            if self._suspended and not self.terminal_gone:
                super()._sigcont_application()

        def run_input_thread(self) -> None:
            """Wait for input and post the events parsed from it."""
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            pipe = InputPipe(XTermParser(self._parser_debug))
            try:
                while not self.exit_event.is_set():
                    if not self._post_ready(pipe, selector.select(pipe.wait(0.1))):
                        return  # no more input will ever come: no loop on empty reads
                selector.unregister(self.fileno)
                self._post_ready(pipe, selector.select(0.1), final=True)
            finally:
                selector.close()
                pipe.close()

        def _post_ready(self, pipe: InputPipe, ready: list[tuple[selectors.SelectorKey, int]],
                        final: bool = False) -> bool:
            """Read what is ready, post its events; False once the input has ended."""
            for number, (_key, mask) in enumerate(ready, 1):
                if not mask & selectors.EVENT_READ:
                    continue
                try:
                    raw = os.read(self.fileno, READ_SIZE)
                except BlockingIOError:
                    continue
                except OSError:  # EIO: the terminal was hung up
                    raw = b""
                if not raw:  # the terminal is gone (or stdin was a closed pipe)
                    self._terminal_gone()
                    return False
                for event in pipe.feed(raw, final=final and number == len(ready)):
                    self.process_message(event)
            for event in pipe.tick():
                self.process_message(event)
            return True
