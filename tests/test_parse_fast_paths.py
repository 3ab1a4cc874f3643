"""The fast paths of parsing give what the plain code gives: each fast function is compared
with the plain form it replaced (kept here as the reference) on the shipped and odd seeds'
abstracts and on generated text. A cold sync parses every abstract, so these run ~90,000
times a sync; the plain forms are the definitions."""

from __future__ import annotations

import pickle
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

import db.index.rows
import db.index.sync
from db.seeds import derive
from db.seeds.dictionary import is_english_word
from db.seeds.entry import Entry, SeedError
from db.seeds.read import parse_file
from db.text import (
    WORD_RE,
    clean,
    fold,
    iter_sentences,
    normalize,
    one_line,
    search_form,
    sentence_spans,
    single_spaced,
    split_cjk,
)
from tests.db_support import ODD_SEEDS, SHIPPED_SEEDS

# -- the plain forms ------------------------------------------------------------------------

_PLAIN_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9$\\*])")
_ABBREV = ("e.g", "i.e", "et al", "etc", "vs", "cf", "fig", "eq", "sec", "resp", "approx", "no")


def plain_sentences(text: str) -> Iterator[str]:
    start = 0
    for m in _PLAIN_SENTENCE_END_RE.finditer(text):
        before = text[start:m.start()].rstrip()
        tail = before.rsplit(None, 1)[-1].lower().rstrip(".!?") if before else ""
        if tail in _ABBREV or tail.endswith(_ABBREV[:3]) or (len(tail) == 1 and tail.isalpha()):
            continue
        sentence = text[start:m.start()].strip()
        if sentence:
            yield sentence
        start = m.end()
    rest = text[start:].strip()
    if rest:
        yield rest


def plain_search_form(text: str) -> str:
    if text.isascii():
        return text
    spaced = split_cjk(unicodedata.normalize("NFKC", text))
    return re.sub(r"\w*[^\x00-\x7f]\w*", lambda m: fold(m.group(0)), spaced)


def plain_terms(text: str) -> set[str]:
    words = WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())
    return {w if w.isascii() else fold(w) for w in words if "_" not in w}


def plain_clean(text: str) -> str:
    """Controls that are white space (but the line break) become a space; other controls and
    the bidi overrides go."""
    def kept(ch: str) -> str:
        if ch == "\n":
            return ch
        if unicodedata.category(ch) == "Cc":
            return " " if ch.isspace() else ""
        return "" if "\u202a" <= ch <= "\u202e" or "\u2066" <= ch <= "\u2069" else ch
    return "".join(map(kept, text))


def plain_normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def plain_first_name_like(tail: str, seen, is_word: Callable[[str], bool]) -> str | None:
    words = derive._TOKEN_RE.findall(tail)[:25]
    for i, m in enumerate(derive._TOKEN_RE.finditer(tail)):
        if i >= 25:
            break
        raw = m.group(0)
        if raw.startswith("("):
            continue
        token = raw.strip("()").rstrip(".")
        if token.islower() or (i > 1 and not derive._MAYBE_NAME_RE.search(token)):
            continue
        if not derive._acceptable(token, seen):
            continue
        if derive._name_like(token):
            if derive._describes_a_kind(token, words, tail):
                continue
            return token
        if (i <= 1 and token[:1].isupper() and token.isalpha() and not is_word(token.lower())
                and derive._stands_alone(token, tail)):
            return token
    return None


# -- texts ----------------------------------------------------------------------------------

ODD_TEXTS = [
    "We PROPOSE Named-X2 here. It is Called BuiltIn3, and coined as Dub4.",
    "Intro. We designed (ABCD) the Super Fast Thing (SFT2) model, termed Q9x.",
    "Ünïcode wé prοpose X9Z and call it Ωmega3.",
    "A self-designed (re-introduced) x_propose: we \"propose\" Foo-Bar9 (see Fig. 2). Next one.",
    "e.g. Mr. A. Smith et al. propose T5. No. 3 is 3.5 times... Then? \"Yes!\" (Ok.) [A] B.",
    "Naïve café—über_cool Straße ﬁne K\u212a x\u2028y 基于BERT的模型 a\u00a0b “quoted” ß.",
    "  leading and  double  spaces\tand tabs\nand lines  ",
    "é", " é ", "a  é", "x\u3000y", "",
    "graph\fneural\vnet\x85for\x1egraphs\u2029and\u2028trees\u2009now \x1b[2J\x07",
]
_TEXT_CHARS = st.sampled_from(
    ["a", "B", "x", "7", " ", "  ", ".", "!", "?", "\"", "'", "(", ")", "[", "]", "-", "_", "*",
     "$", "\\", ",", "é", "É", "—", "’", "中", "\u00a0", "\u3000", "ﬁ", "ß", "K\u212a",
     "propose", "Named", "called", "e.g", "et al", "Fig", "X2", "PARM", "dub",
     "\f", "\v", "\r", "\x85", "\x1e", "\u2028", "\u2029", "\u2009", "\x1b", "\x07", "\u202e"])


