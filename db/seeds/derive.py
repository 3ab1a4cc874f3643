"""Fields derived from an abstract: the method's name, the headline, links.

Seed abstracts carry no titles, so the results table shows a derived *name* (the method, model or
benchmark the abstract introduces: "PARM", "WUDI-Merging", "S2-Track") and a *headline* (the first
sentence). A paper that names no method gets no name rather than a wrong one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator

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
# Abbreviations that abstracts define for the field, not for their own method.
_FIELD_TERMS = {
    "LLM", "LLMS", "VLM", "MLLM", "RL", "MARL", "NLP", "CV", "CNN", "RNN", "GNN", "GAN", "VAE",
    "MLP", "VIT", "MOE", "SMOE", "SOTA", "AI", "AGI", "ML", "DNN", "LM", "PLM", "SGD", "GPU",
    "TPU", "API", "RAG", "KL", "MDP", "POMDP", "IID", "OOD", "MOO", "MTL", "STL", "QA", "VQA",
    "ASR", "TTS", "OCR", "MIL", "MOT", "ICL", "ICRL", "COT", "SFT", "RLHF", "DPO", "PPO", "LORA",
    "PEFT", "NAS", "IRL", "DRL", "BERT", "GPT", "CLIP", "IMAGENET", "COCO", "PDE", "ODE", "SDE",
    "FL", "PFL", "KD", "L2D",
}


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

    Looks in sentences with an introducing verb ("we propose", "called", "introduces the") for,
    in order: a parenthesised single-word name after a capitalised phrase in the same clause
    ("... Preference-aware ARM (PARM)"), then the first name-like word after the verb (inner
    capitals or digits: "M3DT", "DipLLM", "S2-Track"; or a capitalised non-dictionary word right
    after it: "Craftium"). Words the abstract used before that sentence, and field-wide
    abbreviations (LLM, RL, ...), are skipped. ``is_word`` tells whether a lower-case word is
    ordinary English.
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
            tail = plain[pending.end():end]
            name = _paren_name(tail, seen) or _first_name_like(tail, seen, is_word)
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
            tail = sentence[trigger.end():]
            seen = _SeenBefore(plain[: max(start, 0)])
            name = _paren_name(tail, seen) or _first_name_like(tail, seen, is_word)
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
# a command left without braces is no part of a name: a style command's glued word stays
# ("\\textitNormalization" is "Normalization"), any other command goes ("\\sqrtT", "\\citeCMS11")
_BARE_COMMAND_RE = re.compile(
    r"\\(?:(?P<style>text(?:it|sl|bf|sc|tt|rm|sf)?|emph|math(?:rm|bf|it|sf))(?=[A-Za-z])|[A-Za-z]+)")


def _strip_markup(text: str) -> str:
    # the substring tests first: most abstracts have neither, and the regexes scan every position
    if "*" in text or "_" in text:
        text = _EMPHASIS_RE.sub("", text)
    if "\\" not in text:
        return text
    text = _COMMAND_RE.sub(r"\1", text)
    return _BARE_COMMAND_RE.sub(lambda m: "" if m.group("style") else " ", text)


def _paren_name(tail: str, seen: _SeenBefore) -> str | None:
    clause = _CLAUSE_END_RE.split(tail, maxsplit=1)[0]  # "the iDPA framework, which has ... (IPG)"
    for m in _PAREN_NAME_RE.finditer(clause):
        words_before = clause[: m.start()].split()[-3:]
        capitalised = sum(1 for w in words_before if w[:1].isupper())
        name = m.group(1)
        if capitalised >= 2 and _acceptable(name, seen) and (_name_like(name) or name[0].isupper()):
            return name
    return None


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
            return token
        # "introduces Craftium, a ..." / "the Craftium platform": a new capitalised coinage
        if i <= 1 and token[:1].isupper() and token.isalpha() and not is_word(token.lower()):
            return token
    return None


#: Last parts that make a hyphenated word a description, not a name: "CAD-based", "LLM-driven".
_DESCRIBING_SUFFIXES = frozenset({
    "based", "driven", "guided", "aware", "free", "like", "level", "wise", "specific",
    "agnostic", "efficient", "friendly", "centric", "style", "scale", "sized", "only"})


def _acceptable(token: str, seen: _SeenBefore) -> bool:
    if len(token) < 3 or token.upper() in _FIELD_TERMS:
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
