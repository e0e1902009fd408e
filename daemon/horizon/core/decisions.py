"""Decisions in words, in English and in French (pure): the sentences where the bee settles
a choice, and whether it says it reverses the one before (ADR 0008). What each is about
and which newer one replaces which is core/subjects.py's.

A decision is a choice of something ("We'll use SQLite for the cache", "Going with Zod",
"On part sur MQTT"), not an action ("I'll run the tests", "Switching to the feature
branch"): a weak verb counts only with a named thing after it (a capital, a digit, a
dot...). A newer decision replaces an older one when it stops using what the older one is
about ("instead of SQLite", "au lieu de MQTT"), when they share two words of their
subject, or when it says it reverses ("Scratch that, Redis it is") what came just before.
"""

from __future__ import annotations

import re

from horizon.core.patterns import Pattern
from horizon.core.reasoned import chooses_with_reason
from horizon.core.statements import STATEMENT_CHARS, fold_case, prose
from horizon.core.subjects import COMMON
from horizon.core.text import flatten
from horizon.core.tickets import ticket_names

DECISIONS_PER_TEXT = 3

# A named thing: a word with a capital, a digit, a dot, a dash or underscore, a slash, a
# plus, or in backquotes (`Redis`, `argon2id`, `Node.js`, `pnpm`... the last only so).
NAMED = r"(?-i:`[^`\s]+`|(?![a-z]+\.(?:\s|$))[\w.+#/@-]*[A-Z0-9._/+#@-][\w.+#/@-]*)"
NAMED_THING = Pattern(NAMED)
# A name no plain word has: code's dots inside (`golang.org/x/time/rate`), CamelCase
# (`NSCache`), an @ (`@Observable`), a status code or a version (`429`, `5.40`).
# A file or a folder in backquotes is where the work goes, not a choice.
STRONG = (r"(?!`[^`]*/)(?!`?[\w./-]*\.(?:py|ts|tsx|js|rb|go|rs|exs?|cpp|hpp|cc|h|c|java|kt|"
          r"swift|md|json|toml|ya?ml|sql|sh|tf)\b)"
          r"(?-i:`[^`\s]{2,}`|[\w-]+\.[\w-]+(?:[./][\w-]+)*|[A-Z][a-z0-9]+[A-Z]\w*|"
          r"[A-Z]{2,}[a-z]\w*|@[A-Za-z]\w+|\d{3,}\b)")
# "Moved back to In Progress": a ticket's state, not a choice.
_NOT_A_STATE = (r"(?!(?i:in\s+progress|done|in\s+review|review|todo|to\s+do|backlog|"
                r"ready|blocked|closed|open)\b)")
# "OK, going with that.": an assent to what was said, not a choice of a thing.
_NOT_A_PRONOUN = r"(?!\s+(?:that|this|it|them|those|these|yours)\b)"
ARTICLE = r"(?:(?:the|a|an|our\s+own|our|le|la|les|l'|un|une|des|du|de|d')\s*)?"
# How the bee says, in the present, that it builds something some way ("Je mets le cache
# dans un NSCache", "On passe l'état par @Observable"); not "j'aimerais que tu…".
_BUILDING = (r"(?:mets|mettons|écris|écrivons|fais|faisons|passe|passons|stocke|stockons|"
             r"garde|gardons|construis|branche|implémente|range|gère|gérons|code|bascule|"
             r"ajoute|ajoutons|utilise|utilisons|prends|prenons|pars|propose)")
# What a bee does now, not a choice it makes ("I'll rerun it rather than guess").
_ACTING = (r"(?:run|rerun|re-run|retry|try|check|recheck|look|read|reread|wait|ask|test|"
           r"fix|debug|investigate|dig|poke|see|grep|search|find|open|start|begin|stop|"
           r"leave|let|do\s+that|just|regarder|lire|lancer|relancer|vérifier|tester|"
           r"chercher|corriger|ouvrir|attendre|essayer|reply|respond|comment|post|paste|ping|"
           r"report|note|log|print|(?:put|set|add)\s+a\s+breakpoint|répondre|réponds|"
           r"commente|colle|signale)")
