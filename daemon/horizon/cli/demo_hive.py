"""The demo's folder and hive: claimed only when new, empty or made by the demo, its
settings and config.json, and the simulated bee's journal lines."""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
from pathlib import Path

from horizon.cli.exits import DemoError
from horizon.hive.layout import (
    BEES,
    DERIVED,
    HIVE_SETTINGS,
    LOCK,
    PHARES,
    WINDOW,
    bee_settings_path,
    bees_dir,
    live_path,
    window_dir,
)
from horizon.hive.lock import holder

HORIZON_BEE = "mia"
CLASSIC_BEE = "noe"
MARKER = ".horizon-demo"
CONFIG_FILE = "config.json"
LOG_DIR = "logs"
DAEMON_ERRORS = "daemon.stderr"
# What makes a folder a hive: the demo refuses to write into one it did not make.
HIVE_NAMES = (WINDOW, BEES, HIVE_SETTINGS, LOCK)
# What the demo removes when it starts its own folder afresh; the lock file stays, since
# removing a lock file is how two holders end up with two different files.
OWNED_NAMES = (WINDOW, BEES, DERIVED, PHARES, HIVE_SETTINGS, LOG_DIR, CONFIG_FILE)
_MARKER_TEXT = (
    "This folder is a demo hive made by `horizon demo`.\n"
    "The next `horizon demo` on it deletes its hive (" + ", ".join(OWNED_NAMES) + ")\n"
    "and starts afresh. Delete this file to keep the hive from that.\n"
)

_TASKS = [
    ("compose la page fromagerie", "bash", "a composé honey/template-fromagerie.html, style "
     "ardoise et lin."),
    ("corrige le test de rotation", "pytest", "tests/test_rotation.py passe désormais ; le "
     "bug venait d'un offset mal remis à zéro."),
    ("liste les fichiers du dossier honey", "ls", "honey/ contient index.html, style.css et "
     "fromagerie.md."),
    ("lance la construction", "make", "error: la cible build a échoué (failed: missing "
     "dependency rich)."),
    ("résume le ticket 42", "", "Le ticket 42 demande un export CSV des commandes, par mois."),
]
_ASKS = [
    "mia, garde le ton chaleureux sur toute la boutique",
    "n'oublie pas : le fromage de chèvre doit apparaître en premier",
    "peux-tu vérifier la page sur mobile avant ce soir ?",
]



# --- the demo's folder ------------------------------------------------------------------


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def claim_folder(root: Path) -> None:
    """Make `root` the demo's: refuse, before writing anything, a folder that is not a
    folder, holds a hive or anything else the demo did not make; empty a folder the demo
    made (its marker is there) unless a daemon still serves it."""
    if root.is_symlink() or (root.exists() and not root.is_dir()):
        raise DemoError(f"{root}: not a folder")
    if not root.exists():
        return
    if _is_regular(root / MARKER):
        pid = holder(root)
        if pid is not None:
            held_by = f"pid {pid}" if pid > 0 else "another process"
            raise DemoError(f"{root}: a daemon ({held_by}) still serves this demo hive; "
                            f"stop it first")
        for name in OWNED_NAMES:
            _remove(root / name)
        return
    present = [name for name in HIVE_NAMES if os.path.lexists(root / name)]
    if present:
        raise DemoError(f"{root} already holds a hive ({', '.join(present)}) that the demo "
                        f"did not make: give --dir a new or empty folder")
    if any(root.iterdir()):
        raise DemoError(f"{root} is not empty and is no demo hive (no {MARKER}): give "
                        f"--dir a new or empty folder")


def _remove(path: Path) -> None:
    """Remove a file, a link (never what it points to) or a whole folder."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if stat.S_ISDIR(mode):
        shutil.rmtree(path)
    else:
        path.unlink()


def make_hive(root: Path) -> Path:
    """The demo hive: one bee with the horizon on and small budgets, one in handoff mode.

    Raises DemoError, having written nothing, when `root` is not the demo's to write."""
    claim_folder(root)
    root.mkdir(parents=True, exist_ok=True)
    # The marker first: a demo cut short while making its hive still owns the folder.
    (root / MARKER).write_text(_MARKER_TEXT, encoding="utf-8")
    window_dir(root).mkdir()
    bees_dir(root).mkdir()
    bee_settings_path(root, HORIZON_BEE).write_text(
        'mission = "Composer la boutique en ligne de la fromagerie"\n'
        "[horizon]\nactif = true\nbudget_net = 1600\nbudget_condense = 1200\n"
        "budget_recit = 1400\nage_net_heures = 24\ndebounce_s = 0.2\nmax_wait_s = 1\n",
        encoding="utf-8",
    )
    bee_settings_path(root, CLASSIC_BEE).write_text(
        'mission = "Tenir la comptabilité du rucher"\n[horizon]\nactif = false\n'
        "handoff_max = 1500\nligne_max = 120\ndebounce_s = 0.2\nmax_wait_s = 1\n",
        encoding="utf-8",
    )
    return root


def write_config(hive: Path) -> Path:
    """The demo's own config.json beside the hive: fast polling, its log inside the hive."""
    path = hive / CONFIG_FILE
    path.write_text(json.dumps({
        "hives": [str(hive)], "rotation_entries": 40, "rotate_wait_s": 1, "poll_s": 0.5,
        "sweep_s": 5, "log": {"dir": str(hive / LOG_DIR), "level": "info"},
    }, indent=2) + "\n", encoding="utf-8")
    return path


# --- the simulated bee ------------------------------------------------------------------


def exchange(rng: random.Random, when: float) -> bytes:
    """One simulated journal line: a task, a word from the apicultrice, or a bad line."""
    roll = rng.random()
    if roll < 0.05:
        return b'{"ts": "not a date", "type": "task"\n'
    record: dict[str, object]
    if roll < 0.25:
        record = {"ts": when, "type": "conversation", "from": "apicultrice",
                  "question": rng.choice(_ASKS), "answer": "Entendu, je m'en occupe."}
    else:
        question, tool, answer = rng.choice(_TASKS)
        if rng.random() < 0.15:
            answer += " Détail : " + "ligne de sortie du programme. " * 60
        record = {"ts": when, "type": "tool" if tool else "task", "question": question,
                  "answer": answer}
        if tool:
            record["tool"] = tool
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"


def append_line(window: Path, bee: str, line: bytes) -> None:
    """The writer contract: one write() on an O_APPEND descriptor."""
    fd = os.open(live_path(window, bee), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)
