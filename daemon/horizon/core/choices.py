"""The choices the bee asks for and the operator's replies that settle them (pure, ADR
0008): "the parser: cobra (…) or kong (…)?" answered "Go with kong." is the operator's
decision about the parser.
"""

from __future__ import annotations

import re

from horizon.core.decisions import is_plain_word, subject_words, words_in_order
from horizon.core.patterns import Pattern
from horizon.core.records import Asked, Decision, Stated
from horizon.core.statements import STATEMENT_CHARS, prose, sentences
from horizon.core.text import flatten

# Options on either side of "or": "cobra (…) or kong (…)?", "MERGE ou OVERWRITE ?".
_OR = Pattern(r"\s+(?:or|ou|vs\.?|versus)\s+", re.IGNORECASE)
_ASIDE = Pattern(r"\s*\([^)]*\)")
_OPTION = Pattern(r"`[^`\s]+`|[\w.+#/-]*\w")
ASKED_CHARS = 600  # of an answer's end, where the bee asks what it needs
SETTLE_SPAN = 4  # a reply settles a choice asked at most this many seqs before it


def choice_asked(text: str) -> tuple[str, tuple[str, ...]] | None:
    """The choice the bee's last question asks for, and the options it names (at least
    two, each a word that is no common word), or None."""
    if "?" not in text[-ASKED_CHARS:]:
        return None
    for sentence in reversed(sentences(prose(text[-ASKED_CHARS:]))):
        if not sentence.endswith("?"):
            continue
        *lefts, right = _OR.split(_ASIDE.sub("", sentence[:-1]))
        found = [_OPTION.findall(piece) for left in lefts for piece in left.split(",")]
        options = [words[-1] for words in found if words]
        options += _OPTION.findall(right)[:1]
        named = tuple(dict.fromkeys(option.strip("`") for option in options
                                    if _is_option(option.strip("`"))))
        if not lefts or len(named) < 2:
            return None
        return flatten(sentence)[:STATEMENT_CHARS], named
    return None


def _is_option(word: str) -> bool:
    return len(word) >= 2 and not is_plain_word(word)


def settled(asks: tuple[Asked, ...], replies: tuple[Stated, ...]) -> list[Decision]:
    """The choices the operator's replies settle: a reply that names one option of the
    bee's newest choice asked just before it ("Go with kong.", "ok GCS"). The decision is
    about what the question is about, and stops using the options not taken."""
    found = []
    for reply in replies:
        asked = [ask for ask in asks if 0 < reply.seq - ask.seq <= SETTLE_SPAN]
        if not asked:
            continue
        ask = max(asked, key=lambda ask: ask.seq)
        named = [option for option in ask.options if _names(reply.text, option)]
        if len(named) != 1:
            continue
        others = " ".join(option for option in ask.options if option != named[0])
        found.append(Decision(reply.seq, f"{named[0]} — {ask.text}"[:STATEMENT_CHARS],
                              subject_words(ask.text), tuple(sorted(set(words_in_order(others)))),
                              by_operator=True))
    return found


def _names(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w.+#/-]){re.escape(option)}(?![\w+#/-])", text,
                     re.IGNORECASE) is not None
