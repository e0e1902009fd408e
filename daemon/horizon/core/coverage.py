"""Which failures a build's wrapper covers (pure, ADR 0008): a `make lint`, `npm run
build`, `just check` or `scripts/smoke.sh` that succeeds runs the tools a project's build
hands that job to, so the failures of those tools before it are fixed.

The link is read from names: what the wrapper's target says it does (lint, build, check,
smoke…) and what kind of tool failed (a linter, a type checker, a compiler, a network
probe). A wrapper that runs the whole build (`make`, `make all`, `make ci`, `just`)
covers every failure before it. A wrapper cannot say it covers a test file: test runs
keep their own rules (core/test_runs.py).
"""

from __future__ import annotations

from horizon.core.commands import program_words, simple_commands
from horizon.core.patterns import Pattern

LINT, TYPES, BUILD, PROBE = "lint", "types", "build", "probe"
EVERYTHING = frozenset([LINT, TYPES, BUILD, PROBE])

_LINTERS = frozenset([
    "tflint", "tfsec", "checkov", "terrascan", "eslint", "ruff", "flake8", "pylint",
    "pycodestyle", "pydocstyle", "black", "isort", "prettier", "stylelint",
    "golangci-lint", "staticcheck", "golint", "gofmt", "shellcheck", "shfmt", "hadolint",
    "rubocop", "standardrb", "ktlint", "detekt", "swiftlint", "credo", "yamllint",
    "markdownlint", "markdownlint-cli2", "kubeconform", "kubeval", "kube-linter",
    "helm", "actionlint", "biome", "oxlint", "clang-tidy", "clang-format", "cpplint",
    "rustfmt", "sqlfluff", "buf", "spectral", "codespell", "vale", "pre-commit",
    "semgrep", "bandit",
])
_TYPE_CHECKERS = frozenset(["tsc", "vue-tsc", "mypy", "pyright", "pytype", "dialyzer",
                            "flow", "basedpyright"])
_COMPILERS = frozenset(["gcc", "g++", "clang", "clang++", "cc", "javac", "kotlinc",
                        "rustc", "webpack", "vite", "esbuild", "rollup", "tsup", "swc",
                        "babel", "dotnet", "msbuild", "cmake", "ninja", "zig"])
# Build tools that run named tasks: the task says what kind of job it is (`./gradlew
# ktlintCheck` lints, `goreleaser check` checks a config, `mvn package` builds).
_TASK_RUNNERS = frozenset(["gradle", "gradlew", "mvn", "mvnw", "sbt", "bazel", "bazelisk",
                           "goreleaser", "ant", "lein", "rails", "rake"])
# Task runners whose other tasks are no build (`bin/rails db:migrate`): only a check is.
_CHECKS_ONLY = frozenset(["rails", "rake"])
_BUILD_SUBCOMMANDS = {"cargo": {"build": BUILD, "check": TYPES, "clippy": LINT,
                                "fmt": LINT},
                      "go": {"build": BUILD, "vet": LINT},
                      "mix": {"compile": BUILD, "format": LINT, "credo": LINT,
                              "dialyzer": TYPES},
                      "terraform": {"validate": LINT, "fmt": LINT},
                      "deno": {"check": TYPES, "lint": LINT, "fmt": LINT}}
_PROBES = frozenset(["nslookup", "dig", "host", "ping", "curl", "wget", "nc", "ncat",
                     "telnet", "traceroute", "mtr", "openssl", "grpcurl", "httpie", "http"])
_RUNNERS = {"make": 1, "gmake": 1, "just": 1, "task": 1, "mage": 1, "rake": 1,
            "rails": 1, "npm": 2, "yarn": 1, "pnpm": 1, "bun": 2, "nox": 1, "tox": 1}
_WHOLE = frozenset(["all", "ci", "default", "build-all", "check-all", "verify", "precommit",
                    "pre-commit", "validate", "everything"])
_LINT_TASK = Pattern(r"lint|check|validat|verif|static|style|fmt|format|vet|audit|analy[sz]|"
                     r"manifest|conform|policy|precommit|pre-commit|hooks|detekt|spotless")
_TYPES_TASK = Pattern(r"type|tsc|mypy|pyright")
_SCOPE_WORDS = (
    (_LINT_TASK, frozenset([LINT, TYPES])),
    (_TYPES_TASK, frozenset([TYPES])),
    (Pattern(r"build|compile|dist|bundle|package|release"), frozenset([BUILD, TYPES])),
    (Pattern(r"smoke|health|probe|e2e|connectiv|dns|network|ping|reach|sanity|canary|"
             r"readiness|preflight"), frozenset([PROBE])),
)


