"""Fields derived from an abstract: the method's name, the headline, links.

Seed abstracts carry no titles, so the results table shows a derived *name* (the method, model or
benchmark the abstract introduces: "PARM", "WUDI-Merging", "S2-Track") and a *headline* (the first
sentence). A paper that names no method gets no name rather than a wrong one, and a name is
what the abstract introduces, never a tool, dataset or metric it uses. The index shows a name
only where no other paper of the library derives it too (:mod:`db.index.names`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator

from db.seeds.field_terms import FIELD_TERMS
from db.seeds.render import render_plain
from db.text import NOT_WORD_BYTES, iter_sentences, one_line, sentence_spans

_URL_RE = re.compile(r"https?://[^\s<>\"'`{}\[\]]+", re.IGNORECASE)
_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "huggingface.co",
               "sourceforge.net", "git.")

# Verbs with which an abstract introduces its own contribution ("we propose X", "called X").
# (the lookahead on the first letters rejects most positions before the alternation is tried:
# 40% faster, and this scan runs over every abstract at every sync)
_TRIGGER_RE = re.compile(
    r"\b(?=[bcdinprtBCDINPRT])"
    r"(?:propos\w*|introduc\w*|present\w*|call(?:ed)?|nam(?:ed|e)|dub(?:bed)?|term(?:ed)?|"
    r"coin(?:ed)?|develop\w*|design\w*|build|built|releas\w*)\b(?:\s+as)?",
    re.IGNORECASE,
)
# the same verbs, case-sensitive, for lower-cased ASCII text (a case-insensitive scan of every
# position is the slower part of the search); _triggers() finds candidate positions with str.find
_TRIGGER_LOWER_RE = re.compile(_TRIGGER_RE.pattern.replace("bcdinprtBCDINPRT", "bcdinprt"))
_TRIGGER_STEMS = ("propos", "introduc", "present", "call", "nam", "dub", "term", "coin",
                  "develop", "design", "buil", "releas")
# the stems after a space, as a tree of alternatives (one scan; a str.find per stem takes 1.6x
# as long): " (?:b(?:uil)|c(?:all|oin)|...)"
_SPACED_STEMS_RE = re.compile(" (?:" + "|".join(
    f"{first}(?:{'|'.join(s[1:] for s in _TRIGGER_STEMS if s[0] == first)})"
    for first in sorted({s[0] for s in _TRIGGER_STEMS})) + ")")
_TOKEN_RE = re.compile(r"\(?[A-Za-z0-9][\w\-+.]*[\w+]\)?|\(?[A-Za-z]\)?")
_MAYBE_NAME_RE = re.compile(r".[A-Z]|\d")
_CLAUSE_END_RE = re.compile(r"[,;:]")
_PLURAL_ABBREV_RE = re.compile(r"[A-Z]{2,}s")
_NAME_PARTS_RE = re.compile(r"[-_.+]")
_PAREN_NAME_RE = re.compile(r"\(([A-Za-z][\w\-+.]*[\w+])\)")


def urls(text: str) -> list[str]:
    """Every http(s) link in ``text``, in order, without trailing punctuation, no duplicates."""
    found: list[str] = []
    if "://" not in text:  # every link has it; most abstracts have none
        return found
    for m in _URL_RE.finditer(text):
        url = m.group(0).rstrip(".,;:!?*_")
        while url.endswith(")") and url.count(")") > url.count("("):
            url = url[:-1]
        if url not in found:
            found.append(url)
    return found


def code_url(links: list[str]) -> str | None:
    """The code or project link among ``links``: a code host first, else the first link."""
    for url in links:
        host = url.split("/")[2].lower() if url.count("/") >= 2 else ""
        if any(h in host for h in _CODE_HOSTS):
            return url
    return links[0] if links else None


def headline(text: str, limit: int = 240) -> str:
    """The abstract's first sentence, rendered to plain text, cut at ``limit`` characters."""
    found = next(iter_sentences(one_line(text)[: limit * 4]), None)
    if not found:
        return ""
    rendered = render_plain(found)
    # a sentence of one_line's output is one line already: only rendering can change that
    first = found if rendered is found else one_line(rendered)
    if len(first) > limit:
        first = first[: limit - 1].rsplit(" ", 1)[0] + "…"
    return first


