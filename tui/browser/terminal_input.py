"""Terminal input, from the bytes read to Textual's events (:class:`InputPipe`).

Whatever arrives on standard input is one of: text, keys, a paste, a mouse event, a terminal's
report; or it is dropped. Nothing read ends the browser.

* **Pastes.** Terminals wrap pasted text in ``ESC[200~ … ESC[201~`` so that an app can tell it
  from typing. Textual's parser reads an ESC *inside* a paste as the start of an escape
  sequence, and the paste text after it as key presses (``r`` and ``t`` in a pasted line would
  mark papers). :class:`PasteGuard` removes every ESC between the paste brackets, so the
  parser sees a paste with no escape sequence in it and posts a single
  :class:`textual.events.Paste`; the app cleans the pasted text itself (one line, no control
  characters).
* **Esc.** ESC followed by a key in one read is the Escape key and that key, not Alt
  (:class:`EscapeKeys`).
* **Sequences no key makes.** Control strings (OSC, DCS, SOS, PM, APC: a terminal's replies,
  never a key) and escape sequences longer than Textual's parser reads are dropped whole
  (:class:`EscapeKeys`); so is a sequence that never completes (its bytes are not keys).
* **Numbers out of range.** Textual's parser raises on a number it cannot use (``chr()`` of a
  code past U+10FFFF in a keyboard-protocol key, a mouse position past a float), and a parser
  that raised is finished. :class:`InputPipe` feeds it a character at a time, drops the
  sequence that made it raise and goes on with a new parser; and it drops events with absurd
  numbers (a terminal of a billion columns, a key that is half a surrogate pair) before the app
  sees them (:func:`sane`).
"""

from __future__ import annotations

import math
import re
import time
from codecs import getincrementaldecoder
from collections.abc import Iterator

from textual import constants
from textual.events import CursorPosition, Event, Key, MouseEvent, Resize

from tui.browser.bursts import BurstWatch, TextBurst
from tui.browser.textual_private import ParseError, XTermParser

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
#: mouse, pastes, mode reports; "O" SS3: F1-F4, application cursor keys; "]" OSC and "\\" ST)
#: or a key Textual reads from ESC and one character (backspace: alt+backspace, delete a word;
#: "b" and "f": macOS Option+left/right, a word left and right): the Escape key, and then that
#: key, typed quickly. Another ESC, a letter that begins a control string with nothing after
#: it ("P", "X", "^", "_": Esc N is not alt+shift+n either) and a control key (Esc Tab is not
#: shift+tab, Esc Enter is Escape and Enter) included.
_ESCAPE_THEN_KEY_RE = re.compile("\x1b(?=[^\x08\x7f\\[\\]O\\\\bf])")

#: Textual's parser reads at most this many characters of an escape sequence, then types them
#: as keys (``textual._xterm_parser._MAX_SEQUENCE_SEARCH_THRESHOLD``).
LONGEST_SEQUENCE = 32
_STRING_BODY = "[^\x1b\x07\x9c\x18\x1a]*"
_STRING_END = "(?P<end>\x1b\\\\|[\x07\x9c\x18\x1a]|(?=\x1b)|\\Z)"
#: What is dropped from the input, whole: a control string (ESC ] P X ^ _, or their 8-bit
#: forms) up to its end (ST, BEL; CAN or SUB cancel it; another ESC cuts it short), and a CSI
#: sequence longer than :data:`LONGEST_SEQUENCE` up to its final byte. ESC and a control
#: string's letter with nothing after them are left alone: that is Esc then a key
#: (:data:`_ESCAPE_THEN_KEY_RE`). One that the end of a read cuts short goes on being dropped
#: in the next read (:data:`_REST_RE`), if that comes within the escape delay.
_DROPPED_RE = re.compile(
    f"(?P<start>\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])(?P<body>{_STRING_BODY}){_STRING_END}"
    f"|\x1b\\[[\x20-\x3f]{{{LONGEST_SEQUENCE - 2},}}(?P<final>[\x40-\x7e]|\\Z)")
#: The rest of a control string ("string") or a long CSI sequence ("csi") cut short by a read.
_REST_RE = {"string": re.compile(_STRING_BODY + _STRING_END),
            "csi": re.compile("[\x20-\x3f]*(?P<end>[\x40-\x7e]|\\Z)")}


def _without_dropped(text: str) -> tuple[str, str | None]:
    """``text`` without what :data:`_DROPPED_RE` drops, and the kind of what its end cut short
    ("string", "csi"; None if nothing)."""
    out: list[str] = []
    pos, cut = 0, None
    for match in _DROPPED_RE.finditer(text):
        out.append(text[pos:match.start()])
        pos = match.end()
        if match["start"] is None:
            cut = None if match["final"] else "csi"
        elif not match["body"] and not match["end"]:
            out.append(match[0])  # ESC P then another ESC or nothing: Esc then P, typed
        else:
            cut = "string" if not match["end"] and pos == len(text) else None
    out.append(text[pos:])
    return "".join(out), cut


