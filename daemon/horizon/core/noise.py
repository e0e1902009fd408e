"""What an agent runtime adds to a turn that nobody said (pure): Claude Code's
`<system-reminder>` blocks and local-command wrappers, an orchestrator's nudges and the
operator's commands to the runtime itself (`/model opus`) (ADR 0008, "Runtime noise").

Such text stays in the journal (recall finds it); the récit's rules read a turn without
it, and the operator's words are quoted without it.
"""

from __future__ import annotations

import re

from horizon.core.operator_words import is_rule, names_something
from horizon.core.patterns import Pattern
from horizon.core.statements import WORD

# A block the runtime wraps its own words in, closed or cut off at the end of the text.
_BLOCKS = Pattern(
    r"<(system-reminder|local-command-caveat|local-command-stdout|local-command-stderr|"
    r"command-message|command-name|command-args|command-contents|user-prompt-submit-hook|"
    r"ide_opened_file|ide_selection)"
    r"(?:\s[^>]*)?>.*?(?:</\1\s*>|\Z)", re.DOTALL | re.IGNORECASE)
_MARKS = ("<system-reminder", "<local-command", "<command-", "<user-prompt-submit-hook",
          "<ide_")
# What an orchestrator sends to keep a bee going: it asks for nothing new.
_NUDGE = Pattern(
    r"^\W*(?:please\s+)?(?:continue|carry\s+on|keep\s+going|go\s+on|proceed|resume)"
    r"(?:\s+(?:with|on))?(?:\s+(?:the|your|this))?(?:\s+(?:current|previous|same))?"
    r"(?:\s+(?:task|work|job|conversation|session|plan))?"
    r"(?:\s+(?:from\s+)?where\s+you\s+left\s+off)?(?:\s+without\s+asking(?:\s+\w+){0,4})?"
    r"\W*$"
    r"|^\W*(?:reprends|continue|poursuis|poursuivez|continuez)(?:\s+(?:la|ta|le|ton))?"
    r"(?:\s+(?:tâche|travail))?(?:\s+en\s+cours)?(?:\s+là\s+où\s+tu\s+t'es\s+arrêtée?)?\W*$",
    re.IGNORECASE)


# Or, more loosely, a short turn that starts by carrying on and names nothing new.
_CARRY_ON = Pattern(
    r"^\W*(?:please\s+)?(?:continue[zs]?|carry\s+on|keep\s+(?:going|on|working)|go\s+on|"
    r"proceed|resume|pick\s+up\s+where|reprend[sz]?|poursui[stv]\w*|enchaîne[zs]?)\b",
    re.IGNORECASE)
_CONTRAST = Pattern(r"\b(?:but|except|unless|however|instead|mais|sauf|cependant|plutôt)\b",
                    re.IGNORECASE)
NUDGE_WORDS = 12
# A command to the runtime itself (`/model opus`, `/clear`): it changes the session, and
# asks nothing of the bee.
_RUNTIME_COMMAND = Pattern(
    r"^\s*/(?:model|clear|compact|cost|help|config|permissions|status|login|logout|mcp|"
    r"memory|doctor|bug|vim|terminal-setup|resume|export|context|agents|hooks|ide|add-dir|"
    r"release-notes|upgrade|usage|privacy-settings|output-style|statusline|exit|quit|"
    r"rewind|fast|effort|theme|approvals|diff|undo|new)\b[^\n]{0,60}$",
    re.IGNORECASE)


def without_noise(text: str) -> str:
    """A text without the blocks a runtime added to it (unchanged when it holds none)."""
    if "<" not in text or not any(mark in text for mark in _MARKS):
        return text
    return _BLOCKS.sub("", text).strip()


def is_nudge(text: str) -> bool:
    """An orchestrator's "Continue with the task": it carries on, asks for nothing."""
    if len(text) > 200:
        return False
    said = without_noise(text)
    if _NUDGE.match(said) is not None or _RUNTIME_COMMAND.match(said) is not None:
        return True
    # "You were interrupted. Continue from where you left off.": any clause may carry on.
    clauses = re.split(r"[.,:;!]\s+", said)
    return (any(_CARRY_ON.match(clause) for clause in clauses)
            and len(WORD.findall(said)) <= NUDGE_WORDS and not names_something(said)
            and not is_rule(said) and _CONTRAST.search(said) is None)
