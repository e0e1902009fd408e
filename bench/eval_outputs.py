"""What the tools print in the eval's sessions (bench/memory.py): file reads, test runs,
linters, builds, wrappers (make, just, npm scripts, smoke scripts), trackers (Linear, beads,
gh), git and grep, as the tools print them; and what the runtimes add around them (Claude
Code's `<system-reminder>` blocks and local-command caveats, Codex's environment context).
A run's verdict is at its end, as real tools put it; long runs are long because of what
comes before it (passing tests, logs), never after.

Every function draws from the random.Random it is given, so a seed gives the same texts.
"""

from __future__ import annotations

import random

from eval_projects import Project, TestTarget, Wrapper

NOUNS = ("reading", "frame", "batch", "entry", "value", "record", "item", "limit", "offset",
         "buffer", "total", "count", "state", "window", "cursor", "payload", "header", "row",
         "span", "slot")
VERBS = ("load", "build", "check", "apply", "merge", "parse", "format", "split", "collect",
         "resolve", "validate", "compute", "fetch", "store", "normalize", "flush", "decode",
         "encode", "render", "sort")
LOG_LEVELS = ("DEBUG", "INFO", "INFO", "INFO", "WARNING")

STATEMENTS = {
    "python": (
        "{a} = {b}.get(\"{c}\")",
        "if {a} is None:\n        raise ValueError(f\"missing {c}\")",
        "for {a} in {b}:\n        {c}_total += {a}.amount",
        "logger.debug(\"{c} %s\", {a})",
        "{a} = [{c} for {c} in {b} if {c}.active]",
        "return {a}",
        "{a} = {fn}({b}, strict=True)",
        "assert {a} >= 0, \"{c} cannot be negative\"",
    ),
    "rust": (
        "let {a} = {b}.get(\"{c}\").copied().unwrap_or_default();",
        "if {a}.is_empty() {{\n        return Err(Error::Missing(\"{c}\"));\n    }}",
        "for {a} in &{b} {{\n        {c}_total += {a}.value;\n    }}",
        "tracing::debug!({c} = ?{a}, \"{fn}\");",
        "let {a}: Vec<_> = {b}.iter().filter(|{c}| {c}.valid).collect();",
        "Ok({a})",
        "let {a} = {fn}(&{b})?;",
        "debug_assert!({a} >= 0.0, \"{c} cannot be negative\");",
    ),
    "go": (
        "{a}, ok := {b}[\"{c}\"]",
        "if err != nil {{\n\t\treturn fmt.Errorf(\"{c}: %w\", err)\n\t}}",
        "for _, {a} := range {b} {{\n\t\t{c}Total += {a}.Size\n\t}}",
        "log.Printf(\"{c} %v\", {a})",
        "{a} := {fn}({b})",
        "return {a}, nil",
        "defer {a}.Close()",
        "if {a} == nil {{\n\t\treturn nil, Err{C}\n\t}}",
    ),
    "ts": (
        "const {a} = {b}.map(({c}) => {c}.value);",
        "if (!{a}) {{\n    throw new Error(`missing {c}`);\n  }}",
        "for (const {a} of {b}) {{\n    {c}Total += {a}.size;\n  }}",
        "debug(\"{c} %o\", {a});",
        "const {a} = await {fn}({b});",
        "return {a};",
        "const {a} = {b}.filter(({c}) => {c}.draft !== true);",
        "{a}.set({c}.slug, {b});",
    ),
    "kotlin": (
        "val {a} = {b}[\"{c}\"] ?: return null",
        "require({a} >= 0) {{ \"{c} cannot be negative\" }}",
        "for ({a} in {b}) {{\n        {c}Total += {a}.amount\n    }}",
        "logger.debug(\"{c} {{}}\", {a})",
        "val {a} = {fn}({b})",
        "return {a}",
        "val {a} = {b}.filter {{ it.active }}",
        "check({a}.isNotEmpty()) {{ \"no {c}\" }}",
    ),
}


def _fill(rng: random.Random, template: str, symbols: tuple[str, ...]) -> str:
    c = rng.choice(NOUNS)
    return template.format(a=rng.choice(NOUNS), b=rng.choice(NOUNS) + "s", c=c,
                           C=c.capitalize(), fn=rng.choice(symbols))


def _function(rng: random.Random, eco: str, name: str, symbols: tuple[str, ...]) -> list[str]:
    arg, other = rng.choice(NOUNS), rng.choice(NOUNS)
    body = [_fill(rng, rng.choice(STATEMENTS[eco]), symbols) for _ in range(rng.randint(3, 9))]
    if eco == "python":
        return [f"def {name}({arg}, {other}=None):", f'    """{rng.choice(VERBS).capitalize()} '
                f'the {arg}."""', *("    " + line for line in body), ""]
    if eco == "rust":
        return [f"pub fn {name}({arg}: &{arg.capitalize()}) -> Result<{other.capitalize()}> {{",
                *("    " + line for line in body), "}", ""]
    if eco == "go":
        return [f"// {name} {rng.choice(VERBS)}s the {arg}.",
                f"func {name}({arg} *{arg.capitalize()}) (*{other.capitalize()}, error) {{",
                *("\t" + line for line in body), "}", ""]
    if eco == "ts":
        return [f"export async function {name}({arg}: {arg.capitalize()}): "
                f"Promise<{other.capitalize()}> {{", *("  " + line for line in body), "}", ""]
    return [f"fun {name}({arg}: {arg.capitalize()}): {other.capitalize()}? {{",
            *("    " + line for line in body), "}", ""]


