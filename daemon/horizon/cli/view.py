"""`horizon render`: the view exactly as the bee reads it, written by nobody here."""

from __future__ import annotations

import argparse
import json
import sys

from horizon.cli.common import bee_settings, load_config, reported
from horizon.cli.exits import EXIT_OK
from horizon.engine.bee_engine import BeeEngine
from horizon.hive.discovery import require_bee, require_hive
from horizon.summarize.cache import hive_cache


def render(args: argparse.Namespace) -> int:
    config, source = load_config(args)
    with reported():
        hive = require_hive(args.hive)
        bee = require_bee(hive, args.bee)
        effective = bee_settings(config, source, hive, bee)
        engine = BeeEngine(hive, bee, config, effective, cache=hive_cache(hive, create=False),
                           writes=False)
        now = args.now if args.now is not None else args.wall_now
        view = engine.current_view(now, args.wall_now, fresh=args.fresh, sweep_at=args.now)
    if args.json:
        print(json.dumps(view.summary, ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(view.text)
    return EXIT_OK
