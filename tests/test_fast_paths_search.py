"""Search's fast paths: pages cut in ties, one-pass counts and re-ranking, hits' sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Library
from tests.db_support import FILE_A, FILE_B, all_hits, copy_seeds
from tests.fast_paths_support import _synced


def test_a_page_boundary_inside_tied_scores_keeps_seed_order(tmp_path):
    """Six abstracts with the same bm25 for "quokka": any page of them is in seed order, even
    when the index holds them in another order (the first one was added last)."""
    abstracts = [f"The quokka study number {w} observes marsupials on islands."
                 for w in ("one", "two", "three", "four", "five", "six")]
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    seed = seeds / "a.txt"
    seed.write_text("Zoo 2025 Papers\n\n" + "\n\n".join(abstracts[1:]) + "\n",
                    encoding="utf-8")
    with _synced(seeds, tmp_path / "data") as lib:
        seed.write_text("Zoo 2025 Papers\n\n" + "\n\n".join(abstracts) + "\n",
                        encoding="utf-8")
        assert lib.sync().added == 1
        pages = [lib.search("quokka", limit=2, offset=o) for o in (0, 2, 4)]
        assert [p.total for p in pages] == [6, 6, 6]
        shown = [h.headline.split()[4] for p in pages for h in p.hits]
        assert shown == ["one", "two", "three", "four", "five", "six"]
        assert len({h.score for p in pages for h in p.hits}) == 1  # really all tied
        best = lib.search("quokka marsupials one", limit=1)
        assert [h.headline.split()[4] for h in best.hits] == ["one"]


_WORDS = ("amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor", "inlet",
          "jasper", "kelp", "lagoon", "mesa", "nectar", "oasis", "pumice", "quartz", "reef")


def _tied_library(tmp_path: Path) -> Library:
    """54 abstracts in two seed files, each with "quokka" and "marsupials" once and as many
    words: every one of them has the same bm25 for "quokka" and for "quokka marsupials"."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    abstracts = [f"The quokka study of {a} and {b} observes marsupials on islands."
                 for a in _WORDS for b in _WORDS[:3]]
    (seeds / "b.txt").write_text("Zoo 2025 Papers\n\n" + "\n\n".join(abstracts[:30]) + "\n",
                                 encoding="utf-8")
    (seeds / "a.txt").write_text("Zoo 2024 Papers\n\n" + "\n\n".join(abstracts[30:]) + "\n",
                                 encoding="utf-8")
    return _synced(seeds, tmp_path / "data")


@pytest.mark.parametrize("query", ["quokka", "quokka marsupials", "quokka marsupials isl"])
def test_a_tie_longer_than_the_margin_gives_the_answer_of_the_general_query(
        tmp_path, monkeypatch, query):
    """Pages cut inside a group of tied scores longer than the matches fetched past the page
    (TIE_MARGIN, made 2 here so the group is longer than it) are the pages of the general
    query, which joins every match and sorts by score and seed order (TIE_LIMIT 0 forces it)."""
    import db.search.match
    import db.search.rank

    with _tied_library(tmp_path) as lib:
        pages = [(limit, offset) for limit in (1, 5, 7, 60) for offset in (0, 3, 29, 53, 54)]
        monkeypatch.setattr(db.search.match, "TIE_MARGIN", 2)
        monkeypatch.setattr(db.search.rank, "_IN_CHUNK", 4)  # a page's rows read 4 at a time
        fast = [lib.search(query, limit=li, offset=o, typing=True) for li, o in pages]
        monkeypatch.setattr(db.search.match, "TIE_LIMIT", 0)
        general = [lib.search(query, limit=li, offset=o, typing=True) for li, o in pages]
        assert [(r.total, [h.id for h in r.hits]) for r in fast] == \
               [(r.total, [h.id for h in r.hits]) for r in general]
        whole = fast[pages.index((60, 0))]
        assert whole.total == 54
        if len(query.split()) < 3:  # (three words are re-ranked: db.search.rerank orders those)
            every = [h.headline.split()[4:7] for h in whole.hits]
            # seed order: the file a.txt first, then b.txt, each in its own order
            assert every[0] == ["kelp", "and", "amber"]
            assert every[24] == ["amber", "and", "amber"]
            assert len({h.score for h in whole.hits}) == 1  # really all tied


