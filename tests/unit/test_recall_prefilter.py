"""The search's prefilter on a journal line's bytes never refuses a line whose text holds
every word, whatever the text's characters and however the line is spelled."""

from __future__ import annotations

import json

from hypothesis import assume, given
from hypothesis import strategies as st

from horizon.core.recall import fold, folded_prefilter, query_words

# Characters whose fold is not themselves lowered: accents, ligatures, full-width and
# mathematical letters, Kelvin and dotted I, combining marks, splits (ß, ½), and what JSON
# escapes; mixed with plain letters so words span them.
TRICKY = ("éÉèçœŒßẞ½¼ﬁﬃ’…—«»\u00a0\u202f\u0301\u0308\u0327ｘＺ𝐱ℌ\u212aİıǅⅫⓍ①²ªºαΣς가"
          '"\\/\n\t')
texts = st.text(st.one_of(st.sampled_from("abcexyzXYZ s-.!?'"), st.sampled_from(TRICKY),
                          st.characters()), max_size=16)


def line(question: str, answer: str, ensure_ascii: bool) -> bytes:
    return json.dumps({"ts": 1, "type": "task", "question": question, "answer": answer},
                      ensure_ascii=ensure_ascii).encode()


@given(texts, texts, st.data(), st.booleans())
def test_a_line_whose_text_holds_the_words_is_kept(question: str, answer: str,
                                                   data: st.DataObject,
                                                   ensure_ascii: bool) -> None:
    # A journal line is UTF-8: a lone surrogate cannot be written unescaped.
    assume(ensure_ascii or not any("\ud800" <= char <= "\udfff" for char in question + answer))
    folded = fold(question) or "x"
    start = data.draw(st.integers(0, len(folded) - 1))
    stop = data.draw(st.integers(start + 1, min(len(folded), start + 6)))
    words = query_words(folded[start:stop] + " " + data.draw(st.sampled_from(["", "a", "e"])))
    keep = folded_prefilter(words)
    assume(keep is not None)
    assert keep is not None
    holds = all(any(word in fold(text) for text in (question, answer)) for word in words)
    if holds:
        assert keep(1, line(question, answer, ensure_ascii))


def test_lines_without_the_word_are_refused_ascii_or_not() -> None:
    keep = folded_prefilter(query_words("Xylophone"))
    assert keep is not None
    for question in ("étape 3 : œuvre, ½ litre, straße…", "plain ascii", "ｘylo phone"):
        assert not keep(1, line(question, "rien", ensure_ascii=False))
    for question in ("le XYLOPHÔNE", "ｘｙｌｏｐｈｏｎｅ", "xylo\u0301phone", "𝐱ylophone"):
        assert keep(1, line(question, "rien", ensure_ascii=False)), question
    assert keep(1, line("\u00e9", "rien", ensure_ascii=True))  # an escape: decoded to know
    assert folded_prefilter(query_words("straße")) is not None
    strasse = folded_prefilter(query_words("strasse"))
    assert strasse is not None and strasse(1, line("STRAẞE", "", ensure_ascii=False))
