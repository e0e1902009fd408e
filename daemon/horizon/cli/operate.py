"""The commands that act on a hive: rebuild, phare, config, check, and starting the daemon
or the demo."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import msgspec

from horizon.cli.common import bee_settings, load_config, reported
from horizon.cli.examples import installed_command
from horizon.cli.exits import EXIT_OK, EXIT_PROBLEM, UserError
from horizon.cli.safe_text import json_text, printable
from horizon.core.entries import Rejection, format_instant
from horizon.core.errors import HorizonError, SettingsError
from horizon.core.settings import GlobalConfig, unavailable_levels
from horizon.core.text import counted
from horizon.engine.bee_engine import BeeEngine, Rebuild
from horizon.engine.recall import RecallError, find_line
from horizon.hive.audit import InitError, audit, init_hive, is_hive
from horizon.hive.discovery import discover, require_bee, require_hive
from horizon.hive.flags import FlagRecord, append_flag, read_flags
from horizon.hive.journal import line_hash
from horizon.hive.layout import BEE_NAME, derived_root, is_bee_name, window_dir
from horizon.hive.lock import HiveLock, HiveLocked, holder
from horizon.hive.manifest import read_manifest
from horizon.hive.rotation import adopt as adopt_segments
from horizon.hive.rotation import unadopted
from horizon.hive.settings_files import (
    SYSTEM_CONFIG,
    bee_file,
    config_path,
    config_source,
    effective_settings,
    hive_file,
    load_global,
    load_hive_layer,
)
from horizon.hive.store import load_state
from horizon.summarize.cache import hive_cache


def rebuild(args: argparse.Namespace) -> int:
    config, source = load_config(args)
    with reported():
        hive = require_hive(args.hive)
        bees = [require_bee(hive, args.bee)] if args.bee else discover(hive)[0]
        lock = HiveLock(hive)
    now = args.now if args.now is not None else args.wall_now
    failed = False
    cache = hive_cache(hive)  # model outputs already paid for are reused, never re-asked
    try:
        for bee in bees:
            try:
                with reported():
                    effective = effective_settings(config, source, hive, bee)
                    engine = BeeEngine(hive, bee, config, effective, cache=cache)
                    outcome = engine.run(Rebuild(), now, args.wall_now)
                    assert outcome is not None
            except UserError as error:
                print(printable(f"horizon: {bee}: {error}"), file=sys.stderr)
                failed = True
                continue
            zones = outcome.state.zones
            print(f"{bee}: {counted(zones.accepted, 'entry', 'entries')}, "
                  f"{zones.rejected} rejected, "
                  f"up to #{zones.up_to}; handoff.md {outcome.view.summary['chars']}"
                  f"/{outcome.view.summary['cap']} chars")
    finally:
        cache.close()
        lock.release()
    return EXIT_PROBLEM if failed else EXIT_OK


def phare(args: argparse.Namespace) -> int:
    config, source = load_config(args)
    with reported():
        hive = require_hive(args.hive)
        bee = require_bee(hive, args.bee)
        seq = args.seq
        try:
            decoded, raw = find_line(hive, bee, seq, config.max_line_bytes)
        except RecallError as error:
            raise UserError(str(error)) from None
        if isinstance(decoded, Rejection) or raw is None:
            reason = decoded.reason.value if isinstance(decoded, Rejection) else "too_long"
            raise UserError(f"#{seq} was rejected ({reason}): it cannot be a lighthouse")
        flagged = seq in read_flags(hive, bee)
        if args.off and not flagged:
            print(f"#{seq} of {bee} was not flagged; nothing to do")
            return EXIT_OK
        append_flag(hive, bee, FlagRecord(seq, line_hash(raw), on=not args.off,
                                          at=format_instant(args.wall_now)))
        verb = "no longer flagged" if args.off else "flagged as a lighthouse"
        print(f"#{seq} of {bee} {verb}")
        daemon = holder(hive)
        if daemon is not None:
            print(f"the daemon (pid {daemon}) applies it to handoff.md")
            return EXIT_OK
        try:
            lock = HiveLock(hive)
        except HiveLocked:
            return EXIT_OK  # a daemon started meanwhile: it applies the flag
        cache = hive_cache(hive)
        try:
            effective = effective_settings(config, source, hive, bee)
            BeeEngine(hive, bee, config, effective, cache=cache).run(Rebuild(), args.wall_now)
        finally:
            cache.close()
            lock.release()
    return EXIT_OK


def adopt(args: argparse.Namespace) -> int:
    """Take in a bee's segment files that no record names, in name order."""
    load_config(args)
    with reported():
        hive = require_hive(args.hive)
        if not is_bee_name(args.bee):
            raise UserError(f"{args.bee!r} is not a bee name (^{BEE_NAME.pattern}$)")
        lock = HiveLock(hive)  # a running daemon must not see its history change under it
    try:
        with reported():
            window = window_dir(hive)
            manifest = read_manifest(window, args.bee)
            state = load_state(hive, args.bee)
            # Lines numbered already (by a state, or by records a daemon wrote even if the
            # derived files were deleted since) would change seqs behind segments taken in.
            numbered = (state is not None and state.checkpoint.seq > 0) or bool(
                manifest.rotated or manifest.late or manifest.jumps or manifest.clamps)
            if unadopted(window, args.bee, manifest):
                _may_renumber(hive, args.bee, numbered)
            taken = adopt_segments(window, args.bee, manifest)
    finally:
        lock.release()
    for name in taken:
        print(f"adopted: {name}")
    print(f"{args.bee}: {counted(len(taken), 'segment')} taken in" if taken
          else f"{args.bee}: no unrecorded segment; nothing to do")
    return EXIT_OK


