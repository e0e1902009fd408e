"""Whether the daemon may link a journal into the archive, as fs/namei.c's may_linkat
judges it under fs.protected_hardlinks."""

from __future__ import annotations

import os
import stat

import pytest

from horizon.hive.links import Identity, link_refusal

DAEMON = Identity(uid=200, gids=frozenset({200, 300}), name="horizon")
ROOT = Identity(uid=0, gids=frozenset({0}), name="root", fowner=True, dac_override=True)
CAPLESS_ROOT = Identity(uid=0, gids=frozenset({0}), name="root without capabilities")


def journal(mode: int, uid: int = 100, gid: int = 300, kind: int = stat.S_IFREG
            ) -> os.stat_result:
    return os.stat_result((kind | mode, 1, 1, 1, uid, gid, 0, 0, 0, 0))


@pytest.mark.parametrize(("info", "who", "refused"), [
    (journal(0o600, uid=200), DAEMON, False),  # its own
    (journal(0o660), DAEMON, False),  # the hive group may read and write it
    (journal(0o640), DAEMON, True),  # the README's snippet under umask 022
    (journal(0o666, gid=999), DAEMON, False),  # others may read and write it
    (journal(0o664, gid=999), DAEMON, True),
    (journal(0o6660), DAEMON, True),  # setuid
    (journal(0o2670), DAEMON, True),  # setgid and group-executable
    (journal(0o2660), DAEMON, False),  # setgid alone: mandatory locking, not a program
    (journal(0o660, kind=stat.S_IFIFO), DAEMON, True),
    (journal(0o600), ROOT, False),
    (journal(0o644), CAPLESS_ROOT, True),
])
def test_the_kernels_rule(info: os.stat_result, who: Identity, refused: bool) -> None:
    assert (link_refusal(info, who, protected=True) is not None) is refused


def test_without_protection_anything_links() -> None:
    assert link_refusal(journal(0o600), DAEMON, protected=False) is None


def test_the_reason_names_the_user_and_the_mode() -> None:
    reason = link_refusal(journal(0o640), DAEMON, protected=True)
    assert reason is not None and "horizon" in reason and "0640" in reason and "0660" in reason
