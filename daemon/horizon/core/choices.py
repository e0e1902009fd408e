"""The operator's choices (pure, ADR 0008): those the bee asks for and a reply settles
("the parser: cobra (…) or kong (…)?" answered "Go with kong." is the operator's decision
about the parser), and those given as an instruction or a correction ("No, use MERGE
instead", "Hmm, no: nfpm, not goreleaser.", "non, OneSignal").
"""

from __future__ import annotations

import re

from horizon.core.decisions import (
    ARTICLE,
    DECISIONS_PER_TEXT,
    NAMED,
    NAMED_THING,
    decisions_stated,
)
from horizon.core.patterns import Pattern
from horizon.core.records import Asked, Decision, Stated
from horizon.core.statements import STATEMENT_CHARS, prose, sentences
from horizon.core.subjects import dropped_words, is_plain_word, subject_words, words_in_order
from horizon.core.text import flatten
from horizon.core.tickets import ticket_names

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


# The operator's choice said as an instruction ("No, use MERGE instead", "Keep the S3
# backend", "Non, garde MERGE"): a decision, theirs.
_OPERATOR_CHOICE = Pattern(
    r"^\W*(?:(?:no|nope|non|actually|en\s+fait|instead|wait|hmm|ok|okay|fine|alors|plutôt|"
    r"finalement|d'accord|yes|oui|from\s+now\s+on|always|désormais|toujours|"
    r"à\s+partir\s+de\s+maintenant|je\s+reviens\s+(?:là-dessus|dessus)|on\s+second\s+thought|"
    r"change\s+of\s+plans?)\b[\s,.!:;—–-]*)*(?:let'?s\s+|we'll\s+|we\s+should\s+|"
    r"please\s+|on\s+)?(?:use|go\s+with|stick\s+with|stay\s+with|keep|switch\s+to|"
    r"move\s+to|pick|choose|prefer|take|utiliser|utilise|utilisons|garde|gardons|prends|prenons|"
    r"passe\s+à|passons\s+à|choisis|reste\s+sur|restons\s+sur|part\s+sur|"
    r"bascule\s+sur|reviens\s+à|revenons\s+à|go\s+back\s+to|do|skip|drop|"
    r"(?:revert|switch\s+back|roll\s+back)\s+to|"
    r"(?:build|make|ship|write|keep|fais|construis)\s+(?:it|them|this|that|le|la|les)\s+"
    r"(?:as|with|behind|en|avec|comme)|"
    r"store\s+(?:[\w'-]+\s+){0,4}?(?:in|into|as|dans|en))\s+"
    r"(?:plutôt\s+|instead\s+|rather\s+|alors\s+|donc\s+)?" + ARTICLE
    + r"(?P<chosen>[\w.+#`/-]{2,})", re.IGNORECASE)
# The operator's correction, said as the choice against the one it undoes ("Hmm, no: nfpm,
# not goreleaser.", "ULID plutôt que UUIDv4").
_CORRECTING_WORDS = (r"no|nope|non|hmm+|actually|en\s+fait|wait|finalement|"
                     r"je\s+reviens\s+(?:là-dessus|dessus)|on\s+second\s+thought")
_CORRECTION_LEAD = r"^\W*(?:(?:" + _CORRECTING_WORDS + r"|ok|okay)\b[\s,.!:;—–-]*)*"
_PLEASE = r"(?:[\s,]+(?:please|pls|stp|svp|s'il\s+te\s+pla[iî]t))?\W*$"
_OPERATOR_CORRECTION = Pattern(
    _CORRECTION_LEAD + r"(?:(?P<chosen>[\w.+#`/-]{2,})\s*,?\s+(?:not|pas|rather\s+than|"
    r"instead\s+of|plutôt\s+que|au\s+lieu\s+d[eu']\s*)\s*(?P<other>[\w.+#`/-]{2,})|"
    r"(?:not|pas)\s+(?P<other_first>[\w.+#`/-]{2,})\s*[:;,—–-]\s*"
    r"(?P<chosen_after>[\w.+#`/-]{2,}))" + _PLEASE, re.IGNORECASE)
