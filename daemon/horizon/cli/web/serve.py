"""`horizon serve`: the web view on the loopback, until Ctrl-C or SIGTERM."""

from __future__ import annotations

import argparse
import signal
import socket
import sys
import threading
from types import FrameType

import uvicorn

from horizon.cli.common import load_config_for_view
from horizon.cli.exits import EXIT_OK, UserError
from horizon.cli.web.app import build_app
from horizon.cli.web.pages import Site, listing
from horizon.core.settings import is_loopback, parse_listen

DEFAULT_LISTEN = "127.0.0.1:8765"


def command(args: argparse.Namespace) -> int:
    config, source, broken = load_config_for_view(args)
    try:
        host, port = parse_listen(args.listen)
    except ValueError as error:
        raise UserError(f"--listen {error}") from None
    if not is_loopback(host) and not args.allow_remote:
        raise UserError(f"--listen {args.listen}: {host} is not on the loopback; journals hold "
                        "what bees and humans said: add --allow-remote to serve them there")
    hives = listing(list(args.hives) or list(config.hives))
    if not hives:
        where = "config.json rejected" if broken else "none configured"
        raise UserError("no hive to serve: name one (horizon serve HIVE), or list them under "
                        f"\"hives\" in config.json ({where})")
    site = Site(config, source, broken, hives)
    # Requests naming another host are refused: a page elsewhere cannot reach this one
    # through a name it rebinds to the loopback. A wildcard address is reached by names
    # only the operator knows: they are listed, never '*'.
    wildcard = host in ("0.0.0.0", "::")
    if wildcard and not args.allow_host:
        raise UserError(f"--listen {args.listen}: a wildcard address needs the names the "
                        "page is reached by: add --allow-host NAME (repeatable)")
    allowed = ["127.0.0.1", "localhost", "::1", "[::1]", *args.allow_host,
               *([] if wildcard else [host, f"[{host}]"])]
    listener = bound(host, port, args.listen)
    app = build_app(site, allowed)
    shown = f"[{host}]" if ":" in host else host
    print(f"horizon: serving {len(hives)} hive(s) read-only on http://{shown}:{port}/ "
          "(Ctrl-C stops)", file=sys.stderr, flush=True)
    # No lifespan under uvicorn: a Ctrl-C during its startup cancelled the lifespan and
    # uvicorn logged that as a traceback. The preview worker is stopped below instead.
    server = Server(uvicorn.Config(
        app, host=host, port=port, log_level="warning", access_log=False,
        timeout_graceful_shutdown=2, lifespan="off"), app.state.web.stopping)
    # uvicorn stops on SIGINT and SIGTERM, then raises the signal again under the handlers
    # it found: these make that second one a no-op, so a stop is an exit 0, not a death.
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, lambda _signal, _frame: None)
    try:
        with listener:
            server.run(sockets=[listener])
    finally:
        app.state.web.worker.stop()
    return EXIT_OK


class Server(uvicorn.Server):
    """uvicorn's server that also tells the view's event streams to end when it stops."""

    def __init__(self, config: uvicorn.Config, stopping: threading.Event) -> None:
        super().__init__(config)
        self.stopping = stopping

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.stopping.set()
        super().handle_exit(sig, frame)


def bound(host: str, port: int, listen: str) -> socket.socket:
    """The listening socket, bound here so a taken or foreign address is one clear line
    (uvicorn would log it and exit 3)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        raise UserError(f"cannot listen on {listen}: {error.strerror or error}") from None
    return listener