def method_name(text: str, is_word: Callable[[str], bool]) -> str | None:
    """The name of the method/model/benchmark the abstract introduces, or None.

    Looks in sentences with an introducing verb ("we propose", "called", "introduces the";
    not "the proposed", "et al. proposed", "Named Entity") at the phrase the verb introduces,
    up to a preposition or relative word ("a framework to exploit the RGB ..." names nothing),
    for, in order (:func:`_name_after`): a bracketed name that the words before it define
    ("... Preference-aware ARM (PARM)", "State VAlue Generation based framework (SVAG)"), then
    the first name-like word (inner capitals or digits: "M3DT", "DipLLM", "S2-Track"; or a
    capitalised non-dictionary word standing alone right after the verb: "Craftium, a ..."),
    not one that qualifies a kind ("a novel LSTM model"), then a name set off by commas or
    after a closing colon. Markdown, links and LaTeX commands are stripped first (a command's
    letters are never part of a name); words the abstract used before that sentence, and the
    field's own terms (:data:`db.seeds.field_terms.FIELD_TERMS`: LLM, MCMC, MNIST ...), are
    skipped. ``is_word`` tells whether a lower-case word is ordinary English.
    """
    # (composed first: a name's accent written as a combining mark would end the name there)
    if not text.isascii():  # (ASCII is composed already: one C scan instead of a normalize)
        text = unicodedata.normalize("NFC", text)
    plain = one_line(_strip_markup(text))
    # one scan of the whole text for introducing verbs, instead of one more per sentence: no
    # match can span two sentences (a verb ends in a letter, a sentence in ".", "!" or "?"),
    # so the matches inside a sentence are the sentence's own (tests/test_seeds_derived.py compares)
    triggers = _triggers(plain)
    pending = next(triggers, None)
    if pending is None:
        return None
    for start, end in sentence_spans(plain):
        if pending.start() >= end:
            continue
        seen = _SeenBefore(plain[:start])
        while pending is not None and pending.start() < end:
            # (the verb as written: _triggers matches in lower-cased text)
            name = _name_after(plain[start:pending.start()], plain[pending.start():pending.end()],
                               plain[pending.end():end], seen, is_word)
            if name:
                return name
            pending = next(triggers, None)
        if pending is None:
            return None
    return None


def _triggers(plain: str) -> Iterator[re.Match[str]]:
    """``_TRIGGER_RE.finditer(plain)``, found faster in ASCII text: each verb's stem is looked
    for with ``str.find`` at word starts only (a space before it in the lower-cased text with
    every other non-word character made a space: "determine", "dynamic" and "represent" are
    not looked at), and the regex is tried only there (the matches' positions are the same:
    lower() and the translation keep the length of ASCII text)."""
    if not plain.isascii():
        yield from _TRIGGER_RE.finditer(plain)
        return
    low = plain.lower()
    # spaced[i + 1] is low[i], and spaced[i] is a space where low[i - 1] is no word character
    # (or i is 0): a match of the regex starts at a word boundary, so at " " + stem there
    spaced = " " + low.encode().translate(NOT_WORD_BYTES).decode()
    end = 0
    for found in _SPACED_STEMS_RE.finditer(spaced):
        at = found.start()
        if at < end:
            continue
        m = _TRIGGER_LOWER_RE.match(low, at)
        if m:
            end = m.end()
            yield m


def _method_name_by_sentence(plain: str, is_word: Callable[[str], bool]) -> str | None:
    """:func:`method_name` of the one-line plain text, searching each sentence for verbs."""
    offset = 0
    for sentence in iter_sentences(plain):
        start = plain.find(sentence, offset)
        offset = start + len(sentence) if start >= 0 else offset
        for trigger in _TRIGGER_RE.finditer(sentence):
            seen = _SeenBefore(plain[: max(start, 0)])
            name = _name_after(sentence[: trigger.start()], trigger.group(0),
                               sentence[trigger.end():], seen, is_word)
            if name:
                return name
    return None