# After a correcting word, the choice said in a few words before the one it undoes
# ("Actually: useReducer in a context, not Zustand.", "Non, polars en lazy, pas pandas").
_OPERATOR_CORRECTION_SAID = Pattern(
    r"^\W*(?:(?:" + _CORRECTING_WORDS + r")\b[\s,.!:;—–-]*)+(?P<chosen>[\w.+#`/-]{2,})"
    r"(?:\s+[\w'.+#`/-]+){0,6}?\s*,?\s+(?:not|pas|rather\s+than|instead\s+of|plutôt\s+que|"
    r"au\s+lieu\s+d[eu']\s*)\s*(?P<other>[\w.+#`/-]{2,})" + _PLEASE, re.IGNORECASE)
# After a correcting word, what is set aside first, then what replaces it in words
# ("Non, pas WorkManager : on fait la synchro au premier plan…").
_OPERATOR_NOT_THAT = Pattern(
    r"^\W*(?:(?:" + _CORRECTING_WORDS + r")\b[\s,.!:;—–-]*)+(?:not|pas|no|plus\s+de)\s+"
    r"(?P<other>[\w.+#`/-]{2,})\s*(?:[:;,—–-]\s*\w|(?P<alone>[.!]*$))", re.IGNORECASE)
# Where to put something instead: after a correcting word ("hmm no, move the check into a
# middleware, X"), or beside what it sets aside ("Scrap Redis for the keys. Put them in
# Postgres."), a correction; said alone ("put that in gitlab"), a task.
_PUTTING = (r"(?:move|put|mets|déplace)\s+(?:[\w'-]+\s+){0,4}?(?:into|in|to|behind|under|dans|"
            r"derrière|sous)\s+" + ARTICLE + r"(?P<chosen>[\w.+#`/-]{2,})")
_OPERATOR_MOVED = Pattern(r"^\W*(?:(?:" + _CORRECTING_WORDS + r")\b[\s,.!:;—–-]*)+" + _PUTTING,
                          re.IGNORECASE)
_OPERATOR_PUT = Pattern(r"^\W*" + _PUTTING, re.IGNORECASE)
# "non, OneSignal": the operator's other pick, named alone after a no.
_OPERATOR_OTHER = Pattern(r"^\W*(?:no|nope|non)\b[\s,.!:;—–-]+(?P<chosen>" + NAMED + r")"
                          + _PLEASE, re.IGNORECASE)
_OPERATOR_REVERSAL = Pattern(
    r"^\W*(?:no|nope|non|actually|en\s+fait|finalement|wait|plutôt|switch|bascule)\b|"
    r"\binstead\b|\bplutôt\b|\bau\s+lieu\b|\brather\b", re.IGNORECASE)

_CORRECTING = Pattern(r"^\W*(?:" + _CORRECTING_WORDS + r"|not|pas)\b", re.IGNORECASE)
# A choice turned down for the case at hand, not as a rule ("I don't want another PORO for
# this", "Let's not do a config file at all", "Je ne veux pas de Redis ici").
_NOT_FOR_THIS = Pattern(
    r"\b(?:(?:i|we)\s+(?:don't|do\s+not)\s+want\s+(?:another|any\s+more|an?|any)\s+\S+"
    r"(?:\s+\S+)?\s+(?:for\s+(?:this|that|it|now)|here|at\s+all|in\s+this\b)|"
    r"let's\s+not\s+(?:do|have|add|use|bring\s+in|go\s+with)\b|"
    r"(?:je|on)\s+ne\s+veu[xt]\s+pas\s+d[eu'].{1,40}?\b(?:ici|pour\s+(?:ça|ce\s+\w+)|du\s+tout)\b)",
    re.IGNORECASE)