def _abstracts() -> list[str]:
    texts = []
    for f in [*SHIPPED_SEEDS.glob("*.txt"), *ODD_SEEDS.glob("*")]:
        try:
            texts += [e.abstract_markup for e in parse_file(f, f.read_bytes())[1]]
        except SeedError:
            continue
    return texts + ODD_TEXTS


# -- the comparisons ------------------------------------------------------------------------


def _check_text(text: str) -> None:
    assert clean(text) == plain_clean(text)
    assert list(iter_sentences(text)) == list(plain_sentences(text))
    assert search_form(text) == plain_search_form(text)
    assert db.index.rows.terms_of(text) == plain_terms(text)
    assert normalize(text) == plain_normalize(text)
    assert single_spaced(text) == " ".join(text.split())
    plain = one_line(derive._strip_markup(text))
    assert [plain[a:b] for a, b in sentence_spans(plain)] == list(plain_sentences(plain))
    assert [m.span() for m in derive._triggers(plain)] == [
        m.span() for m in derive._TRIGGER_RE.finditer(plain)]
    seen = derive._SeenBefore(plain[: len(plain) // 3])
    for trigger in derive._TRIGGER_RE.finditer(plain):
        tail = plain[trigger.end():]
        assert derive._first_name_like(tail, seen, is_english_word) == plain_first_name_like(
            tail, seen, is_english_word)
    # (method_name reads the text composed: NFC)
    composed = one_line(derive._strip_markup(unicodedata.normalize("NFC", text)))
    assert derive.method_name(text, is_english_word) == derive._method_name_by_sentence(
        composed, is_english_word)


def test_fast_paths_give_the_plain_results_on_the_seeds_abstracts():
    texts = _abstracts()
    assert len(texts) > 40
    for text in texts:
        _check_text(text)
    # (and the fast paths did meet what they are for)
    assert any(not t.isascii() for t in texts) and any("propose" in t for t in texts)
    names = {derive.method_name(t, is_english_word) for t in texts}
    assert {"PARM", "WUDI-Merging", "S2-Track", "C-3PO", "Named-X2"} <= names


@settings(max_examples=400, deadline=None)
@given(st.lists(_TEXT_CHARS, max_size=40).map("".join))
def test_fast_paths_give_the_plain_results_on_generated_text(text):
    _check_text(text)


def test_a_file_vocabulary_counts_each_paper_once_with_its_terms():
    """prepare_file counts the words of each distinct paper of the file (a paper twice in the
    file once): the counts that summing db.index.rows.entry_terms of each paper gives."""
    f = next(SHIPPED_SEEDS.glob("*.txt"))
    entries = parse_file(f, f.read_bytes())[1]
    entries = entries + entries[:3]  # the same abstracts twice in one file
    rows, vocab, extras = db.index.rows.prepare_file(entries)
    expected: Counter[str] = Counter()
    for e in {e.id: e for e in entries}.values():
        expected.update(db.index.rows.entry_terms(e))
    assert vocab == expected and len(rows) == len(entries)
    assert vocab["learning"] == sum("learning" in db.index.rows.entry_terms(e)
                                    for e in {e.id: e for e in entries}.values()) > 3
    assert rows == [db.index.rows.paper_row(e) for e in entries]
    assert [meta for meta, _ in extras] == [None] * len(entries)  # (text seeds: no fields)


def test_an_entry_survives_pickling_whole():
    """Entries cross from parse workers by pickle, as the tuple of their fields."""
    e = Entry("ab12", 3, "ICML 2025", "src", "markup", "PARM", "A title", "Head.", ("u",),
              "u", ("A. Author",), 2025, "ICML", True)
    back = pickle.loads(pickle.dumps(e, protocol=5))
    assert back == e and type(back) is Entry
    assert pickle.loads(pickle.dumps([e, e]))[1] == e
