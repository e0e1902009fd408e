"""Helpers for the daemon stress tests: a hive with small budgets, writer processes, a real
`horizon run` process, and readers for everything the daemon leaves on disk.

Run as a script, this module is the writer: `python stress_harness.py JOURNAL WRITER COUNT
MODE MAX_SLEEP_S SEED [STOP_FILE]` appends up to COUNT lines (each with one `write()` on an
`O_APPEND` descriptor, the writer contract), stops early when STOP_FILE
appears, and prints how many lines it wrote. MODE `append` opens, writes and closes the live
journal for every line; MODE `hold` opens it once at start and keeps that descriptor, so
after a rotation its lines land in the moved segment (late lines).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BEE = "b"
HORIZON = shutil.which("horizon") or str(Path(sys.executable).parent / "horizon")
WRITER = str(Path(__file__).resolve())
BUDGETS = {"budget_net": 3000, "budget_condense": 2000, "budget_recit": 1500}
CAP = sum(BUDGETS.values())
HEADER = "<!-- horizon format=1 "
DEADLINE_S = 60.0
_ARCHIVED = re.compile(rf"^{BEE}-messages\.(\d{{6}})\.jsonl$")


# -- the hive and its settings ----------------------------------------------------------------


def make_hive(root: Path) -> tuple[Path, Path]:
    """A hive whose bee has the horizon on with small budgets; (hive, config.json)."""
    hive = root / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "bees").mkdir()
    budgets = "".join(f"{key} = {value}\n" for key, value in BUDGETS.items())
    (hive / "bees" / f"{BEE}.toml").write_text(f"[horizon]\nactif = true\n{budgets}",
                                               encoding="utf-8")
    config = root / "config.json"
    config.write_text(json.dumps({
        "hives": [str(hive)],
        "log": {"dir": str(root / "logs")},
        "rotation_entries": 50,
        "rotate_wait_s": 0.5,
        "poll_s": 0.2,
        "horizon": {"debounce_s": 0.05, "max_wait_s": 0.3},
    }), encoding="utf-8")
    return hive, config


def live_journal(hive: Path) -> Path:
    return hive / "window" / f"{BEE}-messages.jsonl"


def question(writer: str, n: int) -> str:
    return f"{writer}-{n}"


def journal_line(writer: str, n: int) -> bytes:
    """One unique line: its question names the writer and its rank in that writer's run."""
    answer = (f"Réponse {n} de {writer} : fichier src/module_{n % 7}.py relu, tests verts. "
              + f"détail {n} " * 25)
    fields = {"ts": time.time(), "type": "task", "question": question(writer, n),
              "answer": answer}
    return (json.dumps(fields, ensure_ascii=False) + "\n").encode("utf-8")


# -- writer processes -------------------------------------------------------------------------


def start_writer(journal: Path, writer: str, count: int, mode: str, max_sleep_s: float,
                 seed: int, stop_file: Path | None = None) -> subprocess.Popen[str]:
    args = [sys.executable, WRITER, str(journal), writer, str(count), mode, str(max_sleep_s),
            str(seed)]
    if stop_file is not None:
        args.append(str(stop_file))
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_writer(process: subprocess.Popen[str]) -> int:
    """Wait for a writer; the number of lines it wrote."""
    stdout, stderr = process.communicate(timeout=DEADLINE_S)
    assert process.returncode == 0, stderr
    return int(stdout.strip())


def _write(journal: Path, writer: str, count: int, mode: str, max_sleep_s: float, seed: int,
           stop_file: Path | None) -> int:
    rng = random.Random(seed)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    held = os.open(journal, flags, 0o640) if mode == "hold" else None
    written = 0
    try:
        for n in range(1, count + 1):
            if stop_file is not None and stop_file.exists():
                break
            line = journal_line(writer, n)
            fd = held if held is not None else os.open(journal, flags, 0o640)
            try:
                done = os.write(fd, line)
            finally:
                if held is None:
                    os.close(fd)
            if done != len(line):
                raise OSError(f"{writer}: short write of line {n}")
            written = n
            time.sleep(rng.uniform(0, max_sleep_s))
    finally:
        if held is not None:
            os.close(held)
    return written


# -- the daemon -------------------------------------------------------------------------------


