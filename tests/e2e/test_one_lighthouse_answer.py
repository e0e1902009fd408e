"""Whether an entry is a lighthouse has one answer, given by one function, whatever shows
the entry: the view's headings, `render --json`, `show` (text and `--json`), the web
view's entry page and the MCP server's `horizon_show`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import TextContent

from tests.e2e.daemon_harness import (
    HORIZON,
    Serve,
    clean_env,
    entry,
    horizon,
    make_hive,
    write_config,
)

BEE = "b"
# seq: why it is, or is not, a lighthouse.
LINES = [
    entry("Never push to main.", "Noted.", kind="conversation"),  # 1: no `from`
    entry("Use the staging bucket.", "OK.", kind="conversation", **{"from": "reine"}),  # 2
    entry("status?", "green", kind="conversation", **{"from": "robot"}),  # 3: not listed
    entry("cargo test", "test result: ok", kind="tool", tool="Bash", phare=True),  # 4
    entry("cargo build", "Finished", kind="tool", tool="Bash"),  # 5: flagged below
    entry("refactor the decoder", "done", kind="task"),  # 6
    entry("cargo fmt", "", kind="tool", tool="Bash"),  # 7
]
LIGHTHOUSES = {1, 2, 4, 5}


def heading_marks(text: str, word: str) -> dict[int, bool]:
    return {int(seq): line.rstrip().endswith(f"· {word}")
            for line in text.splitlines()
            if (seq := (re.match(r"### #(\d+) ", line) or [None, None])[1])}


def test_every_reader_gives_the_view_s_lighthouse_mark(tmp_path: Path) -> None:
    hive = make_hive(tmp_path, LINES, bee=BEE,
                     bee_toml='[horizon]\nphares = ["apicultrice", "reine"]\n')
    config = write_config(tmp_path, hive, horizon={"budget_net": 1200,
                                                   "budget_condense": 1500})
    assert horizon(config, "phare", hive, BEE, "5").returncode == 0
    assert horizon(config, "rebuild", hive).returncode == 0

    view = horizon(config, "render", hive, BEE)
    summary = json.loads(horizon(config, "render", hive, BEE, "--json").stdout)
    listed = {item["seq"]: item["phare"] for item in summary["condense"] + summary["net"]}
    assert listed, "some entries are shown"
    assert listed == {seq: seq in LIGHTHOUSES for seq in listed}
    assert heading_marks(view.stdout, "phare") == listed

    seqs = [str(seq) for seq in range(1, len(LINES) + 1)]
    shown = json.loads(horizon(config, "show", hive, BEE, *seqs, "--json").stdout)
    assert {item["seq"]: item["phare"] for item in shown} == {
        seq: seq in LIGHTHOUSES for seq in range(1, len(LINES) + 1)}
    text = horizon(config, "show", hive, BEE, *seqs).stdout
    assert heading_marks(text, "phare") == {seq: seq in LIGHTHOUSES
                                             for seq in range(1, len(LINES) + 1)}

    server = Serve(config).started()
    try:
        for seq in range(1, len(LINES) + 1):
            page = server.get(f"/hive/0/bee/{BEE}/entry/{seq}").text
            mark = re.search(r'<dd class="phare">(\w+)</dd>', page)
            assert mark is not None and mark[1] == ("yes" if seq in LIGHTHOUSES else "no"), seq
    finally:
        server.stop()

    params = StdioServerParameters(command=HORIZON, args=["mcp", str(hive), BEE],
                                   env={**clean_env(), "HORIZON_CONFIG": str(config)})

    async def through_mcp() -> str:
        async with Client(params) as client:
            result = await client.call_tool(
                "horizon_show", {"seqs": list(range(1, len(LINES) + 1))})
            assert isinstance(result.content[0], TextContent)
            return result.content[0].text

    assert heading_marks(anyio.run(through_mcp), "phare") == {
        seq: seq in LIGHTHOUSES for seq in range(1, len(LINES) + 1)}
    assert os.path.exists(hive / "horizon" / BEE / "handoff.md")
