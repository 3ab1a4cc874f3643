"""The tables :mod:`db.seeds.mathtext` renders LaTeX math with (symbols, operator names, fonts,
accents, the Unicode forms of sub- and superscripts), its rules for one piece of rendered text
(:func:`scripted`, :func:`parenthesised`, :func:`accented`) and for spacing (:class:`TextBuilder`).

The symbols are pylatexenc's table of macros that stand for text (``\\alpha`` → ``α``, 841 of
them in pylatexenc 2.11), amended by :data:`SYMBOLS` (bars, and the macros abstracts define for
themselves, like ``\\eps`` and ``\\R``). Script forms are the characters Unicode has as
superscripts and subscripts (blocks Superscripts and Subscripts, Phonetic Extensions, Latin-1).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

#: Operators LaTeX sets upright as names, each shown as the word(s) it stands for; the
#: abstracts' own macros for them (``\\argmin``, ``\\poly``) too.
WORDS: dict[str, str] = {name: name for name in [
    "arg", "min", "max", "log", "ln", "lg", "exp", "lim", "sup", "inf", "det", "Pr", "sin", "cos",
    "tan", "sinh", "cosh", "tanh", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "dim", "ker",
    "deg", "gcd", "hom", "mod", "bmod", "poly", "polylog", "rank", "tr", "Tr", "diag", "sign",
    "sgn", "softmax", "Var", "Cov", "dist", "supp", "vol", "erf", "Re", "Im"]}
WORDS.update({"argmin": "arg min", "argmax": "arg max", "limsup": "lim sup",
              "liminf": "lim inf", "injlim": "inj lim", "projlim": "proj lim"})

#: Symbols kept or changed from pylatexenc's table: bars that keep a norm a norm, the
#: abstracts' own shorthands, and spacing.
SYMBOLS: dict[str, str] = {
    "|": "‖", "lVert": "‖", "rVert": "‖", "vert": "|", "lvert": "|", "rvert": "|",
    "mid": "|", "parallel": "∥", "{": "{", "}": "}", "lbrace": "{", "rbrace": "}",
    "epsilon": "ε", "eps": "ε", "R": "ℝ", "RR": "ℝ", "reals": "ℝ", "Real": "ℝ", "real": "ℝ",
    "bbR": "ℝ", "ie": "i.e.", "eg": "e.g.",
    "etal": "et al.", "item": "•", "lt": "<", "gt": ">", "coloneqq": "≔", "colon": ":",
    "implies": "⟹", "iff": "⟺", "gets": "←", "neg": "¬", "lnot": "¬", "land": "∧", "lor": "∨",
    "bot": "⊥", "ddag": "‡", "textbar": "|", "textless": "<", "textgreater": ">", "cdotp": "·",
    "LaTeX": "LaTeX", "TeX": "TeX", "dots": "…", "dotsc": "…", "dotsb": "⋯", "quad": " ",
    "qquad": " ", ",": " ", ";": " ", ":": " ", ">": " ", "!": "", " ": " ", "\\": " ", "/": "",
    "%": "%", "&": "&", "#": "#", "_": "_", "$": "$", "texttimes": "×", "textminus": "−",
}

#: Commands that change the look of what follows and are left out (the text stays); after
#: ``\\left`` and its kin a "." (no delimiter) goes too.
SWITCHES = frozenset(
    ["rm", "bf", "it", "em", "sf", "tt", "sl", "sc", "up", "md", "normalfont", "displaystyle",
     "textstyle", "scriptstyle", "scriptscriptstyle", "limits", "nolimits", "small",
     "footnotesize", "large", "Large", "LARGE", "tiny", "normalsize", "noindent", "centering",
     "protect", "relax", "mathstrut", "strut", "nonumber", "notag", "xspace", "newline"])
DELIMITER_SIZES = frozenset(
    ["left", "right", "middle", "mleft", "mright", "big", "Big", "bigg", "Bigg", "bigl", "bigr",
     "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "bigm", "Bigm"])

#: Commands whose one argument is shown as it is (fonts the screen has no form for, boxes).
PLAIN_ARGUMENT = frozenset(
    ["text", "textrm", "textnormal", "textup", "mbox", "hbox", "mathrm", "mathsf", "mathtt",
     "mathbf", "mathit", "mathnormal", "boldsymbol", "bm", "pmb", "textit", "textbf", "textsl",
     "emph", "textsc", "texttt", "textsf", "ensuremath", "smash", "operatorname", "underbrace",
     "overbrace"])

#: Environments whose markers are dropped (their text stays).
PLAIN_ENVIRONMENTS = frozenset(["itemize", "enumerate", "description", "abstract", "quote",
                                "quotation", "center", "flushleft", "small"])

#: Accent commands → the combining mark put on their argument's letter
ACCENTS: dict[str, str] = {
    "tilde": "\u0303", "Tilde": "\u0303", "widetilde": "\u0303", "hat": "\u0302",
    "widehat": "\u0302",
    "bar": "\u0304", "overline": "\u0305", "underline": "\u0332", "vec": "\u20d7",
    "dot": "\u0307", "ddot": "\u0308", "check": "\u030c", "breve": "\u0306", "acute": "\u0301",
    "grave": "\u0300", "mathring": "\u030a",
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
    ".": "\u0307",
}
#: Marks that run along the whole argument (``\\overline{AB}``); the others sit on its first letter.
SPANNING_ACCENTS = frozenset(("\u0305", "\u0332", "\u0304"))

#: Commands whose argument goes through a Unicode alphabet, and the alphabet's name in the
#: Unicode character names (``MATHEMATICAL DOUBLE-STRUCK CAPITAL R``).
FONTS = {"mathbb": "DOUBLE-STRUCK", "Bbb": "DOUBLE-STRUCK", "mathcal": "SCRIPT",
         "mathscr": "SCRIPT", "cal": "SCRIPT", "mathfrak": "FRAKTUR"}
# letters Unicode encoded before the mathematical alphabets (Letterlike Symbols block)
_LETTERLIKE = {
    ("DOUBLE-STRUCK", "C"): "ℂ", ("DOUBLE-STRUCK", "H"): "ℍ", ("DOUBLE-STRUCK", "N"): "ℕ",
    ("DOUBLE-STRUCK", "P"): "ℙ", ("DOUBLE-STRUCK", "Q"): "ℚ", ("DOUBLE-STRUCK", "R"): "ℝ",
    ("DOUBLE-STRUCK", "Z"): "ℤ", ("SCRIPT", "B"): "ℬ", ("SCRIPT", "E"): "ℰ",
    ("SCRIPT", "F"): "ℱ", ("SCRIPT", "H"): "ℋ", ("SCRIPT", "I"): "ℐ", ("SCRIPT", "L"): "ℒ",
    ("SCRIPT", "M"): "ℳ", ("SCRIPT", "R"): "ℛ", ("FRAKTUR", "C"): "ℭ", ("FRAKTUR", "H"): "ℌ",
    ("FRAKTUR", "I"): "ℑ", ("FRAKTUR", "R"): "ℜ", ("FRAKTUR", "Z"): "ℨ",
}
_DIGIT_NAMES = ["ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"]


@lru_cache(maxsize=512)
def font_letter(alphabet: str, char: str) -> str:
    """``char`` in a mathematical alphabet (``("SCRIPT", "O")`` → ``𝒪``); capitals only for
    SCRIPT, as LaTeX's ``\\mathcal`` has no small letters; any other character as it is."""
    if (alphabet, char) in _LETTERLIKE:
        return _LETTERLIKE[(alphabet, char)]
    if char.isascii() and char.isupper():
        name = f"CAPITAL {char}"
    elif char.isascii() and char.islower() and alphabet != "SCRIPT":
        name = f"SMALL {char.upper()}"
    elif char.isascii() and char.isdigit() and alphabet == "DOUBLE-STRUCK":
        name = f"DIGIT {_DIGIT_NAMES[int(char)]}"
    else:
        return char
    try:
        return unicodedata.lookup(f"MATHEMATICAL {alphabet} {name}")
    except KeyError:
        return char


