"""Render an abstract's Markdown emphasis and LaTeX for people, without trusting either.

The stored text keeps ``*emphasis*``, ``**bold**``, ``$math$`` and ``\\textit{...}`` as written;
front ends call :func:`render_segments` (styled runs) or :func:`render_plain` (one string).
LaTeX goes through :mod:`db.seeds.mathtext` one span at a time (math that keeps its meaning:
``$\\arg\\min_\\theta \\|x\\|_2^2$`` → ``arg min_θ ‖x‖₂²``), guarded: a span that fails, drops
a digit, is too long or takes too long is shown as its source text, so nothing is ever dropped.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

# pylatexenc (mathtext reads its table of symbols) logs a WARNING for each macro it cannot
# expand. With no handler configured anywhere, Python's last-resort handler prints those on
# stderr, in the middle of the CLI's output and over the browser's screen. A NullHandler on the
# package's logger stops that; an application that configures logging still receives them.
logging.getLogger("pylatexenc").addHandler(logging.NullHandler())

#: Styles of a rendered run: "" plain, "b" bold, "i" italic, "bi" both, "m" math.
Segment = tuple[str, str]

_MAX_LATEX_SPAN = 400  # characters; longer "math" is more likely a stray $ than a formula
_LATEX_BUDGET_S = 0.5  # seconds for one span before we give up and show the source

_TOKEN_RE = re.compile(
    # every form starts with one of these: one class test skips the other positions quickly
    r"(?=[*$\\{~])"  # noqa: UP031 - {n,m} are regex
    r"(?:(?P<bold>\*\*(?=\S)(?P<bold_body>.+?)(?<=\S)\*\*)"
    r"|(?P<ital>(?<![\w*])\*(?=[^\s*])(?P<ital_body>[^*\n]+?)(?<=[^\s*])\*(?![\w*]))"
    # $math$ as pandoc reads it: no space just inside either dollar and no digit right after the
    # closing one, so "from $5 to $10" stays money instead of becoming the "math" "5 to".
    r"|(?P<math>(?<!\\)\$(?=[^\s$])(?P<math_body>[^$\n]{1,%d}?)(?<=[^\s\\])\$(?!\d))"
    r"|(?P<paren>\\\((?P<paren_body>.{1,%d}?)\\\))"
    r"|(?P<cmd>\\(?P<cmd_name>textit|emph|textbf|textsc|texttt|text|mathrm|mathbf|mathcal|mathbb)"
    r"\{(?P<cmd_body>[^{}]{0,%d})\})"
    # an accent with its letter in braces (\\"{o}, {\\"o}): unambiguous, unlike \\"o or \\'s in
    # text scraped with escaped quotes ("it\\'s"), which stay as written
    r"|(?P<accent>\{\\[\"'`^~=.]\s*[A-Za-z]\}|\\[\"'`^~=.]\s*\{[A-Za-z]\})"
    # an old font switch with its group ("{\\em i.e.}", "{\\bf x}"), and one alone ("\\it word")
    r"|(?P<switch>\{\\(?P<switch_name>em|it|sl|bf|sc|rm|sf|tt)\s+(?P<switch_body>[^{}$]{1,%d}?)\})"
    r"|(?P<bare_switch>\\(?:em|it|sl|bf|sc|rm|sf|tt|small|displaystyle)(?![A-Za-z])\s*)"
    # a style command whose braces a scraper lost: "\\textitBig-Five" is "Big-Five" in italics
    r"|(?P<glued>\\(?P<glued_name>textit|emph|textbf)(?P<glued_body>[A-Z](?:[\w-]*\w)?))"
    # a command with its [options] and up to two {arguments}, each holding one level of braces
    # (or a font, accent or root with a one-letter argument: "\\mathbf T", "\\tildeΘ")
    r"|(?P<macro>\\(?:math[a-z]+|boldsymbol|bm|cal|Bbb|tilde|hat|bar|vec|sqrt)\s*[^\W_](?![^\W_])"
    r"|\\[A-Za-z]+(?:\[[^\[\]{}\n]{0,40}\]){0,2}"
    r"(?:\{(?:[^{}]|\{[^{}]{0,80}\}){0,120}\}){0,2})"
    # a tie before a citation or reference ("Eq.~\\eqref{x}") is a space
    r"|(?P<tie>~(?=\\[A-Za-z]*(?:cite|ref)))"
    # LaTeX's escaped specials ("83\% success", "R\&D") are those characters as text
    r"|(?P<escape>\\[%%&#_$]))"
    % (_MAX_LATEX_SPAN, _MAX_LATEX_SPAN, _MAX_LATEX_SPAN, _MAX_LATEX_SPAN),
    re.DOTALL,
)
_CMD_STYLE = {"textit": "i", "emph": "i", "textbf": "b", "textsc": "", "texttt": "", "text": "",
              "em": "i", "it": "i", "sl": "i", "bf": "b", "sc": "", "rm": "", "sf": "", "tt": ""}


#: LaTeX accent commands → the combining mark each puts on its letter
_ACCENT_MARKS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
                 "=": "\u0304", ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b",
                 "c": "\u0327", "k": "\u0328", "r": "\u030a"}
_LETTER = r"(?:\\[ij](?![A-Za-z])|[A-Za-z])"
# \"o  \"{o}  \v{c}  \'{\i}, each also wrapped in braces as BibTeX writes them: {\"o}
_ACCENT_RE = re.compile(
    r"\{(?P<w>\\(?:[\"'`^~=.]\s*\{?" + _LETTER + r"\}?|[uvHckr]\{" + _LETTER + r"\}))\}"
    r"|\\(?P<a>[\"'`^~=.])\s*(?:\{(?P<b>" + _LETTER + r")\}|(?P<l>" + _LETTER + r"))"
    r"|\\(?P<n>[uvHckr])\{(?P<nl>" + _LETTER + r")\}")
_SPECIAL_LETTERS_RE = re.compile(r"\{?\\(aa|AA|ss|o|O|ae|AE|oe|OE|l|L)(?![A-Za-z])(?:\{\})?\}?")
_SPECIAL_LETTERS = {"aa": "å", "AA": "Å", "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ",
                    "oe": "œ", "OE": "Œ", "l": "ł", "L": "Ł"}


def accented(value: str) -> str:
    """BibTeX's LaTeX accents as the letters they write: ``{\\"U}ber`` → ``Über``, ``\\v{C}ech``
    → ``Čech``, ``na\\"{\\i}ve`` → ``naïve``, ``{\\AA}se`` → ``Åse`` (composed, NFC)."""
    if "\\" not in value:
        return value

    def letter(text: str) -> str:
        return {"\\i": "ı", "\\j": "ȷ"}.get(text, text)

    def one(m: re.Match[str]) -> str:
        if m.group("w"):
            return _ACCENT_RE.sub(one, m.group("w"))
        if m.group("a"):
            base, mark = letter(m.group("b") or m.group("l")), _ACCENT_MARKS[m.group("a")]
        else:
            base, mark = letter(m.group("nl")), _ACCENT_MARKS[m.group("n")]
        base = {"ı": "i", "ȷ": "j"}.get(base, base) if mark != "\u0307" else base
        return unicodedata.normalize("NFC", base + mark)

    value = _ACCENT_RE.sub(one, value)
    return _SPECIAL_LETTERS_RE.sub(lambda m: _SPECIAL_LETTERS[m.group(1)], value)


