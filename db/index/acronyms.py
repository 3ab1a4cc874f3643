"""Acronyms the abstracts define, mined at sync time: "reinforcement learning from human feedback
(RLHF)" gives the pair (``rlhf``, ``reinforcement learning from human feedback``), which the
search (:mod:`db.search.acronyms`) uses to find either form when one is typed.

Two tables, both derived:

* ``paper_acronyms`` holds each paper's definitions (its title and abstract, mined by
  :func:`definitions`), written with the paper (:func:`mine_new`, :func:`mine_again`; a first
  build's are mined where the papers are parsed, :func:`of_paper`, and written by
  :func:`write_found`) and deleted with it (the trigger ``papers_acronyms_ad``), so a sync
  mines only the papers it adds or changes;
* ``acronyms`` is their aggregate (:func:`aggregate`), whose rows of the short forms a sync's
  changes touched are made again (:func:`track`): one row per short form and long form (long
  forms counted together when they differ by plurals alone: "large language model" and "large
  language models") that at least
  :data:`MIN_PAPERS` papers define and that has :data:`MIN_SHARE` of its short form's
  definitions.

Keys are the index's tokens (:func:`db.text.tokens`: folded, lower case); a short form written
as a plural ("LLMs") is kept as its singular (``llm``), which the index's stemmer matches to
both.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections import Counter, defaultdict

from db.text import tokens

#: A parenthesis and what it holds (no nested parenthesis, at most 120 characters).
_PAREN_RE = re.compile(r"\(([^()]{1,120})\)")
#: Text up to the last place where the words before a parenthesis stop: a sentence's or a
#: clause's end, another bracket (one greedy match from the start finds the last).
_LAST_CLAUSE_END_RE = re.compile(r"(?s).*(?:[.;:?!]\s|[()\[\]])")
#: A word of text as the index cuts it, its case kept; and of ASCII text.
_WORD_RE = re.compile(r"[^\W_]+")
_ASCII_WORD_RE = re.compile(r"[A-Za-z0-9]+")
#: Characters of a short form (Schwartz & Hearst: 2 to 10).
SHORT_CHARS = (2, 10)
#: Index tokens of a long form: "RL" for one word is no acronym, and a window of more than 8
#: words is no longer a name.
LONG_TOKENS = (2, 8)
#: Papers that must define a pair for the search to use it: a definition found once is as
#: often a slip of the algorithm (or of the author) as a usage.
MIN_PAPERS = 2
#: Share of a short form's defining papers a long form needs: "PPO" is "proximal policy
#: optimization" in most papers that define it, and a long form that one paper in ten gives
#: is another author's private use.
MIN_SHARE = 0.2


def definitions(text: str) -> set[tuple[str, str, str]]:
    """``{(short, long, shown)}``: the acronyms ``text`` defines, by the Schwartz & Hearst
    algorithm (2003), "long form (SHORT)" and the other way round, "SHORT (long form)".

    ``short`` is the short form's index token (a plural "LLMs" as ``llm``), ``long`` the long
    form's tokens joined by spaces, ``shown`` the long form's words as the text writes them,
    one per token, in lower case unless a word has a capital after its first letter ("ImageNet",
    "GPT"). A short form is one token of 2-10 characters with a capital letter and at least 2
    letters, written in the parenthesis alone or before a ``,`` or ``;``; a long form has
    :data:`LONG_TOKENS` tokens, begins with the short form's first letter and holds its letters
    and digits in order (right to left, as the algorithm matches them)."""
    found: set[tuple[str, str, str]] = set()
    if "(" not in text:
        return found
    for m in _PAREN_RE.finditer(text):
        inside = m.group(1)
        for cut in ("; ", ", "):
            at = inside.find(cut)
            if at >= 0:
                inside = inside[:at]
        inside = inside.strip(" *_$")
        if inside.count(" ") <= 1:
            if inside.lower() == inside or not 1 < len(inside) <= SHORT_CHARS[1]:
                continue  # (no capital: "(e.g.)", "(2023)", "(see below)")
            short, window = inside, _before(text, m.start())
        else:  # "RLHF (reinforcement learning from human feedback)"
            last = text[text.rfind(" ", 0, max(m.start() - 1, 0)) + 1:m.start()].strip(" *_$")
            if last.lower() == last or len(last) > SHORT_CHARS[1]:
                continue
            short, window = last, inside
        pair = _pair(short, window)
        if pair:
            found.add(pair)
    return found


def _before(text: str, at: int) -> str:
    """The words of ``text`` before ``at`` (a parenthesis) back to a clause's end."""
    before = text[max(0, at - _BEFORE_CHARS):at]
    last = _LAST_CLAUSE_END_RE.match(before)
    return (before[last.end():] if last else before).rstrip(" *_$")