_DECISION = Pattern(
    r"\b(?:decision\b|(?:we|i)(?:'ve|\s+have)?\s+decided\s+(?:on|to\s+(?:use|go|keep|"
    r"switch|stick|drop|replace|move|adopt|store|rely|run|build))\b|decided\s+on\b|"
    r"it's\s+decided\b|settl(?:ed|ing)\s+on\b|standardi[sz](?:e|ed|ing)\s+on\b|"
    r"(?:we|let'?s|let\s+us)(?:'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to)?\s+"
    r"(?:use|go\s+with|stick\s+with|keep|switch\s+to|move\s+to|adopt|stay\s+with|"
    r"rely\s+on|store)\b|(?:going|go|gone|went)\s+with\b" + _NOT_A_PRONOUN + r"|"
    r"opt(?:ed|ing)\s+for\b|"
    r"\w+\s+it\s+is\b|change\s+of\s+(?:plans?|mind)\b|changed\s+my\s+mind\b|scratch\s+that\b|"
    r"on\s+second\s+thoughts?\b|revert(?:ing|ed)?\s+(?:to|the)\b|revers(?:e|es|ed|ing)\b|"
    r"earlier\s+call\b|wrong\s+(?:pick|choice|call)\b|in\s+favou?r\s+of\b|"
    r"(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing))\s+from\s+\S+\s+to\b|"
    r"\b(?:actually|en\s+fait),?\s+let's\s+not\b|let's\s+not\s+(?:use|bring|go|do|have|add)\b|"
    r"(?:i|we)\s+(?:don't|do\s+not)\s+want\s+(?:another|any\s+more|an?|any)\s+" + NAMED + r"|"
    r"\b(?:chose|picked|prefer(?:red)?|went\s+with|going\s+with|use)\s+\S+\s+over\s+\S+|"
    r"au\s+profit\s+d[eu']|on\s+(?:reste|restera)\s+sur\b|"
    r"(?:replac(?:e|ed|es|ing))\s+[\w.+#`/-]+(?:\s+[\w.+#`/-]+)?\s+(?:with|by)\b|"
    r"(?:dropp?(?:ed|ing)|dropping)\s+" + NAMED + r"|"
    r"(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing))\s+(?:[\w'-]+\s+){0,4}?to\s+"
    + ARTICLE + _NOT_A_STATE + NAMED + r"|"
    r"i(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to)\s+(?:use|keep|store|adopt|"
    r"switch\s+to|move\s+to|stick\s+with)\s+(?:" + ARTICLE + NAMED
    + r"|(?:[\w.-]+\s+){1,3}for\s+(?:the\s+)?\w+|(?:[\w.'-]+\s+){1,6}?(?:from|of)\s+"
    + NAMED + r")|"
    r"(?:chose|chosen|picked|prefer)\s+" + ARTICLE + NAMED + r"|"
    # A version pinned ("I'm pinning the AWS provider to \"~> 5.40\"", "bump the pin to
    # ~> 5.60"); a name given ("call the state bucket acme-tfstate-eu").
    r"(?:\bpin(?:s|ning|ned)?\s+(?:[\w/'\".-]+\s+){0,4}?|\bthe\s+pin\s+)to\s+[\"'`]?"
    r"[~^<>=]*\s*v?\d|"
    r"\b(?:call|name|rename)\s+(?:it|them|the\s+(?:[\w-]+\s+){0,2}?[\w-]+)\s+[`\"']?"
    r"[a-z0-9]+(?:[-_.][a-z0-9]+)+|"
    # What the bee builds with, named by a name no plain word has ("I'll build the limiter
    # on golang.org/x/time/rate", "Je mets le cache dans un NSCache", "J'écris les tests
    # avec Swift Testing (@Test)").
    r"(?:(?:(?:i|we)(?:'ll|\s+will|'m\s+going\s+to|'re\s+going\s+to)|je\s+vais|on\s+va|"
    r"nous\s+allons)\s*(?!" + _ACTING + r"\b)\w+|(?:je|j'|on|nous)\s*" + _BUILDING
    + r")\b[^.!?`]{0,60}?\b(?:with|on|in|"
    r"into|as|via|using|behind|through|avec|dans|en|via|par|sous)\s+(?:[\w'-]+,?\s+){0,4}?"
    r"\(?" + STRONG + r"|"
    # "Plan: use x/time/rate", "Plan: replace count with for_each": a plan that chooses.
    r"^\W*plan\s*:\s*(?:use|replace|switch\s+to|go\s+with|adopt|move\s+to|keep)\b|"
    # A choice said after a no ("Finalement non pour last-write-wins."), what replaces it
    # next; and the French "fini les X" (no more X).
    r"finalement,?\s+non\b|\bfini\s+(?:les?|la|l')\s*" + NAMED + r"|"
    r"(?:i|we)(?:'ll|\s+will|'m\s+going\s+to|'re\s+going\s+to)\s+(?!" + _ACTING + r"\b)\w+"
    r"\b[^.!?]{0,100}?\b(?:rather\s+than|instead\s+of)\s+" + ARTICLE + r"\w|"
    # How the bee will build something, with a piece of code it names ("I'll implement the
    # retries with `autoretry_for`", "Je vais faire le remboursement dans un `Ecto.Multi`").
    r"(?:(?:i|we)(?:'ll|\s+will|'m\s+going\s+to|'re\s+going\s+to)|je\s+vais|on\s+va|"
    r"nous\s+allons)\s+(?!" + _ACTING + r"\b)\w+\b[^.!?`]{0,60}?\b(?:with|in|into|to|as|"
    r"via|using|behind|through|avec|dans|en|via|par|sous)\s+(?:[\w'-]+,?\s+){0,4}?"
    r"`(?![^`]*/)(?![^`]*\.(?:py|ts|tsx|js|rb|go|rs|exs?|cpp|hpp|cc|h|c|java|kt|md|json|toml|"
    r"ya?ml|sql|sh)`)[^`\s]{2,}`|"
    r"\b(?:after\s+(?:benchmarking|comparing|comparison|testing))\b|conclusion\s*:|"
    r"décision\b|c'est\s+(?:décidé|tranché)\b|tranché\b|choix\s+retenu\b|"
    r"(?:j'ai|on\s+a|nous\s+avons)\s+(?:décidé|choisi|tranché|opté|retenu)\b|"
    r"(?:(?:on|je|nous)\s+(?:garde|gardons|garderons|utilise|utilisera|utiliserons|"
    r"prend|prends|prenons|passe\s+à|passons\s+à|bascule\s+sur|basculons\s+sur|retiens|"
    r"retient|choisis|choisit|adopte)|(?:on\s+va|nous\s+allons|je\s+vais)\s+"
    r"(?:utiliser|garder|prendre|adopter))\s+(?:" + ARTICLE + r"(?:\w+\s+)?" + NAMED
    + r"|(?:[\w.-]+\s+){1,3}pour\s+(?:le|la|les|l'|un|une|des|du)\s*\w+)|"
    # "Je reviens sur ce choix", "on revient sur Redis"; not "je reviens sur l'échec".
    r"(?:reviens|revient|revenir|revenons)\s+sur\s+(?:(?:ce|cette|mon|ma|notre|le|la|l')\s*"
    r"(?:choix|décision|idée|plan|option)\b|(?-i:`[^`\s]+`|[\w.+#/-]*[A-Z0-9][\w.+#/-]*))|"
    r"en\s+fait,?\s+non\b|au\s+lieu\s+d[eu']|plutôt\s+qu(?:e\b|')|abandon\s+d[eu']|"
    r"ne\s+convient\s+(?:pas|plus)\b|remplac(?:e|é|ée|er)\s+(?:par\b|\S+\s+par\b))",
    re.IGNORECASE)