def render_segments(text: str, ascii_only: bool = False) -> list[Segment]:
    """Split ``text`` into styled runs: Markdown emphasis to bold/italic, LaTeX to Unicode.

    Returns a list of ``(text, style)`` with adjacent runs of one style merged. Never raises;
    whatever cannot be rendered is kept as its source text. With ``ascii_only`` (a terminal
    that shows ASCII only) a LaTeX span whose rendering is not ASCII ("$\\mathcal{G}$" is "𝒢")
    is kept as its source too.
    """
    if not _has_markup(text):
        return [(text, "")] if text else []
    out: list[Segment] = []
    _render_into(text, "", out, depth=0, ascii_only=ascii_only)
    return _merge(out)


def _has_markup(text: str) -> bool:
    """Whether :data:`_TOKEN_RE` can match in ``text``: each of its forms starts with ``*``,
    ``$`` or a backslash. Three substring tests instead of a regex scan: most sentences have
    none (a sync renders every abstract's headline)."""
    return "*" in text or "$" in text or "\\" in text


def render_plain(text: str, ascii_only: bool = False) -> str:
    """``text`` rendered to plain Unicode (emphasis markers dropped, LaTeX converted)."""
    if not _has_markup(text):
        return text
    return "".join(t for t, _ in render_segments(text, ascii_only))


def _latex(source: str, ascii_only: bool) -> str:
    text = latex_to_unicode(source, ascii_only)
    return source if ascii_only and not text.isascii() else text


def _render_into(text: str, style: str, out: list[Segment], depth: int,
                 ascii_only: bool = False) -> None:
    pos = 0
    for m in _TOKEN_RE.finditer(text):
        if m.start() > pos:
            out.append((text[pos:m.start()], style))
        pos = m.end()
        kind = _kind(m)
        nested = _nested(m, kind) if depth < 4 else None
        if nested is not None:
            _render_into(nested[0], _add(style, nested[1]), out, depth + 1, ascii_only)
        else:
            out.append(_leaf(m, kind, style, ascii_only))
    if pos < len(text):
        out.append((text[pos:], style))


