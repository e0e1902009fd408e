"""Whether a user may hard-link a journal into the archive, as the kernel judges it.

With `fs.protected_hardlinks = 1` (the default of most distributions) a user may link a
file only if they own it, or if it is a regular file they may read and write that is
neither setuid nor setgid-executable (fs/namei.c, `may_linkat`). Root may link anything.
Rotation asks before it writes its intent, so a refused link records nothing; `check`
asks for the daemon's user, whoever runs it.
"""

from __future__ import annotations

import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path

PROTECTED_HARDLINKS = Path("/proc/sys/fs/protected_hardlinks")
CAP_DAC_OVERRIDE = 1
CAP_FOWNER = 3


@dataclass(frozen=True)
class Identity:
    """The user a process acts as on files: its filesystem uid and groups, and whether it
    may pass over owners (CAP_FOWNER) and modes (CAP_DAC_OVERRIDE), as root usually may."""

    uid: int
    gids: frozenset[int]
    name: str  # how a message names it
    fowner: bool = False
    dac_override: bool = False

    @classmethod
    def of_this_process(cls) -> Identity:
        found = cls.of_process(os.getpid(), "this process")
        if found is not None:
            return found
        uid = os.geteuid()
        return cls(uid, frozenset([os.getegid(), *os.getgroups()]), _user_name(uid),
                   fowner=uid == 0, dac_override=uid == 0)

    @classmethod
    def of_process(cls, pid: int, what: str | None = None) -> Identity | None:
        """From /proc: the filesystem uid, groups and capabilities of a running process."""
        try:
            lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        except OSError:
            return None
        fields = dict(line.split(":", 1) for line in lines if ":" in line)
        try:
            uid = int(fields["Uid"].split()[3])  # real, effective, saved, filesystem
            gids = {int(fields["Gid"].split()[3]), *map(int, fields["Groups"].split())}
            caps = int(fields["CapEff"].strip(), 16)
        except (KeyError, IndexError, ValueError):
            return None
        return cls(uid, frozenset(gids), f"{_user_name(uid)} ({what or f'pid {pid}'})",
                   fowner=bool(caps >> CAP_FOWNER & 1),
                   dac_override=bool(caps >> CAP_DAC_OVERRIDE & 1))

    @classmethod
    def of_user(cls, uid: int) -> Identity:
        """A user by uid, with the groups the user database gives them."""
        try:
            entry = pwd.getpwuid(uid)
            gids = frozenset(os.getgrouplist(entry.pw_name, entry.pw_gid))
        except (KeyError, OSError):
            gids = frozenset()
        return cls(uid, gids, _user_name(uid), fowner=uid == 0, dac_override=uid == 0)


def _user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def hardlinks_protected() -> bool:
    try:
        return PROTECTED_HARDLINKS.read_text().strip() == "1"
    except OSError:
        return False


def link_refusal(info: os.stat_result, who: Identity, protected: bool) -> str | None:
    """Why `who` may not link the file `info` describes, or None when it may."""
    if not protected or who.fowner or info.st_uid == who.uid:
        return None
    mode = info.st_mode
    if not stat.S_ISREG(mode):
        return "not a regular file"
    if mode & stat.S_ISUID or (mode & stat.S_ISGID and mode & stat.S_IXGRP):
        return "a setuid or setgid file"
    if who.dac_override:
        return None
    if info.st_gid in who.gids:
        allowed = stat.S_IRGRP | stat.S_IWGRP
        kind = "group"
    else:
        allowed = stat.S_IROTH | stat.S_IWOTH
        kind = "others"
    if mode & allowed != allowed:
        return (f"fs.protected_hardlinks: {who.name} does not own it and may not read and "
                f"write it (mode {stat.S_IMODE(mode):04o}, {kind}); make it 0660 in the "
                "hive group")
    return None
