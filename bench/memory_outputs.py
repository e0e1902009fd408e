"""What the synthetic bee's tools print (bench/memory.py): files, test runs, logs.

Tools speak English whatever the session's language, as pytest, git and the shell do.
Every text is drawn from the generator's own random.Random, so a seed gives the same
session.
"""

from __future__ import annotations

import random

VERBS = ("load", "build", "check", "apply", "merge", "render", "parse", "format", "split",
         "collect", "resolve", "validate", "compute", "fetch", "store", "normalize")
NOUNS = ("invoice", "line", "amount", "customer", "rate", "total", "page", "token", "row",
         "batch", "address", "reminder", "discount", "currency", "period", "schema")
PY_STATEMENTS = (
    "{a} = {b}.get(\"{c}\")",
    "if {a} is None:\n        raise ValueError(f\"missing {c}: {{{b}!r}}\")",
    "{a} = Decimal({b}).quantize(CENT, rounding=ROUND_HALF_UP)",
    "logger.debug(\"{c} %s\", {a})",
    "for {a} in {b}:\n        total += {a}.amount",
    "{a} = [{c} for {c} in {b} if {c}.active]",
    "return {a}",
    "{a} = session.execute(select(Invoice).where(Invoice.{c} == {b})).scalars().all()",
    "assert {a} >= 0, \"{c} cannot be negative\"",
    "{a} = {b} or settings.DEFAULT_{C}",
)
TS_STATEMENTS = (
    "const {a} = {b}.map(({c}) => {c}.amount);",
    "if (!{a}) {{\n    throw new Error(`missing {c}`);\n  }}",
    "const {a} = useMemo(() => sortBy({b}, \"{c}\"), [{b}]);",
    "setState((previous) => ({{ ...previous, {c}: {a} }}));",
    "return <Row key={{{a}.id}} {c}={{{b}}} />;",
    "const {a} = await fetchJson<{C}[]>(`/api/{c}s`);",
)
WARNINGS = (
    "DeprecationWarning: datetime.datetime.utcnow() is deprecated and scheduled for removal",
    "SAWarning: relationship 'Invoice.lines' will copy column invoices.id to column "
    "invoice_lines.invoice_id, which conflicts with relationship(s): 'Line.invoice'",
    "PytestUnraisableExceptionWarning: Exception ignored in: <socket.socket fd=14>",
    "ResourceWarning: unclosed file <_io.BufferedReader name='tests/fixtures/invoice.pdf'>",
)


