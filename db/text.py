"""Text rules every stage shares: control characters removed, normalized and folded forms, paper
ids, the index's tokens, tag names, hyphenation repaired, sentences.

Everything here is pure (no I/O, no database) so that it can be tested on single strings.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Iterator

from db.errors import LibraryError

# C0 controls except TAB/LF, DEL, C1 controls, and the bidi overrides that can reorder a terminal
# line. CR is handled before this (line endings), so a lone CR never survives either.
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# The controls among them that are white space (str.isspace, str.split and the regex \s cut
# words there): TAB, vertical tab, form feed, CR, the information separators FS GS RS US, NEL.
# clean() makes each a space: dropped, they joined the words on either side ("graph\fneural"
# indexed as "graphneural"). The other white space (NBSP and the other Zs, U+2028, U+2029) is
# no control and is kept: every later step (str.split, \s) cuts words at it.
_SPACE_CONTROL_RE = re.compile("[\t\x0b-\x0d\x1c-\x1f\x85]")


def clean(text: str) -> str:
    """Remove control and escape characters; keep ``\\n``, and turn the controls that are
    white space (TAB, vertical tab, form feed, CR, FS/GS/RS/US, NEL) into a space, so that the
    words on either side stay two words.

    ``ESC[2J`` becomes the harmless literal ``[2J``: the text survives, the terminal is safe.
    """
    if text.isprintable():  # no control, format (bidi) or tab character: the usual line, and
        return text  # one C loop instead of a regex scan (a sync cleans each abstract twice)
    return _CONTROL_RE.sub("", _SPACE_CONTROL_RE.sub(" ", text))


def one_line(text: str) -> str:
    """``text`` cleaned and with every run of white space (newlines too) folded to one space."""
    # printable text has no white space but " " (tabs, newlines, NBSP... are not printable):
    # without two in a row or one at an end, it is one line already (an abstract, usually)
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(clean(text).split())  # str.split: 4x faster than a regex here


def cut_at_word(text: str, limit: int) -> str:
    """``text`` when it has at most ``limit`` characters, else its longest start that does and
    ends after a whole word (white space before the cut dropped); a first word longer than
    ``limit`` is cut at ``limit``."""
    if len(text) <= limit:
        return text
    head = text[:limit + 1]  # the character after the limit tells whether a word ends there
    cut = re.search(r"\s\S*\Z", head)
    if cut is None or not head[:cut.start()].strip():
        return text[:limit]
    return head[:cut.start()].rstrip()


def single_spaced(text: str) -> str:
    """``" ".join(text.split())``: every run of white space one space, none at either end.

    Text that is so already (an abstract's line, usually) is returned as it is: printable text
    has no white space but " " (tabs, newlines, NBSP... are not printable), so two tests in C
    tell, where splitting into words takes four times as long.
    """
    if text.isprintable() and "  " not in text and text[:1] != " " and text[-1:] != " ":
        return text
    return " ".join(text.split())


def normalize(text: str) -> str:
    """The form used for ids and comparisons: NFKC, case-folded, white space collapsed."""
    if text.isascii():  # NFKC leaves ASCII as it is, and casefold() is lower() there
        return single_spaced(text.lower())
    return single_spaced(unicodedata.normalize("NFKC", text).casefold())


def paper_id(text: str) -> str:
    """Stable id of a paper: the first 16 hex digits of SHA-256 of :func:`normalize` ``(text)``.

    Never a rowid (those move on rebuild); the same abstract in two files gets the same id.
    """
    import hashlib  # here: only parsing needs it, and every command would pay its import

    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()[:16]


def fold(word: str) -> str:
    """A word as the index's tokenizer sees it: NFKC, lower case, diacritics removed."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", word).casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


#: Scripts written without spaces between words: kana, Han ideographs (with extension A, the
#: compatibility block and the supplementary planes) and Hangul syllables.
_CJK = "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003134f]"


@functools.cache
def _cjk_re() -> re.Pattern[str]:
    # compiled on first use: the astral ranges take re ~3 ms, paid by every command otherwise
    return re.compile(f"({_CJK})")


def split_cjk(text: str) -> str:
    """``text`` with a space on each side of every CJK character: "基于BERT" -> " 基  于 BERT".

    FTS5's unicode61 tokenizer keeps a run of CJK characters together as one token (there are no
    spaces to split at), so no word inside a Chinese sentence could ever be found. Indexing each
    character as a token, and searching a query's CJK run as a phrase of its characters, makes
    ``图神经网络`` find every abstract that contains it, as a substring search would.
    """
    return _cjk_re().sub(r" \1 ", text)


_NON_ASCII_WORD_RE = re.compile(r"\w*[^\x00-\x7f]\w*")
_NON_ASCII_RE = re.compile(r"[^\x00-\x7f]")


def search_form(text: str) -> str:
    """The form of ``text`` that the full-text index stores: NFKC, CJK split, non-ASCII words
    :func:`fold`-ed like query words. ASCII text is returned as it is (unicode61 folds its case),
    so the common case costs one ``isascii()``.

    Only the space-separated pieces of the NFKC text that hold a non-ASCII character are
    split and folded: every change is made to a CJK character or to a run of word and
    non-ASCII characters, never across an ASCII space. (Scanning the whole text with the two
    regexes took ~95 µs for each abstract with a non-ASCII character, a fifth of the corpus;
    tests/test_parse_fast_paths.py compares with the whole-text form.)
    """
    if text.isascii():
        return text
    return "".join(_NON_ASCII_WORD_RE.sub(_fold_match, split_cjk(piece)) if other else piece
                   for piece, other in non_ascii_pieces(unicodedata.normalize("NFKC", text)))


def non_ascii_pieces(text: str) -> Iterator[tuple[str, bool]]:
    """``text`` cut into pieces, in order, that join back into it: each space-separated piece
    holding a character that is not ASCII as ``(piece, True)``, the text between them as
    ``(text, False)`` (all ASCII: the spaces around a piece stay there)."""
    pos = 0
    found = _NON_ASCII_RE.search(text)
    while found:
        start = text.rfind(" ", pos, found.start()) + 1  # (pos is 0 or at a space)
        end = text.find(" ", found.start())
        end = len(text) if end < 0 else end
        yield text[pos:start], False
        yield text[start:end], True
        pos = end
        found = _NON_ASCII_RE.search(text, end)
    yield text[pos:], False


def _fold_match(m: re.Match[str]) -> str:
    return fold(m.group(0))


# the same scripts after fold(), which decomposes Hangul syllables into conjoining jamo
_CJK_FOLDED = _CJK[:-1] + "\u1100-\u11ff]"
#: A regex character class of the characters indexed one per token, before or after fold().
CJK_CLASS = _CJK_FOLDED


@functools.cache
def _cjk_gap_re() -> re.Pattern[str]:
    return re.compile(f"(?<={_CJK_FOLDED}) (?={_CJK_FOLDED})")


def join_tokens(tokens: tuple[str, ...] | list[str]) -> str:
    """Index tokens joined for people: with spaces, but none between two CJK characters (NFC)."""
    return unicodedata.normalize("NFC", _cjk_gap_re().sub("", " ".join(tokens)))


WORD_RE = re.compile(r"\w+")
#: ASCII bytes that are not ``\w`` (letters, digits, ``_``), each mapped to a space by
#: ``bytes.translate``: the words of ASCII text are then its ``split()``.
NOT_WORD_BYTES = bytes.maketrans(
    bytes(b for b in range(128) if not (chr(b).isalnum() or chr(b) == "_")),
    b" " * sum(1 for b in range(128) if not (chr(b).isalnum() or chr(b) == "_")))

# "single- and multi-agent": a suspended hyphen before a conjunction is not a line break.
_SUSPENDED = {"and", "or", "nor", "to", "vs", "versus", "as", "but", "then"}
_BROKEN_RE = re.compile(r"\b([^\W\d_]+)- ([^\W\d_]+)\b")


#: A soft hyphen (U+00AD), or the text PDF extractors write for one, ``(cid:173)``: it only ever
#: marks where a word was broken at a line end ("clas(cid:173) sification"; 1,588 abstracts of
#: the 87k-abstract corpus have it), so the word is joined whatever it is.
_SOFT_HYPHEN_RE = re.compile(r"(?:\u00ad|\(cid:173\))\s*")


def repair_hyphenation(text: str, is_word: Callable[[str], bool]) -> str:
    """Repair line-break hyphenation left over from PDFs, only with evidence.

    ``re- quires`` becomes ``requires`` when ``is_word("requires")``; ``large- scale`` becomes
    ``large-scale`` when the joined form is not a known word; ``single- and multi-agent`` is left as
    it is (a suspended hyphen). ``is_word`` receives the joined word in lower case. A soft
    hyphen (:data:`_SOFT_HYPHEN_RE`) always joins: ``clas(cid:173) sification``.
    """

    if "\u00ad" in text or "(cid:173)" in text:
        text = _SOFT_HYPHEN_RE.sub("", text)
    if "- " not in text:  # the common case, and the regex below is slow on long text
        return text

    def fix(m: re.Match[str]) -> str:
        first, second = m.group(1), m.group(2)
        if second.lower() in _SUSPENDED:
            return m.group(0)
        if is_word((first + second).lower()):
            return first + second
        return f"{first}-{second}"

    return _BROKEN_RE.sub(fix, text)


_ABBREV = ("e.g", "i.e", "et al", "etc", "vs", "cf", "fig", "eq", "sec", "resp", "approx", "no")
# the sentence's last character is part of the match (m.start() + 1 ends the sentence): a
# pattern that starts with a character class is searched for by re's fast scan of that class,
# one with a look-behind is tried at every position (2.6x slower over an abstract)
_SENTENCE_END_RE = re.compile(r"[.!?][\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9$\\*])")


def sentences(text: str) -> list[str]:
    """Split prose into sentences: at ``.``/``!``/``?`` and a space before a capital or digit.

    Does not split after common abbreviations (``e.g.``, ``et al.``) or single initials.
    """
    return list(iter_sentences(text))


def iter_sentences(text: str) -> Iterator[str]:
    """:func:`sentences` one at a time, so that a caller that needs the first few (a headline,
    the sentence that names the method) does not split the whole abstract."""
    for start, end in _sentence_bounds(text):
        sentence = text[start:end].strip()
        if sentence:
            yield sentence


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each of :func:`sentences` in ``text``, a text that has no white space
    but single spaces and none at either end (what :func:`one_line` returns): there each
    sentence is ``text[start:end]`` as it is, and the word before a sentence end is found with
    ``str.rfind`` (no copy of the sentence split into words)."""
    start = 0
    for m in _SENTENCE_END_RE.finditer(text):
        end = m.start() + 1
        space = text.rfind(" ", start, end)
        tail = text[space + 1 if space >= 0 else start:end].lower().rstrip(".!?")
        if tail in _ABBREV or tail.endswith(_ABBREV[:3]) or (len(tail) == 1 and tail.isalpha()):
            continue
        yield start, end
        start = m.end()
    if start < len(text):
        yield start, len(text)


def _sentence_bounds(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _SENTENCE_END_RE.finditer(text):
        end = m.start() + 1
        # (not empty: it holds the sentence's end mark at least)
        tail = text[start:end].rsplit(None, 1)[-1].lower().rstrip(".!?")
        if tail in _ABBREV or tail.endswith(_ABBREV[:3]) or (len(tail) == 1 and tail.isalpha()):
            continue
        yield start, end
        start = m.end()
    if start < len(text):
        yield start, len(text)


_INDEX_TOKEN_RE = re.compile(r"[^\W_]+")


def tokens(text: str) -> tuple[str, ...]:
    """The index tokens of ``text``: NFKC, case-folded, diacritics removed, split like unicode61.

    CJK characters are one token each, as in the index (:func:`db.text.search_form`), so a run of
    them becomes a phrase that matches wherever the run occurs inside a longer one.
    """
    return tuple(_INDEX_TOKEN_RE.findall(search_form(text).casefold()))


#: Characters of a tag kept.
MAX_TAG_CHARS = 40


_TAG_DROP_RE = re.compile(r"[^\w.+/-]+")


def tag_name(text: str) -> str:
    """The stored form of a tag: ``#MoE`` → ``moe``, ``Read Later`` → ``read-later``.

    NFKC, case-folded, a leading ``#`` dropped, white space made ``-``, characters other than
    letters, digits and ``_ . + / -`` dropped, at most :data:`MAX_TAG_CHARS`. Raises
    :class:`LibraryError` when nothing is left.
    """
    if _NOT_UTF8_RE.search(text or ""):  # bytes of a Latin-1 terminal: `café` became `caf`
        raise LibraryError(f"{one_line(ascii(text))} is not a tag: it has bytes that are not "
                           "UTF-8 (is the terminal's locale UTF-8?)")
    folded = unicodedata.normalize("NFKC", clean(text or "")).casefold().strip().lstrip("#")
    name = _TAG_DROP_RE.sub("", re.sub(r"\s+", "-", folded)).strip("-")[:MAX_TAG_CHARS]
    if not name:
        raise LibraryError(f"{text!r} is not a tag: use letters, digits and - _ . + /")
    return name


#: What a byte that is not UTF-8 becomes: a lone surrogate in a command-line argument, U+FFFD in
#: the browser (the terminal's input is decoded with errors="replace").
_NOT_UTF8_RE = re.compile("[\ud800-\udfff\ufffd]")
