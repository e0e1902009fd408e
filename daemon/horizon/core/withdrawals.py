"""Which of the operator's standing words a later message withdraws (pure, ADR 0008).

"Forget the rule about commit messages" names the rule it undoes by its subject, not by
its seq: the withdrawn rule is the older standing quote that shares the most words with
what the withdrawal says it is about (its words up to the next mark, else the clause
before them: what follows a colon says what replaces the rule) and, among those, the
one that says them first (a rule says what it is about at its start: "Commit messages
start with…", not "…, with the PR title as the commit message"). Paroles then shows the
withdrawal, not the rule.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from typing import Protocol

from horizon.core.choices import chosen_words
from horizon.core.patterns import Pattern
from horizon.core.statements import WORD, fold_case
from horizon.core.subjects import dropped_words, is_plain_word, words_in_order
from horizon.core.taking_back import withdrawal_subject, withdraws_rule


class Said(Protocol):
    """A quote of the operator's words, as Paroles holds it (`recit.Quote`)."""

    @property
    def seq(self) -> int: ...
    @property
    def text(self) -> str: ...
    @property
    def passing(self) -> bool: ...


def withdrawn(quotes: Sequence[Said]) -> frozenset[int]:
    """The seqs of the standing quotes a newer standing quote withdraws, or replaces: one
    that sets aside what an older one chose ("From now on use bun, not pnpm" replaces
    "Always use pnpm")."""
    gone: set[int] = set(_replaced(quotes))
    for withdrawal in quotes:
        if withdrawal.passing or not _withdraws(withdrawal.text):
            continue
        words = _subject(withdrawal.text)
        whole = _subject_whole(withdrawal.text)
        paths = () if words else _subject_paths(withdrawal.text)
        scores = []
        for quote in quotes:
            if quote.seq >= withdrawal.seq or quote.passing or _withdraws(quote.text):
                continue
            said = _words(quote.text)
            at = [index for index, word in enumerate(said) if word in words]
            both = whole & _whole(quote.text)
            shared = len(both)
            # The same words before words of the same stem ("changelog", "changes"); a
            # command said in backquotes by two of its words whole (`just lint`); a
            # subject said only by its path ("The vendor/ rule…") by that path, whole.
            if (at or sum(not is_plain_word(word) for word in both) >= 2
                    or any(path in quote.text for path in paths)):
                scores.append(((shared, len(at), -sum(at)), quote.seq))
        best = max((score for score, _ in scores), default=None)
        matched = [seq for score, seq in scores if score == best]
        if len(matched) == 1:
            gone.add(matched[0])
    return frozenset(gone)


@functools.lru_cache(maxsize=4096)
def _withdraws(text: str) -> bool:
    return withdraws_rule(text[:1200])


# The words of withdrawing, which say nothing of what is withdrawn.
_WITHDRAWING = frozenset(_stem for _stem in (
    "rule", "rules", "regle", "consi", "instr", "polic", "conve", "forge", "forgo", "oubli",
    "scrap", "ignor", "lift", "withd", "cance", "disre", "annul", "laiss", "tombe", "besoi",
    "said", "dit", "earli", "previ", "avant", "préc", "prece", "suivr", "follo", "gave",
    "donne", "longe", "anymo", "matte", "about", "conce", "repla", "rempl", "super",
    "scrat", "relax", "retir", "restr", "lifte", "appli", "holds", "stand", "levee", "dropp",
    "gone", "void", "caduq", "const", "you", "peux", "pouve", "vous", "need", "stop",
    "thing", "habit", "arret", "more"))


@functools.lru_cache(maxsize=4096)
def _subject(text: str) -> frozenset[str]:
    """The words that say which rule a withdrawal is about."""
    said = withdrawal_subject(text[:1200])
    if said is None:
        return frozenset()
    for part in said:
        words = frozenset(_words(part)) - _WITHDRAWING
        if words:
            return words
    return frozenset()


@functools.lru_cache(maxsize=4096)
def _subject_whole(text: str) -> frozenset[str]:
    said = withdrawal_subject(text[:1200])
    return frozenset().union(*(_whole(part) for part in said)) if said else frozenset()


