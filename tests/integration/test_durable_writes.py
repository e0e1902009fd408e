"""Writes near a full disk: a write() that takes only part of its bytes is not a record
written. A file-size limit (RLIMIT_FSIZE, with SIGXFSZ ignored) makes the kernel take part
of a write and refuse the rest, as a filling disk does."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent("""
    import resource, signal, sys
    from pathlib import Path
    from horizon.hive.durable import append_durably
    folder = Path(sys.argv[1])
    path = folder / "records.jsonl"
    path.write_bytes(b'{"kind": "sealed"}\\n')
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (path.stat().st_size + 10, resource.RLIM_INFINITY))
    try:
        append_durably(path, b'{"kind": "clamp", "seq": 1, "instant": 1.0}\\n', under=folder)
    except OSError as error:
        print("refused", error.errno)
    else:
        print("written")
""")


def test_a_record_the_disk_takes_only_part_of_is_a_failed_append(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.stdout.split() == ["refused", "27"], done.stderr  # EFBIG, after 10 bytes
    assert (tmp_path / "records.jsonl").stat().st_size == len(b'{"kind": "sealed"}\n') + 10
