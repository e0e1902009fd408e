"""What an issue tracker's command line does to its tickets (pure, ADR 0008): `bd update
X --status in_progress` opens X, `bd close X` or `gh issue close 12` closes it, `gh issue
reopen 12` or a status moved back to "in progress" opens it again.

The runtime ran the command: the tracker's state is what the command set, read from its
words. A command that shows one ticket (`linear issue view ENG-4111`, an MCP tool such as
`mcp__linear__get_issue`) reports its last move ("moved ENG-4111 from Done to In
Progress"); the other tickets an output names are not touched.
"""

from __future__ import annotations

import re

from horizon.core.commands import program_words, simple_commands
from horizon.core.patterns import Pattern
from horizon.core.tickets import CLOSES, OPENS, ticket_names

_TRACKERS = frozenset(["bd", "beads", "gh", "glab", "linear", "jira", "tea", "hub"])
_CLOSING_VERBS = frozenset(["close", "done", "resolve", "finish", "complete", "merge"])
_OPENING_VERBS = frozenset(["reopen", "start", "claim", "assign", "begin", "develop"])
# `jira issue move PAY-812 "In Progress"`: the state a ticket is moved to, said last.
_MOVING_VERBS = frozenset(["move", "transition"])
_CREATING_VERBS = frozenset(["create", "new"])
_STATE_OPTIONS = frozenset(["--status", "-s", "--state", "--transition"])
# `gh issue edit 12 --add-assignee @me`, `--add-label in-progress`: taken, or under way.
_TAKING_OPTIONS = frozenset(["--add-assignee", "--assignee", "-a", "--self-assign"])
_LABEL_OPTIONS = frozenset(["--add-label", "--label", "-l"])
_OPEN_STATES = frozenset(["in_progress", "in-progress", "inprogress", "in progress",
                          "started", "open", "opened", "reopened", "todo", "doing",
                          "active", "wip", "in review", "review", "en cours",
                          "en_cours", "en revue", "à faire"])
_CLOSED_STATES = frozenset(["closed", "done", "resolved", "complete", "completed",
                            "merged", "fixed", "shipped", "cancelled", "canceled",
                            "wontfix", "won't fix", "terminé", "terminée", "fait",
                            "fermé", "fermée", "résolu", "résolue", "livré"])
_UNDER_WAY_LABELS = frozenset(["in_progress", "in-progress", "inprogress", "wip", "doing"])
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
            states.append((_ticket_name(word), state, " ".join(words)[:200]))
    return states


def _ticket_name(word: str) -> str:
    """A tracker's ticket as the récit names it: `12` is #12, `eng-4111` is ENG-4111."""
    name = f"#{word.lstrip('#')}" if word.lstrip("#").isdigit() else word
    return name.upper() if _PROJECT_KEY.match(name) else name


def _state_of(words: list[str]) -> int | None:
    verbs = [word.lower() for word in words[1:3] if not word.startswith("-")]
    if any(verb in _CLOSING_VERBS for verb in verbs):
        return CLOSES
    if any(verb in _OPENING_VERBS for verb in verbs):
        return OPENS
    if any(verb in _MOVING_VERBS for verb in verbs) and not words[-1].startswith("-"):
        moved_to = _state_named(words[-1])
        if moved_to is not None:
            return moved_to
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if not equals:
            value = words[index + 1] if index + 1 < len(words) else ""
        if (option in _TAKING_OPTIONS and value.strip("'\"") in ("@me", "me", "")) or (
                option == "--self-assign"):
            return OPENS
        if option in _LABEL_OPTIONS and _key(value) in _UNDER_WAY_LABELS:
            return OPENS
        if option in _STATE_OPTIONS:
            state = _state_named(value)
            if state is not None:
                return state
    return None


def _key(state: str) -> str:
    return state.strip("'\"").lower().replace("-", "_").replace(" ", "_")


_OPEN_KEYS = frozenset(_key(state) for state in _OPEN_STATES)