def failed_kind(command: str) -> str | None:
    """What kind of tool a failing command ran: a linter, a type checker, a build, a
    network probe; None for a wrapper or anything else."""
    for simple in reversed(simple_commands(command)):
        words = program_words(simple)
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        launched = _launched(program, words[1:])
        if launched:  # `pnpm exec tsc`, `npx eslint`, `uv run mypy`: the tool it runs
            kind = failed_kind(" ".join(launched))
            if kind is not None:
                return kind
            continue
        subcommands = _BUILD_SUBCOMMANDS.get(program)
        if subcommands is not None:
            rest = [word for word in words[1:] if not word.startswith("-")]
            if rest and rest[0] in subcommands:
                return subcommands[rest[0]]
            continue
        if program in _TASK_RUNNERS:
            kind = _task_kind([word for word in words[1:] if not word.startswith("-")])
            return None if program in _CHECKS_ONLY and kind == BUILD else kind
        if program in _LINTERS:
            return LINT
        if program in _TYPE_CHECKERS:
            return TYPES
        if program in _COMPILERS or words[0] in _COMPILERS:
            return BUILD
        if program in _PROBES:
            return PROBE
    return None


def _launched(program: str, words: list[str]) -> list[str]:
    """The command a package manager launches (`pnpm --filter web exec tsc` launches
    `tsc`), or nothing when it launches none."""
    subcommands = _LAUNCHERS.get(program)
    if subcommands is None:
        return []
    rest = list(words)
    while rest and rest[0].startswith("-"):  # its own options, and their values
        option = rest.pop(0)
        if option in _LAUNCHER_VALUED and rest:
            rest.pop(0)
    if rest and rest[0] in subcommands:
        rest = rest[1:]
    elif subcommands and program not in ("pnpm", "yarn"):
        return []
    return rest[1:] if rest[:1] == ["--"] else rest


# Package managers that launch a tool, by the subcommands that do (none: every word is
# the tool; `pnpm tsc` and `yarn eslint` launch one without `exec`).
_LAUNCHERS: dict[str, tuple[str, ...]] = {
    "npx": (), "pnpx": (), "bunx": (), "uvx": (), "bundle": ("exec",), "pnpm": ("exec", "dlx"),
    "yarn": ("exec", "dlx"), "npm": ("exec",), "uv": ("run",), "poetry": ("run",),
    "pipenv": ("run",), "pdm": ("run",), "hatch": ("run",), "rye": ("run",)}
_LAUNCHER_VALUED = frozenset(["--filter", "-F", "--dir", "-C", "--cwd", "--workspace",
                              "-w", "--package", "-p", "--with", "--python", "--env"])


def _task_kind(tasks: list[str]) -> str:
    """What a task runner's first task does, by its name: a check or lint, a type check,
    or else a build."""
    folded = tasks[0].lower() if tasks else ""
    if _LINT_TASK.search(folded):
        return LINT
    if _TYPES_TASK.search(folded):
        return TYPES
    return BUILD


def wrapper_scope(command: str) -> frozenset[str]:
    """The kinds of failure a successful wrapper run covers: none when the command is
    not a wrapper (a make/npm/just target, a project script)."""
    scope: set[str] = set()
    for simple in simple_commands(command):
        words = program_words(simple)
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        targets = _targets(program, words)
        launched = _launched(program, words[1:])
        if targets is None and launched:  # `bundle exec rake lint`: the wrapper it launches
            targets = _targets(launched[0].rsplit("/", 1)[-1], launched)
        if targets is None:
            continue
        if not targets or any(target in _WHOLE for target in targets):
            return EVERYTHING
        for target in targets:
            for pattern, kinds in _SCOPE_WORDS:
                if pattern.search(target):
                    scope |= kinds
    return frozenset(scope)


def _targets(program: str, words: list[str]) -> list[str] | None:
    """What a wrapper was asked to run, lower case; None when it is no wrapper."""
    positional = [word.lower() for word in words[1:] if not word.startswith("-")
                  and "=" not in word]
    if program in ("gradle", "gradlew", "mvn", "mvnw", "sbt"):
        # Gradle's build runs its check (the linters, the compile), not what it publishes.
        tasks = [task.rsplit(":", 1)[-1] for task in positional[:3]]
        return [("check" if program.startswith("gradle") and task == "build" else task)
                for task in tasks] or None
    if program in _RUNNERS:
        if program in ("npm", "bun"):
            if positional[:1] != ["run"]:
                return None
            return positional[1:2] or None
        if program in ("yarn", "pnpm") and positional[:1] == ["run"]:
            positional = positional[1:]
        if program in ("yarn", "pnpm") and not positional:
            return None  # an install
        return positional[:3]
    script = words[0]
    if ("/" in script and script.rsplit(".", 1)[-1] in ("sh", "bash", "py", "ps1")) or (
            script.startswith(("./", "scripts/", "bin/")) and "." not in script.rsplit("/", 1)[-1]):
        return [script.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()]
    if program in ("bash", "sh", "zsh") and len(words) > 1 and "/" in words[1]:
        return [words[1].rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()]
    return None


def covered_by(success: str, failed: str) -> bool:
    """Whether a successful call (its key) fixes an older failure of another command (its
    key): the success is a wrapper whose scope holds what the failing tool does, or one
    that runs the whole build."""
    scope = wrapper_scope(success)
    if not scope:
        return False
    return scope == EVERYTHING or failed_kind(failed) in scope