_DECISION_CUES = (
    # A choice said with its reason (core/reasoned.py) has one of these.
    ";", "—", "–", "because", "since", " so ", "car ", "parce", "puisque", "pour que",
    "decid", "decision", "actually", "let's not", "over ", "profit", "reste", "from ",
    "want", "'ll ", "going to", "je vais", "on va", "allons", "ajoute", "pin", "call",
    "name", "fini", "je ", "j'", "on ",
    "settl", "standardi", "use", "go with", "going with", "gone with",
    "went with", "stick", "keep", "switch", "mov", "migrat", "store", "adopt", "rely",
    "opt", "it is", "plan", "mind", "scratch", "second thought", "revert", "revers",
    "earlier call", "wrong", "favo", "replac", "drop", "chose", "chosen", "pick",
    "prefer", "after ", "conclusion", "décision", "décidé", "tranché", "choix", "choisi",
    "opté", "retenu", "part sur", "pars sur", "partons", "va pour", "emporte", "garde", "utilis",
    "prend", "prenons", "passe", "passons", "bascul", "retien", "adopte", "ce sera",
    "reviens", "revenir", "revient", "revenons", "en fait", "au lieu", "plutôt", "abandon",
    "convient",
    "remplac")
# "Ce sera xxhash", "sharp l'emporte": a choice when what is chosen is no common word.
_CHOSEN = Pattern(
    r"\bce\s+sera\s+(?:du\s+|de\s+la\s+|le\s+|la\s+|les\s+|l'|un\s+|une\s+)?"
    r"(?P<after>[\w.+#`-]+)|(?P<before>[\w.+#`-]+)\s+(?:l'emporte|wins|gagne)\b|"
    r"\b(?:va\s+pour|on\s+part\s+sur|nous\s+partons\s+sur|je\s+pars\s+sur)\s+"
    r"(?:du\s+|de\s+la\s+|le\s+|la\s+|les\s+|l'|un\s+|une\s+)?(?P<on>[\w.+#`-]+)",
    re.IGNORECASE)
