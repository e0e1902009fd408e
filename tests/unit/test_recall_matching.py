"""A search's matching: the byte prefilter never refuses a line whose decoded text holds
every word, however the writer's JSON spells it; and a folded match is found where it is."""

from __future__ import annotations

import json
from collections.abc import Callable

import msgspec
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from horizon.core.entries import Entry, decode_line
from horizon.core.recall import byte_prefilter, find_folded, fold, has_words, query_words

# Pieces that fold in several ways or that JSON escapes: accents (composed or not), a
# ligature, ß, dotted İ, the Kelvin sign, quotes, backslashes, slashes, controls, bidi and
# line breaks, and something that looks like an escape already.
_PIECES = st.sampled_from([
    "Été", "été", "e\u0301te\u0301", "CAFÉ", "café", "ﬁle", "ß", "SS", "İstanbul", "\u212a",
    '"', "\\", "/", "\\u00e9", "\\n", "a/b", "\n", "\r", "\t", "\x00", "\x08", "\x7f",
    "\u2028", "\u202e", "<&>'", "abc", "ABC", " ", "\U0001f41d", "\x85",
])
_ASCII = st.text(st.characters(codec="ascii"), max_size=8)
# Half of them ASCII: the lines the prefilter reads as bytes.
texts = (st.lists(_ASCII | st.sampled_from(["Invoice", "ROUNDING", "a/b", '"q"', "\\"]),
                  max_size=6).map("".join)
         | st.lists(_PIECES | st.text(max_size=6), max_size=10).map("".join))


def spelled(text: str, escaped: str, *, upper: bool, slash: bool) -> str:
    """`text` as a JSON string, the characters in `escaped` (and every one outside the BMP
    or below U+0020) as `\\uXXXX`, `/` as `\\/` if `slash`."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "/" and slash:
            out.append("\\/")
        elif code < 0x20 or char in escaped or code > 0xFFFF:
            units = [code] if code <= 0xFFFF else [0xD800 + ((code - 0x10000) >> 10),
                                                   0xDC00 + ((code - 0x10000) & 0x3FF)]
            out.extend(f"\\u{unit:04X}" if upper else f"\\u{unit:04x}" for unit in units)
        else:
            out.append(char)
    return "".join(out) + '"'


def encodings(question: str, answer: str) -> list[bytes]:
    """The same entry as different writers put it on a line."""
    fields = {"ts": 1_780_000_000, "type": "task", "question": question, "answer": answer}
    lines = [json.dumps(fields, ensure_ascii=False).encode(), json.dumps(fields).encode(),
             msgspec.json.encode(fields)]
    for escaped, upper, slash in [("", False, True), ("eé/", True, False),
                                  ("abcdefghijklmnopqrstuvwxyz", False, False)]:
        lines.append(('{"ts": 1780000000, "type": "task", "question": '
                      f"{spelled(question, escaped, upper=upper, slash=slash)}, \"answer\": "
                      f"{spelled(answer, escaped, upper=upper, slash=slash)}}}").encode())
    return lines


@st.composite
def queries(draw: st.DrawFn, question: str, answer: str) -> str:
    """Mostly words taken from the texts, in another case or folded; sometimes anything."""
    source = draw(st.sampled_from([question, answer]))
    if not source or draw(st.integers(0, 4)) == 0:
        return draw(texts)
    start = draw(st.integers(0, len(source) - 1))
    piece = source[start:start + draw(st.integers(1, 12))]
    changes: list[Callable[[str], str]] = [str, str.upper, str.lower, str.swapcase, fold]
    changed = draw(st.sampled_from(changes))(piece)
    return changed if draw(st.booleans()) else f"{changed} {draw(texts)}"


@settings(max_examples=500)
@given(data=st.data(), question=texts, answer=texts)
@example(data=None, question="Été à Paris", answer="")
@example(data=None, question="un café", answer="x")
@example(data=None, question="path/to/file", answer="")
def test_the_byte_prefilter_keeps_every_line_whose_text_holds_the_words(
        data: st.DataObject | None, question: str, answer: str) -> None:
    query = {"Été à Paris": "ETE", "un café": "CAFE", "path/to/file": "to/FILE"}.get(
        question, "") if data is None else data.draw(queries(question, answer))
    words = query_words(query)
    keep = byte_prefilter(words)
    for raw in encodings(question, answer):
        entry = decode_line(1, raw)
        assert isinstance(entry, Entry)
        assert (entry.question, entry.answer) == (question, answer), raw
        if words and has_words(words, entry.question, entry.answer):
            assert keep is None or keep(1, raw), (words, raw)


def test_the_byte_prefilter_refuses_ascii_lines_without_the_words() -> None:
    keep = byte_prefilter(query_words("Invoice ROUNDING"))
    assert keep is not None
    line = json.dumps({"ts": 1, "type": "task", "question": "invoice", "answer": "totals"})
    assert not keep(1, line.encode())
    assert keep(1, line.replace("totals", "Rounding").encode())
    assert keep(1, line.replace("totals", "\\u00e9").encode()), "an escape: decoded first"
    assert keep(1, line.replace("totals", "é").encode()), "not ASCII: decoded first"
    for query in ("日本", 'say"', "a/b", "back\\slash", ""):
        assert byte_prefilter(query_words(query)) is None, query


@settings(max_examples=300)
@given(text=texts, data=st.data())
def test_a_folded_match_is_found_where_it_starts(text: str, data: st.DataObject) -> None:
    folded = fold(text)
    if folded and data.draw(st.booleans()):
        start = data.draw(st.integers(0, len(folded) - 1))
        word = folded[start:start + data.draw(st.integers(1, 6))]
    else:
        word = fold(data.draw(st.text(min_size=1, max_size=4)))
    at = find_folded(text, word)
    assert (at >= 0) == (word in folded)
    if at >= 0 and word:
        assert word in fold(text[at:]), "the match is at or after `at`"
        assert word not in fold(text[:at]), "and not before"


def test_a_pattern_whose_repeats_unroll_too_far_is_refused_before_compiling(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiling '(?:(?:a{1000}){1000}){1000}' took gigabytes, before any timeout."""
    import regex

    from horizon.engine import recall

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled")

    assert recall.unrolled_size("(?:(?:a{1000}){1000}){1000}") > recall.REGEX_MAX_UNROLLED
    assert recall.unrolled_size("(?:a{100}){100}") <= recall.REGEX_MAX_UNROLLED
    assert recall.unrolled_size(r"[{]{3}\{99999999}") < 100
    monkeypatch.setattr(regex, "compile", never)
    with pytest.raises(recall.RecallError, match="repeats too much"):
        recall._pattern_match("(?:(?:a{1000}){1000}){1000}")
