"""Rendering abstracts: LaTeX to Unicode (guarded), Markdown emphasis to styles, nothing lost."""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from db.seeds.render import KEYS_RE, latex_to_unicode, render_plain, render_segments
from tests.db_support import ODD_SEEDS

LATEX_ABSTRACT = (ODD_SEEDS / "latex.txt").read_text(encoding="utf-8").split("\n\n")[1].strip()


def test_latex_to_unicode():
    assert render_plain(r"On a graph $\mathcal{G}$ over $\mathbb{R}^n$") == "On a graph 𝒢 over ℝⁿ"
    assert render_plain(r"$(\mathcal{G}, \mathcal{R})$-consistent") == "(𝒢, ℛ)-consistent"
    assert render_plain(r"Kendall’s $\tau$ coefficient") == "Kendall’s τ coefficient"
    assert render_plain(r"${\rm W}_q{\rm W}^{\top}_k$") == "W_q Wᵀₖ"
    assert render_plain(r"\tilde{O}(D) tasks") == "Õ(D) tasks"


def test_latex_seed_renders_readably_and_keeps_everything():
    assert render_plain(LATEX_ABSTRACT) == (
        "On a graph 𝒢 over ℝⁿ we prove that accuracy improves by 15% on ImageNet while halving "
        "compute, in vivo and in silico.")
    assert render_segments(LATEX_ABSTRACT) == [
        ("On a graph ", ""), ("𝒢", "m"), (" over ", ""), ("ℝⁿ", "m"),
        (" we prove that accuracy improves by 15% on ImageNet while halving compute, ", ""),
        ("in vivo", "i"), (" and in silico.", ""),
    ]


def test_a_percent_sign_is_text_not_a_comment():
    assert render_plain("improves by 15% on ImageNet $x$ and 20% more") == (
        "improves by 15% on ImageNet x and 20% more")
    assert latex_to_unicode(r"$15%$") == "15%"
    assert render_plain(r"an average of 83\% success rate") == "an average of 83% success rate"
    assert render_plain(r"R\&D costs \$5 and 6.5\% of the data") == (
        "R&D costs $5 and 6.5% of the data")


def test_a_stray_brace_loses_nothing():
    text = "We fix the bound } in Lemma 2 and release code at https://github.com/example/fix-bound."
    assert render_plain(text) == text
    assert render_plain("a { b } c $x}$ d") == "a { b } c $x}$ d"


def test_dollar_amounts_are_not_math():
    assert render_plain("costs $100 and $200 each") == "costs $100 and $200 each"
    assert render_plain("from $5 to $10") == "from $5 to $10"
    assert render_plain("a $x$ b") == "a x b"


@pytest.mark.parametrize("source", [
    r"\begin", r"\begin{", r"\begin{itemize}", r"\end{x}", r"\ensuremath", r"\ensuremath{",
    r"\frac", r"\frac{a}{b}", r"\url", r"\undefinedmacro", r"\\", r"\verb|x|", r"\(", r"$", r"$$",
    "{", "}", "}}}{{{", r"\textit{", r"\mathcal{", "%", r"\%", r"\newcommand{\x}{\x}\x",
])
def test_odd_latex_never_hangs_or_drops_text(source):
    text = f"before 12 {source} after 34"
    out = render_plain(text)
    assert out.startswith("before 12 ") and out.endswith(" after 34")
    assert "%s" not in out  # pylatexenc's placeholder for a missing argument never shows


def test_unknown_macros_keep_their_text():
    """A command the renderer does not know is shown as written, with its arguments."""
    assert render_plain(r"\ensuremath{y} and \undefinedmacro{4} 5") == (
        r"y and \undefinedmacro{4} 5")
    assert render_plain(r"\ensuremath alone") == r"\ensuremath alone"
    assert render_plain(r"\frac alone") == r"\frac alone"


def test_pylatexenc_warnings_never_reach_stderr(capfd):
    latex_to_unicode.cache_clear()
    render_plain(r"\ensuremath and \frac and \url")
    captured = capfd.readouterr()
    assert captured.err == ""
    assert logging.getLogger("pylatexenc").handlers  # a NullHandler stops the last-resort output


