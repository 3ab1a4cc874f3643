"""Unbracketed pastes: text that arrives in one burst with a line break in it.

A terminal that does not bracket pastes (or ``tmux paste-buffer`` without ``-p``) sends pasted
text as if it were typed: the line breaks in ``graph neural⏎networks⏎rrrtttq`` would be Enter
and the letters after them the table's keys. Typing sends a key at a time; text with a line
break (or a tab) and a word, read at once, is a paste, or keys typed ahead over a slow link;
Enter and a few keys after it (:data:`KEYS_AFTER_ENTER`) are keys.

:class:`BurstWatch` looks at each read of the terminal's input (in the input thread) and
numbers the reads that may be a paste: text only (no ESC, no control key but line breaks and
tabs), holding a line break or a tab and a word (or :data:`LONG_READ` bytes of it), read
outside a bracketed paste and after no unfinished escape sequence. The reads that follow it at
once (within :data:`BURST_GAP_S` of the end of handling it: the terminal's buffer holds 4 KiB
or less, and a long paste waits in pieces behind it) are the rest of the same burst, whatever
they hold. Each such read reaches the app as a :class:`TextBurst` with its text and its keys,
and the app, which knows where the keyboard is, takes a burst as search text when the search
bar has it as the burst's first read comes to its turn, and as the keys otherwise
(``KeysApp._dispatch``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from textual import events

#: The most bytes the driver reads at once.
READ_SIZE = 4096
#: Bytes of text in one read that no typist sends: a burst, line break or not (a long line
#: pasted: keys one by one into the search bar took seconds).
LONG_READ = 1024
#: Seconds within which a read that follows a burst (from the end of handling it) is the rest of
#: it: the pieces of a paste wait behind each other, while a key typed after a paste comes a
#: person's reaction later.
BURST_GAP_S = 0.05

#: Characters after a first CR (the Enter key), with no line break after them, that are keys
#: typed ahead rather than a paste: Enter and the next keys read at once over a slow link ("⏎d":
#: leave the search bar, then dismiss), where a paste that starts with a line break has a line
#: of text after it.
KEYS_AFTER_ENTER = 8

#: Characters that are keys rather than text: C0 controls (ESC among them) but Tab, LF, VT, FF
#: and CR; DEL.
_KEY_RE = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
#: Line breaks and tabs, which text typed a key at a time never holds with words around them.
_BREAK_RE = re.compile("[\t\n\v\f\r]")
_WORD_RE = re.compile(r"\S")
_ENTER_THEN_KEYS_RE = re.compile(f"\r[^\t\n\v\f\r]{{1,{KEYS_AFTER_ENTER}}}")
#: The end of a read that leaves an escape sequence unfinished (a lone ESC, CSI or SS3 without
#: its final byte, a control string without its end): the next read may complete it.
_OPEN_SEQUENCE_RE = re.compile("\x1b(?:\\[[\x30-\x3f]*[\x20-\x2f]*|O|[\\]P_^X][^\x07\x1b]*)?\\Z")


class TextBurst(events.Event):
    """One read of a burst of text that may be a paste (the module's notes): ``text`` as read
    (without the line breaks that begin it when the burst's previous read ended with one),
    ``keys`` the key events the terminal's parser made of it, in order, and ``number`` the
    burst's (the same for every read of one burst)."""

    def __init__(self, text: str, keys: Sequence[events.Event], number: int) -> None:
        super().__init__()
        self.text = text
        self.keys = list(keys)
        self.number = number


class Burst(NamedTuple):
    """A read found part of a burst: the burst's ``number``, and the ``text`` to paste."""

    number: int
    text: str


class BurstWatch:
    """Tells which reads of the terminal's input are bursts of text (the module's notes)."""

    def __init__(self) -> None:
        self._count = 0  # bursts numbered so far
        self._chain: int | None = None  # the burst the next read may continue
        self._done = 0.0  # monotonic time the last read was handled
        self._open = False  # the last read ended in an unfinished escape sequence
        self._broke = False  # the last read of the burst ended with a line break or a tab

    def burst_of(self, text: str, size: int, now: float, in_paste: bool) -> Burst | None:
        """The burst that ``text`` (one read: ``size`` bytes, read at ``now``, monotonic
        seconds) belongs to, or None for keys. ``in_paste``: a bracketed paste was under way
        before it (its text is a paste anyway)."""
        if not text:
            return None  # the first bytes of a character split over reads: nothing yet
        text_only = not (in_paste or self._open or _KEY_RE.search(text))
        follows = text_only and self._chain is not None and now - self._done <= BURST_GAP_S
        if follows:
            number = self._chain
        elif text_only and (size >= LONG_READ or (
                _BREAK_RE.search(text) and _WORD_RE.search(text)
                and not _ENTER_THEN_KEYS_RE.fullmatch(text))):
            self._count += 1
            number, self._broke = self._count, False
        else:
            number = None
        self._chain = number
        self._done = now
        self._open = _OPEN_SEQUENCE_RE.search(text[-64:]) is not None
        if number is None:
            return None
        pasted = text.lstrip("\t\n\v\f\r") if self._broke else text
        self._broke = text[-1] in "\t\n\v\f\r"
        return Burst(number, pasted)

    def done(self, now: float) -> None:
        """The events of the last read were handled at ``now`` (monotonic seconds): the next
        read follows it from then (the gap does not count the time taken to handle it)."""
        self._done = now