def _nested(m: re.Match[str], kind: str) -> tuple[str, str] | None:
    """``(body, style flag)`` of a token whose body is rendered in turn, else None."""
    if kind in ("bold", "ital"):
        return m.group(f"{kind}_body"), kind[0]
    if kind == "cmd" and m.group("cmd_name") in _CMD_STYLE:
        return m.group("cmd_body"), _CMD_STYLE[m.group("cmd_name")]
    if kind == "switch":
        return m.group("switch_body"), _CMD_STYLE[m.group("switch_name")]
    return None


def _leaf(m: re.Match[str], kind: str, style: str, ascii_only: bool) -> Segment:
    """The run one token renders to."""
    if kind in ("math", "paren", "cmd"):
        return _latex(m.group(0), ascii_only), _add(style, "m")
    if kind == "glued":
        return m.group("glued_body"), _add(style, _CMD_STYLE[m.group("glued_name")])
    if kind == "accent":
        return accented(m.group(0)), style
    if kind == "macro":
        return _latex(m.group(0), ascii_only), style
    if kind in ("bare_switch", "tie"):
        return (" " if kind == "tie" else ""), style
    if kind == "escape":
        return m.group(0)[1], style
    return m.group(0), style


def _kind(m: re.Match[str]) -> str:
    for name in ("bold", "ital", "math", "paren", "cmd", "switch", "bare_switch", "glued",
                 "accent", "macro", "tie", "escape"):
        if m.group(name) is not None:
            return name
    return ""


def _add(style: str, flag: str) -> str:
    if flag == "m":
        return style or "m"
    return "".join(sorted(set((style.replace("m", "")) + flag)))


def _merge(segments: list[Segment]) -> list[Segment]:
    merged: list[Segment] = []
    for text, style in segments:
        if not text:
            continue
        if merged and merged[-1][1] == style:
            merged[-1] = (merged[-1][0] + text, style)
        else:
            merged.append((text, style))
    return merged


@lru_cache(maxsize=4096)
def latex_to_unicode(source: str, ascii_only: bool = False) -> str:
    """Convert one LaTeX span (``$\\mathcal{G}$``, ``\\alpha``) to Unicode text by the rules of
    :mod:`db.seeds.mathtext` (``$\\arg\\min_\\theta \\|x\\|_2^2$`` → ``arg min_θ ‖x‖₂²``);
    with ``ascii_only`` to the ASCII it can (``$O(n^2)$`` → ``O(n^2)``).

    Falls back to ``source`` when the converter raises, returns only white space, drops a digit
    (a citation's key aside), or takes longer than half a second (it runs in a helper thread).
    A bare ``%`` is text here, never a comment.
    """
    if len(source) > _MAX_LATEX_SPAN + 4:
        return source
    # unbalanced braces are not LaTeX but text ("$x}$"): a parser would pair them wrongly
    unescaped = re.sub(r"\\[{}]", "", source)
    if unescaped.count("{") != unescaped.count("}"):
        return source
    # imported here: rendering a title or abstract without LaTeX (most) needs no thread
    from concurrent.futures import ThreadPoolExecutor, TimeoutError

    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="latex")
    future = _executor.submit(_convert, source, ascii_only)
    try:
        converted = future.result(timeout=_LATEX_BUDGET_S)
    except TimeoutError:
        # the converter is stuck: abandon its thread (a daemon) and use a fresh one from now on
        _executor = None
        return source
    if converted is None or not _keeps_enough(source, converted):
        return source
    if not converted and _STRUCTURE_RE.sub("", source):  # only layout may render to nothing
        return source
    return converted


_executor = None  # a ThreadPoolExecutor of one thread, made on first use


def _convert(source: str, ascii_only: bool) -> str | None:
    try:
        from db.seeds.mathtext import math_text

        return math_text(source, ascii_only)
    except Exception:  # any failure of the converter means "show the source"
        return None


# what renders to nothing and loses nothing: commands alone (\\left., \\displaystyle) and the
# markers of an environment (\\begin{itemize})
_STRUCTURE_RE = re.compile(r"\\(?:begin|end)\s*\{\w*\}|\\[A-Za-z]+|[{}\s$.]")

#: What a citation or cross-reference names (``\\cite{smith2020}``, ``\\eqref{eq:3}``): a key,
#: not text, so its digits may go when it is shown as [cite] or [ref].
KEYS_RE = re.compile(r"\\(?:[A-Za-z]*cite[A-Za-z]*|[A-Za-z]*ref|label|[vh]space)\*?"
                     r"(?:\[[^\]]*\])*\{[^{}]*\}")


def _keeps_enough(source: str, text: str) -> bool:
    """True when the conversion kept the digits the source had (a dropped "15" is a lost fact)."""
    if "\\" in source:
        source = KEYS_RE.sub("", source)
    digits = sum(ch.isdigit() for ch in source)
    return sum(ch.isdigit() for ch in text) >= digits