_DECISION_END = Pattern(r"(?<=[.!?])\s+|(?<=[.!?])$")
_UNDECIDED = Pattern(r"\b(?:no\s+decision|not\s+(?:yet\s+)?decided|undecided|"
                        r"haven't\s+decided|pas\s+(?:encore\s+)?(?:de\s+)?décid|"
                        r"aucune\s+décision|rien\s+de\s+décidé)", re.IGNORECASE)
# What says a decision undoes the one just before it, without naming what it undoes.
_REVERSAL = Pattern(
    r"\b(?:change\s+of\s+(?:plans?|mind)|changed\s+my\s+mind|scratch\s+that|on\s+second\s+thoughts?|"
    r"actually,?\s+(?:no|let's\s+not|scratch)|revers(?:e|es|ed|ing)\s+(?:that|this|it|the\s+"
    r"(?:earlier|previous|last))|reconsider(?:ed|ing)?\s+(?:that|this)|en\s+fait,?\s+non|"
    r"finalement,?\s+non|(?:je\s+)?reviens\s+sur\s+(?:ce|mon|notre)\s+choix|"
    r"changement\s+de\s+plan)", re.IGNORECASE)
# A decision that only turns a choice down; what replaces it comes in the next sentence.
_TURNS_DOWN = Pattern(r"\b(?:(?:don't|do\s+not)\s+want|let's\s+not|ne\s+veu[xt]\s+pas|"
                      r"finalement,?\s+non|en\s+fait,?\s+non)\b", re.IGNORECASE)
# Sentences that report what someone else decided, or quote them.
_REPORTED = Pattern(r"\b(?:you\s+(?:decided|want|asked|said|chose)|tu\s+(?:as|veux)|"
                       r"vous\s+(?:avez|voulez))\b", re.IGNORECASE)
