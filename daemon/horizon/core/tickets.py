"""Tickets in words, in English and in French (pure): which a text names, and whether it
opens (assigns, starts, resumes, parks), closes, or only mentions each (ADR 0008).

A ticket's state is read in its sentence, from the status word nearest it (in its own
clause first: "Done with WX-12, moving to WX-13" closes one and starts the other). A
closing that is negated, conditional, hedged or partial closes nothing ("not fixed yet",
"once merged", "looks fixed but", "done except the docs"). Only words that start work
open a ticket, or an operator's words that name it: a reference ("see issue #88", "the
approach from WX-12") only mentions it.
"""

from __future__ import annotations

import re

from horizon.core.patterns import Pattern
from horizon.core.statements import WORD, fold_case, sentence_spans, unquoted

TICKETS_PER_TEXT = 8
MENTIONS, OPENS, CLOSES = 0, 1, 2

# `ABC-12` (capitals: `pytest-8` is a version), `ticket 42`, `issue #7`, `PR #9`, `#5845`.
_TICKET = Pattern(
    r"(?<![\w-])([A-Z][A-Z0-9]{1,9}-\d{1,6})(?![\w-])"
    r"|\b(?i:ticket|issue|bug|task|tâche|pr|pull request|story|incident)\s+"
    r"(?:#(\d{1,6})|(\d{2,6}))\b"
    r"|(?<![\w#&/])#(\d{2,5})\b")
# Names shaped like tickets that are standards, algorithms, platforms, models.
_NOT_TICKETS = frozenset([
    "UTF", "ISO", "SHA", "ARM", "X86", "GPT", "RFC", "PY", "NODE", "CVE", "PEP", "AES",
    "RSA", "TLS", "SSL", "HTTP", "HTTPS", "IPV", "ES", "ECMA", "MD", "CP", "WIN", "MAC",
    "IE", "EN", "FR", "DE", "US", "EU", "UTC", "GMT", "COVID", "H", "A", "B", "C", "V",
    "X", "Y", "Z", "K8S", "I18N", "L10N", "TCP", "UDP", "IP", "DNS", "API", "RGB",
    "HSL", "IEEE", "ASCII", "LATIN", "CWE", "GHSA", "OWASP", "CSS", "HTML", "JS", "TS",
    "ISO8859", "BASE",
])
_CAPS_DASH_DIGIT = Pattern(r"[A-Z0-9]-\d")
# A beads id (`spotter-4te`, `spotter-4te.1`): a lower-case prefix and a short hash of
# letters and digits, both (`pytest-8`, `utf-8`, `node-v18` are versions).
_BEAD = Pattern(
    r"(?<![\w./-])([a-z][a-z0-9]{1,24}-(?!v\d+(?![a-z]))(?=[a-z]{0,7}\d)(?=\d{0,7}[a-z])"
    r"[a-z0-9]{3,8}(?:\.\d{1,3}){0,3})(?![\w/-]|\.[a-z])")
# "moved from Done to In Progress": the state it left says nothing of the ticket now.
_FROM_STATE = Pattern(r"\bfrom\s+(?:[\w'-]+\s+){0,2}?(?=to\s)"
                      r"|\bde\s+(?:[\w'-]+\s+){0,2}?(?=(?:à|a|en|vers)\s)", re.IGNORECASE)
_TICKET_WORDS = ("ticket", "issue", "bug", "task", "tâche", "pr ", "pull request", "story",
                 "incident")
_CLAUSE = Pattern(r",|\s[—–]\s|\(|\)")

_CLOSING = Pattern(
    r"^(?:closed|closes|closing|close|fixed|fixes|resolved|resolves|done|merged|merges|"
    r"wraps|wrapped|shipped|completed|complete|finished|landed|released|deployed|"
    r"delivered|solved|ferm[ée]e?s?|fermons|clos|clôturée?s?|clôt|clôture|résolue?s?|"
    r"terminée?s?|corrigée?s?|livrée?s?|finie?s?|fusionnée?s?|réglée?s?|déployée?s?|"
    r"bouclée?s?|soldée?s?|mergée?s?)$", re.IGNORECASE)