SUPERSCRIPTS: dict[str, str] = dict(zip(
    "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδθφχ⊤*∗′'†",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᵠᵡᵀ**′′†",
    strict=True))
SUBSCRIPTS: dict[str, str] = dict(zip(
    "0123456789+-−=()aehijklmnoprstuvxβγρφχ",
    "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ",
    strict=True))

_OPENING = "([{⟨⌊⌈"
_CLOSING = ")]}⟩⌋⌉"
# what may follow a symbol in one token: combining marks, primes and Unicode scripts
_MARKS = "".join({*SUPERSCRIPTS.values(), *SUBSCRIPTS.values(), "′", "'", "*"}) + "".join(
    chr(c) for c in (*range(0x300, 0x370), 0x20D7))


def scripted(text: str, sup: bool, ascii_only: bool) -> tuple[str, bool]:
    """``text`` as a superscript (``sup``) or subscript: ``(form, is_unicode)``. Unicode when
    every character but spaces has a form (``"-1"`` → ``"⁻¹"``), else ``^x`` or ``^{x y}``."""
    compact = text.replace(" ", "")
    table = SUPERSCRIPTS if sup else SUBSCRIPTS
    if compact and not ascii_only and all(ch in table for ch in compact):
        return "".join(table[ch] for ch in compact), True
    mark = "^" if sup else "_"
    if _one_letter(compact):
        return mark + compact, False
    return f"{mark}{{{text}}}", False