#: Characters before a parenthesis read for its long form: 15 words (the most Schwartz &
#: Hearst allow, a 10-character short form's) of up to ~20 characters.
_BEFORE_CHARS = 300


def _pair(short: str, window: str) -> tuple[str, str, str] | None:
    if not (SHORT_CHARS[0] <= len(short) <= SHORT_CHARS[1] and short[0].isalnum()
            and short.lower() != short and sum(map(str.isalpha, short)) >= 2):
        return None
    # (tokens() of ASCII text: its runs of letters and digits, lower case)
    key = tuple(_ASCII_WORD_RE.findall(short.lower())) if short.isascii() else tokens(short)
    if len(key) != 1:
        return None
    words = window.split()
    # the words the long form may take (Schwartz & Hearst): min(|A| + 5, 2|A|)
    window = " ".join(words[-min(len(short) + 5, 2 * len(short)):])
    long = _initials(short, window) or _best_long_form(short, window)
    if long is None or len(long) <= len(short):
        return None
    if long.isascii():
        written = _ASCII_WORD_RE.findall(long)
        long_tokens = tuple(w.lower() for w in written)
    else:
        written = _WORD_RE.findall(unicodedata.normalize("NFKC", long))
        long_tokens = tokens(long)
    if not LONG_TOKENS[0] <= len(long_tokens) <= LONG_TOKENS[1] or key[0] in long_tokens:
        return None
    shown = [w if w[1:].lower() != w[1:] else w.lower() for w in written]
    if len(shown) != len(long_tokens):  # (a letter that folds into two tokens)
        shown = list(long_tokens)
    short_key = key[0]
    if len(short) > 2 and short[-1] == "s" and short[-2].isupper():  # "LLMs", "GANs"
        short_key = short_key[:-1]
    return short_key, " ".join(long_tokens), " ".join(shown)


def _initials(short: str, window: str) -> str | None:
    """The end of ``window`` whose words' initials are the short form's letters and digits
    ("Proximal Policy Optimization" for "PPO", "Self-Supervised Learning" for "SSL"), else None:
    the strongest evidence there is, which :func:`_best_long_form` alone misses when a later
    word holds a letter of the short form ("Policy Optimization", "Supervised Learning")."""
    letters = [c for c in short.lower() if c.isalnum()]
    starts = [m.start() for m in _WORD_RE.finditer(window, max(0, len(window) - 30 * len(letters)))
              ][-len(letters):]
    if len(starts) == len(letters) and all(
            window[at].lower() == c for at, c in zip(starts, letters, strict=True)):
        return window[starts[0]:]
    return None