_HEADING = Pattern(r"^\W*(?:key\s+)?decisions?\W*$|^\W*décisions?\W*$", re.IGNORECASE)
_LIST_ITEM = Pattern(r"^\s*(?:[-*+•]|\d+[.)])\s+")

def decisions_stated(text: str) -> list[tuple[str, str, bool]]:
    """The decisions a text states: each sentence that settles a choice, with what it is
    about (itself and the sentences around it) and whether it reverses an earlier one;
    the items of a "Decisions:" list each count as one."""
    text = prose(text)
    folded = fold_case(text)
    if not any(cue in folded for cue in _DECISION_CUES):
        return []
    # A decision is read whole: `;` parts no clause of it ("memcached isn't there;
    # caching in-process instead"); a Markdown heading decides nothing.
    said = [part.strip() for line in text.split("\n")
            if _HEADING.match(line) or not line.lstrip().startswith("#")
            for part in _DECISION_END.split(line) if part.strip()]
    found: list[tuple[str, str, bool, int]] = []  # and the sentence's index
    listing = False
    joined = -1  # a sentence already read with the one before it
    for index, sentence in enumerate(said):
        if _HEADING.match(sentence):
            listing = True
            continue
        item = _LIST_ITEM.match(sentence)
        if listing and item:
            choice = sentence[item.end():]
            found.append((flatten(choice)[:STATEMENT_CHARS], choice, False, -2))
        else:
            listing = False
            if index == joined or not _decides(sentence):
                continue
            around = " ".join(said[max(0, index - 1):index + 1])
            text = flatten(sentence)
            after = said[index + 1] if index + 1 < len(said) else ""
            if _TURNS_DOWN.search(sentence) and after and not after.endswith("?"):
                # "I don't want another PORO for this. Put it in a concern.": what replaces it
                text, around, joined = f"{text} {flatten(after)}", f"{around} {after}", index + 1
            if found and found[-1][3] == index - 1:  # one decision said in two sentences
                text = f"{found.pop()[0]} {text}"
            found.append((text[:STATEMENT_CHARS], around, _REVERSAL.search(around) is not None,
                          index))
        if len(found) == DECISIONS_PER_TEXT:
            break
    return [(text, about, reverses) for text, about, reverses, _ in found]


# A sentence that says what comes next is a step, whatever it chooses ("Next step: switch
# the cache to Redis", "Now let me use the new client").
_STEP_LEAD = Pattern(
    r"^\W*(?:(?:the\s+|my\s+)?next\s+steps?\b|next\s*[:,\-–—]|(?:the\s+|my\s+)?plan\s*[:\-–—]|"
    r"(?:now|next|then|after\s+that),?\s+(?:let\s+me|let's|i(?:'ll|\s+will)|i'm\s+going\s+to)\b|"
    r"let\s+me\s+(?:now|next)\b|todo\s*[:\-]|to\s+do\s*:|prochaines?\s+étapes?\b|"
    r"(?:ensuite|maintenant|puis),?\s+(?:je|on)\b|la\s+suite\s*:)", re.IGNORECASE)
_PLAN_CHOICE = Pattern(r"^\W*plan\s*:\s*(?:use|replace|switch\s+to|go\s+with|adopt|move\s+to|"
                      r"keep)\b", re.IGNORECASE)


def _decides(sentence: str) -> bool:
    """Whether a sentence settles a choice: not a question, not someone else's words, not
    a ticket's work ("Je prends #7189", "Switching to DATA-204"), not undecided, not what
    comes next."""
    if (sentence.endswith("?") or _REPORTED.search(sentence) or ticket_names(sentence)
            or _UNDECIDED.search(sentence)
            or (_STEP_LEAD.match(sentence) and not _PLAN_CHOICE.match(sentence))):
        return False
    if _DECISION.search(sentence) is not None:
        return True
    for match in _CHOSEN.finditer(sentence):
        chosen = next(group for group in match.groups() if group).strip("`")
        if len(chosen) >= 2 and fold_case(chosen) not in COMMON:
            return True
    return chooses_with_reason(sentence, NAMED_THING)


