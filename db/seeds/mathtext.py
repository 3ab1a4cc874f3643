"""LaTeX math as Unicode text that keeps its meaning, for :mod:`db.seeds.render`.

:func:`math_text` turns one span (``$\\arg\\min_\\theta \\|x\\|_2^2$``) into ``arg min_θ ‖x‖₂²``
by a small parser over the span's tokens; the rules:

* operators are words (``arg min``, ``lim sup``, ``log``, ``Pr``), spaced from letters beside them;
* bars stay bars: ``\\|x\\|`` and ``\\lVert x \\rVert`` are ``‖x‖``; ``\\mid``, ``\\left|`` ``|``;
* a sub- or superscript is Unicode when every one of its characters has a Unicode form
  (``x₁``, ``O(n²)``, ``⁻¹``, ``xₘₐₓ``), else ``_θ`` (one character) or ``_{x∈X}`` (more);
* ``\\frac{a}{b}`` is ``a/b``, a part of more than one token in parentheses (``1/(1-γ)``);
  ``\\sqrt{x}`` is ``√x`` or ``√(x+1)``; fonts with a Unicode alphabet become it
  (``\\mathbb{R}`` ``ℝ``, ``\\mathcal{O}`` ``𝒪``), the others plain; accents combine
  (``Õ``, ``x̂``);
* ``\\cite{…}`` is ``[cite]``, ``\\ref{…}`` ``[ref]``;
* a command whose braces a scraper lost (``\\mathbbR``, ``\\sqrtT``, ``\\textitBig``) is read as the
  command and its argument; any other unknown command keeps its source (``\\cO``, ``\\over``).

With ``ascii_only`` scripts are always ``^``/``_``, roots ``sqrt(x)`` and some symbols ASCII
(:data:`db.seeds.mathsymbols.ASCII_FORMS`); the caller shows the source where non-ASCII is left.
"""

from __future__ import annotations

import re
import unicodedata

from db.seeds import mathsymbols as ms

# "\\\\hat" is "\\hat" escaped once more by a scraper: a line break has no place in a formula
_TOKEN_RE = re.compile(r"\\\\?([A-Za-z]+)|\\(.)|(\s+)|(.)", re.DOTALL)
_CMD, _SYM, _SPACE, _CHAR = 1, 2, 3, 4
Token = tuple[int, str]

_CITE = frozenset(["cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear",
                   "parencite", "textcite", "autocite", "footcite", "nocite"])
_REF = frozenset(["ref", "eqref", "autoref", "cref", "Cref", "pageref", "vref", "nameref"])
_FRACS = frozenset(["frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac"])
# bars whose side the command names, and \| which opens and closes norms in turn
_BARS = {"lVert": ("‖", True), "rVert": ("‖", False), "lvert": ("|", True),
         "rvert": ("|", False), "langle": ("⟨", True), "rangle": ("⟩", False)}
_SIZED = {"left": True, "mleft": True, "right": False, "mright": False, "middle": False}
# commands whose lost braces are read back (\mathbbR is \mathbb{R}): the longest one that
# starts the unknown name, its rest the argument
# (not \cal or \Bbb: switches, and \calo is an abstract's own name for a big O)
_GLUED = sorted(_CITE | _FRACS | ms.PLAIN_ARGUMENT | set(ms.ACCENTS) | {"sqrt", "mathbb", "mathcal",
                "mathscr", "mathfrak"}, key=len, reverse=True)
_GLUED_SWITCHES = ("bf", "rm", "it", "em")
_GLUED_WORDS = ("log", "ln", "exp")  # \logN; not every word: \ReLU is no \Re


def math_text(source: str, ascii_only: bool = False) -> str:
    """``source`` (one ``$…$``, ``\\(…\\)`` or a bare command with its arguments) as text.

    Returns "" for an empty span; raises on nothing it parses (the caller guards anyway).
    """
    body = _strip_delimiters(source)
    parser = _Parser(body, ascii_only)
    out = ms.TextBuilder()
    parser.run(out, closing=False)
    text = re.sub(r"\s+", " ", out.text()).strip()
    if ascii_only:
        text = re.sub(r" +", " ", text.translate(ms.ASCII_FORMS)).strip()
    return text


