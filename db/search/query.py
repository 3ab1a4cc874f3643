"""The query language, parsed into a safe FTS5 expression. No input is an error.

Syntax (docs/search.md): plain words (all must match; the last one is a prefix while
typing), ``"exact phrase"``, ``-word`` / ``-"phrase"`` to exclude, ``word*`` prefix, ``a OR b``,
and filters ``is:new|to-read|read|dismissed``, ``has:code``, ``in:TEXT`` (collection or seed file),
``tag:NAME`` (the reader's tags).
``au:NAME`` (an author's name; words joined by ``.``, ``_`` or ``-`` are one name, in order),
and the fields of structured seeds (``year:``, ``venue:``, ``track:``, ``decision:``, ``kw:``,
``area:``: :mod:`db.search.fields`).
User text never reaches MATCH unquoted: every term becomes a quoted FTS5 string of the tokens
the index's tokenizer would see, so ``c++``, ``NOT``, ``[CLS]`` and ``"`` are just text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from db.models import MAX_QUERY_CHARS, LibraryError
from db.search.fields import FIELD_KEYS, FieldFilter, parse_field
from db.search.stopwords import is_sentence, mark_stop_words
from db.search.terms import Term
from db.text import clean, cut_at_word, tag_name, tokens

#: A phrase, a filter whose value is in quotes (``in:"ICML 2025"``, ``au:"andrea vedaldi"``: one
#: value, as a phrase is one term), or a word.
FILTER_KEYS = ("is", "has", "in", "tag", "au", *FIELD_KEYS)
_PIECE_RE = re.compile(r'(-?)"([^"]*)("?)|(-?(?i:' + "|".join(FILTER_KEYS) + r'):"[^"]*"?|\S+)')
#: Letters a word being typed, or a ``word*``, needs to match as a prefix: "g" or "re" as
#: prefixes match nearly every paper (0.4-1.2 s to rank 87,000 abstracts), while as whole words
#: ("rl", "3d") they are what people mean; from three letters on a prefix is selective
#: (docs/search.md).
MIN_TYPED_PREFIX = 3
STATUS_FILTERS = {"new": "new", "unread": "new", "read": "read", "dismissed": "dismissed",
                  **dict.fromkeys(("to-read", "toread", "to_read", "to read"), "to-read")}


@dataclass(slots=True)
class Query:
    """A parsed query: positive/negative terms, filters, and notices about what was ignored."""

    terms: list[Term] = field(default_factory=list)
    status: str | None = None
    not_status: list[str] = field(default_factory=list)  # -is:read
    #: "is:read is:new": every status named applies, as every filter does, so none is found
    more_status: list[str] = field(default_factory=list)
    has_code: bool | None = None  # True: has:code; False: -has:code
    within: list[str] = field(default_factory=list)
    not_within: list[str] = field(default_factory=list)  # -in:TEXT
    tags: list[str] = field(default_factory=list)  # tag:NAME (folded by db.text.tag_name)
    not_tags: list[str] = field(default_factory=list)  # -tag:NAME
    authors: list[Term] = field(default_factory=list)  # au:NAME, -au:NAME (Term.negated)
    fields: list[FieldFilter] = field(default_factory=list)  # year:, track:, kw: … (fields.py)
    notices: list[str] = field(default_factory=list)
    #: the mark that ends a query typed as a sentence, as a question or a description is and a
    #: title is not: "." (a full stop after its last word) or "?" ("what …?"); "" for none
    #: (db.search.stopwords.is_sentence)
    sentence: str = ""
    #: index words of the terms as the abstracts spell them (db.search.surface), for describe()
    spelt: dict[str, str] = field(default_factory=dict)

    @property
    def positive(self) -> list[Term]:
        """The terms a paper is matched and ranked by: not excluded, not stop-words."""
        return [t for t in self.terms if not t.negated and not t.stop]

    @property
    def negative(self) -> list[Term]:
        return [t for t in self.terms if t.negated]

    def match_expression(self, mode: str = "all") -> str | None:
        """The FTS5 MATCH text for the positive terms ("all" joins with AND, "any" with OR)."""
        groups: dict[int, list[Term]] = {}
        parts: list[str] = []
        for term in self.positive:
            if term.or_group:
                if term.or_group not in groups:
                    groups[term.or_group] = []
                    parts.append(f"@{term.or_group}")
                groups[term.or_group].append(term)
            else:
                parts.append(term.fts())
        # a word typed twice finds what it finds once, and each copy costs a bm25 pass over its
        # matches (87,000 abstracts: "the" 32 times takes 2.4 s, once 0.1 s)
        rendered = list(dict.fromkeys(
            "(" + " OR ".join(dict.fromkeys(t.fts() for t in groups[int(p[1:])])) + ")"
            if p.startswith("@") else p
            for p in parts
        ))
        if not rendered:
            return None
        return (" AND " if mode == "all" else " OR ").join(rendered)

    def exclusion_expression(self) -> str | None:
        """FTS5 MATCH text matching any excluded term (papers to drop), or None."""
        neg = self.negative
        return " OR ".join(dict.fromkeys(t.fts() for t in neg)) if neg else None

    def describe(self) -> str:
        """The query as it will run, in the query language (for ``effective_query``)."""
        words: list[str] = []
        seen_groups: set[int] = set()
        for term in self.terms:
            if term.or_group and not term.negated:
                if term.or_group in seen_groups:
                    continue
                seen_groups.add(term.or_group)
                words.append(" OR ".join(t.text(self.spelt) for t in self.terms
                                         if t.or_group == term.or_group and not t.negated))
            else:
                words.append(term.text(self.spelt))
        if self.sentence and words:
            words[-1] += self.sentence
        if self.status:
            words.append(f"is:{self.status}")
        words += [f"is:{s}" for s in self.more_status]
        words += [f"-is:{s}" for s in self.not_status]
        if self.has_code is not None:
            words.append("has:code" if self.has_code else "-has:code")
        words += [f"in:{_quoted(w)}" for w in self.within]
        words += [f"-in:{_quoted(w)}" for w in self.not_within]
        words += [f"tag:{w}" for w in self.tags]
        words += [f"-tag:{w}" for w in self.not_tags]
        words += [("-au:" if t.negated else "au:")
                  + "_".join(self.spelt.get(k, k) for k in t.tokens) for t in self.authors]
        words += [f.typed for f in self.fields]
        return " ".join(words)

    def require_status(self, status: str) -> None:
        """Apply ``is:STATUS`` (or ``--status``); a second, different one finds nothing, and
        the notices say why rather than one of them being dropped."""
        if not self.status:
            self.status = status
        elif status != self.status and status not in self.more_status:
            self.more_status.append(status)
            self.notices.append(f"a paper has one status: is:{self.status} and is:{status} "
                                "find nothing")

    def author_expression(self, term: Term) -> str:
        """FTS5 MATCH text for an ``au:`` filter: the name's words in the authors column."""
        return "authors : " + Term(term.tokens).fts()


