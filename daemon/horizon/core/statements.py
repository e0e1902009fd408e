"""What words state, in English and in French (pure): sentences, what the text says itself,
and the next step (ADR 0008). The operator's requests and rules are
core/operator_words.py's, tickets core/tickets.py's, decisions core/decisions.py's.

The readers look at prose: a fenced code block and a quoted line say what code or someone
else said. They are heuristics and say so; the operator's own words are never lost to
them (Paroles quotes them whole).
"""

from __future__ import annotations

import re

from horizon.core.patterns import Pattern
from horizon.core.text import flatten

STATEMENT_CHARS = 240  # of a sentence, what a record keeps

WORD = Pattern(r"[\w'’-]+|[?]", re.UNICODE)
_SENTENCE_END = Pattern(r"(?<=[.!?;])\s+|\n+|(?<=[.!?])$")
_FENCE = Pattern(r"```.*?(?:```|\Z)", re.DOTALL)
_QUOTE_LINE = Pattern(r"^\s*>.*$", re.MULTILINE)
_QUOTED = Pattern(r'"[^"\n]{0,200}"|“[^”\n]{0,200}”|«[^»\n]{0,200}»|`[^`\n]{0,200}`')


def fold_case(text: str) -> str:
    return text.casefold().replace("’", "'")


def prose(text: str) -> str:
    """A text without its fenced code blocks and quoted lines: what it says itself."""
    if "```" in text:
        text = _FENCE.sub("\n", text)
    if ">" in text:
        text = _QUOTE_LINE.sub("", text)
    return text


def unquoted(text: str) -> str:
    """A text with what it quotes blanked (`like "WX-12: handle empty frames"` is an
    example, not what the text says), every character kept in its place."""
    if '"' not in text and "“" not in text and "«" not in text and "`" not in text:
        return text
    return _QUOTED.sub(lambda match: " " * len(match.group(0)), text)


def sentences(text: str) -> list[str]:
    """The sentences of a text, in order (a `.` inside a path or a number splits none)."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of a text starts and ends (`sentences`' cuts)."""
    spans, begin = [], 0
    for match in _SENTENCE_END.finditer(text):
        if text[begin:match.start()].strip():
            spans.append((begin, match.start()))
        begin = match.end()
    if text[begin:].strip():
        spans.append((begin, len(text)))
    return spans


# -- the next step ------------------------------------------------------------------------

_STEP_CUES = ("next", "now", "then", "plan", "going to", "let me", "let's", "todo", "to do",
              "moving", "after that", "afterwards", "remaining", "left", "i'll", "i will",
              "intend", "want to", "need to", "should", "still", "step", "prochaine",
              "ensuite", "maintenant", "puis", "vais", "reste", "étape", "passe", "attaque",
              "à présent", "suite", "compte", "occupe", "dois", "faire", "tâche", "lance",
              "about to", "gonna", "i'm ", "[ ]")