def _strip_delimiters(source: str) -> str:
    for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
        if len(source) >= len(left) + len(right) and source.startswith(left) \
                and source.endswith(right):
            return source[len(left):len(source) - len(right)]
    return source


class _Parser:
    """One span's tokens, rendered in order into an :class:`ms.TextBuilder`."""

    def __init__(self, body: str, ascii_only: bool) -> None:
        self.tokens: list[Token] = [(m.lastindex or _CHAR, m.group(m.lastindex or _CHAR))
                                    for m in _TOKEN_RE.finditer(body)]
        self.pos = 0
        self.ascii_only = ascii_only
        self.norm_bars = 0  # the \\| seen: an odd one opens a norm, an even one closes it

    def peek(self) -> Token | None:
        """The next token, None at the end."""
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def run(self, out: ms.TextBuilder, closing: bool) -> None:
        """Render tokens into ``out`` up to the end, or with ``closing`` up to a ``}``."""
        while (token := self.peek()) is not None:
            if closing and token == (_CHAR, "}"):
                self.pos += 1
                return
            self.pos += 1
            self.one(token, out)

    def one(self, token: Token, out: ms.TextBuilder) -> None:
        """Render ``token`` (just taken) and whatever arguments it takes."""
        kind, value = token
        if kind == _SPACE or value == "~":
            out.space()
        elif kind == _CMD:
            spaced, after_name = out.last().isspace(), self.pos
            self.command(value, out)
            # the space that ends a command's name before a letter is no space ("\\lambda f" is
            # λf, as TeX sets it), unless one was before the command too ("x \\in S")
            if not spaced and self.pos == after_name and self.ends_name():
                self.pos += 1
        elif kind == _SYM:
            self.symbol(value, out)
        elif value == "{":
            out.add(self.group())
        elif value in "^_":
            self.script(value == "^", out)
        elif value != "$":
            out.add(value)

    def ends_name(self) -> bool:
        """Whether a space comes next, then a letter, a digit or a command."""
        if self.peek() is None or self.peek()[0] != _SPACE or self.pos + 1 >= len(self.tokens):
            return False
        kind, value = self.tokens[self.pos + 1]
        return kind == _CMD or (kind == _CHAR and value.isalnum())

    def group(self, strip: bool = True) -> str:
        """The rendered text up to the ``}`` that closes the ``{`` just taken."""
        inner = ms.TextBuilder()
        self.run(inner, closing=True)
        return inner.text().strip() if strip else inner.text()

    def argument(self) -> str | None:
        """The next argument rendered: a ``{group}``, a command or one character; None at the
        end of the span or before a ``}``."""
        while (token := self.peek()) is not None and token[0] == _SPACE:
            self.pos += 1
        if token is None or token == (_CHAR, "}"):
            return None
        self.pos += 1
        if token == (_CHAR, "{"):
            return self.group()
        inner = ms.TextBuilder()
        self.one(token, inner)
        return inner.text().strip()

    def raw_group(self) -> str | None:
        """The source text of the next ``{group}`` as written (a URL, an environment's name)."""
        if self.peek() != (_CHAR, "{"):
            return None
        self.pos += 1
        depth, parts = 1, []
        while (token := self.peek()) is not None:
            self.pos += 1
            depth += (token == (_CHAR, "{")) - (token == (_CHAR, "}"))
            if depth == 0:
                break
            parts.append("\\" + token[1] if token[0] in (_CMD, _SYM) else token[1])
        return "".join(parts)

    def skip_options(self) -> None:
        """Drop ``[…]`` optional arguments (``\\citep[p.~3]{x}``)."""
        while self.peek() == (_CHAR, "["):
            while (token := self.peek()) is not None:
                self.pos += 1
                if token == (_CHAR, "]"):
                    break

    def script(self, sup: bool, out: ms.TextBuilder) -> None:
        text = self.argument()
        if text is None:
            out.add("^" if sup else "_")
            return
        out.attach(*ms.scripted(text, sup, self.ascii_only))

    def symbol(self, char: str, out: ms.TextBuilder) -> None:
        if char in ms.ACCENTS:
            self.accent(char, out)
        elif char == "|":
            self.norm(out)
        elif char in ms.SYMBOLS:
            out.add(ms.SYMBOLS[char])
        else:
            out.add("\\" + char)

    def norm(self, out: ms.TextBuilder) -> None:
        self.norm_bars += 1
        out.delimiter("‖", opening=self.norm_bars % 2 == 1)

    def accent(self, name: str, out: ms.TextBuilder) -> None:
        text = self.argument()
        if text is None or text.startswith("\\"):  # none, or an unknown command: as written
            out.add(f"\\{name}" + (f"{{{text}}}" if text else ""))
        else:
            out.add(ms.accented(text, ms.ACCENTS[name]))

    def command(self, name: str, out: ms.TextBuilder) -> None:
        """Render ``\\name`` and the arguments it takes."""
        handler = _HANDLERS.get(name)
        if handler is not None:
            handler(self, name, out)
        elif name in ms.WORDS:
            out.add(ms.WORDS[name], word=True)
        elif name in ms.SWITCHES:
            pass
        elif name in ms.DELIMITER_SIZES:
            self.sized_delimiter(name, out)
        elif name == "Vert":
            self.norm(out)
        elif name in _BARS:
            out.delimiter(*_BARS[name])
        elif name in ms.ACCENTS:
            self.accent(name, out)
        elif name in ms.PLAIN_ARGUMENT:
            self.plain_argument(name, out)
        elif name in ms.symbols():
            out.add(ms.symbols()[name])
        else:
            self.unknown(name, out)

    def sized_delimiter(self, name: str, out: ms.TextBuilder) -> None:
        """``\\left|``, ``\\right.``: the delimiter after it, if any (``.`` is none), opens or
        closes by the command's name."""
        token = self.peek()
        if token is None or token[0] == _SPACE or name not in _SIZED:
            return
        self.pos += 1
        if token == (_CHAR, "."):
            return
        inner = ms.TextBuilder()
        self.one(token, inner)
        out.delimiter(inner.text(), opening=_SIZED[name])

    def plain_argument(self, name: str, out: ms.TextBuilder) -> None:
        if name == "operatorname" and self.peek() == (_CHAR, "*"):
            self.pos += 1
        if self.peek() == (_CHAR, "{"):  # \text{ s.t. } keeps its spaces
            self.pos += 1
            text = self.group(strip=False)
        else:
            text = self.argument()
        if text is None:
            out.add("\\" + name)
            return
        if text[:1].isspace():
            out.space()
        stripped = text.strip()
        out.add(stripped, word=len(stripped) > 1 and stripped.isalpha())
        if text[-1:].isspace():
            out.space()

    def unknown(self, name: str, out: ms.TextBuilder) -> None:
        """A command this parser does not know: one whose braces were lost (``\\sqrtT``), or
        its source with its ``{arguments}``."""
        glued = next((c for c in _GLUED if name.startswith(c) and len(name) > len(c)), None)
        word = next((w for w in _GLUED_WORDS if name.startswith(w) and len(name) > len(w)
                     and name[len(w)].isupper()), None)
        switch = next((s for s in _GLUED_SWITCHES if name.startswith(s)
                       and len(name) == len(s) + 1), None)
        if name[:3] in ("beg", "end") and name[len("begin") if name[0] == "b" else 3:] \
                in ms.PLAIN_ENVIRONMENTS:  # \\beginitemize: a list's marker
            return
        if glued or switch:
            command = glued or switch
            rest = name[len(command):]
            self.tokens[self.pos:self.pos] = [(_CHAR, "{"), *((_CHAR, c) for c in rest),
                                              (_CHAR, "}")]
            self.command(command, out)
        elif word:
            out.add(ms.WORDS[word], word=True)
            out.add(name[len(word):], word=True)
        else:
            out.add("\\" + name)
            while self.peek() == (_CHAR, "{"):
                self.pos += 1
                out.add("{" + self.group() + "}")

    # the commands with a handler of their own, each called as handler(parser, name, out)

    def fraction(self, name: str, out: ms.TextBuilder) -> None:
        top = self.argument()
        bottom = self.argument() if top is not None else None
        if top is None or bottom is None:
            out.add(f"\\{name}" if top is None else f"\\{name}{{{top}}}")
            return
        out.add(f"{ms.parenthesised(top)}/{ms.parenthesised(bottom)}")

    def root(self, name: str, out: ms.TextBuilder) -> None:
        degree = ""
        if self.peek() == (_CHAR, "["):
            self.pos += 1
            inner = ms.TextBuilder()
            while (token := self.peek()) is not None and token != (_CHAR, "]"):
                self.pos += 1
                self.one(token, inner)
            self.pos += 1
            degree = inner.text().strip()
        text = self.argument()
        if text is None:  # "\\sqrt(log n)", its braces lost: the sign alone
            out.add("√" if not self.ascii_only else "\\sqrt")
        elif self.ascii_only:
            out.add(f"sqrt({text})" if not degree else f"root{degree}({text})")
        else:
            out.add(ms.scripted(degree, True, False)[0] * bool(degree) + "√"
                    + ms.parenthesised(text))

    def font(self, name: str, out: ms.TextBuilder) -> None:
        text = self.argument()
        if text is None:
            out.add("\\" + name)
            return
        alphabet = ms.FONTS[name]
        out.add("".join(ms.font_letter(alphabet, ch) for ch in text))

    def citation(self, name: str, out: ms.TextBuilder) -> None:
        self.skip_options()
        if self.argument() is None:
            out.add("\\" + name)
            return
        if out.last() and out.last() not in " ([":
            out.space()
        out.add("[cite]" if name in _CITE else "[ref]")

    def environment(self, name: str, out: ms.TextBuilder) -> None:
        env = self.raw_group()
        if env is None or env not in ms.PLAIN_ENVIRONMENTS:
            out.add(f"\\{name}" if env is None else f"\\{name}{{{env}}}")

    def url(self, name: str, out: ms.TextBuilder) -> None:
        address = self.raw_group()
        text = self.argument() if name in ("href", "hyperlink") else None
        if address is None:
            out.add("\\" + name)
        else:
            out.add(text if text is not None else address)

    def colour(self, name: str, out: ms.TextBuilder) -> None:
        self.raw_group()  # the colour's name
        if name == "textcolor":
            out.add(self.argument() or "")

    def negated(self, name: str, out: ms.TextBuilder) -> None:
        text = self.argument()
        out.add("\\not" if text is None else unicodedata.normalize("NFC", text + "\u0338"))

    def binomial(self, name: str, out: ms.TextBuilder) -> None:
        top, bottom = self.argument(), self.argument()
        out.add(f"({top} choose {bottom})" if bottom is not None else f"\\{name}")

    def raised(self, name: str, out: ms.TextBuilder) -> None:
        text = self.argument()
        if text is None:
            out.add("\\" + name)
        else:
            out.attach(*ms.scripted(text, name == "textsuperscript", self.ascii_only))


_HANDLERS = {
    **{name: _Parser.fraction for name in _FRACS},
    **{name: _Parser.font for name in ms.FONTS},
    **{name: _Parser.citation for name in _CITE | _REF},
    "sqrt": _Parser.root, "begin": _Parser.environment, "end": _Parser.environment,
    "url": _Parser.url, "href": _Parser.url, "hyperlink": _Parser.url, "not": _Parser.negated,
    "color": _Parser.colour, "textcolor": _Parser.colour, "binom": _Parser.binomial,
    "textsuperscript": _Parser.raised, "textsubscript": _Parser.raised,
}