def _name(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"


def _fill(rng: random.Random, template: str) -> str:
    c = rng.choice(NOUNS)
    return template.format(a=rng.choice(NOUNS), b=rng.choice(NOUNS), c=c, C=c.upper())


def source_file(rng: random.Random, path: str, symbols: tuple[str, ...], size: int) -> str:
    """A file's content as read_file shows it, numbered, about `size` characters."""
    if path.endswith(".md"):
        lines = [f"# {path.rsplit('/', 1)[-1][:-3].replace('-', ' ').title()}", ""]
        while sum(map(len, lines)) < size:
            lines += [f"## {rng.choice(NOUNS).title()} {rng.choice(NOUNS)}s", "",
                      f"`{rng.choice(symbols)}` {rng.choice(VERBS)}s each "
                      f"{rng.choice(NOUNS)} before the {rng.choice(NOUNS)} is stored; "
                      f"see `{_name(rng)}` for the {rng.choice(NOUNS)} rules.", ""]
    elif path.endswith((".ts", ".tsx")):
        lines = ["import { useMemo, useState } from \"react\";",
                 "import { fetchJson } from \"../api/client\";", ""]
        while sum(map(len, lines)) < size:
            name = rng.choice(symbols) if rng.random() < 0.3 else _name(rng)
            lines.append(f"export function {name.replace('.', '_')}(props: Props) {{")
            lines += ["  " + _fill(rng, rng.choice(TS_STATEMENTS))
                      for _ in range(rng.randint(3, 9))]
            lines += ["}", ""]
    else:
        lines = [f'"""{rng.choice(NOUNS).title()} {rng.choice(NOUNS)}s."""', "",
                 "from __future__ import annotations", "", "import logging",
                 "from decimal import ROUND_HALF_UP, Decimal", "",
                 "logger = logging.getLogger(__name__)", "CENT = Decimal(\"0.01\")", ""]
        while sum(map(len, lines)) < size:
            name = rng.choice(symbols) if rng.random() < 0.3 else _name(rng)
            lines.append(f"def {name.split('.')[-1]}({rng.choice(NOUNS)}, "
                         f"{rng.choice(NOUNS)}=None):")
            lines.append(f'    """{rng.choice(VERBS).title()} the {rng.choice(NOUNS)}."""')
            lines += ["    " + _fill(rng, rng.choice(PY_STATEMENTS))
                      for _ in range(rng.randint(3, 10))]
            lines.append("")
    return "\n".join(f"{number:>5}\t{line}" for number, line in enumerate(lines, 1))


def grep_output(rng: random.Random, symbol: str, paths: list[str]) -> str:
    out = []
    for path in paths:
        for _ in range(rng.randint(1, 6)):
            out.append(f"{path}:{rng.randint(3, 400)}:    {symbol.rpartition('.')[2]}"
                       f"({rng.choice(NOUNS)}, {rng.choice(NOUNS)}={rng.choice(NOUNS)})")
    return "\n".join(out)


def diff_output(rng: random.Random, path: str, symbol: str) -> str:
    start = rng.randint(10, 300)
    lines = [f"--- a/{path}", f"+++ b/{path}", f"@@ -{start},14 +{start},17 @@"]
    for _ in range(rng.randint(15, 70)):
        mark = rng.choice(" +- ")
        lines.append(f"{mark}    " + _fill(rng, rng.choice(PY_STATEMENTS)).split("\n")[0])
    lines.append(f"Applied 1 hunk to {path} ({symbol.rpartition('.')[2]}).")
    return "\n".join(lines)


def test_run(rng: random.Random, test: str, symbol: str, src: str, *, passed: bool) -> str:
    """pytest (or vitest for a frontend test) on one file."""
    count = rng.randint(6, 40)
    name = f"test_{_name(rng)}"
    if test.endswith(".tsx"):
        if passed:
            return (f" ✓ {test} ({count} tests) {rng.randint(80, 900)}ms\n\n"
                    f" Test Files  1 passed (1)\n      Tests  {count} passed ({count})\n"
                    f"   Duration  {rng.uniform(1, 4):.2f}s")
        trace = "\n".join(f"    at {_name(rng)} ({src}:{rng.randint(5, 300)}:{rng.randint(3, 40)})"
                          for _ in range(rng.randint(8, 30)))
        return (f" FAIL  {test} > {symbol} > {name}\nAssertionError: expected [ 12.5, -3, 40 ] "
                f"to deeply equal [ -3, 12.5, 40 ]\n{trace}\n\n Test Files  1 failed (1)\n"
                f"      Tests  1 failed | {count - 1} passed ({count})")
    head = ("============================= test session starts ==============================\n"
            "platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0\n"
            "rootdir: /home/mia/ruche\nconfigfile: pyproject.toml\n"
            "plugins: xdist-3.6.1, hypothesis-6.108.5, cov-5.0.0\n"
            f"collected {count} items\n\n")
    if passed:
        warnings = [rng.choice(WARNINGS) for _ in range(rng.randint(0, 6))]
        body = f"{test} {'.' * count}  [100%]\n"
        if warnings:
            body += ("\n=============================== warnings summary "
                     "===============================\n"
                     + "\n".join(f"{test}::{name}\n  {warning}\n" for warning in warnings))
        return (head + body + f"\n======================== {count} passed, {len(warnings)} "
                f"warnings in {rng.uniform(0.3, 9):.2f}s ========================")
    frames = []
    for _ in range(rng.randint(4, 20)):
        frames.append(f"{src}:{rng.randint(5, 400)}: in {_name(rng)}\n    "
                      + _fill(rng, rng.choice(PY_STATEMENTS)).split("\n")[0])
    position = rng.randrange(count)
    return (head + f"{test} {'.' * position}F{'.' * (count - position - 1)}  [100%]\n\n"
            "=================================== FAILURES ===================================\n"
            f"_________________________________ {name} _________________________________\n\n"
            f"    def {name}():\n>       assert {symbol.rpartition('.')[2]}(SAMPLE) == EXPECTED\n"
            "E       AssertionError: assert Decimal('120.005') == Decimal('120.01')\n\n"
            + "\n".join(frames) + "\n"
            "----------------------------- Captured log call ------------------------------\n"
            + "\n".join(f"DEBUG    app.{rng.choice(NOUNS)}:{src.rsplit('/', 1)[-1]}:"
                        f"{rng.randint(5, 400)} {rng.choice(NOUNS)} {rng.randint(1, 9999)}"
                        for _ in range(rng.randint(10, 60)))
            + "\n=========================== short test summary info ============================\n"
            f"FAILED {test}::{name} - AssertionError\n"
            f"========================= 1 failed, {count - 1} passed in "
            f"{rng.uniform(0.3, 9):.2f}s =========================")


def typecheck(rng: random.Random, src: str, *, passed: bool) -> str:
    if passed:
        return "Success: no issues found in 1 source file"
    errors = [f"{src}:{rng.randint(5, 400)}: error: Argument 1 to \"{_name(rng)}\" has "
              f"incompatible type \"float\"; expected \"Decimal\"  [arg-type]"
              for _ in range(rng.randint(1, 5))]
    return "\n".join(errors) + f"\nFound {len(errors)} errors in 1 file (checked 1 source file)"


def long_log(rng: random.Random, kind: int, area_path: str) -> tuple[str, str]:
    """A command with a long, uneventful output: (command, output)."""
    if kind == 0:
        command = f"git log --stat -n 25 -- {area_path.rsplit('/', 1)[0]}"
        out = []
        for _ in range(25):
            out += [f"commit {rng.getrandbits(160):040x}",
                    f"Author: {rng.choice(('Mia', 'Léa', 'Tom', 'Ana'))} <dev@ruche.example>",
                    f"Date:   Mon Feb {rng.randint(1, 28)} {rng.randint(8, 19)}:"
                    f"{rng.randint(10, 59)}:00 2026 +0100", "",
                    f"    {rng.choice(VERBS)} {rng.choice(NOUNS)} {rng.choice(NOUNS)}s", "",
                    f" {area_path} | {rng.randint(1, 90)} {'+' * rng.randint(1, 20)}"
                    f"{'-' * rng.randint(0, 12)}", " 1 file changed", ""]
        return command, "\n".join(out)
    if kind == 1:
        command = "pip install -e '.[dev]'"
        packages = ("sqlalchemy", "pydantic", "httpx", "pytest", "hypothesis", "weasyprint",
                    "boto3", "botocore", "jinja2", "alembic", "psycopg", "structlog")
        out = ["Obtaining file:///home/mia/ruche", "  Installing build dependencies ... done"]
        for _ in range(rng.randint(40, 120)):
            name = rng.choice(packages)
            out.append(f"Requirement already satisfied: {name}>={rng.randint(1, 9)}.0 in "
                       f"./.venv/lib/python3.12/site-packages (from ruche==2.4.0) "
                       f"({rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)})")
        out.append("Successfully installed ruche-2.4.0")
        return command, "\n".join(out)
    if kind == 2:
        command = "docker compose logs --tail=150 api"
        out = [f"api-1  | 2026-03-0{rng.randint(1, 9)} {rng.randint(8, 19):02d}:"
               f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d} INFO "
               f"{rng.choice(('GET', 'POST'))} /api/{rng.choice(NOUNS)}s "
               f"{rng.choice((200, 200, 200, 201, 204, 304))} {rng.randint(2, 900)}ms"
               for _ in range(150)]
        return command, "\n".join(out)
    command = "pytest -q"
    lines = ["".join(rng.choice("....................s") for _ in range(80))
             for _ in range(rng.randint(20, 50))]
    warnings = [rng.choice(WARNINGS) for _ in range(rng.randint(2, 12))]
    total = len(lines) * 80
    return command, ("\n".join(lines) + "\n=============================== warnings summary "
                     "===============================\n" + "\n".join(warnings)
                     + f"\n{total - 12} passed, 12 skipped, {len(warnings)} warnings in "
                     f"{rng.uniform(20, 90):.1f}s")


def open_failure_output(rng: random.Random, command: str | None, error: str) -> str:
    """A failure nothing in the session fixes: the error inside some noise."""
    noise = [f"DEBUG {rng.choice(NOUNS)}.{rng.choice(VERBS)} retry={attempt} "
             f"after {rng.randint(100, 4000)}ms" for attempt in range(rng.randint(3, 25))]
    if command is None:
        return error
    return "\n".join([f"$ {command}", *noise, "Traceback (most recent call last):",
                      *(f'  File "/home/mia/ruche/{_name(rng)}.py", line {rng.randint(5, 300)}, '
                        f"in {_name(rng)}" for _ in range(rng.randint(3, 10))), error,
                      "exit status 1"])
