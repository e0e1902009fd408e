"""What a Codex CLI call and its output say (pure): the command as a shell would show it,
the paths a patch touches, the output's text and the exit code it states, and whether a
user message is Codex's own injected context (`imports/codex.py` reads the rollout)."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterable

import msgspec

from horizon.imports.claude_code import relative

SUMMARY_CHARS = 200  # of a call's arguments as JSON, what its `question` keeps
SHELLS = frozenset(["bash", "sh", "zsh", "dash", "ksh"])
PATCH_COMMANDS = frozenset(["apply_patch", "applypatch"])
_PATCH_PATH = re.compile(r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$",
                         re.MULTILINE)
_EXIT = re.compile(r"^(?:Exit code: |Process exited with code )(-?\d+)\s*$", re.MULTILINE)
_HEADER = re.compile(r"\A(?:[A-Z][A-Za-z ]*: .*\n|Process exited with code -?\d+\n)+Output:\n")
_INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
             "<user_shell_command>", "<turn_aborted>")


class Part(msgspec.Struct):
    type: str
    text: str = ""


class _Wrapped(msgspec.Struct):
    output: str
    metadata: dict[str, object] | None = None


_wrapped = msgspec.json.Decoder(_Wrapped)
_encoder = msgspec.json.Encoder()
DECODING = (msgspec.MsgspecError, RecursionError, ValueError, OverflowError)


# -- what a call says ---------------------------------------------------------------------------

def patch_paths(patch: str) -> tuple[str, ...]:
    """The paths an apply_patch patch adds, updates, deletes or moves to, in order, once."""
    return tuple(dict.fromkeys(m.group(1) for m in _PATCH_PATH.finditer(patch)))


def shown_command(argv: list[str]) -> str:
    """An argv as a shell would show it; `bash -lc SCRIPT` as the script alone."""
    if (len(argv) == 3 and posixpath.basename(argv[0]) in SHELLS
            and argv[1] in ("-lc", "-c", "-l", "-ic")):
        return argv[2]
    return shlex.join(argv)


def _patch_of(argv: list[str]) -> str | None:
    """The patch a shell call hands to apply_patch, if it is one."""
    if len(argv) == 2 and argv[0] in PATCH_COMMANDS:
        return argv[1]
    script = shown_command(argv)
    if script.lstrip().split(" ", 1)[0] in PATCH_COMMANDS and "*** Begin Patch" in script:
        return script
    return None


def _placed(paths: tuple[str, ...], workdir: str | None, cwd: str) -> tuple[str, ...]:
    return tuple(relative(posixpath.normpath(posixpath.join(workdir, path))
                          if workdir and not posixpath.isabs(path) else path, cwd)
                 for path in paths)


def _compact(given: object) -> str:
    text = _encoder.encode(given).decode()
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 1] + "…"


def call_summary(name: str, given: dict[str, object], cwd: str
                 ) -> tuple[str, tuple[str, ...] | msgspec.UnsetType]:
    """A function call's `question` and `files`, from its name and its arguments."""
    workdir = given.get("workdir")
    workdir = workdir if isinstance(workdir, str) and workdir else None
    patch = given.get("input") if name in PATCH_COMMANDS else None
    command = given.get("command")
    if isinstance(command, list) and all(isinstance(word, str) for word in command):
        argv = [str(word) for word in command]
        patch = _patch_of(argv)
        if patch is None:
            return shown_command(argv), msgspec.UNSET
    for key in ("cmd", "command"):
        script = given.get(key)
        if patch is None and isinstance(script, str) and script:
            if script.lstrip().split(" ", 1)[0] in PATCH_COMMANDS and "*** Begin" in script:
                patch = script
                break
            return script, msgspec.UNSET
    if isinstance(patch, str) and (paths := _placed(patch_paths(patch), workdir, cwd)):
        return ", ".join(paths), paths
    return _compact(given), msgspec.UNSET


def parts_text(parts: Iterable[Part]) -> str:
    return "\n".join(part.text for part in parts if part.text)


def output_text(output: str | list[Part] | dict[str, object]
                ) -> tuple[str, bool | msgspec.UnsetType]:
    """A tool output's text and what its exit code says (`ok`), when it says one."""
    if isinstance(output, list):
        text = parts_text(output)
    elif isinstance(output, dict):
        content = output.get("content")
        text = content if isinstance(content, str) else _compact(output)
    else:
        text = output
    if text.startswith("{"):
        try:
            wrapped = _wrapped.decode(text)
        except DECODING:
            pass
        else:
            code = (wrapped.metadata or {}).get("exit_code")
            if isinstance(code, int) and not isinstance(code, bool):
                return wrapped.output, code == 0
            return wrapped.output, msgspec.UNSET
    head = text.split("\nOutput:\n", 1)[0]
    found = _EXIT.search(head)
    if found is None:
        return text, msgspec.UNSET
    header = _HEADER.match(text)
    return (text[header.end():] if header else text), int(found.group(1)) == 0


def user_item_text(content: object) -> str | None:
    """A `UserMessage` item's text, from its text parts; None when it is not one."""
    if not isinstance(content, list):
        return None
    texts = []
    for part in content:
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            return None
        if part["type"] == "text":
            text = part.get("text")
            if not isinstance(text, str):
                return None
            texts.append(text)
    return "\n".join(texts)


def injected(text: str) -> bool:
    return text.lstrip().startswith(_INJECTED)