def _quoted(value: str) -> str:
    """A filter's value as typed back: in quotes when it has a space (``in:"ICML 2025"``)."""
    return f'"{value}"' if any(c.isspace() for c in value) else value


def parse(text: str, typing: bool = False, status: str | None = None) -> Query:
    """Parse user text into a :class:`Query`. Never raises.

    With ``typing`` the last word (when the text does not end in a space) becomes a prefix, so
    results follow each keystroke. Words with no letters or digits (``*``, ``-``, ``"``) vanish.
    ``status`` (new, to-read, read or dismissed; "all" or None: any) applies as ``is:STATUS`` would.
    """
    text = cut_at_word(unicodedata.normalize("NFKC", clean(text or "")), MAX_QUERY_CHARS)
    state = _Parser(Query(), list(_PIECE_RE.finditer(text)))
    for i in range(len(state.pieces)):
        term = _read_piece(state, i)
        if term is not None:
            _add_term(state, term, i)
    if state.pending_or:  # "graph OR": nothing to join
        state.query.terms.append(Term(("or",)))
    if typing:
        _typed_prefix(state, text)
    mark_stop_words(state.query.terms)
    state.query.sentence = _sentence(state, text)
    if status and status != "all":
        state.query.require_status(status)
    return state.query


@dataclass(slots=True)
class _Parser:
    """What :func:`parse` knows as it reads the pieces (phrases, filters, words) left to right."""

    query: Query
    pieces: list[re.Match[str]]
    pending_or: bool = False  # an OR was read: the next term joins the term before it
    or_groups: int = 0  # OR groups numbered so far (Term.or_group counts from 1)
    last_term_piece: int = -1  # the piece the last term came from: only it can be being typed


