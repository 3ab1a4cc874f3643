"""A BibTeX entry for a paper, from what the seed file gives (no network, no lookup).

Seed files carry no authors, so the entry is a ``@misc`` with the title (else the name and the
headline), the collection as ``howpublished``, the year when the collection names one, and the
paper's link. The key is stable: the name (or ``paper``) and the short id, e.g. ``PARM_0412d482``.
"""

from __future__ import annotations

import re

from db.models import Paper
from db.text import one_line

_YEAR_RE = re.compile(r"\b(19|20)\d\d\b")
_KEY_DROP_RE = re.compile(r"[^A-Za-z0-9]+")
#: Characters that mean something to BibTeX/LaTeX, and how to write them as text.
_ESCAPES = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "%": r"\%", "&": r"\&",
            "#": r"\#", "_": r"\_", "$": r"\$", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}"}
_ESCAPE_RE = re.compile("|".join(re.escape(c) for c in _ESCAPES))


def bibtex_key(paper: Paper) -> str:
    """``Name_shortid`` with only ASCII letters and digits in the name (``HC-SMoE`` →
    ``HCSMoE_f0ccd52e``); ``paper_<shortid>`` when the paper has no name."""
    name = _KEY_DROP_RE.sub("", paper.name or "")[:30] or "paper"
    return f"{name}_{paper.short_id}"


def _escaped(text: str) -> str:
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group()], one_line(text))


def bibtex(paper: Paper) -> str:
    """The paper as one ``@misc`` BibTeX entry (text, ending in a newline)."""
    if paper.title:
        title = paper.title
    elif paper.name:
        title = f"{paper.name}: {paper.headline}"
    else:
        title = paper.headline
    fields = [("title", "{" + _escaped(title.rstrip(".")) + "}")]
    if paper.collection:
        fields.append(("howpublished", _escaped(paper.collection)))
        year = _YEAR_RE.search(paper.collection)
        if year:
            fields.append(("year", year.group()))
    link = paper.code_url or (paper.urls[0] if paper.urls else None)
    if link:
        fields.append(("url", link.replace("}", "%7D").replace("{", "%7B")))
    fields.append(("note", f"papertray id {paper.id}"))
    body = ",\n".join(f"  {key} = {{{value}}}" for key, value in fields)
    return f"@misc{{{bibtex_key(paper)},\n{body}\n}}\n"