# A marker ("Next step:", "Plan:") states a step whatever follows it.
_MARKER = (
    r"(?:the\s+|my\s+)?next\s+steps?\s*(?:is|are|will\s+be)?\s*[:\-–—]\s*"
    r"|next\s*[:\-–—,]\s*|(?:the\s+|my\s+|here's\s+(?:my|the)\s+)?plan\s*(?:is|now|for\s+now)?"
    r"\s*[:\-–—]\s*|(?:to\s*do|todo)(?:\s+next|\s+now)?\s*[:\-–—]\s*"
    r"|up\s+next\s*[:\-–—]?\s*|next\s+up\s*[:\-–—]?\s*"
    r"|(?:what's|what\s+is)\s+(?:next|left)\s*[:\-–—]\s*"
    r"|what\s+i(?:'ll|\s+will)\s+do\s+(?:now|next)\s*[:\-–—]\s*"
    r"|remaining(?:\s+work)?\s*[:\-–—]\s*"
    r"|(?:the\s+)?(?:next|last|remaining)\s+(?:thing|step|task)s?(?:\s+to\s+do|\s+left)?\s+"
    r"(?:is|are)(?:\s+to)?\s+"
    r"|my\s+next\s+(?:move|task)\s+is(?:\s+to)?\s+|next\s+on\s+my\s+list\s+is\s+"
    r"|step\s+\d+\s+is(?:\s+to)?\s+"
    r"|prochaines?\s+étapes?\s*[:\-–—]\s*|étapes?\s+suivantes?\s*[:\-–—]\s*"
    r"|dernière\s+étape\s*[:\-–—]\s*|ma\s+prochaine\s+tâche\s*[:\-–—]\s*"
    r"|(?:à|a)\s+faire\s+(?:ensuite|maintenant)\s*[:\-–—]\s*|reste\s+à\s+faire\s*[:\-–—]\s*"
    r"|la\s+suite(?:\s+pour\s+moi)?\s*[:\-–—]\s*|(?:mon\s+)?plan\s*[:\-–—]\s*"
    r"|(?:à|a)\s+faire\s*[:\-–—]\s*")
# The bee saying what it does next ("Now let me", "I'll", "je vais"): a step unless what
# follows is talk, not work ("Let me know", "I'll be honest").
_INTENT = (
    r"(?:now|next|then|after\s+that|afterwards|so)\s*,?\s+(?:let\s+me|let's|i(?:'ll|\s+will)|"
    r"i'm\s+going\s+to|i\s+am\s+going\s+to|we(?:'ll|\s+will)|i\s+need\s+to|i\s+should|"
    r"i\s+can)\s+"
    r"|let\s+me\s+(?:now\s+|next\s+)?|let's\s+(?:now\s+)?"
    r"|i(?:'ll|\s+will)\s+(?:now\s+|next\s+|then\s+|also\s+)?"
    r"|(?:i(?:'m|\s+am)\s+)?(?:now\s+)?going\s+to\s+"
    r"|i\s+(?:still\s+)?(?:plan|intend|want|need|have)\s+to\s+|i'd\s+like\s+to\s+"
    r"|i\s+should\s+(?:also\s+)?|now\s+running\s+|moving\s+on\s+to\s+"
    r"|i(?:'m|\s+am)\s+about\s+to\s+|(?:i'm\s+)?gonna\s+|what's\s+left\s+is(?:\s+to)?\s+"
    r"|i(?:'m|\s+am)\s+(?=[^.]*\bnow\b)|(?:je|on)\s+(?=[^.]*\bmaintenant\b)"
    r"|(?:ensuite|maintenant|à\s+présent|puis|après\s+ça|après\s+cela)\s*,?\s+"
    r"(?=(?:je|j'|on|nous)\b)"
    r"|je\s+vais\s+(?:maintenant\s+|ensuite\s+|désormais\s+|à\s+présent\s+)?"
    r"|on\s+va\s+(?:maintenant\s+|ensuite\s+)?|je\s+lance\s+(?:maintenant|ensuite)\s+"
    r"|je\s+(?:compte|dois|veux|prévois\s+de|m'apprête\s+à)\s+"
    r"|il\s+(?:me\s+)?reste\s+à\s+|(?:je|on)\s+passe\s+(?:maintenant\s+)?(?:à|au|aux)\s+"
    r"|je\s+m'(?:attaque|occupe|occuperai)\s+(?:maintenant\s+)?(?:à|au|aux|de|du|des|d')\s*")
_STEP = Pattern(r"(?:^|(?<=[\s(\-–—*_>:;,]))(?:(?P<marker>" + _MARKER + r")|(?P<intent>"
                   + _INTENT + r"))(?P<step>[^\n]*)", re.IGNORECASE)
