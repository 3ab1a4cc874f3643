"""A search term of the query language (:mod:`db.search.query`): the index tokens of a word or
phrase, the other words it stands for, and how it reads as FTS5 and as query text."""

from __future__ import annotations

from dataclasses import dataclass

from db.text import join_tokens


@dataclass(slots=True)
class Term:
    """One search term: the index tokens of a word or phrase (a phrase when more than one)."""

    tokens: tuple[str, ...]
    prefix: bool = False
    negated: bool = False
    or_group: int = 0  # terms joined by OR share a group number; 0 = not in a group
    # other spellings of a one-token term (typo corrections, irregular plurals: db.search.rewrite)
    variants: tuple[str, ...] = ()
    # whole words a prefix's last token stands for (db.search.rewrite)
    completions: tuple[str, ...] = ()
    # the same words written otherwise, as space-separated tokens: "multi task" for "multitask"
    # and the other way round (db.search.rewrite.alternatives)
    alternatives: tuple[str, ...] = ()
    # an acronym's other form, as space-separated tokens: a short form's long forms (each
    # searched as all its words), and a long form's words' short form (db.search.acronyms);
    # not written in the query's text: typed again, the query expands the same way, and the
    # notice names them
    acronyms: tuple[str, ...] = ()
    # a stop-word of a query that has other words: neither matched nor ranked
    # (db.search.stopwords)
    stop: bool = False
    # typed in quotes ("exact phrase"), not a word ("multi-task"): searched as written, no
    # acronym expanded (db.search.acronyms)
    quoted: bool = False

    def words(self) -> list[str]:
        """FTS5 strings of the term's words taken apart, for ranking a long query by each word:
        a word joined by hyphens ("wing-flutter") is its words; a quoted phrase, or a term with
        other spellings, is itself."""
        if (len(self.tokens) > 1 and not self.quoted and not self.prefix and not self.variants
                and not self.completions and not self.alternatives and not self.acronyms):
            return [f'"{t}"' for t in self.tokens]
        return [self.fts()]

    def fts(self) -> str:
        if self.alternatives or self.acronyms:
            star = "*" if self.prefix else ""
            return ("(" + self._fts() + "".join(f' OR "{a}"{star}' for a in self.alternatives)
                    + "".join(" OR " + _all_words(a) for a in self.acronyms) + ")")
        return self._fts()

    def _fts(self) -> str:
        # (a prefix's variants are whole words: irregular plurals, db.search.rewrite)
        if self.variants:
            star = "*" if self.prefix else ""
            return ("(" + f'"{self.tokens[0]}"{star} OR '
                    + " OR ".join(f'"{t}"' for t in (*self.tokens[1:], *self.variants)) + ")")
        if self.completions:
            # the index holds Porter stems: "diffusi"* finds no "diffus" (diffusion), the word
            # "diffusion" does; in a phrase ("multi objectiv"*) the same holds for its last word
            lead = "".join(t + " " for t in self.tokens[:-1])
            return ("(" + f'"{lead}{self.tokens[-1]}"*'
                    + "".join(f' OR "{lead}{t}"' for t in self.completions) + ")")
        return '"' + " ".join(self.tokens) + '"' + ("*" if self.prefix else "")

    def text(self, spelt: dict[str, str] | None = None) -> str:
        """The term in the query language; ``spelt`` gives index words as the abstracts spell
        them (:attr:`Query.spelt`)."""
        spelt = spelt or {}

        def words(keys) -> list[str]:
            return [spelt.get(k, k) for k in keys]

        if self.variants:  # (an excluded word's variants are excluded too: "-a -b")
            first, *rest = words((*self.tokens, *self.variants))
            spellings = (first + ("*" if self.prefix else ""), *rest)
            return " ".join("-" + w for w in spellings) if self.negated else " OR ".join(spellings)
        star = "*" if self.prefix else ""
        # a word joined by hyphens that is an acronym's long form stays one ("graph-neural-
        # networks"): in quotes its acronym would not be searched
        first = ("-".join(words(self.tokens)) if self.acronyms and not self.quoted
                 else join_tokens(words(self.tokens)))
        spellings = [first,
                     *(" ".join(words(a.split(" "))) for a in self.alternatives)]
        quoted = [f'"{b}"{star}' if " " in b or (self.quoted and n == 0) else b + star
                  for n, b in enumerate(spellings)]
        # the query language has no parentheses: excluding any spelling is excluding each one
        return " ".join("-" + b for b in quoted) if self.negated else " OR ".join(quoted)


def _all_words(tokens: str) -> str:
    """FTS5 text for every one of the space-separated ``tokens`` (one word: the word): an
    acronym's long form finds what it finds typed as words ("RLHF" finds the papers with
    "reinforcement", "learning", "human" and "feedback" as the words typed do)."""
    words = tokens.split(" ")
    return f'"{words[0]}"' if len(words) == 1 else "(" + " AND ".join(f'"{w}"' for w in words) + ")"