def _name(rng: random.Random, eco: str) -> str:
    verb, noun = rng.choice(VERBS), rng.choice(NOUNS)
    if eco in ("python", "rust"):
        return f"{verb}_{noun}"
    return verb + noun.capitalize() if eco != "go" or rng.random() < 0.5 else \
        verb.capitalize() + noun.capitalize()


HEADERS = {
    "python": ["from __future__ import annotations", "", "import logging",
               "from dataclasses import dataclass", "", "logger = logging.getLogger(__name__)", ""],
    "rust": ["use std::collections::HashMap;", "", "use crate::error::{Error, Result};", ""],
    "go": ["package {pkg}", "", "import (", "\t\"fmt\"", "\t\"log\"", ")", ""],
    "ts": ["import { debug as makeDebug } from \"debug\";", "",
           "const debug = makeDebug(\"quire\");", ""],
    "kotlin": ["package com.acme.rides", "", "import org.slf4j.LoggerFactory", "",
               "private val logger = LoggerFactory.getLogger(\"rides\")", ""],
}


def source(rng: random.Random, project: Project, path: str, size: int) -> list[str]:
    """A source or doc file's lines, about `size` characters."""
    if path.endswith(".md"):
        lines = [f"# {path.rsplit('/', 1)[-1][:-3].replace('-', ' ').title()}", ""]
        while sum(len(line) + 1 for line in lines) < size:
            lines += [f"## {rng.choice(VERBS).capitalize()} {rng.choice(NOUNS)}s", "",
                      f"`{rng.choice(project.symbols)}` {rng.choice(VERBS)}s each "
                      f"{rng.choice(NOUNS)} before the {rng.choice(NOUNS)} is stored; see "
                      f"`{_name(rng, project.eco)}` for the {rng.choice(NOUNS)} rules.", ""]
        return lines
    if path.endswith(".sql"):
        lines = ["-- seat holds", ""]
        while sum(len(line) + 1 for line in lines) < size:
            table = rng.choice(NOUNS)
            lines += [f"CREATE TABLE IF NOT EXISTS {table}s (", "    id BIGSERIAL PRIMARY KEY,",
                      f"    {rng.choice(NOUNS)}_id BIGINT NOT NULL,",
                      "    created_at TIMESTAMPTZ NOT NULL DEFAULT now()", ");", ""]
        return lines
    eco = project.eco
    pkg = path.rsplit("/", 2)[-2] if "/" in path else "main"
    lines = [line.replace("{pkg}", pkg) for line in HEADERS[eco]]
    while sum(len(line) + 1 for line in lines) < size:
        name = rng.choice(project.symbols) if rng.random() < 0.3 else _name(rng, eco)
        lines += _function(rng, eco, name, project.symbols)
    return lines


def numbered(lines: list[str], start: int = 1) -> str:
    """As `cat -n` and the Read tool show a file."""
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, start))


def edit_snippet(rng: random.Random, project: Project, path: str,
                 shown_as: str | None = None) -> tuple[str, str, str]:
    """(old text, new text, the tool's answer) for an edit of `path`, which the tool calls
    `shown_as` (an absolute path, as Claude Code's tools write it)."""
    lines = source(rng, project, path, 900)
    at = rng.randint(5, 40)
    old = _fill(rng, rng.choice(STATEMENTS[project.eco]), project.symbols)
    new = _fill(rng, rng.choice(STATEMENTS[project.eco]), project.symbols)
    shown = numbered(lines[: 12], at)
    return old, new, (f"The file {shown_as or path} has been updated. Here's the result of "
                      f"running `cat -n` on a snippet of the edited file:\n{shown}")


# -- test runs -------------------------------------------------------------------------------

def _test_names(rng: random.Random, eco: str, count: int) -> list[str]:
    names = []
    for _ in range(count):
        verb, noun, other = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
        if eco == "python":
            names.append(f"test_{verb}_{noun}_{other}")
        elif eco == "rust":
            names.append(f"{verb}s_{noun}_with_{other}")
        elif eco == "go":
            names.append(f"Test{verb.capitalize()}{noun.capitalize()}")
        elif eco == "ts":
            names.append(f"{verb}s the {noun} of each {other}")
        else:
            names.append(f"{verb}s{noun.capitalize()}{other.capitalize()}")
    return names


def _test_files(project: Project) -> list[str]:
    return [target.path or target.command.rsplit(".", 1)[-1] for target in project.tests]


def _log_line(rng: random.Random, project: Project) -> str:
    module = rng.choice(project.sources).rsplit("/", 1)[-1]
    return (f"{rng.choice(LOG_LEVELS):<8} {project.package}:{module}:{rng.randint(10, 400)} "
            f"{rng.choice(VERBS)}ed {rng.randint(1, 5000)} {rng.choice(NOUNS)}s for "
            f"{rng.choice(NOUNS)} {rng.randint(1000, 99999)}")