def _one_letter(text: str) -> bool:
    return bool(text) and not any(unicodedata.combining(ch) == 0 for ch in text[1:])


def parenthesised(text: str) -> str:
    """``text`` as one operand of ``/`` or ``√``: as it is when it is one token (a number, one
    symbol with its marks and scripts, a bracketed group, a function's value: ``10``, ``ε²``,
    ``√n``, ``(1-γ)``, ``f(x)``), else in parentheses (``log n`` → ``(log n)``,
    ``dT`` → ``(dT)``)."""
    rest = text.lstrip("√∛∜")
    rest = rest[4:] if rest.startswith("sqrt(") else rest  # ascii_only's root
    if rest[:1].isdigit():
        rest = rest.lstrip("0123456789.")
    elif rest[:1] != "(":
        rest = rest[1:]
    rest = rest.lstrip(_MARKS)
    if rest[:1] in ("^", "_"):
        rest = _after_group(rest[1:]) if rest[1:2] == "{" else rest[2:]
    if rest and rest[0] in "([" and not _after_group(rest):
        rest = ""
    return text if text and not rest else f"({text})"


def _after_group(text: str) -> str:
    """What follows the bracketed group ``text`` starts with ("" when it all is the group)."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in "([{") - (ch in ")]}")
        if depth == 0:
            return text[i + 1:]
    return text


def accented(text: str, mark: str) -> str:
    """``text`` with a combining ``mark``: on its first letter, or on every letter for the marks
    that span (``\\overline{AB}``); composed where Unicode has the letter (``Õ``)."""
    if not text:
        return mark
    if mark in SPANNING_ACCENTS:
        return unicodedata.normalize("NFC", "".join(ch + mark for ch in text))
    return unicodedata.normalize("NFC", text[0] + mark + text[1:])


#: What ``ascii_only`` shows for a character of rendered math (padded where it is an operator,
#: so that ``n\\times d`` reads "n x d"); a span with any other non-ASCII character is shown as
#: its source.
ASCII_FORMS = str.maketrans({
    "≤": " <= ", "≥": " >= ", "≠": " != ", "→": " -> ", "←": " <- ", "⇒": " => ", "↦": " |-> ",
    "×": " x ", "·": "*", "‖": "||", "∼": "~", "≈": " ~= ", "…": "...", "⋯": "...",
    "±": "+/-", "∗": "*", "′": "'", "−": "-", "⊤": "T", "•": "-", "∞": "inf", "∣": "|",
})


@lru_cache(maxsize=1)
def symbols() -> dict[str, str]:
    """Every macro that stands for a fixed text: pylatexenc's table, then :data:`SYMBOLS`."""
    from pylatexenc.latex2text import get_default_latex_context_db

    table = {}
    for spec in get_default_latex_context_db().iter_macro_specs():
        text = spec.simplify_repl
        if isinstance(text, str) and "%" not in text:
            table[spec.macroname] = text
    table.update(SYMBOLS)
    return table


class TextBuilder:
    """Rendered math being built (``add`` a piece, ``text()`` the whole), with the spacing rule:
    a word (an operator's name) and a letter or digit beside it get a space between them, as
    after a script kept as ``_x``; none inside a pair of brackets or bars."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.gap = False  # the last thing added wants a space before a following letter
        self.opened = False  # the last thing added opens a pair of bars

    def text(self) -> str:
        """Everything added so far."""
        return "".join(self.parts)

    def last(self) -> str:
        """The last character added ("" at first)."""
        return self.parts[-1][-1] if self.parts else ""

    def add(self, text: str, word: bool = False) -> None:
        """Add ``text``; a ``word`` is spaced from letters and digits beside it."""
        if not text:
            return
        if text[0] in _CLOSING:
            self.trim()
        elif (word or self.gap) and text[0].isalnum() and (
                self.last().isalnum() or (word and self.last() in _CLOSING)):
            self.parts.append(" ")
        self.parts.append(text)
        self.gap = word
        self.opened = False

    def delimiter(self, text: str, opening: bool) -> None:
        """A bar or bracket that opens (no space after it) or closes (none before it)."""
        if not opening:
            self.trim()
        self.add(text)
        self.opened = opening

    def space(self) -> None:
        """One space, unless one is there or a bracket has just opened."""
        if self.parts and not self.last().isspace() and not self.opened \
                and self.last() not in _OPENING:
            self.parts.append(" ")
        self.gap = False

    def trim(self) -> None:
        """Drop the spaces at the end."""
        while self.parts and self.parts[-1].isspace():
            self.parts.pop()

    def attach(self, script: str, is_unicode: bool) -> None:
        """A sub- or superscript, right after what it belongs to."""
        self.trim()
        self.parts.append(script)
        self.gap = self.gap if is_unicode else len(script) == 2