def test_the_one_pass_count_of_two_words_is_the_count_of_their_matches(tmp_path):
    """Two words or more are counted in the pass that ranks them: the same total as a count
    of the FTS matches, whatever the page asked for (none at all included)."""
    with _tied_library(tmp_path) as lib:
        conn = lib._index()
        for query, expression in (("quokka marsupials", '"quokka" AND "marsupials"'),
                                  ("quokka amber", '"quokka" AND "amber"')):
            expected = conn.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?",
                                    (expression,)).fetchone()[0]
            assert expected in (54, 20)  # "amber": 3 papers as the first word, 18 as the second
            for limit, offset in ((0, 0), (1, 0), (5, 50), (10, 100)):
                assert lib.search(query, limit=limit, offset=offset).total == expected


def _answer(result) -> tuple:
    """Everything a search answers, hit by hit."""
    return (result.total, result.notice, result.effective_query, result.terms,
            [(h.id, h.score, h.status, h.sources, h.tags) for h in result.hits])


def _second_pass(monkeypatch) -> None:
    """Re-rank from a second bm25 pass over the index, as before the one-pass fast path."""
    import db.search.rerank

    ranked = db.search.rerank.ranked
    monkeypatch.setattr(db.search.rerank, "ranked",
                        lambda conn, q, expression=None, matches=None: ranked(conn, q, expression))


