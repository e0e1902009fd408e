"""The operator's words (pure, ADR 0008): requests for work now, standing rules and
conventions, and words that only carry on, in English and in French.

The readers look at prose and are heuristics, and say so; the operator's own words are
never lost to them (Paroles quotes them whole).
"""

from __future__ import annotations

import re

from horizon.core.patterns import Pattern
from horizon.core.statements import WORD, fold_case, prose, sentences, unquoted
from horizon.core.taking_back import withdraws_rule
from horizon.core.text import flatten

# Words that only carry on ("Go on with the current task", "Continue la tâche en cours").
_FILLER_WORDS = frozenset([
    "go", "on", "continue", "continuing", "keep", "going", "carry", "proceed", "ahead",
    "please", "pls", "ok", "okay", "yes", "yep", "yeah", "sure", "thanks", "thank",
    "you", "the", "current", "task", "work", "job", "with", "your", "next", "and", "so",
    "then", "now", "it", "do", "that", "this", "fine", "good", "great", "nice", "lgtm",
    "alright", "right", "resume", "vas-y", "vas", "y", "poursuis", "poursuivre",
    "poursuivez", "continuez", "la", "le", "les", "tâche", "travail", "en", "cours",
    "ton", "ta", "tes", "merci", "oui", "d'accord", "suite", "bien", "très", "super",
    "parfait", "top", "allez", "va", "reprends", "reprendre", "de", "du", "c'est",
    "bon", "sounds", "looks", "try", "again", "let's", "lets", "stp", "svp", "parti",
    "cool", "perfect", "perfectly", "where", "from", "stopped", "left", "off", "one",
    "plan", "status", "état", "etat", "sounds", "tu", "peux", "continuer", "fais-le",
    "fais", "ship", "go", "for", "no", "worries", "problem", "pas", "de", "souci", "soucis",
    "problème", "worry",
])
# The operator's words are read folded to lower case (`fold_case`), by lower-case patterns:
# three times faster than patterns that ignore case.
_RULE = Pattern(
    # One branch per way of starting, each with its words: a regex tries every top-level
    # branch at every position, so fewer branches read faster.
    r"\b(?:(?:always|never|don't|do\s+not|must(?:n't)?|from\s+now\s+on|at\s+all\s+times|"
    r"every\s+time|each\s+time|no\s+matter|make\s+sure|rule|policy|forbidden|under\s+no|"
    r"toujours|jamais|ne\s+\w+\s+(?:pas|jamais|plus)|n'\w+\s+(?:pas|jamais|plus)|désormais|"
    r"à\s+partir\s+de\s+maintenant|interdit|règle|systématiquement|chaque\s+fois|"
    r"en\s+aucun\s+cas|veille\s+à|assure-toi|(?<!est\s)(?<!is\s)(?:partout|everywhere)|"
    r"no\s+\S+(?:\s+\S+)?\s+anywhere|"
    # A scope kept out of bounds, a floor, what any new code follows ("Hands off
    # db/migrations", "iOS 16 minimum, nothing that needs 17", "tests for anything new").
    r"hands\s+off|off[\s-]limits|leave\s+(?:[\w/.-]+\s+){1,3}?alone|"
    r"dont\s+(?:ever\s+)?(?:commit|push|merge|touch|use|add|change|edit|delete|remove|"
    r"open|create|run|bump|upgrade|rename|force|skip|disable|put|write|let)|"
    r"minimum|maximum|nothing\s+that|rien\s+qui|"
    r"we\s+(?:never|(?:don'?t|do\s+not)\s+(?:use|do|push|commit|merge|ship|touch|add|"
    r"write|deploy|allow|rely|mock|call|store|log))|(?:our|the\s+house|notre)\s+style|"
    r"(?<=,\s)ever(?=[.!]|$)|"
    r"(?:anything|everything|any|all)\s+new|tout\s+(?:le\s+)?nouveau|toute\s+nouvelle|"
    r"doi(?:t|vent)\s+(?:toujours\s+)?(?:passer|rester|être|avoir)"
    # Words of habit: an instruction for every case ("for every ticket you close",
    # "however small", "without asking me", "pour chaque ticket", "même minuscule").
    r"|every|whenever|however\s+small|without\s+asking|as\s+a\s+rule|in\s+general|"
    r"going\s+forward|from\s+here\s+on|before\s+(?:each|any)\s|"
    # A bound kept every time ("Keep functions under 60 lines", "Keep PRs small").
    r"keep\s+(?:[\w-]+\s+){0,3}?(?:under|below|within|short|small|shorter|smaller)|"
    r"before\s+(?:you\s+(?:tell|say|report|mark|claim|call|merge|push|commit|ship)|"
    r"telling|claiming|merging|pushing|committing)|"
    r"chaque|pour\s+tout(?:e|es)?\s|quel(?:le)?s?\s+que\s+soi|quoi\s+que\s+ce\s+soit|"
    r"même\s+(?:pour|minuscule|petite?s?)|sans\s+me\s+demander|"
    r"avant\s+de\s+me\s+(?:dire|demander|signaler|rendre|annoncer)|"
    r"en\s+règle\s+générale)\b"
    # A preference, or a convention said by what not to do ("Use tabs, not spaces",
    # "pathlib plutôt que os.path", "No print in library code", "Avoid mocks", "Pas de X").
    r"|rather\s+than|instead\s+of|plutôt\s+que|au\s+lieu\s+d[eu']|à\s+la\s+place\s+d[eu'])"
    r"|,\s*(?:not|pas|jamais)\s+[\w`'-]+\s*(?:[,;.]|$)"
    # At the start of a sentence: a convention said by what not to do, or a condition on
    # any case, not on this one ("When you change a public function", "If a test is
    # flaky", "Quand tu modifies le schéma"; not "When you're done", not "If the build
    # passes"). A condition may follow a colon too.
    r"|(?:^|[.!?]\s+|:\s+(?=when|whenever|quand|lorsque|if|si))"
    r"(?:(?:btw|also|oh|and|ps|fyi|au\s+fait|aussi|et)[\s,:;-]+)?(?:"
    r"(?:no|avoid|prefer|pas\s+d[e']|aucun(?:e)?|évite[zr]?|préfère[zr]?|privilégie[zr]?)\s"
    r"|(?!(?:one|that|this|it|once)\s)[\w`'-]+(?:\s+[\w`'-]+)?\s+only\s*(?:[.!;]|$)"
    r"|(?:when|whenever|quand|lorsque)\s+(?:you|tu|vous)\s+(?!(?:are|'re|"
    r"were|have|'ve|get|got|find|finish|finished|complete|can|could|need|want|see|as|auras|"
    r"es|seras|avez|aurez|êtes|trouves|finis|termines|pourras|peux|veux|vois)\b)[\w'-]+\s"
    r"|(?:if|si)\s+(?:(?:you|tu|vous)\s+[\w'-]+\s+)?(?:a|an|any|un|une|des|n'importe|one|"
    r"anyone|someone|ever|jamais|quelqu'un)\s)")
