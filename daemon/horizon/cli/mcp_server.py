"""`horizon mcp HIVE BEE`: a bee's recall as a Model Context Protocol server on stdio.

The agent runtime starts one server per bee: the hive and the bee are fixed at start, so a
bee reaches its own history and nothing else. Every tool reads without writing and
without the lock, returns the text the matching command prints, and is bounded; a bad
argument is a tool error result, never a crash of the server. Calls run one at a time, in
one worker thread: a client sending many at once would otherwise hold as many readings of
the history in memory, each thread keeping its own heap afterwards (the same work in the
same time, one after another).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Annotated

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from horizon import __version__
from horizon.cli.common import load_config_for_view, reported
from horizon.cli.exits import EXIT_OK, UserError
from horizon.cli.recall import Bee, resolve, showing_text
from horizon.core.errors import HorizonError
from horizon.core.recall import hit_block
from horizon.engine.bee_engine import BeeEngine
from horizon.engine.recall import search as search_history
from horizon.engine.recall import show as show_entries
from horizon.summarize.cache import hive_cache

SHOW_SEQS_MAX = 20
SHOW_CHARS_MAX = 20_000
SEARCH_LIMIT_MAX = 50
QUERY_CHARS_MAX = 500

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)

SHOW_HELP = """\
Return entries of your own history, whole, by their seq: the number after '#' that your
view (handoff.md) gives every exchange ('### #212 ...'). Use it when your view holds only
a condensed answer ('Réponse condensée', 'Condensed answer'), a cut one ('[… answer cut
here …, #212]'), or a seq named in your récit (Errors, Files, Work in progress), and you
need the exact words: a command, an error message, a decision, what the operator said.
Each entry prints its question and answer, at most max_chars characters of them; when it
is longer, the last line says the offset to call again with to read on. A seq that does
not exist or whose line was rejected is reported."""

SEARCH_HELP = """\
Search your whole history (the journal and every archive, not only your view) for entries
whose question or answer contains every word of the query, ignoring case and accents.
Use it to find where something was decided, asked, or failed when you do not know its
seq: a ticket ('#5385'), a file path, an error text, a name. Returns the newest matches
first, each with its seq, date, type, tool and a short excerpt; then call horizon_show
with the seqs to read them whole."""

VIEW_HELP = """\
Return your current view: handoff.md exactly as it is injected at your launch (the récit,
the condensed past, the recent exchanges whole, each headed by its #seq). Use it to see
what you remember now, for instance after a long task, before deciding what to recall
with horizon_search or horizon_show."""


def _paragraph(text: str) -> str:
    return " ".join(text.split())


def command(args: argparse.Namespace) -> int:
    config, source, broken_config = load_config_for_view(args)
    resolve(config, source, broken_config, args.hive, args.bee)  # fails here, before serving

    one_at_a_time = anyio.CapacityLimiter(1)

    async def in_turn(work: Callable[[], str]) -> str:
        """`work()` in a worker thread, after the calls before it: the thread that ran the
        last call is idle again by then, and takes this one."""
        return await anyio.to_thread.run_sync(work, limiter=one_at_a_time)

    def current() -> Bee:
        try:
            return resolve(config, source, broken_config, args.hive, args.bee)
        except UserError as error:
            raise ToolError(str(error)) from None

    server = MCPServer(
        name="horizon", version=__version__, log_level="WARNING",
        instructions=(f"Recall for bee {args.bee}: its whole history by seq "
                      "(horizon_show), by words (horizon_search), and its current view "
                      "(horizon_view). Read-only."))

    @server.tool(description=_paragraph(SHOW_HELP), annotations=READ_ONLY)
    async def horizon_show(
        seqs: Annotated[list[Annotated[int, Field(ge=1)]],
                        Field(min_length=1, max_length=SHOW_SEQS_MAX,
                              description="the seqs to show, e.g. [212] or [212, 213]")],
        max_chars: Annotated[int, Field(ge=1, le=SHOW_CHARS_MAX,
                                        description="characters of each entry to return")
                             ] = 8000,
        offset: Annotated[int, Field(ge=0, description="start each entry at this character "
                                                       "(to read on past max_chars)")] = 0,
    ) -> str:
        return await in_turn(lambda: show_text(seqs, max_chars, offset))

    def show_text(seqs: list[int], max_chars: int, offset: int) -> str:
        bee = current()
        try:
            with reported():
                showing = show_entries(bee.hive, bee.name, seqs, bee.max_line_bytes,
                                       lighthouses=bee.effective.horizon,
                                       max_chars=max_chars, offset=offset)
        except UserError as error:
            raise ToolError(str(error)) from None
        if not showing.shown:
            raise ToolError("; ".join(showing.problems))

        def read_on(seq: int, at: int) -> str:
            return f"horizon_show(seqs=[{seq}], offset={at}, max_chars={max_chars})"

        text = showing_text(showing, bee.labels, read_on)
        return text + "".join(f"[{problem}]\n" for problem in showing.problems)

    @server.tool(description=_paragraph(SEARCH_HELP), annotations=READ_ONLY)
    async def horizon_search(
        query: Annotated[str, Field(min_length=1, max_length=QUERY_CHARS_MAX,
                                    description="words that must all appear, e.g. "
                                                "'invoice rounding' or '#5385'")],
        limit: Annotated[int, Field(ge=1, le=SEARCH_LIMIT_MAX,
                                    description="at most this many entries")] = 10,
    ) -> str:
        return await in_turn(lambda: search_text(query, limit))

    def search_text(query: str, limit: int) -> str:
        bee = current()
        try:
            with reported():
                hits = search_history(bee.hive, bee.name, query, bee.max_line_bytes,
                                      lighthouses=bee.effective.horizon, limit=limit)
        except HorizonError as error:
            raise ToolError(str(error)) from None
        if not hits:
            return f"No entry of {bee.name} matches {query!r}.\n"
        return "\n".join(hit_block(hit, bee.labels) for hit in hits)

    @server.tool(description=_paragraph(VIEW_HELP), annotations=READ_ONLY)
    async def horizon_view() -> str:
        return await in_turn(view_text)

    def view_text() -> str:
        bee = current()
        try:
            with reported():
                engine = BeeEngine(bee.hive, bee.name, config, bee.effective,
                                   cache=hive_cache(bee.hive, create=False), writes=False)
                now = time.time()
                return engine.current_view(now, now).text
        except UserError as error:
            raise ToolError(str(error)) from None

    server.run("stdio")
    return EXIT_OK
