"""Stop-words: function words that carry no topic, left out of a query's matching and ranking.

The list is NLTK's English stop-word list (179 entries; 153 words once folded as the index
folds them: "don't" is "don" and "t", as unicode61 splits it). A query's word that is one of them
matches nothing by itself and adds nothing to bm25 (it is in nearly every abstract); a
question ("what similarity laws must be obeyed …") is ranked by its other words.
"""

from __future__ import annotations

from db.search.terms import Term

_LISTED = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
she her hers herself it its itself they them their theirs themselves what which who whom this
that these those am is are was were be been being have has had having do does did doing a an
the and but if or because as until while of at by for with about against between into through
during before after above below to from up down in out on off over under again further then
once here there when where why how all any both each few more most other some such no nor not
only own same so than too very s t can will just don should now d ll m o re ve y ain aren
couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn
"""
STOP_WORDS = frozenset(_LISTED.split())


def mark_stop_words(terms: list[Term]) -> None:
    """Mark the stop-words among ``terms`` (:attr:`Term.stop`): a plain word of the list, not
    excluded, not quoted, not joined by OR (the word being typed too: "transformers with" is
    "transformers", not "with"*), when the query has another word to search by ("the" alone,
    "to be or not", is searched as typed)."""
    stop = [t for t in terms if not t.negated and not t.or_group and not t.quoted
            and len(t.tokens) == 1 and t.tokens[0] in STOP_WORDS]
    if len(stop) < sum(1 for t in terms if not t.negated):
        for t in stop:
            t.stop = True


#: First words of a question: "what is known about …", "how do …", "can the …".
QUESTION_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why",
                            "how", "is", "are", "was", "were", "do", "does", "did", "can",
                            "could", "should", "would", "will", "must", "has", "have", "had",
                            "may", "might"})


def is_sentence(text: str) -> bool:
    """Whether ``text`` reads as a sentence, not a title: it ends with a full stop, or it is a
    question (a word of :data:`QUESTION_WORDS` first, "?" last). A title may be a question
    ("Competing AI: How does competition feedback affect machine learning?") or start with a
    question word ("What and How does In-Context Learning Learn? …"), but not both, and does
    not end with a full stop."""
    words = text.split()
    if not words:
        return False
    end = text.rstrip()
    return end.endswith(".") or (end.endswith("?") and words[0].lower() in QUESTION_WORDS)
