"""The terminal: its input through :class:`~tui.browser.terminal_input.InputPipe` (pastes,
Esc, hostile bytes), its output through :class:`TerminalOutput`, in :class:`PasteSafeDriver`,
Textual's Linux driver with both. A paste the terminal does not bracket comes as a burst of
text (:mod:`tui.browser.bursts`).

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

An event the app fails to take (its loop closed as it exits) is dropped; the input loop goes
on. Should the loop itself fail, Textual's driver ends the app with ``App.panic``, which the
browser turns into exit status 1 (:meth:`tui.browser.app.PapertrayApp.panic`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import subprocess
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from textual.driver import Driver
from textual.message import Message

from tui.browser.bursts import READ_SIZE
from tui.browser.terminal_input import (
    PASTE_END,
    PASTE_START,
    EscapeKeys,
    InputPipe,
    PasteGuard,
)

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["PASTE_END", "PASTE_START", "EscapeKeys", "InputPipe", "PasteGuard", "PasteSafeDriver",
           "TerminalOutput", "paste_safe"]

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
            pipe = InputPipe(self._parser_debug)
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
                    self._post(event)
            for event in pipe.tick():
                self._post(event)
            return True

        def _post(self, event: Message) -> None:
            """Post ``event`` to the app; one the app cannot take now (its loop is closing as
            it exits) is dropped, and the input loop goes on."""
            try:
                self.process_message(event)
            except Exception:  # the input thread must outlive any one event
                return


#: What makes tmux pass a program's OSC 52 on (its default, ``external``, keeps it).
TMUX_HINT = "for tmux to pass it on: set -g set-clipboard on"


def clipboard_hint(in_web_page: bool) -> str:
    """What the reader must do for a copy to reach the clipboard where it is known not to:
    inside tmux (``$TMUX``) whose ``set-clipboard`` is not ``on`` or cannot be read (``tmux show
    -gv set-clipboard``, asked at each copy: one short process). "" elsewhere, and in the web
    page of ``papertray serve``, whose terminal takes OSC 52 itself."""
    if in_web_page or not os.environ.get("TMUX"):
        return ""
    try:
        answer = subprocess.run(["tmux", "show", "-gv", "set-clipboard"], capture_output=True,
                                text=True, timeout=2, stdin=subprocess.DEVNULL).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        answer = ""
    return "" if answer == "on" else TMUX_HINT