def test_run(rng: random.Random, project: Project, target: TestTarget | None, *, ok: bool,
             size: int, failing: str | None = None) -> str:
    """A test command's output, about `size` characters, its verdict last. `target` None:
    the whole suite. `failing`: the test that fails (when not ok)."""
    runner = {"python": _pytest, "rust": _cargo, "go": _gotest, "ts": _vitest,
              "kotlin": _gradle}[project.eco]
    failing = failing or (target.name if target else rng.choice(project.tests).name)
    return runner(rng, project, target, ok, max(size, 300), failing)


def _pad(rng: random.Random, lines: list[str], size: int, make: object) -> None:
    assert callable(make)
    while sum(len(line) + 1 for line in lines) < size:
        lines.append(make())


def _pytest(rng: random.Random, project: Project, target: TestTarget | None, ok: bool, size: int,
            failing: str) -> str:
    files = [target.path] if target and target.path else _test_files(project)
    head = ["=" * 29 + " test session starts " + "=" * 30,
            "platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0",
            f"rootdir: {project.root}", "configfile: pyproject.toml",
            "plugins: anyio-4.4.0, cov-5.0.0, xdist-3.6.1"]
    body: list[str] = []
    count = 0
    fail_file = target.path if target and target.path else rng.choice(files)
    tail_size = 1400

    def passing() -> str:
        nonlocal count
        count += 1
        name = rng.choice(_test_names(rng, "python", 1))
        if rng.random() < 0.15:
            return _log_line(rng, project)
        return f"{rng.choice(files)}::{name} PASSED{' ' * 20}[{min(99, count // 4):>3}%]"

    _pad(rng, body, size - tail_size, passing)
    passed = max(count, rng.randint(12, 60))
    head.append(f"collected {passed + (0 if ok else 1)} items")
    head.append("")
    tail = [""]
    if not ok:
        tail += ["=" * 35 + " FAILURES " + "=" * 35, f"{'_' * 25} {failing} {'_' * 25}", "",
                 f"    def {failing}():",
                 f"        {rng.choice(NOUNS)} = make_{rng.choice(NOUNS)}(strict=True)",
                 f">       assert {rng.choice(NOUNS)}.total == Decimal(\"0.00\")",
                 f"E       AssertionError: assert Decimal('{rng.randint(1, 99)}.00') == "
                 "Decimal('0.00')", "", f"{fail_file}:{rng.randint(20, 300)}: AssertionError",
                 "-" * 30 + " Captured log call " + "-" * 31, _log_line(rng, project),
                 "=" * 27 + " short test summary info " + "=" * 28,
                 f"FAILED {fail_file}::{failing} - AssertionError: assert Decimal('42.00') == "
                 "Decimal('0.00')",
                 f"{'=' * 24} 1 failed, {passed} passed, {rng.randint(1, 4)} warnings in "
                 f"{rng.uniform(1, 60):.2f}s {'=' * 24}"]
    else:
        tail += [f"{'=' * 26} {passed} passed, {rng.randint(1, 4)} warnings in "
                 f"{rng.uniform(1, 60):.2f}s {'=' * 26}"]
    return "\n".join(head + body + tail)