_CHECKED = Pattern(r"[✅✔☑]")
_CLOSED_PHRASE = Pattern(
    r"\bwon't\s+fix\b|\bwontfix\b|\bnot\s+planned\b|\b(?:is|now|went|est)\s+live\b|"
    r"\b(?:in|to|into|en)\s+prod(?:uction)?\b|\ball\s+set\b|\bc'est\s+(?:fait|bon|réglé)\b|"
    r"\b(?:ticket|issue|bug)\s+(?:is\s+|est\s+)?(?:closed|done|resolved|fixed|fermé|clos)\b",
    re.IGNORECASE)
_ELISION = Pattern(r"^(?:l|d|j|qu|s|c|m|t)'")
_NOW_ON = Pattern(r"\b(?:now|next)\s+(?:on|onto)\b|\bi'm\s+on\b|\bje\s+suis\s+sur\b",
                     re.IGNORECASE)
# Words that start or carry on the work on a ticket (parking it keeps it in flight).
_STARTING = Pattern(
    r"^(?:open|opened|opening|reopen|reopened|reopening|start|starting|started|begin|"
    r"beginning|began|resume|resuming|resumed|working|work|picking|pick|picked|take|"
    r"taking|took|tackle|tackling|investigate|investigating|digging|dig|looking|back|"
    r"again|continue|continuing|assigned|assign|new|parked|parking|park|pause|paused|"
    r"hold|wait|waits|waiting|blocked|switch|switching|switched|moving|next|"
    r"implement|handle|handling|debug|debugging|rouvert|rouverte|rouvre|commence|"
    r"commencé|commençons|reprends|reprise|repris|attaque|ouvert|ouverte|nouveau|"
    r"nouvelle|pause|suspendu|suspends|attente|bloqué|bloquée|prends|occupe|regarde|"
    r"passe|remets|cours|corrige|corriger|progress|démarre|démarrer|démarré|débloqué|"
    r"débloquée|unblocked|sors|pull|pulling|prendre|reprendre|attaquer|commencer|"
    r"regarder|occuper|still|toujours|review|reviewing|revue|attends|attendre|reverted|"
    r"failing|échec|progress|wip|filed|created|logged|raised|créé|créée|créés|ouvre)$",
    re.IGNORECASE)
# What an operator says of a ticket that is not a request to work on it.
_HANDS_OFF = Pattern(
    r"\b(?:don't|do\s+not|never|ignore|skip|out\s+of\s+scope|not\s+ours|not\s+us|"
    r"owned\s+by|fyi|leave|drop|"
    r"ne\s+touche|pas\s+touche|laisse|ignore|hors\s+(?:périmètre|sujet)|oublie)\b",
    re.IGNORECASE)
_REFERENCE = Pattern(
    r"\b(?:see|like|similar\s+to|as\s+in|reuse|from|per|cf|voir|comme|depuis)\b\W*$",
    re.IGNORECASE)
_ASKS = Pattern(r"\b(?:can|could|would|will)\s+you\b|\btu\s+(?:peux|pourrais)\b|"
                   r"\b(?:peux|pourrais|pouvez|pourriez)-(?:tu|vous)\b", re.IGNORECASE)
