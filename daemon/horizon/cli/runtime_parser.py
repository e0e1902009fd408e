"""The arguments, help, examples and exit codes of the commands an agent runtime's
transcripts go through: `horizon import` and `horizon hook`."""

from __future__ import annotations

from horizon.cli.arguments import Commands

RUNTIMES = ("claude-code", "codex")  # what `horizon import` reads
_HIVE_HELP = "the hive (default: the one hive config.json lists)"


def runtime_commands(commands: Commands) -> None:
    imported = commands.add(
        "import", "append an agent runtime's transcript to a bee's journal",
        """Reads a Claude Code transcript (~/.claude/projects/PROJECT/SESSION.jsonl) or a
        Codex CLI rollout file (~/.codex/sessions/.../rollout-*.jsonl) and appends its
        operator prompts, the assistant's answers and each tool call with its result to
        the bee's journal, through the same checks as 'horizon append'. Only what is new
        is appended: window/BEE-imports.json records how far each transcript was
        imported, so importing it again, or a longer version of it, appends the rest. A
        line it cannot read is named with its number and skipped. The bee defaults to
        the name of the session's work tree.""",
        ["horizon import claude-code ~/.claude/projects/-home-me-app/8f1c.jsonl "
         "--hive /srv/hive --bee app",
         "horizon import codex ~/.codex/sessions/2026/12/06/rollout-*.jsonl --bee app"],
        {0: "the new entries were appended (maybe none)",
         1: "a line was skipped or an entry refused (each named on stderr; the others "
            "were appended), or the transcript, hive or record cannot be used"})
    imported.add_argument("runtime", metavar="RUNTIME", choices=list(RUNTIMES),
                          help="the runtime that wrote the transcript: claude-code or codex")
    imported.add_argument("transcript", metavar="TRANSCRIPT", help="the transcript file")
    imported.add_argument("--hive", metavar="DIR", default=None, help=_HIVE_HELP)
    imported.add_argument("--bee", metavar="NAME", default=None,
                          help="the bee (default: the session's work tree's folder name)")

    hook = commands.add(
        "hook", "take one Claude Code hook event on stdin",
        """For Claude Code's hooks (print the wiring with 'horizon example claude-code').
        Every event brings the bee's journal up to date with the session's transcript,
        as 'horizon import' does; an entry the transcript has not written yet comes with
        a later event. SessionStart (a start, a resume, a clear, after a compaction) also
        prints the bee's view, fresh, as the context Claude Code adds. Without a
        transcript, the event's own fields make its entry. It never blocks the agent:
        a problem is one line on stderr, and the exit is 0.""",
        ["horizon hook claude-code --hive /srv/hive --bee app < event.json"],
        {0: "always: a problem is said on stderr, never in the exit code"})
    hook.add_argument("runtime", metavar="RUNTIME", choices=["claude-code"],
                      help="the runtime sending the event: claude-code")
    hook.add_argument("--hive", metavar="DIR", default=None, help=_HIVE_HELP)
    hook.add_argument("--bee", metavar="NAME", default=None,
                      help="the bee (default: the name of the event's work folder)")