class EscapeKeys:
    """Tells the Escape key from Alt in terminal input (ESC then a key, read together, is the
    Escape key and the key), and drops what an ESC begins that is no key
    (:data:`_DROPPED_RE`).

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
        self._cut: tuple[str, float] | None = None  # what the last read cut short, and when

    def feed(self, text: str, now: float) -> list[str | None]:
        """The pieces of ``text`` for the parser, in order, with None where the Escape key goes."""
        if self._cut is not None:
            (kind, since), self._cut = self._cut, None
            if now - since <= constants.ESCAPE_DELAY:
                rest = _REST_RE[kind].match(text)
                assert rest is not None  # (every part of the pattern may be empty)
                text = text[rest.end():]
                if not rest["end"] and not text:
                    self._cut = (kind, now)
                    return []
        if self._held_since is not None:
            self._held_since = None
            text = "\x1b" + text
        last_esc = text.endswith("\x1b")  # it may begin a sequence that the next read completes
        text, cut = _without_dropped(text[:-1] if last_esc else text)
        if cut is not None:
            self._cut = (cut, now)
        out: list[str | None] = []
        for i, piece in enumerate(_ESCAPE_THEN_KEY_RE.split(text)):
            if i:
                out.append(None)
            if piece:
                out.append(piece)
        if last_esc:
            self._held_since = now
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


#: A whole CSI sequence, to its final byte; not ``CSI M``, the start of an X10 mouse report
#: (three characters follow).
_WHOLE_CSI_RE = re.compile("\x1b\\[(?:[\x20-\x3f]+[\x40-\x7e]|[\x40-\x4c\x4e-\x7e])")


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


#: The largest terminal papertray believes in, in cells and in pixels: a size or a position
#: past these is a hostile or broken report (Textual would lay out a billion columns).
MOST_CELLS = 10_000
MOST_PIXELS = 1_000_000


def sane(event: Event) -> bool:
    """Whether ``event`` may reach the app: a size or a position inside :data:`MOST_CELLS` (and
    :data:`MOST_PIXELS`), a key whose name and character can be drawn and written (no half of a
    surrogate pair, no control character for a name: what a keyboard-protocol code past the
    keys makes)."""
    if isinstance(event, Resize):
        pixels = event.pixel_size or (0, 0)
        return (_within(*event.size, most=MOST_CELLS, least=1)
                and _within(*pixels, most=MOST_PIXELS))
    if isinstance(event, MouseEvent):
        return _within(event.x, event.y, event.screen_x, event.screen_y, most=MOST_CELLS)
    if isinstance(event, CursorPosition):
        return _within(event.x, event.y, most=MOST_CELLS)
    if isinstance(event, Key):
        text = event.key + (event.character or "")
        return _encodable(text) and not any(c < " " or "\x7f" <= c < "\xa0" for c in event.key)
    return True


def _within(*numbers: float, most: int, least: int = 0) -> bool:
    return all(math.isfinite(n) and least <= n <= most for n in numbers)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class InputPipe:
    """Bytes read from the terminal to Textual events, in order: decoded as UTF-8 (a stray
    byte, a Latin-1 paste or a raw C1 byte, is one "\ufffd", never a crash of the input thread),
    through a :class:`PasteGuard` and :class:`EscapeKeys`, then Textual's parser, then
    :func:`sane`; a read that is part of a burst of text becomes one event
    (:class:`~tui.browser.bursts.BurstWatch`).

    The parser gets one character at a time: when it raises (on a number out of range), the
    characters of the sequence it was reading are dropped, a new parser takes over at the next
    character, and the sequence is counted in :attr:`dropped`. A sequence that never completes
    (the parser gives it up after its escape delay) is dropped too: its characters are no keys.
    """

    def __init__(self, debug: bool = False) -> None:
        self._debug = debug
        self.parser = XTermParser(debug)
        self.guard = PasteGuard()
        self.escapes = EscapeKeys()
        self.bursts = BurstWatch()
        self.decode = getincrementaldecoder("utf-8")(errors="replace").decode
        #: Sequences dropped because the parser raised on them (for the tests and the log).
        self.dropped = 0

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
            else:
                yield from self._parse(piece)

    def _parse(self, text: str) -> Iterator[Event]:
        """The sane events the parser makes of ``text`` (never "": that ends its input).

        A whole CSI sequence (to its final byte) that made no event leaves a new parser: Textual's
        parser knows no final byte, and reads on into the keys typed after a sequence it does
        not know (``CSI 8;rows;cols t``). The opening paste bracket is the one it keeps state for.
        """
        ends = {match.end() - 1 for match in _WHOLE_CSI_RE.finditer(text)
                if match[0] != PASTE_START}
        made = 0  # events made since the last sequence began
        for at, character in enumerate(text):
            if character == "\x1b":
                made = 0
            try:
                events = list(self.parser.feed(character))
            except Exception:  # any failure of the parser drops one sequence
                self.dropped += 1
                self.parser = XTermParser(self._debug)
                continue
            made += len(events)
            if at in ends and not made:
                self.parser = XTermParser(self._debug)
            for event in events:
                if sane(event):
                    yield event

    def tick(self) -> Iterator[Event]:
        """The events due with no new bytes: a lone ESC that waited the escape delay. What the
        parser gives up waiting for (a sequence cut short) is dropped, not typed as keys."""
        if self.escapes.due(time.monotonic()):
            yield Key("escape", "\x1b")
        try:
            for _given_up in self.parser.tick():
                pass
        except Exception:  # as in _parse
            self.dropped += 1
            self.parser = XTermParser(self._debug)

    def wait(self, longest: float) -> float:
        """Seconds to wait for input, at most ``longest`` (less while an ESC is held)."""
        return self.escapes.wait(longest, time.monotonic())

    def close(self) -> None:
        """Tell the parser the input ended."""
        try:
            for _event in self.parser.feed(""):
                pass
        except (EOFError, ParseError):
            pass


