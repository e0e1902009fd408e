"""What an issue tracker's command line does to its tickets (pure, ADR 0008): `bd update
X --status in_progress` opens X, `bd close X` or `gh issue close 12` closes it, `gh issue
reopen 12` or a status moved back to "in progress" opens it again.

The runtime ran the command: the tracker's state is what the command set, read from its
words, never from its output (which names tickets it did not touch).
"""

from __future__ import annotations

from horizon.core.commands import program_words, simple_commands
from horizon.core.patterns import Pattern
from horizon.core.tickets import CLOSES, OPENS

_TRACKERS = frozenset(["bd", "beads", "gh", "glab", "linear", "jira", "tea", "hub"])
_CLOSING_VERBS = frozenset(["close", "done", "resolve", "finish", "complete", "merge"])
_OPENING_VERBS = frozenset(["reopen", "start", "claim", "assign", "begin"])
_STATE_OPTIONS = frozenset(["--status", "-s", "--state", "--transition"])
_OPEN_STATES = frozenset(["in_progress", "in-progress", "inprogress", "in progress",
                          "started", "open", "opened", "reopened", "todo", "doing",
                          "active", "wip", "in review", "review"])
_CLOSED_STATES = frozenset(["closed", "done", "resolved", "complete", "completed",
                            "merged", "fixed", "shipped", "cancelled", "canceled",
                            "wontfix", "won't fix"])
# A tracker's ticket: `ENG-4111`, a beads id (`spotter-4te.1`), an issue number.
_PROJECT_KEY = Pattern(r"^[A-Za-z][A-Za-z0-9]{1,9}-\d{1,6}$")
_TICKET_ID = Pattern(r"^(?:[A-Za-z][\w]*-[\w.]+|#?\d{1,7})$")


def tracker_states(command: str) -> list[tuple[str, int, str]]:
    """Each ticket a tracker command opens or closes, with the command as what said so."""
    states: list[tuple[str, int, str]] = []
    for simple in simple_commands(command):
        words = program_words(simple)
        if len(words) < 2 or words[0].rsplit("/", 1)[-1] not in _TRACKERS:
            continue
        state = _state_of(words)
        if state is None:
            continue
        for word in _ticket_words(words):
            name = f"#{word.lstrip('#')}" if word.lstrip("#").isdigit() else word
            if _PROJECT_KEY.match(name):  # `eng-4111` is the tracker's ENG-4111
                name = name.upper()
            states.append((name, state, " ".join(words)[:200]))
    return states


def _state_of(words: list[str]) -> int | None:
    verbs = [word.lower() for word in words[1:3] if not word.startswith("-")]
    if any(verb in _CLOSING_VERBS for verb in verbs):
        return CLOSES
    if any(verb in _OPENING_VERBS for verb in verbs):
        return OPENS
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option not in _STATE_OPTIONS:
            continue
        if not equals:
            value = words[index + 1] if index + 1 < len(words) else ""
        value = value.strip("'\"").lower().replace("-", "_").replace(" ", "_")
        if value in {state.replace("-", "_").replace(" ", "_") for state in _OPEN_STATES}:
            return OPENS
        if value in {state.replace("-", "_").replace(" ", "_") for state in _CLOSED_STATES}:
            return CLOSES
    return None


def _ticket_words(words: list[str]) -> list[str]:
    """The positional words after the subcommands that name tickets."""
    found: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = "=" not in word and word not in ("--force", "-f", "--json")
            continue
        if _TICKET_ID.match(word) and any(char.isdigit() for char in word):
            found.append(word)
    return found[:8]