def test_markdown_emphasis_to_styles():
    assert render_segments("a *single* and **PARM** b") == [
        ("a ", ""), ("single", "i"), (" and ", ""), ("PARM", "b"), (" b", "")]
    assert render_segments(r"**bold with \textit{it}**") == [("bold with ", "b"), ("it", "bi")]
    assert render_segments("2 * 3 * 4 and a*b*c") == [("2 * 3 * 4 and a*b*c", "")]
    assert render_plain("**unclosed and *also") == "**unclosed and *also"


def test_brackets_and_markup_like_text_are_literal():
    text = "As shown in [1] and [2, 3], pooling the [CLS] token [bold]x[/bold] [/INST] on [0, 1)."
    assert render_plain(text) == text
    assert render_segments(text) == [(text, "")]


def _digits(text: str) -> Counter[str]:
    """The digits of ``text``, a sub- or superscript digit as its digit (``x₀`` has a 0)."""
    return Counter(ch for ch in unicodedata.normalize("NFKC", text) if ch.isdigit())


LATEX_PIECES = st.sampled_from([
    "\\", "{", "}", "$", "%", "*", "**", "_", "^", "~", "&", "#", "[", "]", "(", ")", " ", "\n",
    "a", "x", "0", "1", "15", "2025", r"\begin", r"\end", r"\begin{", r"\ensuremath",
    r"\textit{", r"\mathcal{", r"\mathbb{", r"\frac", r"\verb", r"\item", r"\\", r"\(", r"\)",
    r"\left", r"\right", r"\sqrt", r"\cite{", r"\url{", r"\alpha", r"\%", r"\tilde{",
])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.lists(LATEX_PIECES, max_size=25).map("".join), st.text(max_size=80)))
def test_render_plain_never_raises_and_keeps_every_digit(source):
    """Every digit of the text shows, but a citation's or reference's key (``\\cite{smith20}``
    shows as [cite])."""
    out = render_plain(source)
    assert not (_digits(KEYS_RE.sub("", source)) - _digits(out))
    assert "%s" not in out or "%s" in source


def test_text_without_markup_renders_as_itself_without_the_regex(monkeypatch):
    """render_plain/render_segments skip text with no ``*``, ``$`` or backslash; every sentence
    and headline of the shipped and odd seeds renders the same with and without that shortcut."""
    import db.seeds.entry
    import db.seeds.render
    from db.seeds.read import parse_file
    from db.text import sentences
    from tests.db_support import ODD_SEEDS, SHIPPED_SEEDS

    texts = []
    for f in [*SHIPPED_SEEDS.glob("*.txt"), *ODD_SEEDS.glob("*.txt")]:
        try:
            texts += [s for e in parse_file(f, f.read_bytes())[1]
                      for s in (e.headline, *sentences(e.abstract_markup))]
        except db.seeds.entry.SeedError:
            continue
    plain = [s for s in texts if not db.seeds.render._has_markup(s)]
    assert len(plain) > 200 and len(texts) - len(plain) > 10  # both kinds are there
    fast = [(render_plain(s), render_segments(s)) for s in texts]
    monkeypatch.setattr(db.seeds.render, "_has_markup", lambda text: True)
    assert fast == [(render_plain(s), render_segments(s)) for s in texts]
    assert render_segments("") == []


def test_an_accent_with_its_letter_in_braces_is_the_letter():
    """``H\\"{o}lder``, ``{\\'e}`` (BibTeX-style accents in an abstract or a JSON title) are
    the letters; they were shown as written. An accent with a bare letter stays as written:
    in scraped text ``it\\'s`` and ``\\"quoted\\"`` are escaped quotes, not accents."""
    assert render_plain(r'H\"{o}lder spaces and caf{\'e} with $\alpha$') == (
        "Hölder spaces and café with α")
    assert render_plain(r'it\'s \"quoted\"') == r'it\'s \"quoted\"'
