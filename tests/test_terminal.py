"""Terminal input (tui.browser.terminal): a bracketed paste reaches the app as one paste, never
as keys, however the terminal splits it over reads and whatever escape bytes it holds."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual import events
from textual._xterm_parser import XTermParser  # the parser the Linux driver feeds

from tui.browser.display import pasted_query, query_safe
from tui.browser.terminal import PASTE_END, PASTE_START, EscapeKeys, PasteGuard

#: The QA case: an ESC sequence and a line break inside a paste (tmux sends LF as CR).
HOSTILE = "model \x1b[2J x\rrrr ttt"


def _events(chunks: list[str]) -> list[events.Event]:
    """What the app gets when the terminal sends ``chunks`` (one read each) through the guard."""
    parser, guard, out = XTermParser(), PasteGuard(), []
    for chunk in chunks:
        safe = guard.feed(chunk)
        if safe:
            out += list(parser.feed(safe))
    return out


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(max(c, 0), len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


def test_unguarded_parser_turns_a_hostile_paste_into_keys() -> None:
    """Why the guard exists: Textual's parser replays the text after an ESC as key presses."""
    parser = XTermParser()
    keys = [e.key for e in parser.feed(PASTE_START + HOSTILE + PASTE_END)
            if isinstance(e, events.Key)]
    assert "enter" in keys and keys.count("r") == 3


def test_a_hostile_paste_is_one_paste_event_and_no_key() -> None:
    got = _events([PASTE_START + HOSTILE + PASTE_END])
    assert [type(e) for e in got] == [events.Paste]
    assert got[0].text == "model [2J x\rrrr ttt"
    assert pasted_query(got[0].text) == "model [2J x rrr ttt"


@given(payload=st.text(st.sampled_from(["a", " ", "r", "t", "\x1b", "[", "2", "0", "1", "~",
                                        "\r", "\n", "\x00", "é", "\t", "O", "I"]),
                       max_size=40),
       cuts=st.lists(st.integers(0, 60), max_size=8))
def test_any_paste_split_any_way_is_one_paste_without_escapes(payload: str,
                                                              cuts: list[int]) -> None:
    """Typed ``x`` before and ``y`` after stay keys; the paste is exactly one Paste event whose
    text is the payload without ESC bytes (a fake closing bracket in it included)."""
    stream = "x" + PASTE_START + payload + PASTE_END + "y"
    got = [e for e in _events(_split(stream, cuts)) if not isinstance(e, events.Key)
           or e.key not in ("x",)]
    keys = [e.key for e in got if isinstance(e, events.Key)]
    pastes = [e.text for e in got if isinstance(e, events.Paste)]
    assert keys == ["y"]
    assert pastes == [payload.replace("\x1b", "").replace("\x00", "")]


def test_text_outside_pastes_passes_unchanged_even_when_split() -> None:
    guard = PasteGuard()
    sent = ["\x1b", "[A", "j\x1b[20", "0~paste\x1b", "\x1b[2", "01~", "\x1bk"]
    assert "".join(guard.feed(chunk) for chunk in sent) == (
        "\x1b[Aj" + PASTE_START + "paste" + PASTE_END + "\x1bk")
    assert not guard.in_paste


def test_two_pastes_in_one_read_stay_two() -> None:
    got = _events([PASTE_START + "one" + PASTE_END + "j" + PASTE_START + "two" + PASTE_END])
    assert [(type(e).__name__, getattr(e, "text", getattr(e, "key", None))) for e in got] == [
        ("Paste", "one"), ("Key", "j"), ("Paste", "two")]


def test_query_text_is_one_clean_line() -> None:
    assert pasted_query("a\r\nb\tc\x1b[31md\u202e\x00") == "a b c[31md"
    assert query_safe("a\x1bb\nc\u2028d") == "a b c d"


def _keys_of(chunks: list[str]) -> list[str]:
    """The keys the app gets when the terminal sends ``chunks`` (one read each, read at once)
    through the paste guard, :class:`EscapeKeys` and the parser, the way the driver does."""
    parser, guard, escapes, keys = XTermParser(), PasteGuard(), EscapeKeys(), []
    for chunk in chunks:
        for piece in escapes.feed(guard.feed(chunk), 0.0):
            if piece is None:
                keys.append("escape")
            else:
                keys += [e.key for e in parser.feed(piece) if isinstance(e, events.Key)]
    if escapes.due(10.0):  # a held ESC, once the escape delay passed with nothing read
        keys.append("escape")
    return keys


@pytest.mark.parametrize(("chunks", "keys"), [
    (["\x1bj"], ["escape", "j"]),  # Escape then j, typed quickly (over SSH: one read)
    (["abc\x1bjk"], ["a", "b", "c", "escape", "j", "k"]),
    (["\x1b", "j"], ["escape", "j"]),  # the two in two reads
    (["\x1b\x1bt"], ["escape", "escape", "t"]),
    (["\x1b"], ["escape"]),  # alone: the Escape key once the delay passed
    (["\x1b[A"], ["up"]),  # escape sequences are untouched
    (["\x1b", "[B"], ["down"]),  # ... split over two reads too
    (["\x1bOP"], ["f1"]),
    (["\x1b\x7f"], ["ctrl+w"]),  # alt+backspace stays what the parser makes of it (delete a word)
    (["\x1b[1;5C", "\x1b/"], ["ctrl+right", "escape", "slash"]),
    # letters that begin escape sequences no terminal sends as input (SS2, SOS, DCS, PM, APC):
    # Textual's parser read Esc N (N: the previous new paper) as alt+shift+n, both keys lost
    (["\x1bN"], ["escape", "N"]),
    (["\x1bNj"], ["escape", "N", "j"]),
    (["\x1bP", "\x1bX"], ["escape", "P", "escape", "X"]),
    (["\x1b_\x1b^"], ["escape", "underscore", "escape", "circumflex_accent"]),
    # control keys: Esc Tab was shift+tab, Esc Enter and Esc ctrl+p lost the Escape
    (["\x1b\t"], ["escape", "tab"]),
    (["\x1b\r"], ["escape", "enter"]),
    (["\x1b\x10"], ["escape", "ctrl+p"]),
    # what terminals send for a key: Option+left/right on macOS (words), shift+tab, F1 (linux)
    (["\x1bb", "\x1bf"], ["ctrl+left", "ctrl+right"]),
    (["\x1b[Z\x1b[[A"], ["shift+tab", "f1"]),
    (["\x1b\x1b[Z"], ["escape", "shift+tab"]),
])
def test_escape_then_a_key_is_the_escape_key_and_the_key(chunks: list[str], keys: list[str]):
    """Textual's parser reads ESC and a key that arrive within its escape delay as Alt+key, so
    an Escape typed just before ``j`` was lost: papertray binds no Alt key, so it is Escape."""
    assert _keys_of(chunks) == keys


def test_a_paste_with_escape_and_letters_stays_one_paste() -> None:
    keys = _keys_of([PASTE_START + "a\x1bj b" + PASTE_END])
    assert keys == []  # a paste is no key at all (its ESC is dropped by the guard)
