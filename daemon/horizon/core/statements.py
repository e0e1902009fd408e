"""What words state, in English and in French (pure): a ticket opened or closed, the next
step, a decision, an operator's request or standing rule (ADR 0008).

Each reader looks at sentences, the unit people state things in: "WX-230 is merged, now
on WX-231" closes one ticket and works on the other, and "WX-230 is not fixed yet" closes
nothing. They are heuristics and say so; the operator's own words are never lost to them
(Paroles quotes them whole).
"""

from __future__ import annotations

import re
import unicodedata

from horizon.core.text import flatten

STATEMENT_CHARS = 240  # of a sentence, what a record keeps
TICKETS_PER_TEXT = 4

MENTIONS, OPENS, CLOSES = 0, 1, 2

# `ABC-12` (capitals: `pytest-8` is a version), `ticket 42`, `issue #7`, `PR #9`, `#5845`.
_TICKET = re.compile(
    r"\b([A-Z][A-Z0-9]{1,9}-\d{1,6})\b"
    r"|\b(?i:ticket|issue|bug|task|tâche|pr|pull request|story|incident)\s+#?(\d{1,6})\b"
    r"|(?<![\w#&/])#(\d{2,6})\b")
_CAPS_DASH_DIGIT = re.compile(r"[A-Z0-9]-\d")
_TICKET_WORDS = ("ticket", "issue", "bug", "task", "tâche", "pr ", "pull request", "story",
                 "incident")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|(?<=[.!?])$")
_WORD = re.compile(r"[\w'’-]+|[?]", re.UNICODE)

# What closes a ticket, and what only names it at work (every other mention opens it).
_CLOSING = re.compile(
    r"^(?:closed|closes|closing|close|fixed|fixes|resolved|resolves|done|merged|merges|"
    r"wraps|wrapped|clôturée?s?|clôt|clôture|terminé|bouclé|"
    r"shipped|completed|complete|finished|landed|released|deployed|delivered|solved|"
    r"wrapped|ferm[ée]e?s?|fermons|clos|close|closes|résolue?s?|terminée?s?|corrigée?s?|"
    r"livrée?s?|finie?s?|fusionnée?s?|réglée?s?|déployée?s?|bouclée?s?|soldée?s?|"
    r"mergée?s?)$", re.IGNORECASE)
_OPENING = re.compile(
    r"^(?:open|opened|reopen|reopened|reopening|start|starting|started|resume|resuming|"
    r"resumed|working|work|picking|pick|take|taking|back|continue|continuing|assigned|"
    r"new|parked|parking|pause|paused|hold|rouvert|rouverte|rouvre|commence|commencé|"
    r"reprends|reprise|repris|attaque|ouvert|ouverte|nouveau|nouvelle|pause|suspendu|"
    r"progress|cours|still|toujours|encore|now|next|moving|switching|maintenant|ensuite|"
    r"passe|passons)$", re.IGNORECASE)
# Before a closing word, what says it has not happened: a negation a few words before
# ("is not fixed", "n'est pas encore corrigé"), or right before it a future, a condition
# or a degree ("will be merged", "once merged", "almost done").
_NEGATIONS = frozenset([
    "not", "never", "no", "nor", "without", "pas", "jamais", "non", "ni", "sans",
    "aucun",
])
_NOT_YET = frozenset([
    "yet", "almost", "nearly", "partially", "partly", "half", "mostly", "will", "shall",
    "should", "would", "could", "can", "must", "might", "may", "need", "needs", "to",
    "be", "going", "gonna", "once", "when", "if", "unless", "until", "before", "soon",
    "about", "ready", "plan", "hope", "expect", "want", "try", "trying", "sera",
    "seront", "serait", "va", "vais", "doit", "devra", "devrait", "pourra", "faut", "à",
    "avant", "quand", "lorsque", "dès", "si", "fois", "prêt", "prête", "pour", "encore",
    "pending", "awaiting", "waiting",
])
_NOT_YET_AFTER = frozenset({"yet", "not", "soon", "later", "pas", "encore", "bientôt",
                            "tomorrow", "demain", "partially", "partiellement"})


