"""`horizon render`: the view exactly as the bee reads it, written by nobody here."""

from __future__ import annotations

import argparse
import sys

from horizon.cli.common import (
    bee_settings,
    derived_settings,
    load_config,
    load_config_for_view,
    reported,
    warn,
)
from horizon.cli.exits import EXIT_OK
from horizon.cli.safe_text import json_text
from horizon.engine.bee_engine import BeeEngine
from horizon.engine.fresh import fresh_view
from horizon.hive.discovery import require_bee, require_hive
from horizon.summarize.cache import hive_cache


def render(args: argparse.Namespace) -> int:
    # Without --fresh the view is the daemon's: broken settings do not hide it.
    if args.fresh:
        config, source, broken_config = *load_config(args), None
    else:
        config, source, broken_config = load_config_for_view(args)
    with reported():
        hive = require_hive(args.hive)
        bee = require_bee(hive, args.bee)
        if args.fresh:
            effective = bee_settings(config, source, hive, bee)
        else:
            effective, broken = derived_settings(config, source, hive, bee, broken_config)
            if broken is not None and broken != broken_config:  # that one was said
                warn(f"{broken}; showing the view made with the last good settings")
        now = args.now if args.now is not None else args.wall_now
        cache = hive_cache(hive, create=False)
        if args.fresh:  # what horizon.client.view gives
            view = fresh_view(hive, bee, config, effective, now, args.wall_now,
                              cache=cache).view
        else:
            engine = BeeEngine(hive, bee, config, effective, cache=cache, writes=False)
            view = engine.current_view(now, args.wall_now, sweep_at=args.now)
    if args.json:
        print(json_text(view.summary))
    else:
        sys.stdout.write(view.text)
    return EXIT_OK