class _SeenBefore:
    """Whether a word occurs (as a whole word) in the text before the current sentence."""

    def __init__(self, before: str):
        self.before = before

    def __contains__(self, word: str) -> bool:
        # str.find and a look at the neighbours: a regex built per word filled re's cache and
        # recompiled thousands of patterns per sync (cProfile: ~10% of parsing)
        before, at = self.before, self.before.find(word)
        while at >= 0:
            end = at + len(word)
            if not (at and _joins(before[at - 1])) and not (end < len(before)
                                                            and _joins(before[end])):
                return True
            at = before.find(word, at + 1)
        return False


def _joins(ch: str) -> bool:
    """True for a character that makes a word part of a longer one: ``-`` or what re's ``\\w``
    matches (in CPython: ``str.isalnum()`` or ``_``)."""
    return ch.isalnum() or ch in "-_"


_EMPHASIS_RE = re.compile(r"\*\*?|(?<!\w)_|_(?!\w)")
_COMMAND_RE = re.compile(r"\\[A-Za-z]+\{([^{}]*)\}")
#: LaTeX's font and text commands, which abstracts also write without their braces
#: ("\\emphNested LSTMs", "that we call \\textitNormalization Propagation": the corpus of
#: docs/benchmark.md has both): the command goes and its glued word stays; longest first, so
#: that "textit" is not read as "text" + "it" (a two-letter one only before a capital: \\item)
_FONT_COMMANDS = ("textit", "textbf", "textrm", "textsf", "texttt", "textsc", "textsl",
                  "textup", "textnormal", "text", "emph", "mathbf", "mathrm", "mathcal",
                  "mathbb", "mathit", "mathsf", "mathtt", "mathfrak", "mathscr", "boldsymbol",
                  "operatorname", "underline", "bf", "it", "em", "rm", "sc", "tt")
_GLUED_COMMAND_RE = re.compile(
    r"\\(?:(?:" + "|".join(sorted((c for c in _FONT_COMMANDS if len(c) > 2), key=len,
                                   reverse=True))
    + r")(?=[A-Za-z])|(?:" + "|".join(c for c in _FONT_COMMANDS if len(c) == 2) + r")(?=[A-Z]))")
_ANY_COMMAND_RE = re.compile(r"\\[A-Za-z]+")
#: a token that starts with a font command's word, without its backslash, glued to a capital
#: ("textitNormalization")
_COMMAND_WORD_RE = re.compile(
    "(?:" + "|".join(c for c in _FONT_COMMANDS if len(c) > 3) + ")[A-Z]")


def _strip_markup(text: str) -> str:
    """``text`` without Markdown emphasis, links and LaTeX commands: ``\\textit{X}`` is ``X``, a
    font command glued to its word (``\\emphNested``) is dropped from it, and any other
    command (``\\alpha``, ``\\citeCMS11``) is a space: its letters are never part of a name."""
    # the substring tests first: most abstracts have neither, and the regexes scan every position
    if "*" in text or "_" in text:
        text = _EMPHASIS_RE.sub("", text)
    if "://" in text:  # a link's path is no name ("github.com/AndrewZhe/...")
        text = _URL_RE.sub(" ", text)
    if "\\" not in text:
        return text
    text = _GLUED_COMMAND_RE.sub("", _COMMAND_RE.sub(r"\1", text))
    return _ANY_COMMAND_RE.sub(" ", text)


#: Verbs that name a thing only in the lower case: "Named Entity Recognition (NER)" and a
#: sentence that starts "Called ..." name nothing of the paper's.
_NAMING_VERBS = ("nam", "call", "term", "dub", "coin")
#: Words that end the phrase a verb introduces: what follows them is used, studied or compared
#: ("we propose a framework to exploit the RGB ...", "a detector on the PASCAL VOC dataset").
_PHRASE_END_RE = re.compile(
    r"(?<![\w-])(?:on|using|with|via|from|to|for|in|by|based|of|that|which|where|whose|while|"
    r"across|over|against|into|than|through|between|under|within|upon|when)(?![\w-])")
#: The end of a sentence before a participle that refers back to a method named elsewhere:
#: "the proposed", "our introduced", "recently proposed", "et al. (2015) proposed", "has been
#: proposed".
_REFERRING_RE = re.compile(
    r"(?:\b(?:the|our|its|their|previously|recently|originally|been|was|were|is|are|al\.)"
    r"|\)) *$", re.IGNORECASE)