def fold_case(text: str) -> str:
    return text.casefold().replace("’", "'")


def sentences(text: str) -> list[str]:
    """The sentences of a text, in order (a `.` inside a path or a number splits none)."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def _may_name_tickets(text: str) -> bool:
    if "#" in text:
        return True
    folded = text.lower()
    if any(word in folded for word in _TICKET_WORDS):
        return True
    return "-" in text and _CAPS_DASH_DIGIT.search(text) is not None


_QUOTED = re.compile(r'"[^"\n]{0,200}"|“[^”\n]{0,200}”|«[^»\n]{0,200}»|`[^`\n]{0,200}`')


def _unquoted(text: str) -> str:
    """A text without what it quotes: `like "WX-12: handle empty frames"` is an example."""
    if '"' not in text and "“" not in text and "«" not in text and "`" not in text:
        return text
    return _QUOTED.sub(" ", text)


def ticket_names(text: str) -> list[str]:
    """Ticket or issue names in a text (`ABC-12`, `#42` for `ticket 42`), first seen first;
    one named inside quotation marks is an example, not a ticket."""
    if not _may_name_tickets(text):
        return []
    text = _unquoted(text)
    found: dict[str, None] = {}
    for match in _TICKET.finditer(text):
        found.setdefault(match.group(1) or f"#{match.group(2) or match.group(3)}", None)
    return list(found)


def ticket_states(text: str) -> list[tuple[str, int, str]]:
    """Each ticket a text names, whether it opens (or works on) it, closes it or only asks
    about it, and the sentence that says so; the last statement of a ticket wins."""
    if not _may_name_tickets(text):
        return []
    states: dict[str, tuple[int, str]] = {}
    for sentence in sentences(_unquoted(text)):
        spans = [(match.start(), match.group(1) or f"#{match.group(2) or match.group(3)}")
                 for match in _TICKET.finditer(sentence)]
        if not spans:
            continue
        asked = sentence.rstrip().endswith("?")
        closes = [] if asked else _closing_positions(sentence)
        for start, name in spans:
            states.pop(name, None)
            states[name] = (MENTIONS if asked else _state_at(sentence, start, closes),
                            sentence)
            if len(states) > TICKETS_PER_TEXT:
                del states[next(iter(states))]
    return [(name, state, sentence) for name, (state, sentence) in states.items()]


def _closing_positions(sentence: str) -> list[tuple[int, bool]]:
    """Where each status word of a sentence is, and whether it closes: a closing word
    not negated, not in the future."""
    words = [(match.start(), fold_case(match.group(0))) for match in _WORD.finditer(sentence)]
    found = []
    for index, (start, word) in enumerate(words):
        if _CLOSING.match(word):
            found.append((start, not _not_yet([w for _, w in words[max(0, index - 4):index]],
                                               [w for _, w in words[index + 1:index + 3]])))
        elif _OPENING.match(word):
            found.append((start, False))
    return found


def _not_yet(before: list[str], after: list[str]) -> bool:
    """Whether the words around a closing word say it has not happened."""
    for distance, word in enumerate(reversed(before), 1):
        if (word in _NEGATIONS or word.endswith("n't") or word == "ne"
                or word.startswith("n'")):
            return True
        if distance <= 2 and (word in _NOT_YET or word.endswith("'ll")):
            return True
    return any(word in _NOT_YET_AFTER for word in after)


def _state_at(sentence: str, position: int, statuses: list[tuple[int, bool]]) -> int:
    """A ticket's state where it is named: the nearest status word decides."""
    if not statuses:
        return OPENS
    _, closes = min(statuses, key=lambda status: abs(status[0] - position))
    return CLOSES if closes else OPENS


# -- the next step ----------------------------------------------------------------------------

_STEP_CUES = ("next", "now", "then", "plan", "going to", "let me", "let's", "todo", "to do",
              "moving", "after that", "afterwards", "remaining", "i'll", "i will", "intend",
              "want to", "need to", "prochaine", "ensuite", "maintenant", "puis", "vais",
              "reste", "étape", "passe", "attaque", "à présent", "suite", "compte", "occupe",
              "dois", "faire")
