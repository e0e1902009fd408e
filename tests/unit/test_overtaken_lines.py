"""The récit learns an exchange when it folds; until then the exchange is shown below it,
whole in net or condensed, and the récit must not say the opposite above it: a failure a
later run fixed, a ticket since closed (held-out round five)."""

from __future__ import annotations

from typing import Any

from horizon.core.entries import Entry
from horizon.core.labels import DECISIONS, ENGLISH, ERRORS, WORK
from horizon.core.recit import Recit
from horizon.core.render import render
from horizon.core.settings import HorizonSettings
from horizon.core.truncation import Truncation
from horizon.core.zone_state import Context, Zones
from tests.unit.ingesting import apply
from tests.unit.strategies import START

SETTINGS = HorizonSettings(actif=True, langue="en", budget_net=1500, budget_condense=900)
FAILED = ("tests/test_wind.py::test_gust FAILED\nE   AssertionError: 3 != 4\n"
          "==== 1 failed, 11 passed in 0.52s ====")
PASSED = "==== 12 passed in 0.41s ===="


def _filler(seqs: range) -> list[Entry]:
    return [Entry(seq=seq, instant=START + seq, type="tool", tool="Bash",
                  question=f"cat docs/notes{seq}.md", answer="notes " * 60, ok=True)
            for seq in seqs]


def _call(seq: int, command: str, output: str, ok: bool) -> Entry:
    return Entry(seq=seq, instant=START + seq, type="tool", tool="Bash", question=command,
                 answer=output, ok=ok)


def _bee(seq: int, answer: str) -> Entry:
    return Entry(seq=seq, instant=START + seq, type="assistant", question="", answer=answer)


def _view(lines: list[Entry]) -> tuple[Zones, str]:
    zones = Zones()
    ctx = Context("mia", SETTINGS, Truncation(240, ENGLISH), START + len(lines) + 1, None)
    apply(zones, lines, ctx)
    return zones, render(zones, "mia", SETTINGS, None).text


def _section(text: str, name: str) -> str:
    return text.split(f"### {name}\n", 1)[1].split("\n###", 1)[0]


def _folded_and_waiting(zones: Zones, folded: int, waiting: int) -> None:
    assert zones.recit.facts.newest >= folded  # the récit learnt it
    assert waiting in [item.seq for item in (*zones.condense, *zones.net)]


def test_a_failure_fixed_below_the_recit_leaves_errors() -> None:
    lines = [_call(1, "pytest tests/test_wind.py", FAILED, ok=False), *_filler(range(2, 40))]
    lines.append(_call(40, "pytest tests/test_wind.py", PASSED, ok=True))
    zones, text = _view(lines)
    _folded_and_waiting(zones, 1, 40)
    assert any("pytest" in line.text for line in zones.recit.lines_of(ERRORS))
    assert "#1 pytest" not in _section(text, ENGLISH.title(ERRORS))


def test_a_failure_failing_again_below_the_recit_stays_open() -> None:
    lines = [_call(1, "pytest tests/test_wind.py", FAILED, ok=False), *_filler(range(2, 40))]
    lines.append(_call(40, "pytest tests/test_wind.py", FAILED, ok=False))
    zones, text = _view(lines)
    _folded_and_waiting(zones, 1, 40)
    assert "#1 pytest" in _section(text, ENGLISH.title(ERRORS))


def test_a_ticket_closed_below_the_recit_is_no_longer_in_flight() -> None:
    lines = [_bee(1, "Picked up ENG-412: the retry loop double-charges. Marked in progress."),
             _bee(2, "Picked up ENG-415: the webhook signature is not checked."),
             *_filler(range(3, 40)), _bee(40, "ENG-412 closed: the fix is merged.")]
    zones, text = _view(lines)
    _folded_and_waiting(zones, 2, 40)
    assert {"ENG-412", "ENG-415"} <= {name for name, ticket in zones.recit.facts.tickets.items()
                                      if ticket.in_flight}
    work = _section(text, ENGLISH.title(WORK))
    assert "ENG-415" in work and "ENG-412" not in work


def test_a_ticket_closed_then_reopened_below_the_recit_stays_in_flight() -> None:
    lines = [_bee(1, "Picked up ENG-412: the retry loop double-charges. Marked in progress."),
             *_filler(range(2, 39)), _bee(39, "ENG-412 closed: the fix is merged."),
             _bee(40, "Reopened ENG-412, moved back to In Progress: staging still fails.")]
    _, text = _view(lines)
    assert "ENG-412" in _section(text, ENGLISH.title(WORK))