@functools.lru_cache(maxsize=4096)
def _whole(text: str) -> frozenset[str]:
    """The words of a text, case folded, whole."""
    return frozenset(word for word in (fold_case(match.group(0))
                                       for match in WORD.finditer(text[:1200]))
                     if len(word) >= 3) - _WHOLE_WITHDRAWING


_WHOLE_WITHDRAWING = frozenset([
    "rule", "rules", "règle", "règles", "about", "sur", "the", "this", "replaces", "remplace",
    "forget", "oublie", "longer", "applies", "apply", "lifted", "restriction", "consigne",
    "est", "levée", "plus", "any", "more", "anymore", "now", "gone", "dropped", "scratch",
    "what", "said", "you", "can", "ignore", "oublier", "peux", "j'ai", "dit", "que"])


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    # A rule's command in backquotes (`just lint`) says what it is about.
    return words_in_order(text[:1200].replace("`", ""))


def _replaced(quotes: Sequence[Said]) -> Iterator[int]:
    """Older standing words that a newer one sets aside: what it stops choosing ("From now
    on use bun, not pnpm" replaces "Always use pnpm"), or what it names as replaced ("run
    `cargo nextest run` instead of `cargo test`" replaces "Run `cargo test` before each
    commit", which chose nothing)."""
    for newer in quotes:
        if newer.passing:
            continue
        chooses = bool(_chooses(newer.text))
        dropped = _dropped(newer.text) if chooses else frozenset()
        replaced = _replaced_words(newer.text, chooses)
        if not dropped and not replaced:
            continue
        yield from (quote.seq for quote in quotes if quote.seq < newer.seq
                    and not quote.passing and not _withdraws(quote.text)
                    and (dropped & _chooses(quote.text)
                         or _names_any(replaced, _whole(quote.text))))


def _names_any(named: frozenset[str], said: frozenset[str]) -> bool:
    """Whether words name one of `named`, or the same word in another form ("lines" and
    "line", "changes" and "changelog"): swiftlint is not SwiftData, though both start
    alike."""
    return bool(named & said) or any(_same_word(one, other) for one in named for other in said)


def _same_word(one: str, other: str) -> bool:
    shorter = min(len(one), len(other))
    if shorter < 4:
        return False
    common = next((index for index, (mine, theirs) in enumerate(zip(one, other, strict=False))
                   if mine != theirs), shorter)
    return common >= shorter - 1


@functools.lru_cache(maxsize=4096)
def _replaced_words(text: str, chooses: bool) -> frozenset[str]:
    """The words of what standing words name as replaced (`instead of X`; `, not X` after
    a choice), whole: a stem would take swiftlint for SwiftData."""
    found: set[str] = set()
    named = [match.group(1) for match in _REPLACING.finditer(text[:1200])]
    if chooses:
        named += [match.group(1) for match in _SET_ASIDE.finditer(text[:1200])]
    for said in (name.replace("/", " ") for name in named):
        found |= {word for word in _whole(said.replace("`", "")) if not is_plain_word(word)}
    return frozenset(found)


_SET_ASIDE = Pattern(r",\s*(?:not|pas)\s+`?([\w.+#/-]+)", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _subject_paths(text: str) -> tuple[str, ...]:
    """The paths a withdrawal names its rule by ("The vendor/ rule…"), without their
    trailing marks."""
    said = withdrawal_subject(text[:1200])
    found = (path.rstrip("/.,:;") for path in _PATH.findall(" ".join(said or ())))
    return tuple(path for path in found if path)


_PATH = Pattern(r"[\w.~-]*/[\w./~-]*")


_REPLACING = Pattern(
    r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of|au\s+lieu\s+d[eu']|plutôt\s+que|"
    r"à\s+la\s+place\s+d[eu'])\s*(?:the\s+|l[ae']\s*|les\s+)?`?([\w.+#/-]+(?:\s+[\w.+#-]+)?)",
    re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def _chooses(text: str) -> frozenset[str]:
    return chosen_words(text[:1200])


@functools.lru_cache(maxsize=4096)
def _dropped(text: str) -> frozenset[str]:
    return frozenset(dropped_words(text[:1200]))