# A stated step: a marker ("Next step:", "Plan:") or the bee saying what it does next
# ("Now let me", "I'll", "I'm going to ... now", "je vais", "ensuite je"); the step is
# the rest of the sentence.
_STEP = re.compile(
    r"(?:^|(?<=[\s(\-–—*_>:;,]))(?:"
    r"(?:the\s+|my\s+)?next\s+steps?\s*(?:is|are|will\s+be)?\s*[:\-–—]\s*"
    r"|next\s*[:\-–—]\s*"
    r"|(?:the\s+|my\s+)?plan\s*(?:is|now|for\s+now)?\s*[:\-–—]\s*"
    r"|(?:to\s*do|todo)(?:\s+next|\s+now)?\s*[:\-–—]\s*"
    r"|up\s+next\s*[:\-–—]?\s*|next\s+up\s*[:\-–—]?\s*"
    r"|(?:what's|what\s+is)\s+next\s*[:\-–—]\s*"
    r"|what\s+i(?:'ll|\s+will)\s+do\s+(?:now|next)\s*[:\-–—]\s*"
    r"|remaining\s*[:\-–—]\s*"
    r"|(?:the\s+)?next\s+thing(?:\s+to\s+do)?\s+is(?:\s+to)?\s+"
    r"|my\s+next\s+move\s+is(?:\s+to)?\s+"
    r"|(?:now|next|then|after\s+that|afterwards|so)\s*,?\s+(?:let\s+me|let's|i(?:'ll|\s+will)|"
    r"i'm\s+going\s+to|i\s+am\s+going\s+to|we(?:'ll|\s+will)|i\s+need\s+to|i\s+should|"
    r"i\s+can)\s+"
    r"|let\s+me\s+(?:now\s+|next\s+)?|let's\s+(?:now\s+)?"
    r"|i(?:'ll|\s+will)\s+(?:now\s+|next\s+|then\s+)?"
    r"|(?:i(?:'m|\s+am)\s+)?(?:now\s+)?going\s+to\s+"
    r"|i\s+(?:plan|intend|want|need|have)\s+to\s+|i'd\s+like\s+to\s+"
    r"|moving\s+on\s+to\s+"
    r"|prochaines?\s+étapes?\s*[:\-–—]\s*|étape\s+suivante\s*[:\-–—]\s*"
    r"|(?:à|a)\s+faire\s+(?:ensuite|maintenant)\s*[:\-–—]\s*|reste\s+à\s+faire\s*[:\-–—]\s*"
    r"|la\s+suite(?:\s+pour\s+moi)?\s*[:\-–—]\s*|(?:mon\s+)?plan\s*[:\-–—]\s*"
    r"|(?:ensuite|maintenant|à\s+présent|puis|après\s+ça|après\s+cela)\s*,?\s+"
    r"(?=(?:je|j'|on|nous)\b)"
    r"|je\s+vais\s+(?:maintenant\s+|ensuite\s+|désormais\s+|à\s+présent\s+)?"
    r"|on\s+va\s+(?:maintenant\s+|ensuite\s+)?"
    r"|je\s+(?:compte|dois|veux|prévois\s+de|m'apprête\s+à)\s+"
    r"|il\s+(?:me\s+)?reste\s+à\s+|je\s+passe\s+(?:maintenant\s+)?à\s+"
    r"|je\s+m'(?:attaque|occupe)\s+(?:maintenant\s+)?(?:à|de|d')\s*"
    r")(?P<step>[^\n]+)", re.IGNORECASE)
_STEP_END = re.compile(r"(?<=[.!?])\s|\s[—–]\s|$")


def stated_step(text: str) -> str | None:
    """The last next step a text states, in any common phrasing, or None."""
    folded = fold_case(text)
    if not any(cue in folded for cue in _STEP_CUES):
        return None
    step = None
    for sentence in sentences(text):
        if sentence.endswith("?"):
            continue
        match = _STEP.search(sentence)
        if match is not None:
            found = _clause(match.group("step"))
            if found:
                step = found
    return step