def _read_piece(state: _Parser, i: int) -> Term | None:
    """The term ``state.pieces[i]`` adds, or None when it is no term: an OR that joins, a filter
    (applied to the query), a ``like:`` (a notice), or a piece with no letters or digits."""
    piece = state.pieces[i]
    word = piece.group(4)
    if word is None:
        return _phrase(piece)
    if word == "OR" and _read_or(state, i):
        return None
    q = state.query
    if _filter(q, word) or _like(q, word) or (
            word.startswith("-") and _filter(q, word[1:], negated=True)):
        if state.pending_or:  # "graph OR is:read": the OR joins no filter
            _or_notice(q)
        return None
    term = _word(word)
    if term is not None and term.prefix and len(term.tokens) == 1 and (
            len(term.tokens[0]) < MIN_TYPED_PREFIX):
        # as for a word being typed: "a*" or "re*" match nearly every paper (87,000 abstracts:
        # "a*" 1.2 s, over the second a search may take), so they are read as words
        term.prefix = False
        notice = f"a prefix needs {MIN_TYPED_PREFIX} letters: {word} is searched as a word"
        if notice not in q.notices:
            q.notices.append(notice)
    return term


def _read_or(state: _Parser, i: int) -> bool:
    """Whether the ``OR`` at ``state.pieces[i]`` is read as the operator: after a word it joins
    that word to the next term; after a filter it only gives a notice (the filters all apply).

    Otherwise it is the plain word "or": an operator out of place ("OR", "OR graph", "-a OR b")
    is text, never an error, never ignored. An OR with no word after it is the word too: "a OR
    has:code" reads as "a OR" does, plus the filter (which never brings in papers), and says so.
    """
    if state.pending_or:
        return False
    q = state.query
    if _after_filter(state.pieces, i):
        _or_notice(q)
        return True
    if q.terms and not q.terms[-1].negated:
        state.pending_or = True
        return True
    return False


def _or_notice(q: Query, notice: str = "OR joins words, not filters: the filters all apply"
               ) -> None:
    q.notices += [] if notice in q.notices else [notice]


def _like(q: Query, word: str) -> bool:
    """Whether ``word`` is a ``like:ID`` (a whole query of its own, not a filter: ignored here,
    with one notice however many there are)."""
    if not re.match(r"-?like:\S", word, re.I):
        return False
    if not any(n.startswith("like:") for n in q.notices):
        q.notices.append("like: is a query on its own (like:ID); ignored here")
    return True


def _word(word: str) -> Term | None:
    """The term of a plain word: ``-word`` excludes, ``word*`` is a prefix; None when the word
    has no letters or digits."""
    negated = word.startswith("-") and len(word) > 1
    body = word[1:] if negated else word
    toks = tokens(body)
    return Term(toks, prefix=body.endswith("*"), negated=negated) if toks else None


def _phrase(piece: re.Match[str]) -> Term | None:
    """The term of a ``"phrase"`` (``-"phrase"`` excludes); None when it has no letters or
    digits."""
    toks = tokens(piece.group(2))
    return Term(toks, negated=bool(piece.group(1)), quoted=True) if toks else None


def _add_term(state: _Parser, term: Term, i: int) -> None:
    """Add ``term`` (from ``state.pieces[i]``) to the query, in the OR group of the term before
    it when an OR is pending."""
    q = state.query
    if state.pending_or and not term.negated:
        previous = q.terms[-1]
        if not previous.or_group:
            state.or_groups += 1
            previous.or_group = state.or_groups
        term.or_group = previous.or_group
    elif state.pending_or:  # "a OR -b": an OR cannot join an exclusion, so it is the word "or"
        q.terms.append(Term(("or",)))
    state.pending_or = False
    q.terms.append(term)
    state.last_term_piece = i


def _sentence(state: _Parser, text: str) -> str:
    """The mark ending ``text`` as a sentence (:attr:`Query.sentence`), when its last term is a
    word searched: an exclusion after the words ("… -zebras.") makes no sentence of them, nor
    does a mark on a filter ("… -tag:zz.")."""
    q = state.query
    if state.last_term_piece < 0 or not q.terms or q.terms[-1].negated:
        return ""
    # the text up to its last piece that is no filter: filters may stand anywhere ("… rank.
    # is:new"), and punctuation after the last word ends a sentence ("… separation .")
    end = max(p.end() for p in state.pieces if not _is_filter(p))
    words = text[:end].rstrip()
    return words[-1] if is_sentence(words) else ""