def _may_renumber(hive: Path, bee: str, numbered: bool) -> None:
    """Segments taken in come before the lines read so far: refused when seqs may already
    have been given to those lines."""
    if not os.path.isdir(derived_root(hive)):
        # Its state and checkpoints would say which lines have seqs: without them (deleted,
        # or never made), adopting could move a seq a flag or a reader already holds.
        raise UserError(f"{derived_root(hive)} is missing: which lines already have seqs "
                        "cannot be told; refused (horizon init makes it for a new hive)")
    if numbered:
        raise UserError(f"{bee} already has numbered lines; segments taken in now would "
                        "come before them and change their seqs")
    flagged = sorted(read_flags(hive, bee))
    if flagged:
        raise UserError(f"{bee} has flags on #" + ", #".join(map(str, flagged[:10]))
                        + ": segments taken in now would move those seqs; refused")


def config(args: argparse.Namespace) -> int:
    global_config, source = load_config(args)
    with reported():
        hive = require_hive(args.hive)
        bee = require_bee(hive, args.bee)
        effective = bee_settings(global_config, source, hive, bee)
    for level, reason in unavailable_levels(global_config, effective).items():
        print(f"horizon: warning: summarizer {level!r} cannot run: {reason}; "
              f"{effective.levels[0] if effective.levels else 'truncation'} serves instead",
              file=sys.stderr)
    values = msgspec.to_builtins(effective.horizon)
    values["mission"] = effective.mission
    values["modele"] = effective.modele
    if args.json:
        document = {key: {"value": value, "source": effective.provenance[key]}
                    for key, value in values.items()}
        print(json_text(document))
        return EXIT_OK
    width = max(len(key) for key in values)
    for key, value in values.items():
        shown = json.dumps(value, ensure_ascii=False)
        print(f"{key.ljust(width)} = {shown}    # {effective.provenance[key]}")
    return EXIT_OK


def check(args: argparse.Namespace) -> int:
    """Every settings file once: `ok: FILE`, or its errors (with the bees they stop),
    never both; then the trust audit's warnings."""
    path = config_path(args.config)
    hives: list[str] = [os.path.normpath(os.path.abspath(hive)) for hive in args.hives]
    global_config = GlobalConfig()
    files: list[str] = []  # every file looked at, in order
    errors: dict[str, dict[str, list[str]]] = {}  # file → error → bees it stops

    def failed(source: str, message: str, bee: str | None = None) -> None:
        bees = errors.setdefault(source, {}).setdefault(message, [])
        if bee is not None:
            bees.append(bee)

    if path is not None:
        files.append(str(path))
    try:
        if path is not None and not path.exists():
            raise SettingsError(str(path), "(file)", "config file not found")
        global_config = load_global(path)
        hives = list(global_config.hives) + hives
    except SettingsError as error:
        failed(error.source, str(error))
    warnings: list[str] = []
    for name in dict.fromkeys(hives):
        hive = Path(name)
        if not hive.is_dir():
            failed(name, f"{name}: hive not found")
            continue
        if hive_file(hive).exists():
            files.append(str(hive_file(hive)))
            try:  # on its own too: a hive without bees yet has nothing else to read it
                load_hive_layer(hive)
            except SettingsError as error:
                failed(error.source, str(error))
        bees, bee_problems = discover(hive)
        for problem in bee_problems:
            failed(name, f"{name}: {problem}")
        for bee in bees:
            if bee_file(hive, bee).exists():
                files.append(str(bee_file(hive, bee)))
            _check_bee(global_config, config_source(path), hive, bee, failed)
        warnings += audit(hive)
    for checked in dict.fromkeys(files):
        if checked not in errors:
            print(f"ok: {checked}")
    if path is None:
        print("ok: no config.json (--config, $HORIZON_CONFIG, /etc/horizon/config.json): "
              "the built-in defaults")
    if not errors:
        print(f"ok: {len(dict.fromkeys(files))} files checked")
    for messages in errors.values():
        for message, bees in messages.items():
            print(printable(f"error: {message}{_stopping(bees)}"), file=sys.stderr)
    for breach in warnings:
        print(printable(f"warning: {breach}"))
    return EXIT_PROBLEM if errors or (args.strict and warnings) else EXIT_OK