class Daemon:
    """`horizon run --config CONFIG` as a real process; stdout and stderr go to files."""

    def __init__(self, config: Path, root: Path) -> None:
        self.config = config
        self.root = root
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("HORIZON_CONFIG", "NOTIFY_SOCKET", "WATCHDOG_USEC",
                                   "INVOCATION_ID", "JOURNAL_STREAM")}

    def start(self) -> None:
        assert self.process is None
        self.starts += 1
        out = (self.root / f"daemon-{self.starts}.out").open("wb")
        err = (self.root / f"daemon-{self.starts}.err").open("wb")
        with out, err:
            self.process = subprocess.Popen([HORIZON, "run", "--config", str(self.config)],
                                            stdout=out, stderr=err, env=self.env)

    def kill(self) -> None:
        """kill -9: no chance to finish anything."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=DEADLINE_S)
        self.process = None

    def stop(self) -> int:
        """SIGTERM, then the exit code."""
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=DEADLINE_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process = None
        return code

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stderr(self) -> str:
        return "".join((self.root / f"daemon-{n}.err").read_text(encoding="utf-8",
                                                                 errors="replace")
                       for n in range(1, self.starts + 1))


def wait_until(condition: Callable[[], bool], what: str, timeout_s: float = DEADLINE_S,
               daemon: Daemon | None = None) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if daemon is not None and daemon.process is not None:
            assert daemon.alive(), f"the daemon died while waiting for {what}: " + (
                daemon.stderr()[-3000:])
        assert time.monotonic() < deadline, f"gave up after {timeout_s} s waiting for {what}"
        time.sleep(0.05)


def log_events(root: Path) -> list[dict[str, Any]]:
    """Every complete log record (a kill -9 may tear the last one)."""
    path = root / "logs" / "horizon.jsonl"
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict):
            events.append(record)
    return events


def count_events(root: Path, event: str) -> int:
    return sum(1 for record in log_events(root) if record.get("event") == event)


def wait_for_event(root: Path, event: str, more_than: int, daemon: Daemon) -> None:
    """Until the log holds more than `more_than` records of `event`."""
    wait_until(lambda: count_events(root, event) > more_than, f"{event} #{more_than + 1}",
               daemon=daemon)


# -- what is on disk --------------------------------------------------------------------------


def state_path(hive: Path) -> Path:
    return hive / "horizon" / BEE / "state.json"


def handoff_path(hive: Path) -> Path:
    return hive / "horizon" / BEE / "handoff.md"


def read_state(hive: Path) -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads(state_path(hive).read_bytes())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    return state


def up_to(hive: Path) -> int:
    state = read_state(hive)
    return -1 if state is None else int(state["zones"]["up_to"])


def segment_files(hive: Path) -> list[Path]:
    """Archive segments in number order, then the live journal: the order of seqs."""
    archive = hive / "window" / "archive"
    names = sorted(name for name in os.listdir(archive) if _ARCHIVED.match(name)) if (
        archive.is_dir()) else []
    files = [archive / name for name in names]
    if live_journal(hive).exists():
        files.append(live_journal(hive))
    return files


def journal_questions(hive: Path) -> dict[str, list[str]]:
    """Each journal file's questions in file order; every line must be complete JSON."""
    found = {}
    for path in segment_files(hive):
        data = path.read_bytes()
        assert not data or data.endswith(b"\n"), f"{path.name}: a torn last line"
        found[path.name] = [json.loads(line)["question"] for line in data.splitlines()
                            if line.strip()]
    return found


def manifest_records(hive: Path) -> list[dict[str, Any]]:
    path = hive / "window" / "archive" / f"{BEE}-segments.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def history(hive: Path, config: Path) -> list[tuple[int, str | None]]:
    """(seq, question) of every record, from seq 1, read in-process by the reader the daemon
    and `rebuild` use (question None for a rejected line)."""
    from horizon.core.entries import Entry, Rejection
    from horizon.engine.stepping import PassRequest, run_pass
    from horizon.hive.settings_files import effective_settings, load_global

    settings = load_global(config)
    effective = effective_settings(settings, str(config), hive, BEE)
    records: list[tuple[int, str | None]] = []

    def on_record(record: Entry | Rejection) -> None:
        records.append((record.seq, record.question if isinstance(record, Entry) else None))

    run_pass(PassRequest(hive, BEE, settings, effective, time.time(), None, on_record=on_record))
    return records


def rebuild(hive: Path, config: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "HORIZON_CONFIG"}
    result = subprocess.run([HORIZON, "rebuild", str(hive), "--config", str(config)],
                            capture_output=True, text=True, env=env, timeout=DEADLINE_S,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


if __name__ == "__main__":
    path, name, lines, how, pause, seed_arg, *stop = sys.argv[1:]
    total = _write(Path(path), name, int(lines), how, float(pause), int(seed_arg),
                   Path(stop[0]) if stop else None)
    print(total)