def _typed_prefix(state: _Parser, text: str) -> None:
    """Make the last term a prefix when it is the word being typed: the text's last piece, not
    followed by a space, not excluded, not a phrase, ending in a letter or digit and at least
    :data:`MIN_TYPED_PREFIX` letters long."""
    q = state.query
    if not (text and not text[-1].isspace() and q.terms
            and state.last_term_piece == len(state.pieces) - 1):
        return
    last = q.terms[-1]
    last_piece = text.split()[-1]
    if (not last.negated and not last_piece.endswith('"') and last_piece[-1:].isalnum()
            and len(last.tokens[-1]) >= MIN_TYPED_PREFIX):
        last.prefix = True


def _is_filter(piece: re.Match[str] | None) -> bool:
    word = piece.group(4) if piece else None
    if not word:
        return False
    key, sep, _ = word.removeprefix("-").partition(":")  # -is:read excludes: a filter too
    return bool(sep) and key.lower() in FILTER_KEYS


def _after_filter(pieces: list[re.Match[str]], i: int) -> bool:
    """Whether the piece before ``pieces[i]`` is a filter (``is:read OR is:new``)."""
    return _is_filter(pieces[i - 1] if i else None)


def _filter(q: Query, word: str, negated: bool = False) -> bool:
    """Apply ``word`` to ``q`` if it is a filter (``is:``, ``has:``, ``in:``, ``tag:``, ``au:``;
    with ``negated`` the papers it names are excluded). Returns True when ``word`` is a filter."""
    key, sep, value = word.partition(":")
    apply = _FILTERS.get(key.lower()) if sep else None
    if apply is None:
        return False
    value = value.strip()
    if value.startswith('"'):  # in:"ICML 2025": the quotes only hold the value together
        value = value.strip('"').strip()
    apply(q, value, negated)
    return True


def _is(q: Query, value: str, negated: bool) -> None:
    """``is:STATUS`` (a second, different status finds nothing) or ``-is:STATUS``."""
    status = STATUS_FILTERS.get(value.lower())
    if not status:
        q.notices.append(f"unknown filter is:{value} ignored (use is:new, is:to-read, is:read, "
                         "is:dismissed)")
    elif negated:
        q.not_status.append(status)
    else:
        q.require_status(status)


def _au(q: Query, value: str, negated: bool) -> None:
    """``au:NAME`` or ``-au:NAME``: the name's words, in order, in the authors."""
    toks = tokens(value)
    if toks:
        q.authors.append(Term(toks, negated=negated))
    else:
        q.notices.append(f"au:{value} names no author; ignored (like au:vedaldi)")


def _has(q: Query, value: str, negated: bool) -> None:
    """``has:code`` or ``-has:code``, the only ``has:`` there is."""
    if value.lower() == "code":
        q.has_code = not negated
    else:
        q.notices.append(f"unknown filter has:{value} ignored (use has:code)")


def _tag(q: Query, value: str, negated: bool) -> None:
    """``tag:NAME`` or ``-tag:NAME``, the name folded as tags are (db.text.tag_name)."""
    try:
        (q.not_tags if negated else q.tags).append(tag_name(value))
    except LibraryError:
        q.notices.append(f"tag:{value} is no tag; ignored (tags are words, like tag:moe)")


def _in(q: Query, value: str, negated: bool) -> None:
    """``in:TEXT`` or ``-in:TEXT``: a collection or seed file."""
    if value:
        (q.not_within if negated else q.within).append(value)
    else:
        q.notices.append("in: names no collection; ignored (like in:icml)")


def _field(key: str) -> Callable[[Query, str, bool], None]:
    """The handler of a field's filter ``key`` (:data:`db.search.fields.FIELD_KEYS`);
    ``status:`` with a mark's status (``status:to-read``) is ``is:``."""
    def apply(q: Query, value: str, negated: bool) -> None:
        if key == "status" and value.lower() in STATUS_FILTERS:
            _is(q, value, negated)
            return
        found = parse_field(key, value, negated)
        if isinstance(found, str):
            q.notices.append(found)
        else:
            q.fields.append(found)
    return apply


#: Each filter key's handler: ``(query, value, negated)``; its keys are :data:`FILTER_KEYS`.
_FILTERS: dict[str, Callable[[Query, str, bool], None]] = {
    "is": _is, "has": _has, "in": _in, "tag": _tag, "au": _au,
    **{key: _field(key) for key in FIELD_KEYS}}
