"""The récit's per-key records (pure values): what the deterministic rules remember of the
folded entries, each statement with the seq that made it (ADR 0008).

Every field is the newest statement of its kind for its key, so the newest one wins
whatever fold brought it, and the records are a function of the folded entries, not of
where the batches fell. They are kept for the folded entries within RECORD_SPAN seqs of
the newest one folded, and each kind is capped (the newest kept): the far past is in the
journal, and the operator's words in Paroles.
"""

from __future__ import annotations

import msgspec

# Records of entries more than this many seqs older than the newest folded are let go.
RECORD_SPAN = 2000
FILES_KEPT = 64
FAILURES_KEPT = 64  # of commands, and of test paths
TICKETS_KEPT = 64
DECISIONS_KEPT = 32
CHOICES_KEPT = 16  # of the choices the bee asked for, and of the operator's short replies


class Failure(msgspec.Struct, frozen=True, array_like=True):
    """A failure still open: the call's seq, its command (as shown, and as a rerun of it
    is known) and the line that says so; for a test run, its family (a later whole-suite
    success of the family resolves it) and the failing tests of its file, when known."""

    seq: int
    command: str
    key: str
    line: str
    suite: str = ""
    nodes: tuple[str, ...] = ()


class Ticket(msgspec.Struct, frozen=True, array_like=True):
    """A ticket's newest opening (or mention at work), closing and mention, by seq (0:
    none), and what its newest opening said."""

    opened: int
    closed: int
    worked: int
    said: str

    @property
    def newest(self) -> int:
        return max(self.opened, self.closed, self.worked)

    @property
    def in_flight(self) -> bool:
        return self.opened > self.closed


class Stated(msgspec.Struct, frozen=True, array_like=True):
    """A statement at a seq: the newest step, the newest task."""

    seq: int
    text: str
    asker: str | None = None  # a step an operator asked for: who


class Decision(msgspec.Struct, frozen=True, array_like=True):
    """A decision stated, what it is about, what it stops using, whether it says it
    reverses an earlier one, and whether the operator made it."""

    seq: int
    text: str
    words: tuple[str, ...]
    dropped: tuple[str, ...]
    reverses: bool = False
    by_operator: bool = False


class Asked(msgspec.Struct, frozen=True, array_like=True):
    """A choice the bee asked someone to make: the question, and the options it named."""

    seq: int
    text: str
    options: tuple[str, ...]


class Facts(msgspec.Struct, frozen=True):
    """What the deterministic summarizer remembers of the folded entries."""

    newest: int = 0  # the newest seq folded
    files: dict[str, int] = msgspec.field(default_factory=dict)  # path -> newest seq
    failures: dict[str, Failure] = msgspec.field(default_factory=dict)  # by command
    tests: dict[str, Failure] = msgspec.field(default_factory=dict)  # by failing test path
    tickets: dict[str, Ticket] = msgspec.field(default_factory=dict)
    # Every decision of the span, the replaced ones too: whether one is replaced is a
    # question for all of them, whatever order they were folded in.
    decisions: tuple[Decision, ...] = ()
    task: Stated | None = None
    step: Stated | None = None
    # The bee's questions that offer a choice, and the operator's short replies that
    # settled none yet: a reply that names one option settles it (`choices.settled`) and
    # becomes a decision, whichever of the two folded first.
    asks: tuple[Asked, ...] = ()
    replies: tuple[Stated, ...] = ()
