"""Pastes the terminal does not bracket (tui.browser.bursts, through the driver's InputPipe):
every read of a burst of text with a line break or a tab in it is one TextBurst holding the
text and its keys, whatever the paste holds and however the terminal splits it; typing stays
keys."""

from __future__ import annotations

import textwrap

import pytest
from textual import events

from tests.tui_support import SHIPPED_SEEDS
from tui.browser.bursts import BURST_GAP_S, LONG_READ, READ_SIZE, BurstWatch, TextBurst
from tui.browser.display import pasted_query
from tui.browser.terminal import PASTE_END, PASTE_START, InputPipe

#: The first abstract of a shipped seed file, as a reader would copy it from a pager: wrapped
#: at 72 columns (a real abstract, with Markdown, a URL and a code link).
ABSTRACT = sorted(SHIPPED_SEEDS.glob("*.txt"))[0].read_text(encoding="utf-8").split("\n\n")[1]
WRAPPED = textwrap.fill(ABSTRACT, 72, break_on_hyphens=False, break_long_words=False)


def _read(chunks: list[bytes]) -> list[events.Event]:
    """The events the driver posts for ``chunks``, one read each, read back to back (all at
    one instant)."""
    pipe = InputPipe()
    return [event for chunk in chunks for event in pipe.feed(chunk, now=0.0)]


def _reads(text: str) -> list[bytes]:
    """``text`` as a terminal writes it and the driver reads it: pieces of at most
    :data:`READ_SIZE` bytes (a character may be split between two)."""
    raw = text.encode()
    return [raw[at:at + READ_SIZE] for at in range(0, len(raw), READ_SIZE)]


def _keys(got: list[events.Event]) -> list[str]:
    return [e.key for e in got if isinstance(e, events.Key)]


@pytest.mark.parametrize(("pasted", "query"), [
    ("graph neural\rnetworks\rrrrtttq", "graph neural networks rrrtttq"),  # tmux: LF sent as CR
    ("graph neural\nnetworks\nrrrtttq", "graph neural networks rrrtttq"),
    ("graph neural\r\nnetworks\r\n\r\nrrrtttq", "graph neural networks rrrtttq"),  # CRLF
    ("graph\tneural\tnetworks", "graph neural networks"),  # a row of a table: tabs only
    ("graph neural networks\r", "graph neural networks "),  # a line copied with its break
    ("\rgraph neural networks", " graph neural networks"),
    ("\nrrrtttq", " rrrtttq"),  # (Enter sends CR: LF first is pasted)
    ("\rrrrtttq\r", " rrrtttq "),  # (a line break after the keys: pasted lines)
    ("图神经网络\r\nグラフ ニューラル\tñ", "图神经网络 グラフ ニューラル ñ"),
    ("a\vb\fc", "a b c"),
    (WRAPPED.replace("\n", "\r"), ABSTRACT),
    (WRAPPED, ABSTRACT),
], ids=["issue-cr", "lf", "crlf", "tabs", "break-at-end", "break-first", "lf-first",
        "cr-first-and-last", "unicode", "vt-ff",
        "abstract-cr", "abstract-lf"])
def test_a_paste_in_one_read_is_one_text_burst(pasted: str, query: str) -> None:
    """The read's text as it came, the keys the parser made of it kept for the app (they are
    what the read is when the search bar does not have the keyboard), and nothing else."""
    got = _read([pasted.encode()])
    assert [type(e) for e in got] == [TextBurst]
    assert got[0].text == pasted
    assert pasted_query(got[0].text) == query
    assert "".join(k.character or "" for k in got[0].keys) == pasted
    assert [k.key for k in got[0].keys if k.key in ("enter", "tab")] == [
        "enter" if c == "\r" else "tab" for c in pasted if c in "\r\t"]


@pytest.mark.parametrize("lines", [300, 2000])
def test_a_long_paste_over_many_reads_is_one_burst(lines: int) -> None:
    """A paste of many KiB (Unicode characters split between reads included) comes in reads
    of 4 KiB: every one is part of the same burst, and their texts make the paste on one line
    (a CRLF split between two reads one space, as in one read)."""
    pasted = "\r\n".join(f"line {n} of the paste: graph neural networks, 图神经网络 {n}"
                         for n in range(lines)) + "\r\nrrrtttq"
    reads = _reads(pasted)
    assert len(reads) > 3
    got = _read(reads)
    assert {type(e) for e in got} == {TextBurst}
    assert len({e.number for e in got}) == 1
    # the search bar takes each read's text in turn, cleaned to one line
    assert "".join(pasted_query(e.text) for e in got) == pasted_query(pasted)