def _clause(text: str) -> str:
    """A stated step up to the end of its sentence, without a trailing `now`."""
    text = _STEP_END.split(text.strip(), maxsplit=1)[0].strip()
    text = re.sub(r"\s+(?:now|next|maintenant|ensuite)[.!]*$", "", text, flags=re.I)
    return flatten(text.rstrip(".!:;,"))[:STATEMENT_CHARS]


# -- decisions --------------------------------------------------------------------------------

_DECISION = re.compile(
    r"\b(?:decision\b|decided\b|revers(?:e|es|ed|ing)\b|earlier\s+call\b|"
    r"wrong\s+(?:pick|choice|call)\b|\w+\s+it\s+is\s+(?:for|then)\b|"
    r"(?:we|i)(?:'ve|\s+have)?\s+(?:decided|chosen|"
    r"settled|opted|picked|gone\s+with|agreed)\b|(?:we|i)(?:'ll|\s+will|'re\s+going\s+to|"
    r"\s+are\s+going\s+to|'m\s+going\s+to)\s+(?:go\s+with|use|stick\s+with|keep|switch\s+to|"
    r"move\s+to|adopt|stay\s+with|standardi[sz]e\s+on|rely\s+on|store|run)\b|"
    r"let'?s\s+(?:go\s+with|use|stick\s+with|keep|switch\s+to|move\s+to|stay\s+with)\b|"
    r"going\s+(?:forward|ahead)\s+with\b|settled\s+on\b|opting\s+for\b|opted\s+for\b|"
    r"going\s+with\b|went\s+with\b|sticking\s+with\b|switching\s+to\b|switched\s+to\b|"
    r"(?:we|i)\s+(?:chose|picked|prefer)\b|change\s+of\s+plans?\b|scratch\s+that\b|"
    r"on\s+second\s+thoughts?\b|revert(?:ing|ed)?\s+to\b|instead\s+of\b|rather\s+than\b|"
    r"from\s+now\s+on\b|the\s+choice\s+is\b|choice\s*[:\-–—]|we\s+(?:now\s+)?use\b|"
    r"agreed\s*[:\-–—]|wins\b|it\s+is\s+then\b|final\s+call\b|after\s+comparing\b|"
    r"replac(?:e|es|ing)\s+\S+\s+with\b|moving\s+(?:\S+\s+)?(?:to|off)\b|"
    r"décision\b|remplace\b|abandon\s+d[eu']|ne\s+convient\s+(?:pas|plus)\b|"
    r"(?:j'ai|on\s+a|nous\s+avons)\s+(?:décidé|choisi|tranché|opté|retenu|"
    r"pris)\b|on\s+(?:part\s+sur|garde|reste\s+sur|utilise(?:ra)?|passe\s+(?:à|sur)|choisit|"
    r"retient|abandonne|bascule|prend)\b|nous\s+(?:utiliserons|partons\s+sur|garderons|"
    r"passons\s+à)\b|je\s+(?:choisis|retiens|pars\s+sur|garde|bascule|prends)\b|"
    r"finalement\b|changement\s+de\s+plan\b|au\s+lieu\s+d[eu']|plutôt\s+que\b|désormais\b|"
    r"à\s+partir\s+de\s+maintenant\b|c'est\s+(?:décidé|tranché)\b|tranché\b|va\s+pour\b|"
    r"l'emporte\b|ce\s+sera\b|(?:je\s+)?reviens\s+sur\b|revenir\s+sur\b|le\s+choix\b)",
    re.IGNORECASE)
_DECISION_CUES = ("decid", "decision", "revers", "earlier call", "wrong", "it is", "use",
                  "go with", "stick", "keep", "switch",
                  "settled", "opt", "chose", "choice", "pick", "prefer", "plan", "scratch",
                  "instead", "rather", "from now on", "agreed", "revert", "wins", "it is then",
                  "final call", "comparing", "replac", "moving", "store", "run", "went with",
                  "décid", "choisi", "choix", "part sur", "garde", "reste sur", "utilis",
                  "passe", "retien", "retenu", "abandonn", "bascul", "finalement", "au lieu",
                  "plutôt", "désormais", "tranch", "opté", "va pour", "partons", "emporte",
                  "ce sera", "reviens", "revenir", "prend", "pris", "remplace", "abandon",
                  "convient")
