"""What a decision is about (pure, ADR 0008): its subject words, each cut to its stem, what
it says it stops using, and whether a newer decision decides again what an older one
did. Withdrawals and the operator's choices match words the same way.
"""

from __future__ import annotations

import re
import unicodedata

from horizon.core.patterns import Pattern
from horizon.core.reasoned import REASON
from horizon.core.statements import WORD, fold_case, sentences

# Words a decision is said with that name no choice ("plus simple", "done", "ticket").
COMMON = frozenset([
    "plus", "moins", "très", "trop", "simple", "simples", "facile", "difficile",
    "mieux", "bien", "mal", "possible", "impossible", "nécessaire", "utile", "long",
    "longue", "court", "courte", "rapide", "lent", "lente", "fait", "faite", "prêt",
    "prête", "bon", "bonne", "pareil", "même", "pas", "ça", "cela", "ok", "the", "more",
    "less", "easier", "harder", "better", "worse", "done", "fine", "good", "ready",
    "same", "it", "this", "that", "there", "cas", "fois", "moment", "temps", "tout",
    "rien", "chose", "différent", "pire", "meilleur", "fast", "quick", "quickly", "soon",
    "vite", "ticket", "tickets", "issue", "issues", "bug", "look", "coup", "œil",
])
_DROPPED = Pattern(
    r"\b(?:instead\s+of|rather\s+than|no\s+longer|not|(?<=, )pas|(?<=, )no|undo(?:ing|ne)?|défais|"
    r"scratch|scrap|ditch|skip|forget|oublie|laisse\s+tomber|"
    r"don't\s+want(?:\s+(?:a|an|another|any))?|"
    r"(?:don't|do\s+not|never)\s+use|n'utilise\s+(?:pas|plus)|"
    r"ne\s+veux\s+(?:pas|plus)(?:\s+d[eu'])?|"
    r"drop(?:p?ing|ped)?|abandon(?:ing)?|"
    r"replac(?:e|es|ed|ing)|away\s+from|off|au\s+lieu\s+d[eu']|plutôt\s+que|abandon\s+d[eu']|"
    r"abandonne|on\s+lâche|plus\s+de|remplace|à\s+la\s+place\s+de|from|over|"
    r"let's\s+not\s+(?:use|bring\s+in|go\s+with|do|have|add)|"
    r"(?:reviens|revenir)\s+sur(?:\s+le\s+choix\s+d[eu'])?)\s+"
    r"(?:the\s+|l[ae']\s*|les\s+)?([\w.+#/-]+(?:\s+[\w.+#-]+)?)", re.IGNORECASE)
_WAS_WRONG = Pattern(
    r"([\w.+#-]+)\s+(?:was|is)\s+(?:the\s+)?(?:wrong|overkill|too\s+\w+|a\s+mistake)|"
    r"([\w.+#-]+)\s+(?:n'était|n'est)\s+pas\s+le\s+bon|([\w.+#-]+)\s+is\s+gone",
    re.IGNORECASE)
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
    "revert", "reverting", "agreed", "standardize", "standardise", "rely", "wins",
    "picked", "pick", "prefer", "went", "gone", "final", "call", "comparing", "replace",
    "replaces", "replacing", "replaced", "reversing", "reverse", "earlier", "wrong",
    "favour", "favor", "drop", "dropping", "dropped", "mind", "changed", "migrated",
    "migrate", "migrating", "settling", "conclusion", "after", "benchmarking",
    "comparison", "testing", "le", "la", "les", "un", "une", "des", "du", "de", "d",
    "l", "et", "ou", "pour", "par", "avec", "sans", "en", "dans", "sur", "sous", "au",
    "aux", "à", "ce", "cet", "cette", "ces", "on", "nous", "je", "j", "il", "elle",
    "ils", "est", "sont", "être", "sera", "va", "vais", "utilise", "utiliser",
    "utilisera", "utilisons", "garde", "garder", "garderons", "part", "partir",
    "partons", "passe", "passer", "passons", "choisi", "choisit", "choisis", "décidé",
    "décision", "retient", "retiens", "retenu", "finalement", "plutôt", "que", "qu",
    "lieu", "plus", "désormais", "maintenant", "changement", "abandonne", "abandonner",
    "reste", "rester", "tout", "tous", "toute", "toutes", "bien", "aussi", "donc",
    "alors", "mais", "car", "ne", "pas", "a", "ai", "avons", "avez", "ont", "fait",
    "faire", "y", "se", "sa", "son", "ses", "leur", "leurs", "notre", "nos", "mon",
    "ma", "mes", "bascule", "basculer", "tranché", "opté", "c", "ça", "cela", "c'est",
    "va", "après", "apres", "comparaison", "choix", "reviens", "revenir", "emporte",
    "prend", "prends", "pris", "abandon", "remplace", "remplacer", "convient", "fait",
    "non", "bon", "next", "step", "today", "add", "test", "tests",
    # "je défais la partie Parquet", "the bit about X": what is undone is X.
    "partie", "parties", "bout", "morceau", "pièce", "piece", "bit", "portion",
])
_CLITIC = Pattern(r"(?:'ll|'re|'ve|'s|'d|'m|n't)$")
_ELISION = Pattern(r"^(?:l|d|j|qu|n|s|c|m|t)'")