def test_a_long_line_then_its_line_break_in_the_next_read() -> None:
    """A first read that fills the buffer with text and no line break is a burst (no typist
    sends it; as keys, one at a time into the search bar, it took seconds), and the read right
    after it is the same burst, even when it holds no word."""
    first, second = _reads("x" * READ_SIZE + "\rrrrtttq")
    got = _read([first, second])
    assert [type(event) for event in got] == [TextBurst, TextBurst]
    assert got[0].number == got[1].number
    assert got[0].text == "x" * READ_SIZE and _keys(got[0].keys) == ["x"] * READ_SIZE
    assert got[1].text == "\rrrrtttq"
    got = _read(_reads("x" * READ_SIZE + "\r"))
    assert isinstance(got[-1], TextBurst) and pasted_query(got[-1].text) == " "


@pytest.mark.parametrize(("reads", "keys"), [
    (["wudi"], ["w", "u", "d", "i"]),  # text without a line break: typing
    (["\r"], ["enter"]),  # a key alone
    (["\r\r\t"], ["enter", "enter", "tab"]),  # keys without a word
    (["wudi", "\r", "t"], ["w", "u", "d", "i", "enter", "t"]),  # a key a read
    (["\x1bj\rt"], ["escape", "j", "enter", "t"]),  # Escape in it: keys typed ahead
    (["\x1b[Ab\rt"], ["up", "b", "enter", "t"]),
    (["ab\x7f\rt"], ["a", "b", "backspace", "enter", "t"]),  # a control key in it
    (["ab\x15\rt"], ["a", "b", "ctrl+u", "enter", "t"]),
    (["\x1b", "ab\rt"], ["escape", "a", "b", "enter", "t"]),  # after an ESC held back
    (["\x1b[<0;10", ";5Ma\rb"], ["a", "enter", "b"]),  # the end of a split mouse report
    (["learning", "\rd"], [*"learning", "enter", "d"]),  # Enter and a key typed ahead
    (["\rdtt j"], ["enter", "d", "t", "t", "space", "j"]),
], ids=["word", "enter", "no-word", "key-a-read", "escape", "arrow", "backspace", "ctrl-u",
        "held-escape", "split-mouse-report", "enter-then-key", "enter-then-keys"])
def test_typing_stays_keys(reads: list[str], keys: list[str]) -> None:
    got = _read([r.encode() for r in reads])
    assert not [e for e in got if isinstance(e, TextBurst)]
    assert _keys(got) == keys


def test_a_bracketed_paste_is_a_paste_not_a_burst() -> None:
    got = _read([b.encode() for b in (PASTE_START + "graph\rneural", "\rrrrtttq" + PASTE_END)])
    # (split over two reads as it comes)
    assert [(type(e), getattr(e, "text", None)) for e in got] == [
        (events.Paste, "graph\rneural\rrrrtttq")]


def test_reads_that_follow_a_burst_at_once_are_its_rest() -> None:
    """A terminal writes a paste in pieces: the reads within :data:`BURST_GAP_S` of the end
    of handling a burst's read continue it, whatever they hold, however long handling it took;
    a read later than that is keys again, and the next burst has a new number."""
    watch, short = BurstWatch(), 10
    first = watch.burst_of("graph neural\r", short, 0.0, in_paste=False)
    watch.done(5.0)  # handling its 4,000 keys took long
    second = watch.burst_of("\nnetworks", short, 5.0 + BURST_GAP_S / 2, in_paste=False)
    third = watch.burst_of("rrrtttq", short, 5.0 + BURST_GAP_S, in_paste=False)
    assert first is not None and second is not None and third is not None
    assert {first.number, second.number, third.number} == {first.number}
    assert (first.text, second.text, third.text) == ("graph neural\r", "networks", "rrrtttq")
    assert watch.burst_of("t", short, 5.0 + BURST_GAP_S * 2 + 1.0, in_paste=False) is None
    again = watch.burst_of("a\rb", short, 10.0, in_paste=False)
    assert again is not None and again.number != first.number


def test_a_long_read_of_text_is_a_burst_and_so_is_the_next_read() -> None:
    """1 KiB or more of text in one read is no typing: it is a burst, and the read right after
    it is the same burst even with no word in it (a paste's last line break); one read later is
    keys again, and so is a shorter read of text."""
    watch = BurstWatch()
    first = watch.burst_of("x" * LONG_READ, LONG_READ, 0.0, in_paste=False)
    after = watch.burst_of("\r", 1, BURST_GAP_S / 2, in_paste=False)
    assert first is not None and after is not None and first.number == after.number
    assert after.text == "\r"
    assert watch.burst_of("x" * (LONG_READ - 1), LONG_READ - 1, 1.0, in_paste=False) is None
    assert watch.burst_of("\r", 1, 1.0 + BURST_GAP_S * 2, in_paste=False) is None