_DROPPED = re.compile(
    r"\b(?:instead\s+of|rather\s+than|no\s+longer|not|drop(?:ping)?|abandon\s+d[eu']|"
    r"abandon(?:ing)?|replac(?:e|es|ing)|away\s+from|off|au\s+lieu\s+d[eu']|plutôt\s+que|"
    r"abandonne|on\s+lâche|plus\s+de|remplace|à\s+la\s+place\s+de|"
    r"(?:reviens|revenir)\s+sur\s+(?:le\s+choix\s+d[eu']|l[ae']\s*))\s+"
    r"(?:the\s+|l[ae']\s*|les\s+)?"
    r"([\w.+#-]+(?:\s+[\w.+#-]+)?)", re.IGNORECASE)
DECISIONS_PER_TEXT = 2

_STOP = frozenset([
    "the", "a", "an", "and", "or", "for", "of", "to", "in", "on", "at", "by", "with",
    "from", "as", "is", "are", "be", "was", "were", "been", "we", "i", "it", "its",
    "this", "that", "these", "those", "our", "my", "will", "ll", "use", "used", "using",
    "uses", "go", "going", "keep", "stick", "switch", "switching", "switched", "move",
    "moving", "decided", "decision", "decide", "choose", "chose", "chosen", "choice",
    "instead", "rather", "than", "now", "all", "so", "then", "just", "only", "also",
    "not", "no", "yes", "ok", "okay", "let", "lets", "let's", "s", "re", "ve", "have",
    "has", "had", "do", "does", "did", "can", "should", "would", "could", "must",
    "there", "here", "which", "what", "when", "where", "who", "how", "why", "into",
    "over", "under", "up", "down", "out", "about", "after", "before", "because",
    "since", "until", "while", "both", "each", "every", "some", "any", "more", "most",
    "other", "such", "own", "same", "too", "very", "way", "plan", "change", "back",
    "new", "old", "settle", "settled", "opt", "opting", "opted", "adopt", "forward",
    "ahead", "thing", "things", "one", "two", "first", "still", "again", "well", "fine",
    "sure", "right", "done", "good", "better", "best", "make", "made", "need", "needs",
    "want", "time", "part", "stay", "going", "scratch", "second", "thought", "thoughts",
    "revert", "reverting", "agreed", "from", "standardize", "standardise", "rely", "le",
    "la", "les", "un", "une", "des", "du", "de", "d", "l", "et", "ou", "pour", "par",
    "avec", "sans", "en", "dans", "sur", "sous", "au", "aux", "à", "ce", "cet", "cette",
    "ces", "on", "nous", "je", "j", "il", "elle", "ils", "est", "sont", "être", "sera",
    "va", "vais", "utilise", "utiliser", "utilisera", "utilisons", "garde", "garder",
    "garderons", "part", "partir", "partons", "passe", "passer", "passons", "choisi",
    "choisit", "choisis", "décidé", "décision", "retient", "retiens", "retenu",
    "finalement", "plutôt", "que", "qu", "lieu", "plus", "désormais", "maintenant",
    "changement", "abandonne", "abandonner", "reste", "rester", "tout", "tous", "toute",
    "toutes", "bien", "aussi", "donc", "alors", "mais", "car", "ne", "pas", "a", "ai",
    "avons", "avez", "ont", "fait", "faire", "y", "se", "sa", "son", "ses", "leur",
    "leurs", "notre", "nos", "mon", "ma", "mes", "bascule", "basculer", "tranché",
    "opté", "c", "ça", "cela", "c'est", "pour", "va", "après", "apres", "comparaison",
    "choix", "reviens", "revenir", "emporte", "sera", "prend", "prends", "pris", "retenu",
    "wins", "picked", "pick", "prefer", "went", "gone", "final", "call", "comparing",
    "replace", "replaces", "replacing",
])