def corrects(text: str) -> bool:
    """Operator words that correct a choice ("Hmm, no: nfpm, not goreleaser.", "No, do
    the in-place update", "From now on use bun, not pnpm"): a decision, even in the
    form of a convention or a rule."""
    flat = flatten(text[:STATEMENT_CHARS * 2])
    said = sentences(flat)[:3]
    # Or a choice in one sentence and what it sets aside in another ("Finalement non, je
    # ne veux pas de WorkManager ici. Utilise repeatOnLifecycle.").
    # Or a choice said with what it replaces ("Je préfère qu'on reste sur GRDB plutôt que
    # SwiftData"), even as a preference that reads like a rule.
    return any(_corrects(sentence) or _NOT_FOR_THIS.search(sentence) is not None
               or (bool(dropped_words(sentence)) and bool(decisions_stated(sentence)))
               for sentence in said) or (
        any(_chooses(sentence) for sentence in said)
        and any(dropped_words(sentence) for sentence in said))


def _chooses(sentence: str) -> bool:
    """An instruction that chooses something, or says where to put it."""
    return (_names_choice(_OPERATOR_CHOICE.match(sentence))
            or _names_choice(_OPERATOR_PUT.match(sentence)))


def _corrects(sentence: str) -> bool:
    """A choice said after a no, or one said with what it sets aside."""
    if _CORRECTING.match(sentence) is not None and _is_correction(sentence):
        return True
    if not _names_choice(_OPERATOR_CHOICE.match(sentence)):
        return False
    return _CORRECTING.match(sentence) is not None or bool(dropped_words(sentence))


def operator_decisions(text: str, reply: str = "") -> list[tuple[str, str, bool]]:
    """The decisions the operator's words settle: what reads as a decision, and a choice
    given as an instruction; one said as a correction reverses the decision before it,
    or the one the bee's `reply` says it undoes ("Fair enough, undoing the FCM part")."""
    undoes = sentences(prose(reply[:STATEMENT_CHARS]))[:1]
    found = [_with_reply(said, about, reverses or _OPERATOR_REVERSAL.search(about) is not None,
                         undoes) for said, about, reverses in decisions_stated(text)]
    if len(found) >= DECISIONS_PER_TEXT:
        return found
    known = {said for said, _, _ in found}
    said_sentences = sentences(prose(text))
    # "Scratch Grover, no Chrome in our containers. Stick with wicked_pdf.": what one
    # sentence sets aside, the choice in another replaces.
    setting_aside = [sentence for sentence in said_sentences if dropped_words(sentence)]
    for index, sentence in enumerate(said_sentences):
        if sentence.endswith("?") or ticket_names(sentence):
            continue
        correcting = _is_correction(sentence)
        if not (correcting or _corrects(sentence) or _swaps(sentence)
                or _names_choice(_OPERATOR_CHOICE.match(sentence))
                or (setting_aside and _names_choice(_OPERATOR_PUT.match(sentence)))):
            continue
        said = flatten(sentence)[:STATEMENT_CHARS]
        if _sets_aside_alone(sentence) and index + 1 < len(said_sentences):
            # "non, pas zustand. un context React suffit": the choice is the next sentence.
            said = flatten(f"{sentence} {said_sentences[index + 1]}")[:STATEMENT_CHARS]
        about = sentence if sentence in setting_aside else " ".join([sentence, *setting_aside])
        if not any(said in text for text in known):  # not read already with the one before
            found.append(_with_reply(said, about, correcting or _OPERATOR_REVERSAL.search(
                about) is not None, undoes))
        if len(found) == DECISIONS_PER_TEXT:
            break
    return found


def is_convention(text: str) -> bool:
    """A choice said with what it sets aside, naming no ticket ("Use Tailwind classes
    for styling, no CSS modules", "use MERGE instead of OVERWRITE"): how to work from now
    on, a decision, not work to do now."""
    flat = flatten(text[:STATEMENT_CHARS * 2])
    return (not ticket_names(flat) and any(
        _names_choice(_OPERATOR_CHOICE.match(sentence)) and dropped_words(sentence)
        for sentence in sentences(prose(flat))[:3]))


