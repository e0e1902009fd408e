"""Chatter: the operator's turns that only acknowledge, approve or carry on (pure, ADR
0008). They stand for nothing once answered, so Paroles does not quote them; an
operator's choice among them still decides (`choices.settled`).
"""

from __future__ import annotations

from horizon.core.operator_words import is_filler, is_request, is_rule, names_something
from horizon.core.patterns import Pattern
from horizon.core.statements import WORD, fold_case
from horizon.core.taking_back import withdraws_rule
from horizon.core.text import flatten

# A turn that acknowledges, approves or nudges ("ok", "yes, apply it", "Fine,
# OVERWRITE it is.", "Applied #594, looks good"): it stands for nothing once answered.
_ACK = Pattern(
    r"^(?:ok(?:ay)?|k|yes|yep|yeah|yup|sure|fine|good|great|perfect|lgtm|approved|agreed|"
    r"alright|all\s+right|cool|nice|thanks|thank\s+you|thx|right|exactly|correct|indeed|"
    r"sounds\s+(?:good|great|right)|looks\s+(?:good|great|right|fine)|makes\s+sense|"
    r"go\s+ahead|go\s+for\s+it|ship\s+it|do\s+it|d'accord|dac|oui|ouais|parfait|nickel|"
    r"super|top|bien|très\s+bien|entendu|ça\s+marche|ca\s+marche|compris|merci|vas-y|"
    r"allez(?:-y)?|banco|validé|approuvé|c'est\s+bon|ça\s+me\s+va|ok\s+pour\s+moi|"
    r"👍|✅|👌|🙏|🚀|🎉|💯|\+1|\+💯)(?![\w'-])[\s,.!:;-]*")
_APPROVAL = Pattern(
    r"^(?:(?:apply|do|merge|ship|push|run|deploy|commit|try|keep|land|release|applique|"
    r"fais|merge|pousse|lance|déploie|committe|livre)(?:\s+(?:it|that|this|them|those|"
    r"ahead|away|on|going))?(?:-le|-la|-les)?|go\s+(?:ahead|on|for\s+it)|"
    r"[\w.+#`/-]+(?:\s+[\w.+#`/-]+)?\s+it\s+is|va\s+pour\s+.+|c'est\s+parti)"
    r"(?:\s+(?:then|now|please|pls|stp|svp|alors|maintenant|donc))*[\s.!]*$")
_REPORTED = Pattern(
    r"^(?:applied|done|merged|deployed|pushed|approved|rebased|restarted|fixed\s+it|"
    r"appliqué|fait|mergé|déployé|poussé|approuvé|relancé)\b")
CHATTER_WORDS = 10
REMARK_CHARS = 100  # a remark naming nothing is at most this long


def is_chatter(text: str) -> bool:
    """A short turn that only acknowledges, approves or carries on: no rule, no request
    beyond "go ahead", no question; or a short remark that names nothing and asks for
    nothing ("good catch", "tried #617 locally, works", "très bien, enchaîne")."""
    folded = fold_case(flatten(text))
    if len(folded) > 160 or folded.endswith("?") or is_rule(folded):
        return False
    if is_filler(folded):
        return True
    words = len(WORD.findall(folded))
    if words > CHATTER_WORDS:
        return False
    if _REPORTED.match(folded):
        return True
    flat = flatten(text)
    if (len(flat) <= REMARK_CHARS and not names_something(flat) and not is_request(flat)
            and not withdraws_rule(flat)):
        return True
    rest = folded
    while True:  # "ok, yes, fine, …"
        stripped = _ACK.sub("", rest, count=1)
        if stripped == rest:
            break
        rest = stripped
    if rest == folded:
        return False
    return not rest or is_filler(rest) or _APPROVAL.match(rest) is not None