_NEGATIONS = frozenset([
    "not", "never", "no", "nor", "without", "pas", "jamais", "non", "ni", "sans",
    "aucun",
])
# Right before a closing word: a future, a condition, a degree, a hedge.
_NOT_YET = frozenset([
    "yet", "almost", "nearly", "partially", "partly", "half", "mostly", "will", "shall",
    "should", "would", "could", "can", "must", "might", "may", "need", "needs", "to",
    "be", "going", "gonna", "soon", "about", "ready", "plan", "hope", "expect", "want",
    "try", "trying", "looks", "look", "seems", "seem", "appears", "appear", "probably",
    "maybe", "apparently", "hopefully", "sera", "seront", "serait", "va", "vais",
    "doit", "devra", "devrait", "pourra", "faut", "à", "prêt", "prête", "pour",
    "encore", "pending", "awaiting", "waiting", "semble", "sembler", "paraît",
    "presque", "peut-être",
])
# Anywhere before it in its clause: a condition.
_CONDITIONS = frozenset([
    "once", "when", "if", "until", "unless", "after", "before", "whenever", "quand",
    "lorsque", "dès", "si", "avant", "après", "tant",
])
_NOT_YET_AFTER = frozenset([
    "yet", "not", "soon", "later", "pas", "encore", "bientôt", "tomorrow", "demain",
    "partially", "partiellement", "except", "but", "mais", "sauf", "apart", "besides",
    "hormis", "minus", "save",
])
_SET_TO = frozenset([
    "moved", "set", "marked", "changed", "transitioned", "put", "updated", "passé",
    "mis",
])


def _may_name_tickets(text: str) -> bool:
    if "#" in text:
        return True
    folded = text.lower()
    if any(word in folded for word in _TICKET_WORDS):
        return True
    return "-" in text and (_CAPS_DASH_DIGIT.search(text) is not None
                            or _BEAD.search(text) is not None)


def _named(text: str) -> list[tuple[int, int, str]]:
    """Each ticket a text names, with where: (start, end, name)."""
    found = []
    for match in _TICKET.finditer(text):
        if match.group(1):
            prefix = match.group(1).split("-", 1)[0]
            if prefix in _NOT_TICKETS:
                continue
            name = match.group(1)
        else:
            name = f"#{match.group(2) or match.group(3) or match.group(4)}"
        found.append((match.start(), match.end(), name))
    if "-" in text:
        found += [(match.start(), match.end(), match.group(1)) for match in _BEAD.finditer(text)]
        found.sort()
    return found


def ticket_names(text: str) -> list[str]:
    """Ticket or issue names in a text (`ABC-12`, `#42` for `ticket 42`), first seen first;
    one named inside quotation marks is an example, not a ticket."""
    if not _may_name_tickets(text):
        return []
    return list(dict.fromkeys(name for _, _, name in _named(unquoted(text))))


def ticket_states(text: str, assigning: bool = False) -> list[tuple[str, int, str]]:
    """Each ticket a text names, whether it opens, closes or only mentions it, and the
    sentence that says so; the last statement of a ticket wins. `assigning`: the text
    gives work (an operator's request, a task), so naming a ticket opens it."""
    if not _may_name_tickets(text):
        return []
    states: dict[str, tuple[int, str]] = {}
    blanked = unquoted(text)
    for begin, stop in sentence_spans(blanked):
        sentence, shown = blanked[begin:stop], text[begin:stop]
        named = _named(sentence)
        if not named:
            continue
        # Asking about a ticket only mentions it, unless it asks for work on it.
        asked = sentence.rstrip().endswith("?") and not (assigning and _ASKS.search(sentence))
        words = [(match.start(), fold_case(match.group(0)))
                 for match in WORD.finditer(sentence)]
        statuses = [] if asked else _statuses(sentence, words)
        for start, end, name in named:
            state = MENTIONS
            if not asked:
                state = _state_at(sentence, start, end, statuses, len(named) == 1)
                if state == MENTIONS and assigning and not _HANDS_OFF.search(sentence) \
                        and not _REFERENCE.search(sentence[:start]):
                    state = OPENS
            states.pop(name, None)
            states[name] = (state, _from_clause(shown, start))
            if len(states) > TICKETS_PER_TEXT:
                del states[next(iter(states))]
    return [(name, state, sentence) for name, (state, sentence) in states.items()]