_INTERJECTION = Pattern(
    r"^(?:(?:hey|hi|hello|ok|okay|so|also|alright|well|now|great|thanks|perfect|btw|"
    r"and|then|bon|salut|alors|bien|et|aussi|merci(?!\s+de)|parfait|super|du\s+coup|ensuite|"
    r"maintenant|puis)\b[\s,.!:;-]*)+")
_ASKING = Pattern(
    r"\b(?:please|pls|kindly|can\s+you|could\s+you|would\s+you|will\s+you|can\s+we|"
    r"could\s+we|i\s+need\s+you\s+to|i\s+want\s+you\s+to|i'd\s+like\s+you\s+to|"
    r"we\s+need\s+to|we\s+should|you\s+should|you\s+need\s+to|go\s+ahead\s+and|"
    r"next\s+up|time\s+to|let\s+me\s+know|ça\s+te\s+dérange(?:rait)?\s+de|on\s+pourrait|"
    r"tu\s+veux\s+bien|vous\s+voulez\s+bien|(?:your|the)\s+next\s+(?:job|task|thing\s+to\s+do)|"
    r"prochaine\s+chose|ta\s+prochaine\s+tâche|peux-tu|pourrais-tu|tu\s+peux|tu\s+pourrais|"
    r"pouvez-vous|pourriez-vous|tu\s+pourras|vous\s+pourrez|merci\s+de|il\s+faut|"
    r"il\s+faudrait|faudrait|j'ai\s+besoin\s+que\s+tu|"
    r"pense\s+à|n'oublie\s+pas\s+de|j'aimerais\s+que\s+tu|je\s+voudrais\s+que\s+tu|"
    r"when\s+you(?:'re|\s+are)\s+done|once\s+you(?:'re|\s+are)\s+done|"
    r"quand\s+tu\s+(?:as|auras)\s+fini|une\s+fois\s+(?:que\s+)?(?:c'est|tu\s+as)\s+fini)\b")
