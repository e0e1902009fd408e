"""The web view's routes: pages rendered on the server from escaped templates, a stream
that tells a bee's page its handoff.md changed, and the preview's jobs. Read-only: no
route writes a file."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import jinja2
from starlette.applications import Starlette
from starlette.convertors import IntegerConvertor, register_url_convertor
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from horizon.cli.exits import UserError
from horizon.cli.safe_text import printable
from horizon.cli.web import pages
from horizon.cli.web.preview import (
    PREVIEW_KEYS,
    PreviewError,
    PreviewWorker,
    ascii_digits,
    preview_settings,
)
from horizon.core.entries import format_instant
from horizon.core.errors import HorizonError
from horizon.core.reports import known
from horizon.core.settings import Effective
from horizon.core.text import flatten
from horizon.hive.discovery import require_bee

HERE = Path(__file__).parent
# Entry text is hostile: no inline script or style can run, whatever gets through.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}
WATCH_S = 0.5  # how often a live page's handoff.md is looked at
KEEPALIVE_S = 15.0
FORM_MAX_BYTES = 64 * 1024  # a preview's form is a few numbers and words
# Failures a page reports in one line instead of a traceback.
PAGE_ERRORS = (HorizonError, OSError)


def templates() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["thousands"] = lambda number: f"{number:,}".replace(",", " ")
    # Hostile text stays inert once escaped, but a bidi control would still reorder how a
    # line reads: messages show control characters as escapes, metadata is flattened as
    # the view flattens it.
    env.filters["inert"] = printable
    env.filters["known"] = known  # a report's field, or the default where it is left out
    env.filters["flat"] = flatten
    env.filters["instant"] = format_instant
    env.tests["startingwith"] = lambda value, prefix: str(value).startswith(prefix)
    return env


class SecurityHeaders:
    """Every response, errors and static files included, carries the same headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(name.lower().encode(), value.encode())
                            for name, value in SECURITY_HEADERS.items()]
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, with_headers)


def _guarded(handler: Callable[[WebView, Request], Response]
             ) -> Callable[[WebView, Request], Response]:
    """A page's user-facing failures become a page that names them."""
    @functools.wraps(handler)
    def run(self: WebView, request: Request) -> Response:
        try:
            return handler(self, request)
        except PAGE_ERRORS as error:
            return self.problem(error)
    return run


def _where(request: Request) -> tuple[int, str]:
    return request.path_params["hive"], request.path_params["bee"]


