"""Hostile terminal input through the driver's pipe (tui.browser.terminal.InputPipe): numbers
out of range, control strings, over-long and truncated sequences and random bytes are dropped,
never a crash of the input thread (Textual's parser raised on them and was finished), never
keys; the key typed after them still arrives."""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from textual import constants, events

from tui.browser.terminal import InputPipe

BIG = "99999999999"  # past 2**31
HUGE = "9" * 400  # past a float

#: One hostile input of each kind (the names say which), each followed by a key.
HOSTILE = {
    "kitty key past U+10FFFF": f"\x1b[{BIG}u",
    "kitty key just past U+10FFFF": "\x1b[1114112u",
    "kitty key, a surrogate": "\x1b[55296u",
    "kitty key, text past U+10FFFF": f"\x1b[97;1;{BIG}u",
    "kitty key, text a surrogate": "\x1b[97;1;55296:97u",
    "kitty key with a huge modifier": f"\x1b[97;{BIG}u",
    "kitty functional key past 2^31": f"\x1b[{BIG};5~",
    "mouse past 2^31": f"\x1b[<0;{BIG};{BIG}M\x1b[<0;{BIG};{BIG}m",
    "mouse past a float": f"\x1b[<0;{HUGE[:20]};1M",
    "mouse with a huge button": f"\x1b[<{BIG};1;1M",
    "mouse far off the screen": "\x1b[<0;9000;9000M\x1b[<0;9000;9000m",
    "negative mouse": "\x1b[<0;-5;-5M",
    "cursor report past 2^31": f"\x1b[{BIG};{BIG}R",
    "in-band resize of a billion cells": f"\x1b[48;{BIG};{BIG};1;1t",
    "in-band resize of zero cells": "\x1b[48;0;0;0;0t",
    "window size report": f"\x1b[8;{BIG};{BIG}t",
    "a CSI with a thousand digits": "\x1b[" + "9" * 1000 + "u",
    "a CSI with many parameters": "\x1b[" + "1;" * 40 + "m",
    "OSC colour report, ST": "\x1b]11;rgb:ffff/tttt/rrrr\x1b\\",
    "OSC, BEL": "\x1b]52;c;dHR0dA==\x07",
    "DCS": "\x1bP1$rtr\x1b\\",
    "APC": "\x1b_Gi=1;tr\x1b\\",
    "PM": "\x1b^trt\x1b\\",
    "SOS": "\x1bXtrt\x1b\\",
    "an 8-bit OSC": "\x9d0;rt\x9c",
    "a control string cancelled": "\x1bPtrt\x18",
    "a long DCS": "\x1bP" + "tr" * 3000 + "\x1b\\",
    "NUL and C1 characters": "\x00\x85\x9b",
}


def _keys(pipe: InputPipe, data: bytes) -> list[str]:
    return [e.key for e in pipe.feed(data) if isinstance(e, events.Key)]


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_is_dropped_and_the_next_key_arrives(name: str) -> None:
    pipe = InputPipe()
    raw = HOSTILE[name].encode("utf-8", "surrogatepass")
    keys = _keys(pipe, raw)
    assert all(k not in ("t", "r", "u", "1", "2", "3", "4") for k in keys), keys
    assert _keys(pipe, b"t") == ["t"]


@pytest.mark.parametrize("name", ["a CSI with a thousand digits", "a long DCS"])
def test_hostile_input_split_over_reads_is_dropped_too(name: str) -> None:
    pipe = InputPipe()
    raw = HOSTILE[name].encode()
    keys = [k for at in range(0, len(raw), 700) for k in _keys(pipe, raw[at:at + 700])]
    assert keys == []
    assert _keys(pipe, b"t") == ["t"]


@pytest.mark.parametrize("truncated", ["\x1b[<0;1;", "\x1b[1;", "\x1b[", "\x1bO", "\x1b]11;rgb:ff"])
def test_a_sequence_cut_short_is_dropped_once_the_escape_delay_passed(truncated: str) -> None:
    """Textual's parser typed a sequence that never completed as keys (``r`` from
    ``rgb``, ``1`` from a mouse report)."""
    pipe = InputPipe()
    keys = _keys(pipe, truncated.encode())
    waited = time.monotonic() + 3 * constants.ESCAPE_DELAY  # the parser's wait, and then some
    while time.monotonic() < waited:
        keys += [e.key for e in pipe.tick() if isinstance(e, events.Key)]
    assert keys == []
    assert _keys(pipe, b"t") == ["t"]


def test_every_event_that_passes_is_sane() -> None:
    """Sizes and positions inside the screen's bounds, keys that can be written."""
    pipe = InputPipe()
    out = list(pipe.feed("".join(HOSTILE.values()).encode("utf-8", "surrogatepass")))
    for event in out:
        if isinstance(event, events.Resize):
            assert 1 <= event.size.width <= 10_000 and 1 <= event.size.height <= 10_000
        if isinstance(event, events.MouseEvent):
            assert 0 <= event.x <= 10_000 and 0 <= event.y <= 10_000
        if isinstance(event, events.Key):
            (event.key + (event.character or "")).encode("utf-8")


def test_a_good_sequence_after_a_bad_one_in_the_same_read_still_acts() -> None:
    pipe = InputPipe()
    out = list(pipe.feed(f"\x1b[{BIG}u\x1b[A\x1b[<0;3;4M".encode()))
    assert [e.key for e in out if isinstance(e, events.Key)] == ["up"]
    assert [(e.x, e.y) for e in out if isinstance(e, events.MouseDown)] == [(2, 3)]


FRAGMENTS = st.sampled_from([
    "\x1b", "[", "<", ";", "u", "M", "m", "R", "t", "~", "]", "P", "\\", "\x07", "\x9c",
    BIG, "1114112", "55296", "-1", "48", "0", "a", "\r", "\x00", "\x1b[", "\x1b[<",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(FRAGMENTS, st.binary(max_size=8).map(lambda b: b.decode("latin-1"))),
                max_size=40),
       st.lists(st.integers(0, 200), max_size=4))
def test_any_bytes_split_any_way_never_raise(parts: list[str], cuts: list[int]) -> None:
    raw = "".join(parts).encode("utf-8", "surrogatepass")
    points = sorted({0, len(raw), *(min(c, len(raw)) for c in cuts)})
    pipe = InputPipe()
    for start, end in itertools.pairwise(points):
        for event in pipe.feed(raw[start:end]):
            if isinstance(event, events.Key):
                (event.key + (event.character or "")).encode("utf-8")
    list(pipe.tick())
    pipe.close()