#: "we introduce a network, X2Face, that ...": a name set off by commas after the phrase
_APPOSITIVE_RE = re.compile(r"\s*([A-Za-z0-9][\w\-+.]*[\w+])\s*(?:[,(]|$)")
#: "... a strong yet simple tracker: S2-Track." (the name after a colon, ending the sentence)
_COLON_NAME_RE = re.compile(r":\s+([A-Za-z0-9][\w\-+.]*[\w+])[.!?]?\s*$")


def _name_after(before: str, verb: str, tail: str, seen: _SeenBefore,
                is_word: Callable[[str], bool]) -> str | None:
    """The name that the introducing ``verb`` gives in ``tail`` (the rest of its sentence), or
    None: a name in brackets defined by the words before it, else the first name-like word of
    the phrase the verb introduces (up to a preposition or a relative word: a dataset, tool or
    metric named after those is used, not introduced), else a name set off by commas right
    after that phrase ("a network, X2Face, that"), else a name after a colon that ends the
    sentence ("a tracker: S2-Track."). ``before`` is the sentence up to the verb: a participle
    after "the", "our" or a citation ("the proposed method runs at 14 FPS", "Chen et al. (2015)
    proposed HashedNets") refers to a method named already, or another paper's."""
    if verb.lower().startswith(_NAMING_VERBS):  # "it is called X", not "the so-called X"
        if verb[0].isupper() or before.endswith("so-"):
            return None
    elif verb.endswith("ed") and _REFERRING_RE.search(before):
        return None
    if tail.startswith(" entit"):  # "named entity recognition", "named entities"
        return None
    clause = _CLAUSE_END_RE.search(tail)
    cut = _phrase_end(tail[: clause.start()] if clause else tail)
    name = _paren_name(tail, seen, cut) or _first_name_like(tail[:cut], seen, is_word)
    if name is None and clause and clause.group(0) == ",":
        rest = tail[clause.end():]
        m = _APPOSITIVE_RE.match(rest)
        if m and _acceptable(m.group(1), seen) and _name_like(m.group(1)):
            name = m.group(1)
        else:  # "a new framework, Story Oriented Dense video cAptioning (SODA), for"
            name = _paren_name(rest, seen, _phrase_end(rest))
    if name is None and ":" in tail:
        m = _COLON_NAME_RE.search(tail)
        if m and _acceptable(m.group(1), seen) and _name_like(m.group(1)):
            name = m.group(1)
    return name


def _phrase_end(tail: str) -> int:
    """Where the phrase that starts ``tail`` ends: at the first preposition or relative word
    after a lower-case word ("a method for NER"; "Mixture of Experts" goes on), else its end."""
    for m in _PHRASE_END_RE.finditer(tail):
        before = tail[: m.start()].rstrip().rsplit(" ", 1)[-1].lstrip("(*")
        if not before[:1].isupper():
            return m.start()
    return len(tail)


def _paren_name(tail: str, seen: _SeenBefore, cut: int) -> str | None:
    """A bracketed name in the first clause of ``tail`` that the words before it define, those
    words starting before ``cut``: "we propose Preference-aware ARM (PARM)", not "a method for
    Named Entity Recognition (NER)"."""
    clause = _CLAUSE_END_RE.split(tail, maxsplit=1)[0]  # "the iDPA framework, which has ... (IPG)"
    for m in _PAREN_NAME_RE.finditer(clause):
        name = m.group(1)
        if not (_acceptable(name, seen) and (_name_like(name) or name[0].isupper())):
            continue
        start = _definition_start(clause[: m.start()], name)
        if start is not None and start < cut:
            return name
    return None


def _definition_start(before: str, name: str) -> int | None:
    """Where the words that ``name`` stands for start in ``before`` (the text up to its
    bracket), or None: two capitalised words among the last three ("Preference-aware ARM"),
    or the last words whose capitals spell the name's letters in order ("State VAlue
    Generation based framework (SVAG)")."""
    words = [(m.start(), m.group()) for m in _WORD_SPAN_RE.finditer(before)][-8:]
    capitalised = [at for at, w in words[-3:] if w.lstrip("*(")[:1].isupper()]
    if len(capitalised) >= 2:
        return capitalised[0]
    letters = [ch for ch in name.upper() if ch.isalpha()]
    for at, word in reversed(words):
        for ch in reversed(word):
            if letters and ch == letters[-1]:
                letters.pop()
        if not letters:
            return at
    return None