def _three_word_queries(lib: Library, n: int) -> list[str]:
    """Three words in a row from each abstract (the benchmark's realistic queries)."""
    import re

    queries = []
    for hit in all_hits(lib):
        words = re.findall(r"[A-Za-z]{5,}", lib.get(hit.id).abstract_markup)
        queries += [" ".join(words[i:i + 3]).lower() for i in (2, len(words) // 2) if
                    i + 3 <= len(words)]
    return queries[:n]


@pytest.mark.parametrize("head", [50, 2])
def test_three_words_re_ranked_from_the_one_pass_answer_as_from_a_second(
        shipped_library, monkeypatch, head):
    """A query of three words with few hits is re-ranked from the bm25 pass that counted it
    (every match is in it) instead of a second pass: the same hits in the same order, scores,
    totals and notices, typed or not, a page or all of it, with a head re-ranked smaller than
    the matches (the others follow in bm25 order)."""
    import db.search.rerank

    monkeypatch.setattr(db.search.rerank, "RERANK_HEAD", head)
    queries = _three_word_queries(shipped_library, 40)
    assert len(queries) == 40
    cases = [(q, typing, limit, offset) for q in queries for typing in (False, True)
             for limit, offset in ((200, 0), (3, 2), (0, 0))]
    given = []  # whether each re-ranking was given the one pass's matches
    ranked = db.search.rerank.ranked
    monkeypatch.setattr(db.search.rerank, "ranked", lambda conn, q, expression=None, matches=None: (
        given.append(matches is not None) or ranked(conn, q, expression, matches)))
    fast = [_answer(shipped_library.search(q, limit=li, offset=o, typing=t))
            for q, t, li, o in cases]
    assert given.count(True) > 100 and False in given  # (a page of none has not them all)
    monkeypatch.setattr(db.search.rerank, "ranked", ranked)
    _second_pass(monkeypatch)
    slow = [_answer(shipped_library.search(q, limit=li, offset=o, typing=t))
            for q, t, li, o in cases]
    assert fast == slow
    assert sum(1 for (total, *_rest) in fast if total > 1) > 20  # most found several papers


def test_tied_matches_are_re_ranked_in_the_same_order_from_the_one_pass(tmp_path, monkeypatch):
    """54 papers tie on bm25 for "quokka marsupials isl": the re-ranked head and the tail after
    it are in rowid order among equals, from the one pass as from a second; and a second pass
    ordered by bm25 alone (the statement before the tie was written out) gives that order too."""
    import db.search.rerank

    monkeypatch.setattr(db.search.rerank, "RERANK_HEAD", 7)
    query = "quokka marsupials isl"
    with _tied_library(tmp_path) as lib:
        pages = [(60, 0), (5, 0), (5, 4), (10, 50)]
        fast = [_answer(lib.search(query, limit=li, offset=o, typing=True)) for li, o in pages]
        assert fast[0][0] == 54 and len(fast[0][4]) == 54
        conn = lib._index()
        expression = '"quokka" AND "marsupials" AND ("isl"* OR "islands")'
        weights = ", ".join(str(w) for w in db.index.schema.BM25_WEIGHTS)
        by_bm25 = [r[0] for r in conn.execute(
            f"SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? "
            f"ORDER BY bm25(papers_fts, {weights}) LIMIT 200", (expression,))]
        assert len(by_bm25) == 54 and by_bm25 == sorted(by_bm25)
        _second_pass(monkeypatch)
        assert [_answer(lib.search(query, limit=li, offset=o, typing=True))
                for li, o in pages] == fast


def test_the_words_of_a_text_are_those_of_the_unicode_pattern(shipped_library):
    """``db.search.rerank._words`` splits ASCII text by a byte table: the same words, folded, as the
    Unicode pattern it stands in for, on every shipped abstract and on odd text."""
    import re

    from db.search.rerank import _ASCII_WORDS, _WORD_RE, _words

    texts = [shipped_library.get(h.id).abstract_markup for h in all_hits(shipped_library)]
    texts += ["snake_case x_1 A-B c++ R2-D2 \t\r\n\x0b\x1f MIXED Case 3.14 [CLS] ~`^|@{}",
              "Kelvin \u212a and İstanbul, naïve café, 图神经网络 models", "", "   ", "_"]
    assert any(t.isascii() for t in texts) and not all(t.isascii() for t in texts)
    for text in texts:
        assert _words(text) == _WORD_RE.findall(text.lower())
    assert _words("Graph-NNs_2024 beat\tGCN!") == ["graph", "nns", "2024", "beat", "gcn"]
    assert re.fullmatch(r"[a-z0-9 ]{256}", _ASCII_WORDS.decode("latin-1")) is not None


def test_the_word_positions_and_acronyms_are_those_of_a_plain_loop(shipped_library):
    """``_Matcher.positions`` finds in ASCII text only the words that start as a slot's stem or
    prefix does, or are acronyms, by one pattern: the positions of a plain loop over every
    word, and the acronyms of the text's whole set of words, for slots of stems, variants, a
    prefix, a stem shorter than 3 letters and a word in another script, text after text (the
    matcher remembers the words it has seen), in ASCII and other text."""
    from db.search.highlight import stem
    from db.search.rerank import Slot, _acronyms, _Matcher, _words

    def slot(words, prefix="", idf=2.0):
        return Slot(frozenset(map(stem, words)), prefix, 1, "", idf=idf, word=words[0] if
                    words else prefix)

    found = [slot(["learning"]), slot(["model", "models"]), slot([], "rein"), slot(["ai"]),
             slot(["the"], idf=0.1), slot(["interpretation"]), slot(["сетеи"])]
    assert {"lmr", "lmrs", "lmra", "lmrai"} <= set(_acronyms(found))

    def plain(text):
        words = _words(text)
        out = [[] for _ in found]
        for pos, word in enumerate(words):
            for i, s in enumerate(found):
                if stem(word) in s.stems or (s.prefix and word.startswith(s.prefix)):
                    out[i].append(pos)
        acronyms = _acronyms(found)
        return (out, len(words)), max((acronyms[w] for w in set(words) if w in acronyms),
                                      default=0.0)

    match = _Matcher(found)
    texts = [shipped_library.get(h.id).abstract_markup for h in all_hits(shipped_library)]
    texts += ["The LMR model (LMRs) learns; AI and ai-based models: rein, reins, Reinforce.",
              "LMRAI: the-the  the\tmodels\n\nlearning", "lmrs LMRA lmri", "ai", "", "   ",
              "naïve AI models learn — the LMR way", "Ａｉ ＬＭＲ models",
              "сетеи LMRAIс: interpretation of models", "LMRAIс, the interpretation сетеи"]
    seen = acronyms = 0
    for text in texts + texts[:3]:
        expected, acronym = plain(text)
        assert match.positions(text) == expected, text
        assert match.acronym() == acronym, text
        seen += sum(map(len, expected[0][:4]))
        acronyms += acronym > 0
    assert seen > 50 and acronyms >= 4


def _joined(lib: Library, hit_id: str) -> tuple[tuple, tuple]:
    """A paper's sources and tags as joined, sorted statements read them."""
    conn = lib._index()
    sources = tuple(conn.execute(
        "SELECT f.display, s.position FROM sources s JOIN files f ON f.path = s.file "
        "WHERE s.paper_id = ? ORDER BY s.file, s.position", (hit_id,)))
    tags = tuple(t for (t,) in conn.execute(
        "SELECT tag FROM m.tags WHERE paper_id = ? ORDER BY tag", (hit_id,)))
    return sources, tags


def _as_read(hits) -> list[tuple[tuple, tuple]]:
    return [(tuple((s.file, s.position) for s in h.sources), h.tags) for h in hits]


def test_hits_carry_the_sources_and_tags_a_join_in_sql_gives(library):
    """A hit's one source is its paper's first, and only papers in ``multi_sources`` have
    their sources looked up; tags are read only when some paper has a tag: each hit has what
    the joined, sorted statements give, a paper in both shipped files its two sources in seed
    order, and a tag as soon as one is added."""
    hits = all_hits(library)
    assert len(hits) == 35
    assert _as_read(hits) == [_joined(library, h.id) for h in hits]
    shared = [h for h in hits if len(h.sources) == 2]
    assert len(shared) == 3 and {s.file for s in shared[0].sources} == {FILE_A, FILE_B}
    assert all(h.tags == () for h in hits)
    library.tag([shared[0].id, hits[0].id], ["zeta", "alpha"])
    tagged = {h.id: h.tags for h in all_hits(library) if h.tags}
    assert tagged == {shared[0].id: ("alpha", "zeta"), hits[0].id: ("alpha", "zeta")}


def _multi(lib: Library) -> tuple[list, list]:
    """``multi_sources`` as kept by the syncs, and as counted from the sources afresh."""
    conn = lib._index()
    kept = conn.execute("SELECT paper_id FROM multi_sources ORDER BY paper_id").fetchall()
    counted = conn.execute("SELECT paper_id FROM sources GROUP BY paper_id "
                           "HAVING count(*) > 1 ORDER BY paper_id").fetchall()
    return kept, counted


def test_syncs_keep_the_papers_with_several_sources(seeds_copy, tmp_path):
    """A file that repeats abstracts of others (twice one of them), an edit that drops one,
    a file removed, a forced rebuild: after each sync ``multi_sources`` holds the papers with
    more than one source, and every hit has the sources a join gives, in seed order."""
    data = tmp_path / "data"
    shipped = (seeds_copy / FILE_A).read_text(encoding="utf-8").split("\n\n")
    extra = seeds_copy / "zz_repeats.txt"
    steps = [
        lambda: extra.write_text("\n\n".join(["Repeats 2025", shipped[1], shipped[2],
                                               shipped[1], shipped[5]]), encoding="utf-8"),
        lambda: extra.write_text("\n\n".join(["Repeats 2025", shipped[2]]), encoding="utf-8"),
        lambda: (seeds_copy / FILE_B).unlink(),
        lambda: None,
    ]
    counts = []
    with Library([seeds_copy], data) as lib:
        lib.sync()
        for n, step in enumerate(steps):
            kept, counted = _multi(lib)
            assert kept == counted
            counts.append(len(kept))
            hits = all_hits(lib)
            assert _as_read(hits) == [_joined(lib, h.id) for h in hits]
            step()
            lib.sync(force=n == len(steps) - 1)
        assert _multi(lib)[0] == _multi(lib)[1]
    # shipped: 3 papers in both files; + 3 repeated; then 1 of those; file B gone: 1 left
    assert counts == [3, 6, 4, 1]


def test_a_page_past_the_last_filtered_match_ranks_nothing(library):
    """A page past the end of a filtered query's matches (``is:new``, an offset beyond them)
    is empty and counts them without ranking them: no statement orders every match by bm25
    (at 87k papers, ``AND`` filtered to new papers at a huge offset took 2 s)."""
    statements: list[str] = []
    library.search("x")  # the connections opened before the trace
    library._index().set_trace_callback(statements.append)
    result = library.search("learning", "new", limit=1, offset=2**62)
    library._index().set_trace_callback(None)
    assert (result.total, result.hits) == (library.search("learning", "new").total, [])
    assert result.total > 5
    assert [s for s in statements if "ORDER BY hit.score" in s] == []


@pytest.mark.parametrize(("query", "status"), [("learn*", None), ("learning", "new"),
                                               ("learn*", "new")])
def test_a_prefix_and_a_filtered_first_page_match_the_index_once(library, query, status):
    """A prefix (its words' lists merged: ``a*`` at 87k papers took 1.6 s a pass) and the first
    page of a filtered query are matched and counted in one pass over the index, not a pass
    to rank and another to count: the same answer as a page of the general query gives."""
    statements: list[str] = []
    library.search("x")  # the connections opened before the trace
    library._index().set_trace_callback(statements.append)
    result = library.search(query, status, limit=3)
    library._index().set_trace_callback(None)
    passes = [s for s in statements if "papers_fts MATCH" in s]
    assert len(passes) == 1 and "count(*) OVER ()" in passes[0], passes
    assert result.total == library.search(query, status, limit=3, offset=1).total


def test_partial_matches_are_counted_beside_the_ranking(tmp_path):
    """A partial-match search counts its hits on a second connection, in a thread of its own,
    while it ranks: the same total and hits as counting in line (``beside`` left out), with a
    status filter too; the thread is gone when the search returns, and its connection is
    pooled for the next (no thread or connection per search is left behind)."""
    import threading
    import time

    from db.search.run import run

    lib = Library([copy_seeds(tmp_path / "seeds")], tmp_path / "data")
    lib.sync()
    query = "diffusion language graph quantum"
    started = []
    real_beside = lib._db.beside
    lib._db.beside = lambda work: started.append(work) or real_beside(work)
    found = lib.search(query, limit=5)
    assert "partial matches" in found.notice and found.total > 5 and len(started) == 1
    lib.set_status([found.hits[0].id], "read")
    for status in (None, "read", "new"):
        beside = lib.search(query, status=status, limit=5)
        in_line = run(lib._index(), query, status, 5, 0, lib._vocab)
        assert (beside.total, [h.id for h in beside.hits]) == (
            in_line.total, [h.id for h in in_line.hits])
    assert lib.search(query, status="read").total == 1 and len(started) == 5
    deadline = time.monotonic() + 30  # (a thread's connection is given back as it ends)
    while len(lib._db._idle) != 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(lib._db._idle) == 1  # the helper threads' connections: one pair, reused
    assert not [t for t in threading.enumerate() if t.name == "papertray-beside"]
    lib.close()


def test_a_stem_or_prefix_under_3_letters_matches_the_longer_words_it_begins():
    """Porter keeps a word's start, so a word whose stem is "ai" ("AIs") or that begins with a
    short prefix ("ra" of ``x-ra*``) begins with it: ``_Matcher`` finds those words as a plain
    loop does, in ASCII and other text."""
    from db.search.highlight import stem
    from db.search.rerank import Slot, _Matcher

    assert (stem("ais"), stem("rls"), stem("as")) == ("ai", "rl", "a")
    found = [Slot(frozenset({"ai"}), "", 1, "", idf=2.0, word="ai"),
             Slot(frozenset({"rl"}), "", 1, "", idf=2.0, word="rl"),
             Slot(frozenset(), "ra", 1, "", idf=1.0, word="ra")]
    match = _Matcher(found)
    expected = ([[1, 3], [5], [6, 7]], 8)
    assert match.positions("Large AIs and AI, with RLs: rays ranking") == expected
    assert match.positions("Large AIs and AI, with RLs: rays ranking — é") == (
        expected[0], 9)