def _from_clause(sentence: str, start: int) -> str:
    """A sentence from the clause that names a ticket on: "Done with WX-12, moving to
    WX-13" says of WX-13 "moving to WX-13"."""
    cut_at = max((match.end() for match in re.finditer(r",\s*", sentence)
                  if match.end() <= start), default=0)
    return sentence[cut_at:].strip() or sentence


def _statuses(sentence: str, words: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """Where each status word of a sentence is, and what it says: CLOSES for a closing
    word that stands (not negated, conditional, hedged or partial), OPENS for a word that
    starts work, MENTIONS for a closing word that does not stand."""
    found = [(match.start(), CLOSES) for match in _CHECKED.finditer(sentence)]
    found += [(match.start(), OPENS) for match in _NOW_ON.finditer(sentence)]
    phrased = [(match.start(), match.end()) for match in _CLOSED_PHRASE.finditer(sentence)]
    left = [(match.start(), match.end()) for match in _FROM_STATE.finditer(sentence)]
    found += [(start, CLOSES) for start, _ in phrased]
    clauses = [match.start() for match in _CLAUSE.finditer(sentence)]
    for index, (start, said) in enumerate(words):
        word = _ELISION.sub("", said)  # "j'attaque", "l'ai fermé"
        if any(low <= start < high for low, high in phrased):
            continue  # "won't fix": the phrase says it
        if any(low <= start < high for low, high in left):
            continue  # "from Done to In Progress": where it was
        if _CLOSING.match(word):
            clause_start = max((at for at in clauses if at < start), default=-1)
            before = [w for at, w in words[max(0, index - 6):index] if at > clause_start]
            after = [w for _, w in words[index + 1:index + 5]]
            # A closing that has not happened says the ticket is still in flight.
            found.append((start, OPENS if _not_yet(before, after) else CLOSES))
        elif _STARTING.match(word):
            found.append((start, OPENS))
    return found


def _not_yet(before: list[str], after: list[str]) -> bool:
    """Whether the words around a closing word say it has not happened."""
    if any(word in _CONDITIONS for word in before):
        return True
    set_to = len(before) >= 2 and before[-1] == "to" and any(
        word in _SET_TO for word in before[:-1])  # "moved WX-12 (from X) to done"
    for distance, word in enumerate(reversed(before[-4:]), 1):
        if (word in _NEGATIONS or word.endswith("n't") or word == "ne"
                or word.startswith("n'")):
            return not (word == "won't" and "fix" in after[:1])  # "won't fix": closed
        if distance <= 2 and not set_to and (word in _NOT_YET or word.endswith("'ll")):
            return True
    return any(word in _NOT_YET_AFTER for word in after[:4])


def _state_at(sentence: str, start: int, end: int, statuses: list[tuple[int, int]],
              alone: bool) -> int:
    """A ticket's state where it is named: the nearest status word in its own clause (a
    comma, a dash or brackets part clauses). Failing one there, in the next clause when
    that one goes on naming tickets ("WX-1, WX-2 and WX-3 are done"), or anywhere in the
    sentence when it names no other ticket ("The fix for WX-1 is in, ticket closed")."""
    if not statuses:
        return MENTIONS
    bounds = [0, *(match.end() for match in _CLAUSE.finditer(sentence)), len(sentence) + 1]
    low = max(bound for bound in bounds if bound <= start)
    high = min((bound for bound in bounds if bound > start), default=len(sentence) + 1)
    near = [status for status in statuses if low <= status[0] < high]
    if not near:
        following = _named(sentence[high:high + 40])
        if following and not sentence[high:high + following[0][0]].strip(" ,;:&"):
            after = min((bound for bound in bounds if bound > high),
                        default=len(sentence) + 1)
            near = [status for status in statuses if high <= status[0] < after]
    if not near and alone:
        near = statuses
    if not near:
        return MENTIONS

    def distance(status: tuple[int, int]) -> int:
        at = status[0]
        return start - at if at < start else max(0, at - end)

    return min(near, key=distance)[1]