def _check_bee(config: GlobalConfig, source: str, hive: Path, bee: str,
               failed: Callable[[str, str, str | None], None]) -> None:
    """The whole cascade of one bee, as the daemon merges it (keys that only fail together,
    the cap and max_wait_s, included), and the summarizer levels it asks for."""
    try:
        effective = effective_settings(config, source, hive, bee)
    except SettingsError as error:
        failed(error.source, str(error), bee)
        return
    for level, reason in unavailable_levels(config, effective).items():
        key = "resumeur" if effective.horizon.resumeur == level else "modele"
        where = effective.provenance[key]
        failed(where, f"{where}: {'horizon.' if key == 'resumeur' else ''}{key}: "
                      f"{level!r} cannot run: {reason} (truncation serves instead)", bee)


def _stopping(bees: list[str]) -> str:
    if not bees:
        return ""
    return f" (bee {bees[0]})" if len(bees) == 1 else f" (bees {', '.join(bees)})"


def init(args: argparse.Namespace) -> int:
    """Make a hive with the recommended owners and modes, or report an existing one's."""
    hive = Path(args.hive)
    existing = hive.is_dir() and is_hive(hive)
    try:
        made = init_hive(hive, args.group)
    except InitError as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"{error.filename}: {error.strerror}") from None
    for path in made:
        print(f"made: {path}")
    breaches = audit(hive)
    for breach in breaches:
        print(printable(f"warning: {breach}"))
    if existing and not made and not breaches:
        print(f"{hive}: already a hive, as recommended")
    print(next_after_init(hive, config_path(args.config)))
    return EXIT_OK


def next_after_init(hive: Path, config: Path | None) -> str:
    """What to do next, in commands that work as written here: with the config file
    they need named, since no /etc/horizon/config.json may be there."""
    where = str(hive.absolute())
    if config is None:
        return (f"next: horizon example config > config.json, list {where!r} under "
                "\"hives\" in it (and set log.dir to a folder you can write), then: "
                "horizon --config config.json check && horizon --config config.json run")
    flag = "" if config == SYSTEM_CONFIG else f" --config {shlex.quote(str(config))}"
    try:
        listed = where in {os.path.abspath(name) for name in load_global(config).hives}
    except (HorizonError, OSError):
        listed = False
    todo = "" if listed else f"list {where!r} under \"hives\" in {config}, then: "
    return f"next: {todo}horizon{flag} check && horizon{flag} run"


def run(args: argparse.Namespace) -> int:
    from horizon.service import daemon

    path = config_path(args.config)
    if path is not None and not path.exists():
        raise UserError(f"{path}: config file not found")
    return daemon.run(path, args.log_stdout)


def demo(args: argparse.Namespace) -> int:
    from horizon.cli import demo as demo_run
    from horizon.cli import demo_hive

    with reported():
        hive = demo_hive.make_hive(Path(args.dir).resolve())
        config_file = demo_hive.write_config(hive)
        config = load_global(config_file)
        daemon = demo_run.start_daemon(config_file)
        web: subprocess.Popen[bytes] | None = None
        written = 0
        try:
            web, where = demo_run.start_web(config_file)
            written = demo_run.simulate(hive, config, args.seconds, daemon, web=where)
        except KeyboardInterrupt:
            pass  # stopped before the first exchange: the same teardown, 0 written
        finally:
            demo_run.stop_web(web)
            code = demo_run.stop_daemon(daemon)
    installed = installed_command()
    print(f"demo stopped after {written} exchanges (daemon exit {code}); "
          f"the hive is in {hive}, its log in {hive / 'logs'}")
    print(f"horizon is installed at {installed}; next: "
          f"{installed} status --config {config_file}, or "
          f"{installed} serve --config {config_file} to see the views in a browser")
    return EXIT_OK if code == 0 else EXIT_PROBLEM