def _best_long_form(short: str, window: str) -> str | None:
    """The shortest end of ``window`` that holds the characters of ``short`` in order, its
    first character at a word's start (Schwartz & Hearst's ``findBestLongForm``)."""
    s, at = len(short) - 1, len(window) - 1
    low = window.lower()
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while at >= 0 and (low[at] != c or (s == 0 and at > 0 and low[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
        at -= 1
        s -= 1
    # from the space before the word ("self-supervised learning"), after a brace or quote
    # ("Minecraft Universe" of "\textit{Minecraft Universe}")
    return window[max(window.rfind(c, 0, at + 1) for c in _LONG_FORM_STARTS) + 1:]


#: What a long form begins after: the space before its first word, or a brace or quote.
_LONG_FORM_STARTS = (" ", "{", '"', "'", "`", "*")


# -- the tables -------------------------------------------------------------------------------

ACRONYMS_DDL = """
CREATE TABLE IF NOT EXISTS paper_acronyms (
    paper INTEGER NOT NULL,         -- papers.rowid
    short TEXT NOT NULL,            -- the short form's token (a plural as its singular)
    long TEXT NOT NULL,             -- the long form's tokens, space-separated
    shown TEXT NOT NULL,            -- the long form's words as written (definitions())
    PRIMARY KEY (paper, short, long)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS paper_acronyms_short ON paper_acronyms(short);
CREATE TRIGGER IF NOT EXISTS papers_acronyms_ad AFTER DELETE ON papers BEGIN
    DELETE FROM paper_acronyms WHERE paper = old.rowid;
END;
CREATE TABLE IF NOT EXISTS acronyms (
    short TEXT NOT NULL,            -- as in paper_acronyms
    singular TEXT NOT NULL,         -- the long form's tokens made singular (singular_key())
    long TEXT NOT NULL,             -- its tokens, as most of its papers write it
    shown TEXT NOT NULL,            -- its words, likewise
    papers INTEGER NOT NULL,        -- papers that define the pair
    share REAL NOT NULL,            -- papers / papers that define the short form at all
    PRIMARY KEY (short, singular)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS acronyms_singular ON acronyms(singular)"""


def mine_new(conn: sqlite3.Connection, after: int,
             papers: list[tuple[str | None, str]] | None = None) -> None:
    """Mine the papers of rowid above ``after`` (just inserted) into ``paper_acronyms``;
    ``papers`` are their ``(title, abstract)`` in rowid order when the caller has them (87k
    abstracts: reading them back from the index took ~0.4 s), else they are read."""
    if papers is None:
        _mine(conn, "rowid > ?", (after,))
    else:
        _write(conn, ((after + i, title, abstract)
                      for i, (title, abstract) in enumerate(papers, start=1)))


def mine_again(conn: sqlite3.Connection, ids: list[str]) -> None:
    """Mine the papers ``ids`` (whose title or abstract a sync changed) anew."""
    for at in range(0, len(ids), 500):
        chunk = ids[at:at + 500]
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM paper_acronyms WHERE paper IN (SELECT rowid FROM papers "
                     f"WHERE id IN ({marks}))", chunk)
        _mine(conn, f"id IN ({marks})", chunk)


def _mine(conn: sqlite3.Connection, where: str, params) -> None:
    _write(conn, conn.execute(f"SELECT rowid, title, abstract FROM papers WHERE {where}",
                              params).fetchall())


def of_paper(title: str | None, abstract: str) -> set[tuple[str, str, str]]:
    """The :func:`definitions` of a paper: its abstract's and its title's."""
    pairs = definitions(abstract)
    if title and "(" in title:
        pairs |= definitions(title)
    return pairs


def _write(conn: sqlite3.Connection, papers) -> None:
    """Write the definitions of ``papers``, ``(rowid, title, abstract)`` each."""
    write_found(conn, ((rowid, of_paper(title, abstract)) for rowid, title, abstract in papers))


def write_found(conn: sqlite3.Connection, papers) -> None:
    """Write definitions found already: ``(rowid, of_paper(title, abstract))`` of each paper
    (:func:`db.index.rows.prepare_file` finds them where the papers are parsed)."""
    rows = []
    for rowid, pairs in papers:
        rows += [(rowid, *p) for p in sorted(pairs)]  # (a pair written twice: the first kept)
    conn.executemany("INSERT OR IGNORE INTO paper_acronyms(paper, short, long, shown) "
                     "VALUES (?, ?, ?, ?)", rows)
    conn.executemany("INSERT OR IGNORE INTO temp.acronyms_changed(short) VALUES (?)",
                     [(short,) for short in {r[1] for r in rows}])


def track(conn: sqlite3.Connection) -> None:
    """Keep the short forms a sync's writes touch in ``temp.acronyms_changed`` (those of the
    definitions written here, and by a temporary trigger those deleted with their papers), so
    that :func:`aggregate` makes their rows again and no other. Call it in the sync's write
    transaction, after the tables are made (a temporary table and trigger of this connection:
    not in the index file, rolled back with the sync)."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS acronyms_changed(short TEXT PRIMARY KEY)")
    conn.execute("CREATE TEMP TRIGGER IF NOT EXISTS paper_acronyms_gone AFTER DELETE ON "
                 "main.paper_acronyms BEGIN INSERT OR IGNORE INTO acronyms_changed(short) "
                 "VALUES (old.short); END")


def singular(word: str) -> str:
    """``word`` (an index token) without the ending of an English plural: "networks" →
    "network", "processes" → "process", "policies" → "policy"; other words as they are. The
    key that counts a long form's singular and plural as one (a rule of a few string tests,
    cheaper than stemming every long form of a library)."""
    if len(word) < 4 or word[-1] != "s" or word[-2] in "su" or word[-2:] == "is":
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    return word[:-1]


def singular_key(long: str) -> str:
    """A long form's tokens (space-separated) each made :func:`singular`: the lookup key of
    ``acronyms.singular``."""
    return " ".join(map(singular, long.split(" ")))


def aggregate(conn: sqlite3.Connection) -> None:
    """Make the rows of ``acronyms`` again of the short forms in ``temp.acronyms_changed``
    (:func:`track`), or all of them when that is most of ``paper_acronyms``' (a first build:
    87k abstracts, ~56,000 definitions in ~0.4 s; a sync of one small file: a few ms): the
    pairs that :data:`MIN_PAPERS` papers define and that have :data:`MIN_SHARE` of their short
    form's definitions."""
    changed = [r[0] for r in conn.execute("SELECT short FROM temp.acronyms_changed")]
    conn.execute("DELETE FROM temp.acronyms_changed")
    if not changed:
        return
    select = "SELECT paper, short, long, shown FROM paper_acronyms"
    if len(changed) > _SOME_SHORTS:
        conn.execute("DELETE FROM acronyms")
        rows = _aggregated(conn.execute(select))
    else:
        marks = ",".join("?" * len(changed))
        conn.execute(f"DELETE FROM acronyms WHERE short IN ({marks})", changed)
        rows = _aggregated(conn.execute(f"{select} WHERE short IN ({marks})", changed))
    conn.executemany("INSERT INTO acronyms(short, singular, long, shown, papers, share) "
                     "VALUES (?, ?, ?, ?, ?, ?)", sorted(rows))


#: Short forms from which :func:`aggregate` reads every definition at once (one pass over the
#: table) instead of theirs alone (one look-up each in ``paper_acronyms_short``).
_SOME_SHORTS = 500


def _aggregated(definitions) -> list[tuple]:
    """The rows of ``acronyms`` from rows ``(paper, short, long, shown)`` of
    ``paper_acronyms`` (every row of each short form given)."""
    papers: dict[tuple[str, str], set[int]] = defaultdict(set)  # (short, key) -> papers
    spellings: dict[tuple[str, str], Counter[tuple[str, str]]] = defaultdict(Counter)
    by_short: dict[str, set[int]] = defaultdict(set)
    keys: dict[str, str] = {}
    for paper, short, long, shown in definitions:
        key = keys.get(long)
        if key is None:
            key = keys[long] = singular_key(long)
        papers[short, key].add(paper)
        spellings[short, key][long, shown] += 1
        by_short[short].add(paper)
    rows = []
    for (short, key), found in papers.items():
        share = len(found) / len(by_short[short])
        if len(found) >= MIN_PAPERS and share >= MIN_SHARE:
            long, shown = min(spellings[short, key].items(), key=lambda s: (-s[1], s[0]))[0]
            rows.append((short, key, long, shown, len(found), round(share, 4)))
    return rows