def test_the_view_without_waiting_exchanges_shows_the_recit_as_it_is() -> None:
    lines = [_call(1, "pytest tests/test_wind.py", FAILED, ok=False), *_filler(range(2, 40))]
    zones, _ = _view(lines)
    recit = zones.recit
    assert isinstance(recit, Recit) and recit.lines_of(ERRORS)
    from horizon.core.overtaken import overtaken
    assert overtaken(recit, (), (), ENGLISH, 240) is recit
    assert overtaken(recit, zones.condense, zones.net, ENGLISH, 240) is recit


# -- tickets a tracker's command takes, moves or files (held-out round five) ---------------

def test_a_tracker_command_that_takes_moves_or_files_a_ticket_opens_it() -> None:
    from tests.unit.test_recit_sections import Session
    session = Session()
    session.call("gh issue edit 2160 --add-assignee @me --add-label in-progress",
                 "https://github.com/dana/ledgerly/issues/2160")
    session.call('jira issue move PAY-845 "En cours"',
                 '✓ Issue transitioned to state "En cours"')
    session.call("gh issue develop 2147 --checkout", "Switched to branch 2147-retries")
    session.call('gh issue create --title "Dunning emails sent twice" --label bug',
                 "Creating issue in dana/ledgerly\n\nhttps://github.com/dana/ledgerly/issues/2153")
    session.call('jira issue create -tBug -s"Refund twice"',
                 "✓ Issue created\nhttps://paybox.atlassian.net/browse/PAY-812")
    # Not taken: a label that says nothing of work, someone else assigned.
    session.call("gh issue edit 12 --add-label bug", "https://github.com/dana/ledgerly/issues/12")
    session.call("gh issue edit 13 --assignee alice", "https://github.com/dana/ledgerly/issues/13")
    work = " ".join(session.section("Travail en cours"))
    for name in ("#2160", "PAY-845", "#2147", "#2153", "PAY-812"):
        assert name in work, (name, work)
    assert "#12 " not in work and "#13" not in work
    session.call('jira issue move PAY-845 "Terminé"', "✓ Issue transitioned")
    assert "PAY-845" not in " ".join(session.section("Travail en cours"))


def test_a_ticket_the_bee_says_it_filed_is_open() -> None:
    from tests.unit.test_recit_sections import Session
    session = Session()
    session.bee("", "Filed as #2153; I'll work on it after the current item.")
    session.bee("", "J'ai créé PAY-812 pour le suivi du double remboursement.")
    work = " ".join(session.section("Travail en cours"))
    assert "#2153" in work and "PAY-812" in work


def _operator(seq: int, words: str) -> Entry:
    return Entry(seq=seq, instant=START + seq, type="conversation", sender="apicultrice",
                 question=words, answer="OK.")


def test_a_decision_replaced_below_the_recit_leaves_decisions() -> None:
    lines = [_bee(1, "Decision: we'll use Redis for the idempotency keys, with a 24h TTL."),
             _bee(2, "Decision: zerolog for the logs in the new code."),
             *_filler(range(3, 40)),
             _operator(40, "Scrap Redis for idempotency keys. Put them in Postgres, an "
                           "idempotency_keys table.")]
    zones, text = _view(lines)
    _folded_and_waiting(zones, 2, 40)
    decisions = _section(text, ENGLISH.title(DECISIONS))
    assert "zerolog" in decisions and "Redis" not in decisions


def test_what_is_read_of_net_exchanges_is_kept_only_while_they_are_there() -> None:
    """A bee's memo keeps each net exchange's reading for the next view, and lets it go
    with the exchange: a daemon's memory does not grow with the journal."""
    lines = [_call(1, "pytest tests/test_wind.py", FAILED, ok=False), *_filler(range(2, 40))]
    zones = Zones()
    ctx = Context("mia", SETTINGS, Truncation(240, ENGLISH), START + 100, None)
    memo: dict[Any, Any] = {}
    for seq in range(40, 80):
        apply(zones, [*lines, *_filler(range(40, seq + 1))] if seq == 40
              else _filler(range(seq, seq + 1)), ctx)
        render(zones, "mia", SETTINGS, None, memo)
        read = {key[1] for key in memo if key[0] == "read"}
        assert read and read <= {item.seq for item in zones.net}