class WebView:
    """The pages and the preview's jobs of one server."""

    def __init__(self, site: pages.Site) -> None:
        self.site = site
        self.env = templates()
        self.worker = PreviewWorker(site.config)
        # Set when the server is told to stop: uvicorn waits for open responses, and an
        # event stream would never end by itself (a cancelled one logs a traceback).
        self.stopping = threading.Event()

    def page(self, name: str, status: int = 200, **context: object) -> HTMLResponse:
        body = self.env.get_template(name).render(site=self.site, **context)
        return HTMLResponse(body, status_code=status)

    def problem(self, error: BaseException, status: int = 404) -> HTMLResponse:
        return self.page("problem.html", status, message=str(error) or type(error).__name__)

    @_guarded
    def home(self, _request: Request) -> Response:
        return self.page("home.html", hives=pages.hive_lines(self.site))

    @_guarded
    def hive(self, request: Request) -> Response:
        index = request.path_params["hive"]
        return self.page("hive.html", index=index, page=pages.hive_page(self.site, index))

    @_guarded
    def bee(self, request: Request) -> Response:
        index, name = _where(request)
        view = pages.bee_page(self.site, index, name)
        return self.page("bee.html", view=view, keys=preview_defaults(view.effective))

    @_guarded
    def live(self, request: Request) -> Response:
        index, name = _where(request)
        return self.page("live.html", view=pages.bee_page(self.site, index, name))

    @_guarded
    def entry(self, request: Request) -> Response:
        index, name = _where(request)
        offset = _count(request.query_params.get("offset", "0"), "offset")
        shown = pages.entry_page(self.site, index, name, request.path_params["seq"], offset)
        return self.page("entry.html", 200 if shown.shown else 404, entry=shown)

    def open_seq(self, request: Request) -> Response:
        index, name = _where(request)
        text = request.query_params.get("seq", "").strip().lstrip("#")
        if not ascii_digits(text) or len(text) > 19:
            return self.problem(
                UserError(f"a seq is a whole number from 1, got {text[:20]!r}"), 400)
        return RedirectResponse(f"/hive/{index}/bee/{name}/entry/{int(text)}", 303)

    async def events(self, request: Request) -> Response:
        """Server-sent events: `changed` each time the bee's handoff.md is replaced."""
        index, name = _where(request)
        try:  # the bee exists: its view is not needed (with nothing derived, a replay)
            await anyio.to_thread.run_sync(require_bee, self.site.hive(index), name)
        except PAGE_ERRORS as error:
            return self.problem(error)

        async def stream() -> AsyncIterator[str]:
            seen = pages.handoff_signature(self.site, index, name)
            quiet = 0.0
            yield "retry: 2000\n\n"
            while not self.stopping.is_set() and not await request.is_disconnected():
                await anyio.sleep(WATCH_S)
                now = pages.handoff_signature(self.site, index, name)
                if now != seen:
                    seen, quiet = now, 0.0
                    yield "event: changed\ndata: handoff.md\n\n"
                else:
                    quiet += WATCH_S
                    if quiet >= KEEPALIVE_S:
                        quiet = 0.0
                        yield ": still here\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def preview(self, request: Request) -> Response:
        index, name = _where(request)
        if not same_origin(request):
            return JSONResponse({"error": "a preview is asked from this server's pages"}, 403)
        form = {key: str(value) for key, value in (await request.form()).items()}

        def submit() -> dict[str, object]:
            hive = self.site.hive(index)
            bee = require_bee(hive, name)
            effective, _ = pages.bee_settings(self.site, hive, bee)
            settings = preview_settings(effective, form)
            return self.worker.submit(hive, bee, settings).report()

        try:
            report = await anyio.to_thread.run_sync(submit)
        except (*PAGE_ERRORS, PreviewError) as error:
            return JSONResponse({"error": str(error)}, 400)
        return JSONResponse(report, 202)

    def preview_job(self, request: Request) -> Response:
        job = self.worker.get(request.path_params["job"])
        if job is None:
            return JSONResponse({"error": "no such preview (finished ones are forgotten "
                                          "after a while)"}, 404)
        report = job.report()
        if job.view is not None:
            report["html"] = self.env.get_template("view.html").render(
                text=job.view.text, summary=job.view.summary,
                bars=pages.view_bars(job.view, job.effective),
                index=self.site.hives.index(job.hive), bee=job.bee)
        return JSONResponse(report)

    def preview_cancel(self, request: Request) -> Response:
        if not same_origin(request):
            return JSONResponse({"error": "a preview is cancelled from this server's pages"},
                                403)
        job = self.worker.cancel(request.path_params["job"])
        if job is None:
            return JSONResponse({"error": "no such preview"}, 404)
        return JSONResponse(job.report())

    async def not_found(self, _request: Request, _error: Exception) -> Response:
        return self.problem(UserError("no such page"))


def build_app(site: pages.Site, allowed_hosts: list[str]) -> Starlette:
    web = WebView(site)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        web.worker.stop()

    bee = "/hive/{hive:number}/bee/{bee}"
    routes = [
        Route("/", web.home),
        Route("/hive/{hive:number}", web.hive),
        Route(bee, web.bee),
        Route(f"{bee}/live", web.live),
        Route(f"{bee}/events", web.events),
        Route(f"{bee}/entry", web.open_seq),
        Route(f"{bee}/entry/{{seq:number}}", web.entry),
        Route(f"{bee}/preview", web.preview, methods=["POST"]),
        Route("/preview/{job}", web.preview_job),
        Route("/preview/{job}/cancel", web.preview_cancel, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={404: web.not_found},
                    middleware=[Middleware(SecurityHeaders),
                                Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)],
                    lifespan=lifespan, max_body_size=FORM_MAX_BYTES)
    app.state.web = web
    return app


def preview_defaults(effective: Effective) -> dict[str, object]:
    """The form's starting values: the bee's settings as they are."""
    return {key: getattr(effective.horizon, key) for key in PREVIEW_KEYS}


def same_origin(request: Request) -> bool:
    """A page elsewhere on the web may post to a loopback server: only ours may ask."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site", "same-origin") == "same-origin"
    return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"


class _Number(IntegerConvertor):
    """A path's number in at most 19 digits: Starlette's int convertor matches any
    length, and int() refuses over 4300 digits (a 500 and a traceback); longer is no page."""

    regex = "[0-9]{1,19}"


register_url_convertor("number", _Number())


def _count(text: str, name: str) -> int:
    if not ascii_digits(text) or len(text) > 12:
        raise UserError(f"{name} must be a whole number, got {text[:20]!r}")
    return int(text)