def decisions_stated(text: str) -> list[tuple[str, str]]:
    """The sentences of a text that state a decision as settled, each with what it is
    about: itself and the sentence before it ("On reflection Celery was the wrong pick
    for background jobs. Switching to Dramatiq.")."""
    folded = fold_case(text)
    if not any(cue in folded for cue in _DECISION_CUES):
        return []
    found = []
    said = sentences(text)
    for index, sentence in enumerate(said):
        if sentence.endswith("?") or _DECISION.search(sentence) is None:
            continue
        before = said[index - 1] if index else ""
        found.append((flatten(sentence)[:STATEMENT_CHARS],
                      flatten(f"{_before_reason(before)} {_before_reason(sentence)}")))
        if len(found) == DECISIONS_PER_TEXT:
            break
    return found


_CLITIC = re.compile(r"(?:'ll|'re|'ve|'s|'d|'m|n't)$")


def _stem(word: str) -> str:
    word = unicodedata.normalize("NFKD", word)
    word = "".join(char for char in word if not unicodedata.combining(char))
    return word[:5]


_ELISION = re.compile(r"^(?:l|d|j|qu|n|s|c|m|t)'")
_REASON = re.compile(r"\s*(?::|;|—|–|\bcar\b|\bbecause\b|\bsince\b|\bpuisque\b|"
                     r"\bparce\s+que\b|\bso\s+that\b|\bpour\s+que\b|,\s+so\b)\s*",
                     re.IGNORECASE)


def _before_reason(sentence: str) -> str:
    """A decision without its lead-in ("Decision:", "Change of plan:") and its reason."""
    lead, colon, rest = sentence.partition(":")
    if colon and len(lead.split()) <= 4:
        sentence = rest
    return _REASON.split(sentence.strip(), maxsplit=1)[0]


def subject_words(about: str) -> tuple[str, ...]:
    """What a decision is about: the words that are neither common words nor the words of
    deciding, each cut to its first five letters (`readings` and `reading` are one)."""
    words = (_ELISION.sub("", _CLITIC.sub("", fold_case(match.group(0)))).strip("'-")
             for match in _WORD.finditer(about))
    return tuple(sorted({_stem(word) for word in words
                         if len(word) >= 3 and word not in _STOP and not word.isdigit()}))


def dropped_words(decision: str) -> tuple[str, ...]:
    """What a decision says it stops using ("instead of SQLite", "au lieu de MQTT")."""
    dropped = set()
    for match in _DROPPED.finditer(decision):
        dropped |= set(subject_words(match.group(1)))
    return tuple(sorted(dropped))