def chosen_words(text: str) -> frozenset[str]:
    """What the operator's words choose as an instruction ("Always use pnpm, not npm"
    chooses pnpm), each word cut to its stem; empty when they choose nothing."""
    chosen: set[str] = set()
    for sentence in sentences(prose(flatten(text[:STATEMENT_CHARS * 2])))[:3]:
        match = _OPERATOR_CHOICE.match(sentence)
        if _names_choice(match):
            assert match is not None
            chosen |= set(words_in_order(match["chosen"]))
    return frozenset(chosen)


def _swaps(sentence: str) -> bool:
    """A named choice said as the one to take instead ("partition by voyage_date instead,
    that's what the analysts filter on")."""
    first = _FIRST_WORD.match(sentence)
    return (_INSTEAD.search(sentence) is not None and first is not None
            and first.group(1).casefold() not in _REDIRECTS
            and NAMED_THING.search(sentence, first.end()) is not None)


# A capital that opens a sentence names nothing; "Look at the middleware instead" sends
# the bee elsewhere, it chooses nothing.
_FIRST_WORD = Pattern(r"\W*([\w'-]+)")
_REDIRECTS = frozenset(["look", "check", "read", "try", "run", "test", "fix", "ask", "see",
                        "start", "focus", "work", "do", "go", "regarde", "vérifie", "lis",
                        "essaie", "lance", "teste", "corrige", "commence", "fais"])


_INSTEAD = Pattern(r"\b(?:instead|à\s+la\s+place)\s*(?:[.!,;]|$)", re.IGNORECASE)


def _sets_aside_alone(sentence: str) -> bool:
    """A sentence that only turns a choice down after a correcting word ("non, pas
    zustand.")."""
    match = _OPERATOR_NOT_THAT.match(sentence)
    return match is not None and match["alone"] is not None


def _is_correction(sentence: str) -> bool:
    """The choice said against the one it undoes, or named alone after a no."""
    return (_names_choice(_OPERATOR_CORRECTION.match(sentence))
            or _names_choice(_OPERATOR_OTHER.match(sentence))
            or _names_choice(_OPERATOR_CORRECTION_SAID.match(sentence))
            or _names_choice(_OPERATOR_NOT_THAT.match(sentence))
            or _names_choice(_OPERATOR_MOVED.match(sentence)))


def _names_choice(match: re.Match[str] | None) -> bool:
    """Whether what an instruction chooses, and what it sets aside, are things and not
    plain words ("keep going", "non, pas ça")."""
    return match is not None and not any(is_plain_word(word.strip("`").rstrip("."))
                                         for word in match.groupdict().values() if word)


def _with_reply(said: str, about: str, reverses: bool,
                undoes: list[str]) -> tuple[str, str, bool]:
    """A reversal that names nothing it stops using, read with the bee's first sentence
    after it (`undoes`), where it says what it undoes."""
    if reverses and undoes and not dropped_words(about):
        about = f"{about} {_ACKNOWLEDGED.sub('', undoes[0])}"
    return said, about, reverses


# The bee's reply opens with assent before saying what it undoes ("Makes sense — moving
# the cart slice into RTK"): the dash there gives no reason, what follows is the subject.
_ACKNOWLEDGED = Pattern(
    r"^\W*(?:(?:ok(?:ay)?|sure|right|yes|yep|agreed|understood|noted|got\s+it|will\s+do|"
    r"fair\s+enough|makes\s+sense|good\s+(?:call|point|idea)|sounds\s+good|entendu|"
    r"d'accord|compris|bien\s+vu|c'est\s+noté|ça\s+marche|oui)\b[\s,.!:;—–-]*)+",
    re.IGNORECASE)