_WORD_SPAN_RE = re.compile(r"\S+")


def _first_name_like(tail: str, seen: _SeenBefore, is_word: Callable[[str], bool]) -> str | None:
    # the first 25 words of the tail, found by one C call (findall), and of those only the ones
    # with a capital or no letter at all: every test below needs a capital letter, and removing
    # brackets and dots changes no letter, so ``raw.islower()`` is ``token.islower()``
    # (tests/test_parse_fast_paths.py compares with the word-by-word loop)
    words = _TOKEN_RE.findall(tail)[:25]
    for i, raw in [(i, raw) for i, raw in enumerate(words) if not raw.islower()]:
        # "(LRMC)" after a lower-case phrase abbreviates a problem, not a method of the paper
        if raw[0] == "(":
            continue
        token = raw.strip("()").rstrip(".")
        if i > 1 and not _MAYBE_NAME_RE.search(token):
            continue  # cheap pre-checks: every test below needs a capital letter
        if not _acceptable(token, seen):
            continue
        if _name_like(token):
            if _describes_a_kind(token, words, tail):
                continue
            return token
        # "introduces Craftium, a ...": a new capitalised coinage standing alone (not an
        # adjective: "a Riemannian stochastic method", "Convolutional Neural Network")
        if (i <= 1 and token[:1].isupper() and token.isalpha() and not is_word(token.lower())
                and _stands_alone(token, tail)):
            return token
    return None


#: Words that start a phrase about a kind of thing ("a novel LSTM model", "two MCMC methods").
_INDEFINITE = frozenset({"a", "an", "two", "three", "four", "several", "some", "new", "novel"})


def _describes_a_kind(token: str, words: list[str], tail: str) -> bool:
    """True when name-like ``token`` qualifies a noun in a phrase about a kind of thing: "a
    novel multi-input LSTM model", "an efficient MCMC sampler" (the tool used), not "the
    LMRL-Gym benchmark" or "MENTOR, a method"."""
    at = tail.find(token)
    return (bool(words) and words[0].lower() in _INDEFINITE and at >= 0
            and tail[at + len(token): at + len(token) + 2][1:2].islower()
            and tail[at + len(token)] == " ")


def _stands_alone(token: str, tail: str) -> bool:
    """True when ``token`` is followed by punctuation or ends ``tail``, not by another word."""
    at = tail.find(token) + len(token)
    return at >= len(tail.rstrip()) or tail[at] in ",(:;."


#: Last parts that make a hyphenated word a description, not a name: "CAD-based", "LLM-driven".
_DESCRIBING_SUFFIXES = frozenset({
    "based", "driven", "guided", "aware", "free", "like", "level", "wise", "specific",
    "agnostic", "efficient", "friendly", "centric", "style", "scale", "sized", "only"})


def _acceptable(token: str, seen: _SeenBefore) -> bool:
    if len(token) < 3 or token.upper() in FIELD_TERMS or _COMMAND_WORD_RE.match(token):
        return False
    if "-" in token and token.rsplit("-", 1)[1] in _DESCRIBING_SUFFIXES:
        return False
    if _PLURAL_ABBREV_RE.fullmatch(token):  # plural abbreviations (ARMs, LLMs) name a kind of thing
        return False
    return sum(ch.isalpha() for ch in token) >= 2 and token not in seen


def _name_like(token: str) -> bool:
    """Capitals inside a word part (PARM, DipLLM, iDPA) or a capital next to a digit (M3DT)."""
    parts = _NAME_PARTS_RE.split(token)
    inner_caps = any(ch.isupper() for p in parts for ch in p[1:])
    lower_start_caps = any(p[:1].islower() and any(c.isupper() for c in p) for p in parts)
    has_digit = any(ch.isdigit() for ch in token) and any(ch.isupper() for ch in token)
    return inner_caps or lower_start_caps or has_digit