def same_subject(older: tuple[tuple[str, ...], tuple[str, ...]],
                 newer: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    """Whether a newer decision (its subject words, its dropped words) decides again what
    an older one decided: it drops what the older chose, or they share two subject words
    (one, when either has no more than two)."""
    old_words, _ = older
    new_words, new_dropped = newer
    if set(new_dropped) & set(old_words):
        return True
    shared = len(set(old_words) & set(new_words))
    return shared >= 2 or (shared >= 1 and min(len(old_words), len(new_words)) <= 2)


# -- the operator's words ---------------------------------------------------------------------

# Words that only carry on ("Go on with the current task", "Continue la tâche en cours").
_FILLER_WORDS = frozenset([
    "go", "on", "continue", "continuing", "keep", "going", "carry", "proceed", "ahead",
    "please", "pls", "ok", "okay", "yes", "yep", "yeah", "sure", "thanks", "thank",
    "you", "the", "current", "task", "work", "job", "with", "your", "next", "and", "so",
    "then", "now", "it", "do", "that", "this", "fine", "good", "great", "nice", "lgtm",
    "alright", "right", "resume", "vas-y", "vas", "y", "poursuis", "poursuivre",
    "poursuivez", "continuez", "la", "le", "les", "tâche", "travail", "en", "cours",
    "ton", "ta", "tes", "merci", "oui", "d'accord", "suite", "bien", "très", "super",
    "parfait", "top", "allez", "va", "on", "reprends", "reprendre", "de", "du", "c'est",
    "bon", "sounds", "looks",
])
_RULE = re.compile(
    r"\b(?:always|never|don't|do\s+not|must(?:n't)?|from\s+now\s+on|at\s+all\s+times|"
    r"every\s+time|each\s+time|no\s+matter|make\s+sure|rule|policy|forbidden|under\s+no|"
    r"toujours|jamais|ne\s+\w+\s+(?:pas|jamais|plus)|n'\w+\s+(?:pas|jamais|plus)|désormais|"
    r"à\s+partir\s+de\s+maintenant|interdit|règle|systématiquement|chaque\s+fois|"
    r"en\s+aucun\s+cas|veille\s+à|assure-toi)\b", re.IGNORECASE)
_REQUEST_START = re.compile(
    r"^(?:please|pls|kindly|can\s+you|could\s+you|would\s+you|will\s+you|i\s+need\s+you\s+to|"
    r"i'd\s+like\s+you\s+to|go\s+ahead\s+and|now|next|then|let's|time\s+to|peux-tu|"
    r"when\s+you(?:'re|\s+are)\s+done|once\s+you(?:'re|\s+are)\s+done|after\s+that|"
    r"quand\s+tu\s+(?:as|auras)\s+fini|une\s+fois\s+(?:que\s+)?(?:c'est|tu\s+as)\s+fini|"
    r"pourrais-tu|tu\s+peux|merci\s+de|il\s+faut|maintenant|ensuite|occupe-toi|on\s+passe|"
    r"passe\s+à|attaque|j'aimerais\s+que\s+tu|je\s+voudrais\s+que\s+tu|"
    r"add|fix|implement|port|write|update|remove|delete|rename|refactor|move|check|look|"
    r"investigate|run|test|make|create|build|review|merge|deploy|release|document|change|"
    r"switch|start|finish|open|handle|support|migrate|convert|clean|bump|revert|try|profile|"
    r"split|wire|hook|replace|set|configure|prepare|draft|publish|ship|debug|benchmark|"
    r"ajoute|corrige|implémente|porte|écris|mets|supprime|renomme|refactorise|déplace|"
    r"vérifie|regarde|lance|teste|fais|crée|construis|relis|fusionne|déploie|publie|"
    r"documente|change|passe|utilise|commence|termine|ouvre|ferme|gère|migre|nettoie|"
    r"reprends|prépare|branche|remplace|configure|découpe|livre|rédige)\b", re.IGNORECASE)


def is_question(text: str) -> bool:
    """Whether words end with a question mark (looked for at their end only)."""
    return flatten(text[-200:]).endswith("?")


def is_passing_word(text: str) -> bool:
    """Operator words that expire: a question (the bee answered it) or words about a
    ticket (done when the ticket is). Standing instructions outlast them."""
    return is_question(text) or bool(ticket_names(text[:1200]))


def is_filler(text: str) -> bool:
    """A turn that carries on without saying what to do ("Go on.", "Vas-y", "Continue la
    tâche en cours")."""
    words = [word.strip("'’-") for word in _WORD.findall(fold_case(flatten(text)))]
    return all(word in _FILLER_WORDS or not word or word == "?" for word in words)


def is_rule(text: str) -> bool:
    """Operator words that stand: an instruction for every time, not a task for now."""
    return _RULE.search(text) is not None


def is_request(text: str) -> bool:
    """Operator words asking for something to be done now (not a rule, not filler, not a
    question unless a polite one: "can you ...?")."""
    flat = flatten(text)
    if is_filler(flat) or is_rule(flat):
        return False
    if flat.endswith("?"):
        return re.match(r"(?:can|could|would|will)\s+you|peux-tu|pourrais-tu|tu\s+peux",
                        flat, re.IGNORECASE) is not None
    return _REQUEST_START.match(flat) is not None or bool(ticket_names(flat[:600]))