def _state_named(value: str) -> int | None:
    key = _key(value)
    if key in _OPEN_KEYS:
        return OPENS
    if key in _CLOSED_KEYS:
        return CLOSES
    return None


# What a tracker prints of the ticket it made: its address, or its name after "Created".
_MADE = Pattern(r"/(?:issues|pull|merge_requests)/(\d{1,7})\b"
                r"|/browse/([A-Z][A-Z0-9]{1,9}-\d{1,6})\b"
                r"|\bcreated\s+(?:issue|ticket|story)?:?\s*([\w.-]+-[\w.]+)", re.IGNORECASE)


def created_states(command: str, output: str) -> list[tuple[str, int, str]]:
    """The ticket a tracker's `create` made (`gh issue create`, `bd create`, `jira issue
    create`), named in its output: filed, it is work to do, open until closed."""
    for simple in simple_commands(command):
        words = program_words(simple)
        if (len(words) >= 2 and words[0].rsplit("/", 1)[-1] in _TRACKERS
                and any(word.lower() in _CREATING_VERBS for word in words[1:3])):
            made = [next(group for group in match.groups() if group)
                    for match in _MADE.finditer(output)]
            names = list(dict.fromkeys(_ticket_name(name) for name in made))
            if len(names) == 1:
                return [(names[0], OPENS, f"{' '.join(words)[:160]} → {names[0]}")]
    return []


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


_SHOWING_VERBS = frozenset(["view", "show", "get", "info", "describe", "read"])
_TRACKER_TOOL = Pattern(r"^mcp__[\w-]*(?:linear|jira|github|gitlab|beads|tracker|issues?)"
                        r"[\w-]*__\w*(?:get|view|show|read|fetch)\w*$", re.IGNORECASE)
_MOVE = Pattern(r"\b(?:moved|transitioned|changed|passé)\b[^\n]{0,60}?\b(?:from|de)\s+[\w' -]+?"
                r"\s+(?:to|à|vers)\s+(?P<state>[\w' -]+?)\s*(?:$|[.,;)])",
                re.IGNORECASE | re.MULTILINE)


def shown_states(tool: str | None, command: str, output: str) -> list[tuple[str, int, str]]:
    """The state a command or tool that shows one ticket reports for it: the last move
    its history lists ("moved ENG-4111 from Done to In Progress"). A status line alone
    says nothing: a view can be stale, and a ticket looked at is not taken. Only work
    under way opens it (`In Progress`, not `open` or `todo`)."""
    if not _shows_a_ticket(tool, command):
        return []
    given = ticket_names(command) + [
        _ticket_name(word) for simple in simple_commands(command)
        for word in _ticket_words(program_words(simple))]
    named = [name for name in dict.fromkeys(given) if name in ticket_names(output)]
    if len(named) != 1:
        return []
    for found in reversed(list(_MOVE.finditer(output))):
        state = found["state"].strip().lower().replace("-", "_").replace(" ", "_")
        if state in _UNDER_WAY:
            return [(named[0], OPENS, found.group(0).strip()[:200])]
        if state in _CLOSED_KEYS:
            return [(named[0], CLOSES, found.group(0).strip()[:200])]
    return []


def _shows_a_ticket(tool: str | None, command: str) -> bool:
    if tool and "__" in tool and _TRACKER_TOOL.match(tool):
        return True
    if not any(name in command for name in _TRACKERS):
        return False  # most calls: no tracker named, no command line to take apart
    for simple in simple_commands(command):
        words = program_words(simple)
        if (len(words) >= 2 and words[0].rsplit("/", 1)[-1] in _TRACKERS
                and any(word.lower() in _SHOWING_VERBS for word in words[1:3])):
            return True
    return False


_UNDER_WAY = frozenset(["in_progress", "inprogress", "started", "doing", "reopened", "wip",
                        "in_review", "review", "en_cours"])
_CLOSED_KEYS = frozenset(state.replace("-", "_").replace(" ", "_") for state in _CLOSED_STATES)
