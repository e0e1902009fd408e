"""`horizon demo`: a demo hive, a simulated bee writing to it, the zones filling live."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Group
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from horizon.core.blocks import net_overhead
from horizon.core.recit import render_recit
from horizon.core.settings import BUILTIN, GlobalConfig
from horizon.hive.layout import (
    bee_settings_path,
    bees_dir,
    handoff_path,
    live_path,
    window_dir,
)
from horizon.hive.settings_files import effective_settings
from horizon.hive.store import load_state

HORIZON_BEE = "mia"
CLASSIC_BEE = "noe"
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


def make_hive(root: Path) -> Path:
    """The demo hive: one bee with the horizon on and small budgets, one in handoff mode."""
    window_dir(root).mkdir(parents=True, exist_ok=True)
    bees_dir(root).mkdir(exist_ok=True)
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
    path = hive / "config.json"
    path.write_text(json.dumps({
        "hives": [str(hive)], "rotation_entries": 40, "rotate_wait_s": 1, "poll_s": 0.5,
        "sweep_s": 5, "log": {"dir": str(hive / "logs"), "level": "info"},
    }, indent=2) + "\n", encoding="utf-8")
    return path


def start_daemon(config: Path) -> subprocess.Popen[bytes]:
    """`horizon run` in its own process, as an operator would run it."""
    return subprocess.Popen(
        [sys.executable, "-m", "horizon", "run", "--config", str(config)],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )


def stop_daemon(daemon: subprocess.Popen[bytes]) -> int:
    if daemon.poll() is None:
        daemon.send_signal(signal.SIGTERM)
    try:
        return daemon.wait(timeout=15)
    except subprocess.TimeoutExpired:
        daemon.kill()
        return daemon.wait()


def recent_events(hive: Path, count: int = 8) -> Table:
    table = Table(title="dernières actions du démon", expand=False, show_edge=False)
    for column in ("ts", "bee", "event", "details"):
        table.add_column(column)
    path = hive / "logs" / "horizon.jsonl"
    try:
        with path.open("rb") as stream:
            stream.seek(max(0, path.stat().st_size - 8192))
            lines = stream.read().decode("utf-8", "replace").splitlines()[-count:]
    except OSError:
        return table
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        details = ", ".join(f"{k}={v}" for k, v in record.items()
                            if k not in ("ts", "bee", "event", "hive", "level"))
        table.add_row(str(record.get("ts", ""))[11:19], str(record.get("bee", "")),
                      str(record.get("event", "")), details[:70])
    return table


def exchange(rng: random.Random, when: float) -> bytes:
    """One simulated journal line: a task, a word from the apicultrice, or a bad line."""
    roll = rng.random()
    if roll < 0.05:
        return b'{"ts": "not a date", "type": "task"\n'
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


def _bar(used: int, budget: int) -> Group:
    label = Text(f"{used}/{budget}", style="bold red" if used > budget else "")
    return Group(ProgressBar(total=budget, completed=min(used, budget), width=12), label)


def zones_table(hive: Path, config: GlobalConfig) -> Table:
    table = Table(title=f"horizon demo — {hive}", expand=False)
    for column in ("bee", "mode", "entries", "rejected", "net", "condensé", "récit",
                   "handoff.md"):
        table.add_column(column)
    for bee in (HORIZON_BEE, CLASSIC_BEE):
        state = load_state(hive, bee)
        if state is None:
            table.add_row(bee, "-", "0", "0", "", "", "", "")
            continue
        effective = effective_settings(config, BUILTIN, hive, bee)
        settings = effective.horizon
        zones = state.zones
        handoff = handoff_path(hive, bee)
        size = len(handoff.read_text(encoding="utf-8")) if handoff.exists() else 0
        if settings.actif:
            recit = len(render_recit(zones.recit, effective.mission or zones.first_lighthouse))
            table.add_row(
                bee, "horizon", str(zones.accepted), str(zones.rejected),
                _bar(net_overhead(bee) + zones.net_chars, settings.budget_net),
                _bar(zones.condense_chars, settings.budget_condense),
                _bar(recit, settings.budget_recit), _bar(size, settings.cap),
            )
        else:
            table.add_row(bee, "handoff", str(zones.accepted), str(zones.rejected), "-", "-",
                          "-", _bar(size, settings.cap))
    return table


def _screen(hive: Path, config: GlobalConfig) -> Group:
    return Group(zones_table(hive, config), recent_events(hive))


def simulate(hive: Path, config: GlobalConfig, seconds: float | None,
             daemon: subprocess.Popen[bytes], interval: float = 0.25, seed: int = 7) -> int:
    """Append exchanges to both bees and redraw the zones until time is up or Ctrl-C."""
    rng = random.Random(seed)
    window = window_dir(hive)
    deadline = None if seconds is None else time.monotonic() + seconds
    written = 0
    try:
        with Live(_screen(hive, config), refresh_per_second=4) as live:
            while deadline is None or time.monotonic() < deadline:
                if daemon.poll() is not None:
                    error = daemon.stderr.read().decode() if daemon.stderr else ""
                    raise DemoError(f"the daemon stopped (exit {daemon.returncode}): {error}")
                bee = HORIZON_BEE if rng.random() < 0.7 else CLASSIC_BEE
                append_line(window, bee, exchange(rng, time.time()))
                written += 1
                live.update(_screen(hive, config))
                time.sleep(interval)
            time.sleep(1.0)  # let the daemon catch up on the last lines
            live.update(_screen(hive, config))
    except KeyboardInterrupt:
        pass
    return written


class DemoError(Exception):
    """The demo cannot go on (its daemon died)."""
