"""Words that take a standing rule back (pure, ADR 0008): "Forget the rule about
squashing", "The vendor/ rule no longer applies", "Plus besoin de lancer le check", and
what they say the rule is about. Which quote they withdraw is core/withdrawals.py's.
"""

from __future__ import annotations

import re

from horizon.core.patterns import Pattern

# What a standing rule is called when the operator takes it back.
_A_RULE = (r"rules?|règles?|consignes?|instructions?|polic(?:y|ies)|conventions?|"
           r"restrictions?|contraintes?|interdictions?")
# Words that withdraw or replace a standing rule ("Forget the rule about squashing",
# "you can push small commits now, no need to squash", "oublie la règle sur…").
_WITHDRAWS = Pattern(
    r"\b(?:forget|drop|scrap|scratch|ignore|lift|relax|retire|withdraw|cancel|disregard|"
    r"no\s+longer|not\s+any\s*more|replaces|supersedes|remplace|annule\s+et\s+remplace|"
    r"no\s+need\s+to|you\s+(?:can|may)\s+now|is\s+(?:lifted|withdrawn|cancelled|over|void)|"
    r"oublie[zr]?|annule[zr]?|laisse\s+tomber|plus\s+besoin|n'est\s+plus|ne\s+\w+\s+plus|"
    r"tu\s+peux\s+(?:désormais|maintenant)|lève|levez)\b[^.!?\n]{0,80}?\b(?:" + _A_RULE + r"|"
    r"squash\w*|what\s+i\s+said|ce\s+que\s+j'ai\s+dit|thing|habit)\b"
    # A habit ended ("You don't need to run the linter after every change anymore", "You
    # can stop running bin/rails ci", "Plus besoin de lancer le check à chaque fois").
    r"|\b(?:no|(?:you\s+)?(?:don't|do\s+not))\s+need\s+to\b[^.!?\n]{0,100}?"
    r"\b(?:any\s*more|from\s+now\s+on)\b|\byou\s+can\s+stop\s+\w+ing\b|"
    r"\bplus\s+besoin\s+d[e']|\btu\s+peux\s+arrêter\s+d[e']"
    # Or the rule first, then its end ("The vendor/ rule no longer applies", "The
    # androidTest restriction is lifted", "La consigne sur les migrations est levée").
    r"|\b(?:" + _A_RULE + r"|constraints?)\b[^.!?\n]{0,40}?\b(?:"
    r"no\s+longer\s+(?:applies|apply|holds|stands)|(?:does\s+not|doesn't|don't|do\s+not)\s+apply\s+any\s*more|"
    r"(?:is|are)\s+(?:now\s+)?(?:lifted|withdrawn|cancelled|canceled|void|retired|dropped|"
    r"gone)|ne\s+s'appliquen?t?\s+plus|(?:est|sont)\s+(?:levée?s?|annulée?s?|caduques?|"
    r"tombée?s?))\b",
    re.IGNORECASE)


def withdraws_rule(text: str) -> bool:
    """Words that withdraw or replace a standing rule: they stand while it would."""
    return _WITHDRAWS.search(text) is not None


def withdrawal_subject(text: str) -> tuple[str, str] | None:
    """What words that withdraw a rule say it is about: the withdrawing words and what
    follows them to the next mark ("Forget the rule about new dependencies"), and the
    clause before them ("About the linter before each commit: forget that rule"); or None
    when they withdraw nothing."""
    found = _WITHDRAWS.search(text)
    if found is None:
        return None
    # A mark ends the clause where a space follows it: `go.mod` and `3.11` go on.
    end = _CLAUSE_END.search(text, found.end())
    start = max(text.rfind(mark, 0, found.start()) for mark in ".!?\n") + 1
    return text[found.start():end.start() if end else len(text)], text[start:found.start()]


_CLAUSE_END = Pattern(r"[,.:;!?](?=\s|$)|—|\n")