def _cargo(rng: random.Random, project: Project, target: TestTarget | None, ok: bool, size: int,
           failing: str) -> str:
    files = [target.path] if target and target.path else _test_files(project)
    lines = [f"   Compiling {project.package} v0.3.0 ({project.root})",
             f"    Finished `test` profile [unoptimized + debuginfo] target(s) in "
             f"{rng.uniform(2, 40):.2f}s"]
    fail_file = target.path if target and target.path else rng.choice(files)
    stem = fail_file.rsplit("/", 1)[-1].removesuffix(".rs")
    order = [f for f in files if f != fail_file] + [fail_file] if not ok else files
    per = max(1, (size - 1500) // max(1, len(order)))
    for path in order:
        name = path.rsplit("/", 1)[-1].removesuffix(".rs")
        lines += [f"     Running {path} (target/debug/deps/{name}-{rng.getrandbits(64):016x})",
                  ""]
        block: list[str] = []
        _pad(rng, block, per, lambda: f"test {_test_names(rng, 'rust', 1)[0]} ... ok")
        lines += [f"running {len(block) + (path == fail_file and not ok)} tests", *block]
        if path == fail_file and not ok:
            lines += [f"test {failing} ... FAILED", "", "failures:", "",
                      f"---- {failing} stdout ----",
                      f"thread '{failing}' panicked at {path}:{rng.randint(20, 300)}:5:",
                      "assertion `left == right` failed", f"  left: Some({rng.randint(1, 360)})",
                      " right: None",
                      "note: run with `RUST_BACKTRACE=1` environment variable to display a "
                      "backtrace", "", "failures:", f"    {failing}", "",
                      f"test result: FAILED. {len(block)} passed; 1 failed; 0 ignored; 0 measured;"
                      f" 0 filtered out; finished in {rng.uniform(0, 3):.2f}s", "",
                      f"error: test failed, to rerun pass `--test {stem}`"]
            break
        lines += ["", f"test result: ok. {len(block)} passed; 0 failed; 0 ignored; 0 measured; 0 "
                  f"filtered out; finished in {rng.uniform(0, 3):.2f}s", ""]
    else:
        lines += ["   Doc-tests wx_station", "", "running 3 tests",
                  "test src/units.rs - units::celsius_to_kelvin (line 12) ... ok", "",
                  "test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; "
                  f"finished in {rng.uniform(0, 2):.2f}s"]
    return "\n".join(lines)


def _gotest(rng: random.Random, project: Project, target: TestTarget | None, ok: bool, size: int,
            failing: str) -> str:
    packages = ([target.path] if target and target.path
                else [*_test_files(project), "internal/ui", "cmd/tide"])
    fail_pkg = target.path if target and target.path else rng.choice(_test_files(project))
    verbose = size > 3000
    lines: list[str] = []
    per = max(1, (size - 600) // len(packages))
    for pkg in packages:
        block: list[str] = []
        if verbose:
            def one() -> str:
                name = _test_names(rng, "go", 1)[0]
                return f"=== RUN   {name}\n--- PASS: {name} ({rng.uniform(0, 0.2):.2f}s)"
            _pad(rng, block, per, one)
        lines += block
        if pkg == fail_pkg and not ok:
            lines += [f"=== RUN   {failing}",
                      f"    {pkg.rsplit('/', 1)[-1]}_test.go:{rng.randint(20, 200)}: got "
                      f"{rng.randint(1, 9)}, want {rng.randint(10, 20)}",
                      f"--- FAIL: {failing} ({rng.uniform(0, 0.3):.2f}s)", "FAIL",
                      f"FAIL\t{project.package}/{pkg}\t{rng.uniform(0.1, 3):.3f}s"]
        else:
            lines.append(f"ok  \t{project.package}/{pkg}\t{rng.uniform(0.1, 3):.3f}s")
    if not ok:
        lines.append("FAIL")
    return "\n".join(lines)


def _vitest(rng: random.Random, project: Project, target: TestTarget | None, ok: bool, size: int,
            failing: str) -> str:
    files = [target.path] if target and target.path else _test_files(project)
    fail_file = target.path if target and target.path else rng.choice(files)
    lines = ["", f" RUN  v2.0.5 {project.root}", ""]
    total = 0
    per = max(1, (size - 1500) // len(files))
    for path in files:
        block: list[str] = []
        _pad(rng, block, per, lambda: f"   ✓ {_test_names(rng, 'ts', 1)[0]} "
                                      f"{rng.randint(0, 40)}ms")
        total += len(block)
        mark = "❯" if path == fail_file and not ok else "✓"
        extra = " | 1 failed" if path == fail_file and not ok else ""
        lines += [f" {mark} {path} ({len(block) + bool(extra)} tests{extra}) "
                  f"{rng.randint(10, 900)}ms", *block]
        if extra:
            lines.append(f"   × {failing} {rng.randint(1, 30)}ms")
    if not ok:
        lines += ["", "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯", "",
                  f" FAIL  {fail_file} > {failing}",
                  "AssertionError: expected '<p>Intro</p>\\n<section class=\"footnotes\">…' to be "
                  "'<p>Intro</p>\\n<p>Last</p>\\n<section…'",
                  f" ❯ {fail_file}:{rng.randint(10, 200)}:{rng.randint(2, 40)}", "",
                  "⎯" * 40, "",
                  f" Test Files  1 failed | {len(files) - 1} passed ({len(files)})",
                  f"      Tests  1 failed | {total} passed ({total + 1})"]
    else:
        lines += ["", f" Test Files  {len(files)} passed ({len(files)})",
                  f"      Tests  {total} passed ({total})"]
    lines += [f"   Start at  {rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:"
              f"{rng.randint(0, 59):02d}",
              f"   Duration  {rng.uniform(0.5, 20):.2f}s (transform {rng.randint(50, 900)}ms, "
              f"setup 0ms, collect {rng.randint(100, 2000)}ms, tests {rng.randint(50, 5000)}ms)"]
    return "\n".join(lines)


def _gradle(rng: random.Random, project: Project, target: TestTarget | None, ok: bool, size: int,
            failing: str) -> str:
    classes = ([target.command.rsplit(".", 1)[-1]] if target
               else [t.command.rsplit(".", 1)[-1] for t in project.tests])
    fail_class = classes[0] if target else rng.choice(classes)
    lines = ["> Task :compileKotlin UP-TO-DATE", "> Task :compileJava NO-SOURCE",
             "> Task :processResources UP-TO-DATE", "> Task :classes UP-TO-DATE",
             "> Task :compileTestKotlin", "> Task :testClasses", "> Task :test", ""]
    count = 0

    def passing() -> str:
        nonlocal count
        count += 1
        return (f"{rng.choice(classes)} > {_test_names(rng, 'kotlin', 1)[0]}() PASSED"
                if rng.random() < 0.8 else f"    {_log_line(rng, project)}")

    _pad(rng, lines, size - 1200, passing)
    if not ok:
        lines += ["", f"{fail_class} > {failing}() FAILED",
                  "    org.opentest4j.AssertionFailedError: expected: <CANCELLED> but was: <HELD>",
                  f"        at app//{project.package}.{fail_class}.{failing}({fail_class}.kt:"
                  f"{rng.randint(20, 200)})", "", f"{count + 1} tests completed, 1 failed", "",
                  "> Task :test FAILED", "", "FAILURE: Build failed with an exception.", "",
                  "* What went wrong:", "Execution failed for task ':test'.",
                  f"> There were failing tests. See the report at: file://{project.root}/build/"
                  "reports/tests/test/index.html", "", "* Try:",
                  "> Run with --scan to get full insights.", "",
                  f"BUILD FAILED in {rng.randint(5, 90)}s",
                  f"{rng.randint(4, 9)} actionable tasks: {rng.randint(1, 3)} executed, "
                  f"{rng.randint(1, 6)} up-to-date"]
    else:
        lines += ["", f"BUILD SUCCESSFUL in {rng.randint(5, 90)}s",
                  f"{rng.randint(4, 9)} actionable tasks: {rng.randint(1, 3)} executed, "
                  f"{rng.randint(1, 6)} up-to-date"]
    return "\n".join(lines)


# -- linters, builds, commands that fail outside the code ------------------------------------

def lint_run(rng: random.Random, project: Project, command: str, *, ok: bool) -> str:
    src = rng.choice(project.sources)
    line, col = rng.randint(10, 300), rng.randint(1, 30)
    if command.startswith("ruff"):
        return "All checks passed!" if ok else (
            f"{src}:{line}:{col}: F841 Local variable `{rng.choice(NOUNS)}` is assigned to but "
            f"never used\n{src}:{line + 7}:1: I001 Import block is un-sorted or un-formatted\n"
            "Found 2 errors.\n[*] 1 fixable with the `--fix` option.")
    if command.startswith("mypy"):
        return (f"Success: no issues found in {rng.randint(20, 60)} source files" if ok else
                f"{src}:{line}: error: Argument 1 to \"{rng.choice(project.symbols)}\" has "
                "incompatible type \"str | None\"; expected \"str\"  [arg-type]\n"
                f"Found 1 error in 1 file (checked {rng.randint(20, 60)} source files)")
    if command.startswith("cargo clippy"):
        return (f"    Checking {project.package} v0.3.0 ({project.root})\n    Finished `dev` "
                f"profile [unoptimized + debuginfo] target(s) in {rng.uniform(1, 9):.2f}s"
                if ok else
                f"    Checking {project.package} v0.3.0 ({project.root})\n"
                "error: this `if` has identical blocks\n"
                f"  --> {src}:{line}:{col}\n   |\n"
                f"{line:>3} |     if {rng.choice(NOUNS)}.is_empty() {{\n"
                "   = help: for further information visit https://rust-lang.github.io/"
                "rust-clippy/master/index.html#if_same_then_else\n"
                "   = note: `-D clippy::if-same-then-else` implied by `-D warnings`\n\n"
                f"error: could not compile `{project.package}` (bin \"wxd\") due to 1 previous "
                "error")
    if command.startswith("cargo fmt"):
        return "" if ok else (f"Diff in {project.root}/{src}:{line}:\n"
                              f"-    let {rng.choice(NOUNS)} = vec![1,2,3];\n"
                              f"+    let {rng.choice(NOUNS)} = vec![1, 2, 3];")
    if command.startswith("golangci-lint"):
        return "0 issues." if ok else (
            f"{src}:{line}:{col}: ineffectual assignment to err (ineffassign)\n"
            f"\terr = {rng.choice(project.symbols)}(ctx)\n\t^\n1 issues:\n* ineffassign: 1")
    if command.startswith("go vet"):
        return "" if ok else (f"# {project.package}/{src.rsplit('/', 1)[0]}\n{src}:{line}:{col}: "
                              "fmt.Sprintf format %d has arg total of wrong type string")
    if command.startswith("npx eslint"):
        return "" if ok else (f"{project.root}/{src}\n  {line}:{col}  error  "
                              f"'{rng.choice(NOUNS)}' is assigned a value but never used  "
                              "@typescript-eslint/no-unused-vars\n\n✖ 1 problem (1 error, 0 "
                              "warnings)")
    if command.startswith("npx tsc"):
        return "" if ok else (f"{src}:{line}:{col} - error TS2322: Type 'string | undefined' is "
                              "not assignable to type 'string'.\n\nFound 1 error in "
                              f"{src}:{line}")
    task = command.rsplit(maxsplit=1)[-1]
    return (f"> Task :{task}\n\nBUILD SUCCESSFUL in {rng.randint(2, 30)}s\n"
            f"{rng.randint(2, 6)} actionable tasks: 1 executed, 1 up-to-date" if ok else
            f"> Task :{task} FAILED\n{project.root}/{src}:{line}:{col} Unexpected blank line(s) "
            "before \"}\" (standard:no-blank-line-before-rbrace)\n\nFAILURE: Build failed with "
            f"an exception.\n\n* What went wrong:\nExecution failed for task ':{task}'.\n\n"
            f"BUILD FAILED in {rng.randint(2, 30)}s")


def build_run(rng: random.Random, project: Project, command: str, *, ok: bool, size: int) -> str:
    src = rng.choice(project.sources)
    lines: list[str] = []
    if project.eco == "rust":
        crates = ("serde", "tokio", "chrono", "tracing", "rusqlite", "reqwest", "thiserror",
                  "anyhow", "bytes", "crc", "clap", "toml")
        _pad(rng, lines, size - 500, lambda: f"   Compiling {rng.choice(crates)} "
                                             f"v{rng.randint(0, 2)}.{rng.randint(0, 40)}."
                                             f"{rng.randint(0, 9)}")
        lines += ([f"    Finished `release` profile [optimized] target(s) in "
                   f"{rng.uniform(20, 200):.2f}s"] if ok else
                  [f"error[E0308]: mismatched types\n  --> {src}:{rng.randint(10, 300)}:9\n   |\n"
                   "   = note: expected `f32`, found `f64`",
                   f"error: could not compile `{project.package}` (bin \"wxd\") due to 1 "
                   "previous error"])
    elif project.eco == "go":
        lines += ([] if ok else [f"# {project.package}/{src.rsplit('/', 1)[0]}",
                                 f"{src}:{rng.randint(10, 300)}:9: undefined: planEntry"])
    elif project.eco == "ts":
        lines += ["", f"> {project.package}@0.8.0 build", "> tsc -p tsconfig.build.json && node "
                  "scripts/copy-assets.mjs", ""]
        lines += (["copied 41 assets to dist/"] if ok else
                  [f"{src}:{rng.randint(10, 300)}:18 - error TS2345: Argument of type 'Page | "
                   "undefined' is not assignable to parameter of type 'Page'.", "",
                   "Found 1 error."])
    elif project.eco == "kotlin":
        lines += ["> Task :compileKotlin"]
        lines += (["", f"BUILD SUCCESSFUL in {rng.randint(5, 60)}s"] if ok else
                  [f"e: file://{project.root}/{src}:{rng.randint(10, 300)}:23 Unresolved "
                   "reference: holdUntil", "", "FAILURE: Build failed with an exception.", "",
                   f"BUILD FAILED in {rng.randint(5, 60)}s"])
    else:
        steps = ("FROM python:3.12-slim", "WORKDIR /app", "COPY pyproject.toml .",
                 "RUN pip install --no-cache-dir .", "COPY src/ src/")
        for n, step in enumerate(steps, 1):
            lines.append(f"#{n + 4} [{n}/{len(steps)}] {step}")
            lines.append(f"#{n + 4} DONE {rng.uniform(0, 30):.1f}s")
        lines += (["#12 exporting to image", "#12 naming to docker.io/library/billing-svc:dev "
                   "done", "#12 DONE 2.1s"] if ok else
                  ["ERROR: failed to solve: process \"/bin/sh -c pip install --no-cache-dir .\" "
                   "did not complete successfully: exit code: 1"])
    return "\n".join(lines)


def broken_run(rng: random.Random, project: Project, command: str) -> tuple[str, str]:
    """A command that fails for a reason outside the code: (output, the reason in short)."""
    if command.startswith("ssh"):
        return ("pi@wx-station.local: Permission denied (publickey).", "publickey refused")
    if command.startswith("cross"):
        return ("Error: \n   0: could not determine os in target triplet\n   1: Cannot connect "
                "to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon "
                "running?", "no Docker daemon")
    if command.startswith("./scripts/deploy.sh"):
        return ("+ set -euo pipefail\n./scripts/deploy.sh: line 14: AWS_PROFILE: unbound "
                "variable", "AWS_PROFILE is not set")
    if command.startswith("stripe"):
        return ("Error: You have not configured API keys yet. Running `stripe login` will "
                "guide you through this.", "no Stripe API key")
    if command.startswith("gh release"):
        return ("HTTP 403: Resource not accessible by integration (https://api.github.com/"
                "repos/acme/tidewater/releases)", "HTTP 403 from GitHub")
    if command.startswith("brew"):
        return ("Error: Formula tidewater not found in a tap.\nError: Calling brew audit "
                "[path ...] is disabled! Use brew audit [name ...] instead.", "no tap here")
    if command.startswith("npx wrangler"):
        return ("✘ [ERROR] A request to the Cloudflare API (/accounts/9f2c/pages/projects/"
                "quire-docs) failed.\n\n  Authentication error [code: 10000]", "no Cloudflare "
                "token")
    if command.startswith("npm publish"):
        return ("npm error code ENEEDAUTH\nnpm error need auth This command requires you to be "
                "logged in to https://registry.npmjs.org/", "not logged in to npm")
    if command.startswith("dbt"):
        return (f"{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:01  Running with "
                "dbt=1.8.3\n" "Runtime Error\n  Could not find profile named 'riverflow'",
                "no dbt profile")
    if command.startswith("aws"):
        return ("An error occurred (ExpiredToken) when calling the ListObjectsV2 operation: The "
                "provided token has expired.", "expired AWS token")
    if command.startswith("fastlane"):
        return ("[!] Could not find App Store Connect API key. Set APP_STORE_CONNECT_API_KEY_PATH",
                "no App Store key")
    return ("FAILURE: Build failed with an exception.\n\n* What went wrong:\nCould not resolve "
            "all files for configuration ':runtimeClasspath'.\n> No cached version of "
            "io.ktor:ktor-server-core:3.0.0 available for offline mode.\n\nBUILD FAILED in 3s",
            "dependencies not cached for offline mode")


# -- reading commands ------------------------------------------------------------------------

def git_log(rng: random.Random, project: Project, subjects: list[str]) -> str:
    """`git log --oneline`: one line per subject, newest first."""
    return "\n".join(f"{rng.getrandbits(28):07x} {subject}" for subject in subjects)


def git_diff(rng: random.Random, project: Project, path: str) -> str:
    lines = source(rng, project, path, 600)
    at = rng.randint(10, 200)
    old = _fill(rng, rng.choice(STATEMENTS[project.eco]), project.symbols).split("\n")[0]
    new = _fill(rng, rng.choice(STATEMENTS[project.eco]), project.symbols).split("\n")[0]
    return "\n".join([f"diff --git a/{path} b/{path}",
                      f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
                      f"--- a/{path}", f"+++ b/{path}", f"@@ -{at},7 +{at},7 @@",
                      *(" " + line for line in lines[:3]), f"-    {old}", f"+    {new}",
                      *(" " + line for line in lines[3:6])])


def grep_hits(rng: random.Random, project: Project, pattern: str, paths: list[str],
              extra: list[tuple[str, str]] | None = None) -> str:
    """`grep -rn` output: a line in each path naming `pattern`, then `extra` (path, text)."""
    lines = []
    for path in paths:
        code = _fill(rng, rng.choice(STATEMENTS[project.eco]), (pattern,)).split("\n")[0]
        lines.append(f"{path}:{rng.randint(5, 400)}:    {code}")
    lines += [f"{path}:{rng.randint(5, 400)}:{text}" for path, text in extra or []]
    return "\n".join(lines)


def commit_output(rng: random.Random, branch: str, message: str, files: int) -> str:
    return (f"[{branch} {rng.getrandbits(28):07x}] {message}\n {files} files changed, "
            f"{rng.randint(3, 120)} insertions(+), {rng.randint(0, 40)} deletions(-)")


def push_output(rng: random.Random, branch: str) -> str:
    return (f"Enumerating objects: {rng.randint(8, 40)}, done.\nCounting objects: 100% "
            f"({rng.randint(8, 40)}/{rng.randint(8, 40)}), done.\nWriting objects: 100% "
            f"(7/7), {rng.uniform(0.5, 9):.2f} KiB | {rng.uniform(1, 9):.2f} MiB/s, done.\n"
            "remote:\nremote: Create a pull request for '" + branch + "' on GitHub by "
            "visiting:\nremote:      https://github.com/acme/repo/pull/new/" + branch +
            "\nremote:\nTo github.com:acme/repo.git\n * [new branch]      " + branch + " -> "
            + branch)


# -- commands that other commands run, and the commands that run them -------------------------

def check_run(rng: random.Random, project: Project, command: str, *, ok: bool) -> str:
    """A checker a wrapper runs: tflint, kubeconform, nslookup, goreleaser, or a linter."""
    if command.startswith("tflint"):
        return "" if ok else (
            "2 issue(s) found:\n\nWarning: variable \"node_count\" is declared but not used "
            "(terraform_unused_declarations)\n\n  on variables.tf line 12:\n  12: variable "
            "\"node_count\" {\n\nReference: https://github.com/terraform-linters/"
            "tflint-ruleset-terraform/blob/v0.9.1/docs/rules/terraform_unused_declarations.md\n\n"
            "Error: \"t3.micro\" is an invalid value as instance_type (aws_instance_invalid_type)"
            f"\n\n  on main.tf line {rng.randint(20, 90)}:\n  40:   instance_type = \"t3.micro\"")
    if command.startswith("kubeconform"):
        folder = command.rsplit(maxsplit=1)[-1]
        if ok:
            files = rng.randint(6, 14)
            return (f"Summary: {files + 3} resources found in {files} files - Valid: {files + 3}, "
                    "Invalid: 0, Errors: 0, Skipped: 0")
        return (f"{folder}deployment.yaml - Deployment {project.package.rsplit('.', 1)[-1]}-api "
                "is invalid: problem validating schema. Check JSON formatting: jsonschema: "
                "'/spec/template/spec/containers/0/resources/limits/cpu' does not validate with "
                "https://kubernetesjsonschema.dev/v1.29.0-standalone-strict/deployment-apps-v1.json"
                "#/properties/spec/properties/template/properties/spec/properties/containers/items/"
                "properties/resources/properties/limits/additionalProperties/type: expected "
                "string or number, but got boolean")
    if command.startswith("nslookup"):
        host = command.rsplit(maxsplit=1)[-1]
        head = "Server:\t\t127.0.0.53\nAddress:\t127.0.0.53#53\n\n"
        if ok:
            return (f"{head}Non-authoritative answer:\nName:\t{host}\nAddress: 10.0."
                    f"{rng.randint(0, 9)}.{rng.randint(2, 250)}\n")
        return f"{head}** server can't find {host}: NXDOMAIN"
    if command.startswith("goreleaser"):
        head = "  • checking                                 path=.goreleaser.yaml\n"
        if ok:
            return head + "  • 1 configuration file(s) validated\n  • thanks for using goreleaser!"
        return (head + "  ⨯ configuration is invalid                  error=yaml: unmarshal "
                "errors:\n  line 23: field brew not found in type config.Project\n"
                "  ⨯ check failed                               error=invalid config")
    if command.startswith("psql"):
        return " ?column? \n----------\n        1\n(1 row)\n"
    if command.startswith("curl"):
        return '{"status":"ok","uptime_s":' + str(rng.randint(100, 90000)) + "}"
    if command.startswith("./gradlew ktlintCheck detekt"):
        return (f"> Task :ktlintCheck\n> Task :detekt\n\nBUILD SUCCESSFUL in {rng.randint(4, 40)}s"
                f"\n{rng.randint(3, 7)} actionable tasks: 2 executed, 1 up-to-date")
    return lint_run(rng, project, command, ok=ok)


def wrapper_run(rng: random.Random, project: Project, wrapper: Wrapper) -> str:
    """A wrapper's successful run: what it echoes of its recipe, and each command's output."""
    parts: list[str] = []
    if wrapper.command.startswith("npm run"):
        script = wrapper.command.rsplit(maxsplit=1)[-1]
        parts += ["", f"> {project.package}@0.8.0 {script}", f"> {wrapper.recipe[0]}", ""]
        if script == "build":
            parts.append(f"built {rng.randint(120, 400)} pages in {rng.uniform(1, 9):.1f}s")
        return "\n".join(parts)
    script = wrapper.command.endswith(".sh")
    for line in wrapper.recipe:
        parts.append(f"+ {line}" if script else line)
        said = check_run(rng, project, line.removeprefix("cd infra && "), ok=True)
        if said:
            parts.append(said)
    if script:
        parts += ["+ echo 'smoke: ok'", "smoke: ok"]
    return "\n".join(parts)


# -- trackers ------------------------------------------------------------------------------------

def linear_issue_view(rng: random.Random, name: str, title: str, team: str) -> str:
    """`linear issue view`: the issue, reopened by the operator a few minutes ago."""
    key = name.split("-", 1)[0]
    return "\n".join([
        f"# {name}: {title}", "",
        f"State: In Progress · Priority: High · Assignee: {team} · Team: {key}",
        f"URL: https://linear.app/acme/issue/{name}", "", "## Activity",
        f"- {rng.randint(2, 6)}d ago  {team} moved from Todo to In Progress",
        f"- {rng.randint(1, 23)}h ago  {team} moved from In Progress to Done",
        f"- {rng.randint(2, 50)}m ago  {name} moved from Done to In Progress (Claire)",
        f"- {rng.randint(1, 9)}m ago  Claire commented: still broken on staging"])


def bd_update(name: str) -> str:
    """beads' `bd update <id> --status in_progress`."""
    return f"✓ Updated issue: {name.lower()}\n  Status: in_progress"


def gh_reopen(number: str, title: str) -> str:
    return f"✓ Reopened issue #{number} ({title})"


# -- what the runtimes add ---------------------------------------------------------------------

READ_REMINDER = (
    "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it looks "
    "malicious. If it does, you MUST refuse to improve or augment the code. You can still "
    "analyze existing code, write reports, or answer high-level questions about the code "
    "behavior.\n</system-reminder>\n")
TODO_REMINDER = (
    "\n\n<system-reminder>\nThe TodoWrite tool hasn't been used recently. If you're working on "
    "tasks that would benefit from tracking progress, consider using the TodoWrite tool to "
    "track progress. Also consider cleaning up the todo list if has become stale and no longer "
    "matches what you are working on. Only use it if it's relevant to the current work. This "
    "is just a gentle reminder - ignore if not applicable.\n</system-reminder>")
CAVEAT = (
    "<local-command-caveat>Caveat: The messages below were generated by the user while "
    "running local commands. DO NOT respond to these messages or otherwise consider them in "
    "your response unless the user explicitly asks you to.</local-command-caveat>")
LOCAL_COMMANDS = (
    ("/model", "model", "opus", "Set model to opus (claude-opus-4-1-20250805)"),
    ("/cost", "cost", "", "Total cost: $4.12\nTotal duration (API): 38m 12.4s\n"
     "Total duration (wall): 3h 2m 7.9s"),
    ("/permissions", "permissions", "", "Allowed tools updated"),
    ("/compact", "compact", "keep the ticket and the failing tests", "Compacted."),
)


def changed_reminder(rng: random.Random, project: Project, path: str, shown_as: str) -> str:
    """Claude Code's note that a linter or the user changed a file the agent had read."""
    lines = numbered(source(rng, project, path, 500)[:8], rng.randint(5, 80))
    return (f"\n\n<system-reminder>\nNote: {shown_as} was modified, either by the user or by a "
            "linter. Don't tell the user this, since they are already aware. This change was "
            "intentional, so make sure to take it into account as you proceed (ie. don't revert "
            "it unless the user asks you to). So that you don't need to re-read the file, here's "
            f"the result of running `cat -n` on a snippet of the edited file:\n{lines}\n"
            "</system-reminder>")


def local_command(rng: random.Random) -> str:
    """What Claude Code journals when the operator runs one of its slash commands."""
    name, message, args, stdout = rng.choice(LOCAL_COMMANDS)
    return (f"{CAVEAT}\n<command-name>{name}</command-name>\n            <command-message>"
            f"{message}</command-message>\n            <command-args>{args}</command-args>\n"
            f"<local-command-stdout>{stdout}</local-command-stdout>")


def environment_context(project: Project) -> str:
    """Codex's turn that tells the agent where it runs."""
    return (f"<environment_context>\n  <cwd>{project.root}</cwd>\n  <approval_policy>on-request"
            "</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  "
            "<network_access>restricted</network_access>\n  <shell>bash</shell>\n"
            "</environment_context>")
