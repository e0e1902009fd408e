"""A choice the bee states with its reason (pure, ADR 0008), in the shapes no fixed phrase
covers: "I'll move the parsing to clap's derive API; the builder would be as long",
"I'm moving the CLI tests to insta snapshots; reviewing a diff beats…", "Partitioning the
raw table on ingest_date — cheap backfills", "Je range les montants dans un BigDecimal —
les flottants arrondissent mal".

Three things make such a sentence a decision rather than work or a diagnosis: a verb of
shaping how things are built (use, move, store, partition, key, stocker… not run, add,
fix, check), said by the bee of its own doing (`I'll`, `I'm …ing`, `Going to`, `Je`,
`On`, a gerund first); a thing it names; and a reason after a mark (`;`, `—`, `because`,
`so`, `car`, `pour que`…). A sentence without its reason is left to the fixed phrases: "I'll
move the file to src/" is work.
"""

from __future__ import annotations

import re

from horizon.core.patterns import Pattern

# What a decision says after its choice: why (its subject stops there).
REASON = Pattern(r"\s*(?:;|—|–|\bcar\b|\bbecause\b|\bsince\b|\bpuisque\b|"
                 r"\bparce\s+que\b|\bso\s+that\b|\bpour\s+que\b|,?\s+so\b)\s*",
                 re.IGNORECASE)

_SHAPING = ("use", "move", "put", "store", "keep", "partition", "split", "shard", "index",
            "key", "make", "switch", "build", "implement", "model", "represent", "hold",
            "cache", "pin", "target", "default", "route", "parse", "serialize", "encode",
            "wrap", "structure", "expose", "return", "treat", "compute", "send", "stick",
            "stay", "pick", "choose", "prefer", "adopt", "replace", "drop", "base", "back",
            "persist", "group", "batch", "queue", "limit", "throttle", "cap", "bound",
            "lock", "vendor", "bundle", "generate", "derive", "normalize", "hash", "sign",
            "encrypt", "compress", "stream", "buffer", "paginate", "schedule", "go with",
            "rely on", "standardize", "centralize", "inline", "extract", "separate",
            "dedupe", "denormalize", "migrate", "convert", "express", "type", "flag")
_DOUBLED = frozenset(["put", "split", "pin", "cap", "drop", "wrap", "flag"])


def _ing(verb: str) -> str:
    head, _, rest = verb.partition(" ")
    if head in _DOUBLED:
        head += head[-1]
    elif head.endswith("e") and not head.endswith("ee"):
        head = head[:-1]
    return f"{head}ing {rest}".strip()


_FRENCH = ("stocke", "stockons", "stocker", "mets", "mettons", "mettre", "passe", "passons",
           "passer", "garde", "gardons", "garder", "utilise", "utilisons", "utiliser",
           "prends", "prenons", "prendre", "range", "rangeons", "ranger", "branche",
           "branchons", "brancher", "découpe", "découpons", "découper", "partitionne",
           "partitionnons", "partitionner", "calcule", "calculons", "calculer",
           "représente", "représentons", "représenter", "envoie", "envoyons", "envoyer",
           "construis", "construisons", "construire", "bascule", "basculons", "basculer",
           "modélise", "modélisons", "modéliser", "indexe", "indexons", "indexer",
           "sépare", "séparons", "séparer", "regroupe", "regroupons", "regrouper",
           "traite", "traitons", "traiter", "gère", "gérons", "gérer", "repose", "reposer",
           "pars", "partons", "centralise", "centralisons", "centraliser", "convertis",
           "convertissons", "convertir", "exprime", "exprimons", "exprimer")


def _alternatives(words: list[str]) -> str:
    return "|".join(re.escape(word).replace(r"\ ", r"\s+")
                    for word in sorted(set(words), key=len, reverse=True))


# Who does it, then the verb: "I'll move", "We're keeping", "Going to use", "Je stocke",
# "On va garder", "Partitioning" (a gerund, said first).
_BASE = _alternatives(list(_SHAPING))
_CHOICE = Pattern(
    r"^\W*(?:(?:i|we)(?:'ll|\s+will)(?:\s+\w+ly)?\s+(?:" + _BASE + r")"
    r"|(?:going\s+to|gonna)\s+(?:" + _BASE + r")"
    r"|(?:(?:i|we)(?:'m|\s+am|'re|\s+are)\s+(?:\w+ly\s+)?)?(?:"
    + _alternatives([_ing(verb) for verb in _SHAPING]) + r")"
    r"|(?:je|j'|on|nous)\s*(?:vais\s+|va\s+|allons\s+)?(?:" + _alternatives(list(_FRENCH))
    + r"))\b", re.IGNORECASE)
_WORDS = Pattern(r"[\w'’-]+")
HEAD_WORDS = 20  # a choice is said in a few words; a longer head is an account of work
REASON_WORDS = 2


def chooses_with_reason(sentence: str, names: Pattern) -> bool:
    """Whether the bee's sentence states a choice of a named thing (`names` says what
    names one) with a reason after it."""
    choice = _CHOICE.match(sentence)
    if choice is None:
        return False
    parts = REASON.split(sentence[choice.end():], maxsplit=1)
    if len(parts) < 2:
        return False
    chosen, reason = parts
    return (len(_WORDS.findall(sentence[:choice.end()] + chosen)) <= HEAD_WORDS
            and len(_WORDS.findall(reason)) >= REASON_WORDS
            and _PURPOSE.match(reason) is None
            and names.search(chosen) is not None)


# "Using the Read tool on main.rs — to see the function": what an action is for.
_PURPOSE = Pattern(r"(?:to|in\s+order\s+to|pour|afin\s+de)\b(?!\s+que)", re.IGNORECASE)