_VERBS_OF_WORK = (
    r"^(?:add|fix|implement|port|write|update|remove|delete|rename|refactor|move|check|look|"
    r"investigate|run|test|make|create|build|review|merge|deploy|release|document|change|"
    r"switch|start|finish|open|handle|support|migrate|convert|clean|bump|revert|try|"
    r"profile|split|wire|hook|replace|set|configure|prepare|draft|publish|ship|debug|"
    r"benchmark|take|use|read|reproduce|upgrade|install|drop|rewrite|extract|pin|tag|"
    r"ajoute|corrige|implémente|porte|écris|mets|supprime|renomme|refactorise|déplace|"
    r"vérifie|regarde|lance|teste|fais|crée|construis|relis|fusionne|déploie|publie|"
    r"documente|change|passe|utilise|commence|termine|ouvre|ferme|gère|migre|nettoie|"
    r"reprends|prépare|branche|remplace|configure|découpe|livre|rédige|occupe-toi|"
    r"attaque|monte|installe|annule|jette|essaie|rends|répare|reproduis|dis-moi|dites-moi|"
    r"explique|compare|mesure|profile|simplifie|optimise|ajuste|let's|let\s+us|"
    r"inline|speed\s+up|simplify|optimi[sz]e|tidy|tighten|trim|shorten|validate|cache|"
    r"expose|rework|polish|harden|accélère|allège|valide|retravaille)\b")
# A French verb in the imperative not listed above, known by its ending and what follows
# it ("Range un peu SyncEngine", "harmonise avec RelativeDay").
_FRENCH_IMPERATIVE = (
    r"^(?!(?:même|comme|toute|entre|contre|presque|encore|chaque|quelque|voilà|pendant|"
    r"selon|sauf|dès|depuis|après|avant|parce|puisque|lorsque|quoique|jusque)\b)"
    r"[a-zàâçéèêëîïôûùüœ]{3,}(?:e|is|ds|ts)(?:-(?:le|la|les|moi|toi|nous|y|en))?\s+"
    r"(?:le|la|les|l'|un|une|des|du|ce|cet|cette|ces|ton|ta|tes|mon|ma|mes|notre|nos|"
    r"un\s+peu|avec|au|aux|à|sur|dans)(?:\b|(?<='))")
_IMPERATIVE = Pattern(f"(?:{_VERBS_OF_WORK}|{_FRENCH_IMPERATIVE})")


def is_question(text: str) -> bool:
    """Whether words end with a question mark (looked for at their end only)."""
    return flatten(text[-200:]).endswith("?")


def is_filler(text: str) -> bool:
    """A turn that carries on without saying what to do ("Go on.", "Vas-y", "Continue la
    tâche en cours", "status?")."""
    for match in WORD.finditer(fold_case(text)):  # most words say something: look no further
        word = match.group(0).strip("'-")
        if word and word != "?" and word not in _FILLER_WORDS:
            return False
    return True


# What names a thing: code, a path, a file, an identifier, an acronym, a ticket, a number;
# not a reference to an entry or a pull request (`#974`).
_NAMES = Pattern(
    r"`|[\w.-]*/[\w.-]+|\b[\w-]+\.[A-Za-z][\w]{0,5}\b|\b[a-z]+[A-Z]\w*|\b[A-Z]\w*[A-Z]\w*|"
    r"\b\w+_\w+|(?<![#\w])\d")
_PLAIN_CAPS = frozenset(["OK", "LGTM", "PR", "PRS", "CI", "FYI", "TBH", "IMO", "ASAP",
                         "PTAL", "ACK", "WIP", "TY", "THX", "OKAY", "YES", "NO", "OUI",
                         "NON", "TOP", "GG", "NP", "MERCI"])


def names_something(text: str) -> bool:
    """Whether words name a thing one could look for: code, a path, a file, an
    identifier, an acronym (not `OK`, `LGTM`, `CI`), a ticket or a number."""
    return any(match.group(0).strip("`").upper() not in _PLAIN_CAPS or "`" in match.group(0)
               for match in _NAMES.finditer(text))


def is_rule(text: str) -> bool:
    """Operator words that stand: an instruction for every time, not a task for now."""
    return _RULE.search(fold_case(text)) is not None


GENERAL_WORDS = 8  # an instruction this long that names nothing is for every time


def is_general(text: str) -> bool:
    """Words long enough to say how to work, that name nothing to work on ("Ask before
    deleting anything that isn't yours"): a task names its file, its test, its ticket."""
    head = text[:1200]
    return (len(WORD.findall(head)) >= GENERAL_WORDS and not names_something(head)
            and _FOR_NOW.match(head) is None and not _on_a_thing(fold_case(head)))


