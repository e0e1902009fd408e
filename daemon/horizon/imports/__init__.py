"""horizon.imports: an agent runtime's own transcript read into journal entries (pure).

    from horizon.imports import claude_code, journal_line
    with open(transcript, "rb") as lines:
        for result in claude_code.entries(enumerate(lines, 1)):
            if isinstance(result, Converted):
                journal.write(journal_line(result.entry))

Each runtime's reader is a `TranscriptReader`; what it yields is in `runtime`.
"""

from horizon.imports import claude_code
from horizon.imports.claude_code import ClaudeCodeReader
from horizon.imports.runtime import (
    OPERATOR,
    Converted,
    JournalEntry,
    Problem,
    Result,
    TranscriptReader,
    Unfinished,
    journal_line,
    journal_record,
)

__all__ = ["OPERATOR", "ClaudeCodeReader", "Converted", "JournalEntry", "Problem", "Result",
           "TranscriptReader", "Unfinished", "claude_code", "journal_line", "journal_record"]