_TALK = Pattern(
    r"^(?:know|explain|summari[sz]e|recap|clarify|be\b|note|mention|point|say|admit|leave|"
    r"wait|show\s+you|walk\s+you|tell|describe|repeat|stress|emphasi[sz]e|confirm\s+that|"
    r"être|dire|attendre|avouer|préciser|noter|expliquer|résumer|rappeler|souligner|"
    r"signaler|t'expliquer)", re.IGNORECASE)
# An offer or an abandoned plan states no step.
_NOT_A_PLAN = Pattern(
    r"\b(?:if\s+you\s+(?:want|'d\s+like|like|prefer|need)|if\s+needed|was\s+going\s+to|"
    r"were\s+going\s+to|si\s+(?:tu\s+veux|vous\s+voulez|besoin)|j'allais)\b",
    re.IGNORECASE)
_HEADING = Pattern(
    r"^\W*(?:(?:the\s+|my\s+)?next\s+steps?|(?:here's\s+)?(?:my\s+|the\s+)?plan|"
    r"remaining(?:\s+work)?|what's\s+left|to\s*do|todo|prochaines?\s+étapes?|"
    r"étapes?\s+suivantes?|reste\s+à\s+faire|à\s+faire|la\s+suite)\W*$", re.IGNORECASE)
_LIST_ITEM = Pattern(r"^\s*(?:[-*+•]|\d+[.)])?\s*(?:\[[ x]\])?\s*")
_UNCHECKED = Pattern(r"^\s*(?:[-*+]\s*)?\[ \]\s+(.+)")
_STEP_END = Pattern(r"(?<=[.!?])\s|\s[—–]\s|$")
_LEAD = Pattern(r"^(?:i(?:'ll|\s+will)|let\s+me|we(?:'ll|\s+will))\s+", re.IGNORECASE)


def stated_step(text: str) -> str | None:
    """The last next step a text states, in any common phrasing, or None."""
    text = prose(text)
    folded = fold_case(text)
    if not any(cue in folded for cue in _STEP_CUES):
        return None
    step = None
    lines = text.split("\n")
    for index, line in enumerate(lines):
        unchecked = _UNCHECKED.match(line)
        if unchecked and not (index and _UNCHECKED.match(lines[index - 1])):
            step = _clause(unchecked.group(1)) or step  # a checklist's first open item
            continue
        if _HEADING.match(line):  # "**Next steps:**" then a list: its first item
            follow = next((later for later in lines[index + 1:] if later.strip()), "")
            item = _clause(_LIST_ITEM.sub("", follow.strip()))
            step = item if item and not _PLACEHOLDER.match(item) else step
            continue
        for sentence in sentences(line):
            found = _step_of(sentence)
            if found:
                step = found
    return step


_PLACEHOLDER = Pattern(
    r"^(?:tbd|tba|tbc|none|nothing|n/a|na|—|-|\?+|rien|aucune?|pas\s+encore|à\s+définir|"
    r"à\s+voir|to\s+be\s+(?:decided|defined|determined))\b", re.IGNORECASE)


def _step_of(sentence: str) -> str | None:
    if sentence.endswith("?") or _NOT_A_PLAN.search(sentence):
        return None
    found = None
    for match in _STEP.finditer(sentence):
        said = match.group("step").strip()
        if match.group("intent") is not None and _TALK.match(said):
            continue
        clause = _clause(said)
        if clause and any(char.isalnum() for char in clause) and not _PLACEHOLDER.match(clause):
            found = clause
    return found


def _clause(text: str) -> str:
    """A stated step up to the end of its sentence, without its lead (`I'll`) nor a
    trailing `now`."""
    text = _STEP_END.split(text.strip(), maxsplit=1)[0].strip()
    text = _LEAD.sub("", text.strip("*_` "))
    text = re.sub(r"\s+(?:now|next|maintenant|ensuite)[.!]*$", "", text, flags=re.I)
    return flatten(text.rstrip(".!:;,*_` "))[:STATEMENT_CHARS]
