"""Which horizon modules one appended line passes, from the watcher's event to handoff.md
on disk (the writer thread included): a daemon's state built in process, one line
traced with sys.setprofile. Prints the modules and the count of steps between them.

    python bench/walk.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from horizon.hive.settings_files import load_global
from horizon.service import handlers, loop
from horizon.service.hive_service import HiveService
from horizon.service.messages import FileEvent
from horizon.service.state import DaemonState

BEE = "mia"


def walk() -> list[str]:
    """The horizon modules one line's handling enters, in order (repeats collapsed)."""
    root = Path(tempfile.mkdtemp(prefix="horizon-walk-"))
    hive = root / "hive"
    (hive / "window").mkdir(parents=True)
    journal = hive / "window" / f"{BEE}-messages.jsonl"
    line = json.dumps({"ts": time.time(), "type": "task", "question": "q", "answer": "a"})
    journal.write_text(line + "\n")
    config = root / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)], "horizon": {
        "actif": True, "debounce_s": 0.05, "max_wait_s": 0.05}}))
    state = DaemonState(config)
    state.config = load_global(config)
    service = HiveService(hive, state.config, str(config), writer=state.writer)
    state.services[hive] = service
    service.refresh_bees()
    service.process(BEE)  # the first line, and everything imported, before the trace
    state.writer.drain()
    loop.take_written(state)

    entered: list[str] = []

    def note(frame: FrameType, event: str, _arg: Any) -> None:
        name = frame.f_globals.get("__name__", "")
        if event == "call" and name.startswith("horizon.") and (
                not entered or entered[-1] != name):
            entered.append(name)

    with journal.open("a") as out:
        out.write(line + "\n")
    threading.setprofile(note)  # the writer thread's part too
    sys.setprofile(note)
    try:
        handlers.on_file_event(state, FileEvent(journal))
        time.sleep(0.1)  # past the debounce
        loop.run_due(state)
        state.writer.drain()
        loop.take_written(state)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]  # None removes it
        state.writer.close()
        service.close()
    assert (hive / "horizon" / BEE / "handoff.md").read_text().count("### #") == 2
    return entered


def main() -> int:
    entered = walk()
    modules = sorted(set(entered))
    print(f"{len(modules)} modules, {len(entered)} steps between them")
    print(" ".join(module.removeprefix("horizon.") for module in modules))
    return 0


if __name__ == "__main__":
    sys.exit(main())
