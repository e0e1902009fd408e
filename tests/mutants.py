"""Each guard of a fast path, deleted in turn, must make a test fail (`make mutants`).

The fast paths (a block of lines decoded in one call, a run of entries stepped in one
loop, a pass that leaves its text work to its end, a view that reuses its earlier blocks)
each stand beside a plain path and take it only when their guards hold. A property pins
each pair equal; this script shows the pin holds by removing one guard at a time from a
copy of the package and running the tests named as its killers, which must fail.

    python tests/mutants.py            # every mutant
    python tests/mutants.py --list     # the mutants and their killers, nothing run
    python tests/mutants.py M4 M5      # some of them

A mutant is killed only when one of its killers fails (pytest's exit status 1): a
mutant that does not compile, or tests that cannot be collected, say nothing of the
guard. Exits 1 when a mutant survives or cannot be applied.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "daemon/horizon"

BLOCKS = "tests/integration/test_block_reading.py"
RANGES = "tests/integration/test_block_reading.py::test_late_ranges_read_by_blocks_as_by_lines"
RUNS = "tests/unit/test_ingest_runs.py"
DEFERRED = "tests/unit/test_deferred_text_work.py"
MEMO = "tests/unit/test_view_properties.py"
VERDICT = "tests/unit/test_verdict_guard.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    guard: str  # what the mutant deletes, in words
    path: str  # under the repository
    before: str  # the exact text, found once
    after: str
    killers: tuple[str, ...]  # pytest node ids, one of which must fail


MUTANTS = (
    Mutant("M1", "reader: a block holding a line over max_line_bytes is read line by line",
           f"{PACKAGE}/hive/reader.py",
           "                and (len(block) <= self.max_line_bytes\n"
           "                     or max(map(len, block.split(b\"\\n\"))) <= self.max_line_bytes))",
           "                and True)",
           (BLOCKS,)),
    Mutant("M2", "reader: a block holding a flagged or clamped seq is read line by line",
           f"{PACKAGE}/hive/reader.py",
           "                if not self.decoder.marked(first, first + count - 1):",
           "                if True:",
           (BLOCKS,)),
    Mutant("M2a", "reader: the flag half of that check",
           f"{PACKAGE}/hive/decoding.py",
           "        return self.flagged_within(first, last) or (",
           "        return False or (",
           (BLOCKS,)),
    Mutant("M2b", "reader: the clamp half of that check",
           f"{PACKAGE}/hive/decoding.py",
           "        return self.flagged_within(first, last) or (\n"
           "            bool(self.manifest.clamps) and self.manifest.clamped_within(",
           "        return self.flagged_within(first, last) or (\n"
           "            False and self.manifest.clamped_within(",
           (BLOCKS,)),
    Mutant("M2c", "reader: a late range due inside a block",
           f"{PACKAGE}/hive/reader.py",
           "        return ((first is None or first > self._seq + count)",
           "        return ((True)",
           (RANGES,)),
    Mutant("M4", "one loop: an exchange of the run older than the age limit",
           f"{PACKAGE}/core/ingest.py",
           "    return (min(map(_INSTANT, entries)) >= limit\n",
           "    return (True\n",
           (RUNS,)),
    Mutant("M4a", "one loop: an exchange held in net older than the age limit",
           f"{PACKAGE}/core/ingest.py",
           "            and (not zones.net or min(map(_INSTANT, zones.net)) >= limit))",
           "            and True)",
           (RUNS,)),
    Mutant("M4b", "net: the age check that looks only at the newest of the older exchanges",
           f"{PACKAGE}/core/zones.py",
           "    if ctx.deferred is not None and ctx.deferred.unaged_at == ctx.now:",
           "    if ctx.deferred is not None:",
           (RUNS, DEFERRED)),
    Mutant("M4c", "one loop: seqs that do not rise",
           f"{PACKAGE}/core/ingest.py",
           "    if not all(map(operator.lt, seqs, seqs[1:])):\n        return False",
           "    pass",
           (RUNS,)),
    Mutant("M5", "view memo: a block is made again when its answer became whole or not",
           f"{PACKAGE}/core/render.py",
           "made_of[1] is item.answer and made_of[2] == item.whole",
           "made_of[1] is item.answer",
           (MEMO,)),
    Mutant("M5a", "view memo: a block is made again when its lighthouse mark changed",
           f"{PACKAGE}/core/render.py",
           "                and made_of[3] == item.lighthouse and made_of[4] is labels):",
           "                and made_of[4] is labels):",
           (MEMO,)),
    Mutant("M6", "verdict guard: letters the patterns fold to i and s send to the plain path",
           f"{PACKAGE}/core/outcomes.py",
           "    if not tail.isascii() and any(letter in tail for letter in _UNFOLDED):\n"
           "        return True\n",
           "",
           (VERDICT,)),
    Mutant("M6a", "verdict guard: an answer holding runtime noise is read whole",
           f"{PACKAGE}/core/signals.py",
           'if shell and "<" not in answer and not may_fail(',
           "if shell and not may_fail(",
           (VERDICT,)),
    Mutant("M6b", "verdict guard: a tool that is no shell is read by its first line",
           f"{PACKAGE}/core/signals.py",
           'if shell and "<" not in answer and not may_fail(',
           'if "<" not in answer and not may_fail(',
           (VERDICT,)),
    Mutant("M6c", "verdict guard: a stem of failure (`err`) among those it looks for",
           f"{PACKAGE}/core/outcomes.py",
           '_VERDICT_STEMS = ("err", ',
           "_VERDICT_STEMS = (",
           (VERDICT,)),
)


def apply(copy: Path, mutant: Mutant) -> str | None:
    """The mutant written into `copy`; the reason when it cannot be."""
    path = copy / mutant.path
    text = path.read_text(encoding="utf-8")
    found = text.count(mutant.before)
    if found != 1:
        return f"{mutant.path}: the guard's text is found {found} times, not once"
    mutated = text.replace(mutant.before, mutant.after)
    try:
        compile(mutated, str(path), "exec")
    except SyntaxError as error:  # a broken module fails every test: no verdict on the guard
        return f"{mutant.path}: the mutant does not compile ({error.msg}, line {error.lineno})"
    path.write_text(mutated, encoding="utf-8")
    return None


def run_killers(copy: Path, mutant: Mutant) -> tuple[bool, str]:
    """Whether a killer failed, and pytest's last line."""
    env = dict(os.environ, PYTHONPATH=str(copy / "daemon"), PYTHONDONTWRITEBYTECODE="1",
               HYPOTHESIS_PROFILE="mutants")
    check = subprocess.run([sys.executable, "-c", "import horizon; print(horizon.__file__)"],
                           cwd=copy, env=env, capture_output=True, text=True, check=True)
    assert check.stdout.startswith(str(copy)), "the copy's package must be the one imported"
    run = subprocess.run(
        # No -x: under xdist, a run stopped at its first failure exits 2, not 1.
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "--hypothesis-seed=0", *mutant.killers],
        cwd=copy, env=env, capture_output=True, text=True, check=False)
    last = (run.stdout.strip().splitlines() or ["(no output)"])[-1]
    # Exit status 1 is a test that failed; 2 to 5 (collection errors, an interrupted or
    # empty run) say nothing of the guard.
    return run.returncode == pytest.ExitCode.TESTS_FAILED, last


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="mutants to run (all by default)")
    parser.add_argument("--list", action="store_true", help="list them, run nothing")
    args = parser.parse_args()
    chosen = [m for m in MUTANTS if not args.names or m.name in args.names]
    if args.list:
        for mutant in chosen:
            print(f"{mutant.name}: {mutant.guard}\n    killers: {', '.join(mutant.killers)}")
        return 0
    survivors = 0
    for mutant in chosen:
        with tempfile.TemporaryDirectory(prefix="horizon-mutant-") as folder:
            copy = Path(folder)
            for part in ("daemon", "tests", "pyproject.toml"):
                source = ROOT / part
                if source.is_dir():
                    shutil.copytree(source, copy / part,
                                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
                else:
                    shutil.copy2(source, copy / part)
            problem = apply(copy, mutant)
            if problem is not None:
                print(f"{mutant.name} NOT APPLIED: {problem}")
                survivors += 1
                continue
            killed, last = run_killers(copy, mutant)
        verdict = "killed" if killed else "SURVIVED"
        print(f"{mutant.name} {verdict}: {mutant.guard} ({last})", flush=True)
        survivors += not killed
    print(f"{len(chosen) - survivors} of {len(chosen)} mutants killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