def _stem(word: str) -> str:
    word = unicodedata.normalize("NFKD", word)
    word = "".join(char for char in word if not unicodedata.combining(char))
    word = _COUNTED.sub("", word)  # "60-line" is about lines
    if len(word) <= 5 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]  # "lines" and "line", "tests" and "test": one stem
    return word[:5]


_COUNTED = Pattern(r"^\d+-(?=\D)")


# A path or code names no subject; a single name in backquotes does (`chrono`).
_PATHS = Pattern(r"\S*[/\\]\S*|`[^`]*[^\w`.+#-][^`]*`")


def words_in_order(text: str) -> tuple[str, ...]:
    """The words of a text that say what it is about, each cut to its stem, once, in the
    order they first come: no path or code, no common word, no number. A word of two
    capitals is an acronym, a subject too ("PR size", "the CI job")."""
    words = ((_ELISION.sub("", _CLITIC.sub("", fold_case(match.group(0)))).strip("'-"),
              match.group(0)) for match in WORD.finditer(_PATHS.sub(_code_name, text)))
    return tuple(dict.fromkeys(_stem(word) for word, said in words
                               if (len(word) >= 3 or _ACRONYM.match(said))
                               and word not in _STOP and not word.isdigit()))


_ACRONYM = Pattern(r"[A-Z]{2}$")
_CODE_NAME = Pattern(r"`([A-Za-z_][\w]*)[=(:\[<{ ]")


def _code_name(match: re.Match[str]) -> str:
    """A path names nothing; code names what it opens with (`autoretry_for=(…)` is about
    autoretry_for)."""
    named = _CODE_NAME.match(match.group(0))
    return f" {named.group(1)} " if named is not None else " "


def _words(text: str) -> set[str]:
    return set(words_in_order(text))


def is_plain_word(word: str) -> bool:
    """A common word, or a word of deciding: it names no choice."""
    folded = fold_case(word)
    return folded in _STOP or folded in COMMON


_INTERJECTED = Pattern(r"^\W*(?:(?:no|nope|non|actually|en\s+fait|hmm+|wait|ok|okay|"
                       r"finalement)\b[\s,.!:;—–-]*)+", re.IGNORECASE)


def subject_words(about: str) -> tuple[str, ...]:
    """What a decision is about: the words of its sentences, without their reasons, that
    are neither common words nor the words of deciding, each cut to its first five letters
    (`readings` and `reading` are one)."""
    words: set[str] = set()
    for sentence in sentences(about):
        lead, colon, rest = sentence.partition(":")
        said = rest if colon and not _words(lead) else sentence  # "Decision:", "Change of plan:"
        said = _INTERJECTED.sub("", said)  # "No — use MERGE": the dash gives no reason
        words |= _words(REASON.split(said.strip(), maxsplit=1)[0])
    return tuple(sorted(words))


def dropped_words(about: str) -> tuple[str, ...]:
    """What a decision says it stops using ("instead of SQLite", "Celery was the wrong
    pick", "au lieu de MQTT")."""
    dropped: set[str] = set()
    for match in _DROPPED.finditer(about):
        # A library's path names its words ("instead of cenkalti/backoff").
        dropped |= _words(match.group(1).replace("/", " "))
    for match in _WAS_WRONG.finditer(about):
        dropped |= _words(next(group for group in match.groups() if group))
    return tuple(sorted(dropped))


def same_subject(older: tuple[tuple[str, ...], tuple[str, ...]],
                 newer: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    """Whether a newer decision (its subject words, its dropped words) decides again what
    an older one decided: it stops using something the older one is about, or they share
    two subject words, and a third of the fewer's."""
    old_words, old_dropped = older
    new_words, new_dropped = newer
    # It stops using what the older is about, or takes back what the older set aside
    # ("wicked_pdf it is" after "Prawn rather than wicked_pdf").
    if set(new_dropped) & set(old_words) or set(old_dropped) & set(new_words):
        return True
    shared = len(set(old_words) & set(new_words))
    return shared >= 2 and shared >= 0.3 * min(len(old_words), len(new_words))