def _on_a_thing(folded: str) -> bool:
    return (_ON_A_THING.match(folded) is not None and _FOR_ALL.search(folded) is None
            and _METHOD.search(folded) is None)


# A task said by what it acts on: a verb of work, then the thing ("Remove the dead code in
# the build script", "Ajoute une validation dans l'admin"); a rule says how, for every
# case, and its quantifiers or its order of work ("first…, then…") make it a rule.
_ON_A_THING = Pattern(
    "(?:" + _VERBS_OF_WORK + r"(?:\s+(?:up|out|down|away|over))?|^fais\s+en\s+sorte\s+que)\s+"
    r"(?:the|a|an|this|that|these|those|our|le|la|les|l'|un|une|des|du|ce|cet|cette|ces|"
    r"notre|nos)(?:\b|(?<=')|\s)")

_FOR_ALL = Pattern(r"\b(?:all|any|anything|everything|nothing|tout|tous|toutes|rien)\b")


def says_how_to_work(text: str) -> bool:
    """Whether words say how to work for every time, whole or in one of their first
    sentences ("Commit messages use conventional commits. Bump the timeout to 10s."): the
    task beside it passes, the convention stands. A sentence that asks for work ("Refactor
    Allow so it takes a clock") is the task, however general its words, unless it asks it
    of the addressee's own work ("Écris tes messages de commit en français")."""
    if is_general(text):
        return True
    for sentence in sentences(prose(text[:1200]))[:_SENTENCES_READ]:
        opening = _INTERJECTION.match(fold_case(sentence))
        said = sentence[opening.end():] if opening is not None else sentence
        if _FOR_NOW.match(sentence) or _FOR_NOW.match(said):
            continue  # "Puis lance toute la suite": the work at hand, in its order
        if is_method(said) or (is_general(said) and not is_question(said) and (
                not _asks_for_work(said) or _YOURS.match(fold_case(said)) is not None)):
            return True
    return False


# An instruction about the addressee's own work, every time ("Write your commit messages
# in French", "Nomme tes branches feat/…").
_YOURS = Pattern(r"^[\w'-]+\s+(?:up\s+|out\s+)?(?:your|tes|vos|ton|ta|votre)\b")


def _asks_for_work(sentence: str) -> bool:
    """A sentence that opens by asking for work: its first clause, not a colon's list
    ("feat:, fix:, chore:" names kinds of commits)."""
    folded = fold_case(sentence[:400])
    return _ASKING.search(folded) is not None or _IMPERATIVE.match(folded) is not None


_SENTENCES_READ = 4  # a convention said further down a long message is read as its whole


def is_method(text: str) -> bool:
    """An instruction that orders how to work and names nothing to work on ("Write the
    regression test first, watch it fail, then fix the code"): a rule, not a task. Said
    from its first word ("First back up the database, then…"), it is the work at hand."""
    head = text[:1200]
    return (_METHOD.search(head) is not None and not names_something(head)
            and _FOR_NOW.match(head) is None)


_METHOD = Pattern(r"\b(?:first|d'abord|avant\s+tout)\b.*?\b(?:then|puis|ensuite)\b",
                  re.IGNORECASE | re.DOTALL)
# What puts a request in the sequence of the work at hand ("Then run the suite…").
_FOR_NOW = Pattern(r"^\W*(?:then|now|next|after(?:wards)?|first|puis|ensuite|"
                   r"maintenant|après(?:\s+ça)?|d'abord|tout\s+de\s+suite)\b", re.IGNORECASE)


def stands_as_rule(text: str) -> bool:
    """Standing words kept as a rule: a rule's words, a withdrawal, or a statement long
    enough to be a convention ("Commit messages start with the ticket id")."""
    return (is_rule(text) or withdraws_rule(text)
            or len(WORD.findall(text[:1200])) >= GENERAL_WORDS)


def is_request(text: str) -> bool:
    """Operator words asking for something to be done now: not a rule, not filler, not a
    question unless a request in a question's form ("can you ...?")."""
    flat = fold_case(flatten(unquoted(text)))  # a quoted example asks for nothing
    if is_filler(flat) or _RULE.search(flat):
        return False
    head = _INTERJECTION.sub("", flat[:400])
    if _ASKING.search(head):
        return True
    if flat.endswith("?"):
        return False
    clauses = [clause.strip() for clause in re.split(r"[,;:.!]\s+", head) if clause.strip()]
    return any(_IMPERATIVE.match(_INTERJECTION.sub("", clause)) for clause in clauses)
