"""The world's own record of its session: every request, the rows it wrote, and the limits it enforces.

An episode in the agent's own browser has no engine watching it, so the world keeps
the trajectory itself: method, path, status, names of the posted fields (never their
values), the world clock, and which rows the request wrote (table, public id, op).
Engine-driven episodes go through the same middleware, and the engine attributes
the writes of the requests made during a step to that step. Past the episode's step
or time limit the world answers "episode over" and nothing reaches the replica; with
`step_seconds` its clock moves by that much per step, as under the engine.

Per request: one `UPDATE ... RETURNING` (counters and limits together) and one INSERT;
an answer that redirects costs one more UPDATE, a world with faults one SELECT.
"""

import json
import re
import time
import zlib
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import unescape
from urllib.parse import urlsplit

from django.apps import apps
from django.core.exceptions import ObjectDoesNotExist, RequestDataTooBig
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save
from django.http import JsonResponse, RawPostDataException, UnreadablePostError
from django.shortcuts import render

from .clock import world_clock_advance
from .faults.middleware import UNCOUNTED
from .faults.pages import wants_json
from .models import ID_BITS, FaultState, LoggedRequest, RequestLog, WorldModel, rows_updating

ROW_NUMBER = (1 << ID_BITS) - 1
MAX_FIELDS = 50
EPISODE_OVER_STATUS = 410
TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)


# --- which rows a request wrote -------------------------------------------------------


@dataclass
class _Write:
    table: str
    id: str
    op: str
    committed: bool = False
    on_commit: object = None  # the callback handed to transaction.on_commit, if any

    def commit(self):
        self.committed = True


@dataclass
class _Recorder:
    """The writes of one request. Active only while the view runs: what faults do before it is not the agent's."""

    active: bool = False
    writes: list = field(default_factory=list)

    def kept(self) -> list[dict]:
        """The writes that stand: committed, or inside a transaction still open (never one rolled back).

        A write inside a transaction is kept by an on_commit callback; Django drops the
        callbacks of a block that rolls back, so one still pending belongs to a block that
        may yet commit (the request's own, or a test's).
        """
        pending = {id(func) for _sids, func, _robust in connection.run_on_commit}
        rows: dict[tuple, str] = {}
        for w in self.writes:
            if not (w.committed or id(w.on_commit) in pending):
                continue
            key = (w.table, w.id)
            first = rows.get(key)
            if first is None:
                rows[key] = w.op
            elif w.op == "delete":
                # a row made and removed by one request leaves nothing behind
                rows[key] = None if first == "insert" else "delete"
        return [{"table": t, "id": i, "op": op} for (t, i), op in rows.items() if op is not None]


_recorder: ContextVar[_Recorder | None] = ContextVar("replicagym_request_writes", default=None)


def _table(model) -> str:
    return f"{model._meta.app_label}.{model._meta.model_name}"


def public_id(obj) -> str:
    """A row's public key as snapshots write it ("8821", "ORD-4419", "8821|jane@acme.test")."""
    parts = []
    for name in type(obj).public_key:
        f = obj._meta.get_field(name)
        if f.is_relation:
            try:
                target = getattr(obj, name)
            except ObjectDoesNotExist:  # deleted before this row in one cascade
                target = None
            parts.append(public_id(target) if target is not None else getattr(obj, f.attname))
        else:
            parts.append(getattr(obj, f.attname))
    if not parts:
        return f"#{obj.pk & ROW_NUMBER}"
    return "|".join(str(p) for p in parts)


def _record(obj, op: str):
    recorder = _recorder.get()
    if recorder is None or not recorder.active:
        return
    write = _Write(_table(type(obj)), public_id(obj), op)
    recorder.writes.append(write)
    if connection.in_atomic_block:
        write.on_commit = write.commit
        transaction.on_commit(write.on_commit)
    else:
        write.committed = True


def _saved(sender, instance, created, raw=False, **kwargs):
    if not raw:
        _record(instance, "insert" if created else "update")


def _deleted(sender, instance, **kwargs):
    _record(instance, "delete")


def _updating(sender, queryset, **kwargs):
    recorder = _recorder.get()
    if recorder is not None and recorder.active:
        for obj in queryset.all():  # a copy: the caller's queryset keeps no cache
            _record(obj, "update")


def connect_signals():
    """Listen to the writes of replica models only: a receiver for every model would slow every bulk delete."""
    for model in apps.get_models():
        if issubclass(model, WorldModel):
            post_save.connect(_saved, sender=model, dispatch_uid=f"requestlog-save-{_table(model)}")
            post_delete.connect(_deleted, sender=model, dispatch_uid=f"requestlog-delete-{_table(model)}")
    rows_updating.connect(_updating, dispatch_uid="requestlog-update")


# --- the log --------------------------------------------------------------------------


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _next(world_id: int, follows: str | None):
    """(seq, step, max_steps, deadline, closed, keep_pages, step_seconds, clock_start) for a new
    request, or None when the world keeps no log.

    `follows` is the path of a GET, which continues the previous step when the previous
    answer redirected there.
    """
    t = _q(RequestLog._meta.db_table)
    sql = (
        f"UPDATE {t} SET {_q('requests')} = {_q('requests')} + 1, "
        f"{_q('steps')} = {_q('steps')} + CASE WHEN {_q('redirect_to')} = %s THEN 0 ELSE 1 END, "
        f"{_q('redirect_to')} = '' WHERE {_q('world_id')} = %s "
        f"RETURNING {_q('requests')}, {_q('steps')}, {_q('max_steps')}, {_q('deadline')}, {_q('closed')}, "
        f"{_q('keep_pages')}, "
        f"{_q('step_seconds')}, {_q('clock_start')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [follows, world_id])
        return cursor.fetchone()


def _over_reason(*, step, max_steps, deadline, closed) -> str:
    if closed:
        return closed
    if max_steps is not None and step > max_steps:
        return f"its step limit of {max_steps} is reached"
    if deadline is not None and time.time() > deadline:
        return "its time limit is up"
    return ""


def episode_over_response(request, reason: str):
    message = f"The episode is over: {reason}. Nothing more is recorded or changed in this world."
    if wants_json(request) or request.htmx:
        return JsonResponse({"error": {"code": "episode_over", "message": message}}, status=EPISODE_OVER_STATUS)
    return render(request, "worlds/episode_over.html", {"message": message}, status=EPISODE_OVER_STATUS)


def _field_names(request) -> list[str]:
    """Names of what the request sent, never a value: query parameters of a GET, posted fields otherwise."""
    if request.method in ("GET", "HEAD"):
        names = list(request.GET.keys())
    elif request.content_type == "application/json":
        try:
            body = json.loads(request.body or b"null")
        # RecursionError: a body nested too deep to parse (the view refuses it; its names are not worth a 500)
        except (RawPostDataException, RequestDataTooBig, UnreadablePostError, ValueError, RecursionError):
            return []
        names = list(body) if isinstance(body, dict) else []
    else:
        try:
            names = [*request.POST.keys(), *request.FILES.keys()]
        except (RawPostDataException, RequestDataTooBig, UnreadablePostError, ValueError):
            return []
    return [str(n)[:100] for n in dict.fromkeys(names) if n != "csrfmiddlewaretoken"][:MAX_FIELDS]


def _redirect_target(request, response) -> str:
    location = response.get("Location") if 300 <= response.status_code < 400 else None
    if not location:
        return ""
    parts = urlsplit(location)
    if parts.netloc and parts.netloc.lower() != request.get_host().lower():
        return ""
    path = parts.path if parts.path.startswith("/") else request.path.rsplit("/", 1)[0] + "/" + parts.path
    return path[:1000]


def _is_page(request, response) -> bool:
    """A full HTML page the browser shows: not an htmx fragment, nor what a script fetched, nor a download."""
    return (
        not getattr(response, "streaming", False)
        and response.get("Content-Type", "").startswith("text/html")
        and not request.htmx
        and request.headers.get("Sec-Fetch-Dest", "document") in ("document", "iframe")
    )


def _clock_to_step(world, at: datetime):
    """The world clock of a step: set, not added to, so two requests of one step move it once."""
    if at > world.clock:
        world_clock_advance(world=world, seconds=(at - world.clock).total_seconds())


class RequestLogMiddleware:
    """Logs each request of a world that keeps a log, and enforces its limits.

    Sits between the world routing middleware (the world is bound) and the fault
    middleware, so requests that a fault answers are logged too, and the writes of a
    fault (a record changed under the agent) are not attributed to the agent.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        world = getattr(request, "world", None)
        if world is None or UNCOUNTED.match(request.path):
            return self.get_response(request)
        started = time.perf_counter()
        row = _next(world.id, request.path if request.method in ("GET", "HEAD") else None)
        if row is None:
            return self.get_response(request)
        seq, step, max_steps, deadline, closed, keep_pages, step_seconds, clock_start = row
        reason = _over_reason(step=step, max_steps=max_steps, deadline=deadline, closed=closed)
        if step_seconds and clock_start is not None and not reason:
            _clock_to_step(world, datetime.fromtimestamp(clock_start + (step - 1) * step_seconds, UTC))
        recorder = _Recorder()
        if reason:
            response = episode_over_response(request, reason)
        else:
            token = _recorder.set(recorder)
            request.request_log_recorder = recorder
            try:
                response = self.get_response(request)
            finally:
                _recorder.reset(token)
        target = _redirect_target(request, response) if not reason else ""
        if target:
            RequestLog.objects.filter(world_id=world.id).update(redirect_to=target)
        page = None
        if keep_pages and not reason and _is_page(request, response):
            page = zlib.compress(response.content, 6)
        fault_seq = 0
        if world.faults:
            fault_seq = FaultState.objects.filter(world_id=world.id).values_list("events", flat=True).first() or 0
        LoggedRequest.objects.create(
            world_id=world.id,
            seq=seq,
            step=step,
            method=request.method[:10],
            path=request.path[:1000],
            fields=_field_names(request),
            status=response.status_code,
            clock=world.clock,
            writes=recorder.kept(),
            refused=bool(reason),
            fault_seq=fault_seq,
            page=page,
            ms=round((time.perf_counter() - started) * 1000, 3),
        )
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        recorder = getattr(request, "request_log_recorder", None)
        if recorder is not None:
            recorder.active = True
        return None


# --- services ---------------------------------------------------------------------------


def request_log_open(
    *,
    world,
    max_steps: int | None = None,
    deadline: float | None = None,
    keep_pages: bool = False,
    step_seconds: float | None = None,
) -> RequestLog:
    """Start logging a world's requests; with limits, the world enforces them; with
    `step_seconds`, its clock moves by that much per step from where it is now."""
    if max_steps is not None and (not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1):
        raise ValueError(f"max_steps must be a positive integer, not {max_steps!r}")
    if step_seconds is not None and (
        isinstance(step_seconds, bool) or not isinstance(step_seconds, (int, float)) or step_seconds < 0
    ):
        raise ValueError(f"step_seconds must be a number >= 0, not {step_seconds!r}")
    log, _ = RequestLog.objects.update_or_create(
        world=world,
        defaults={
            "max_steps": max_steps,
            "deadline": deadline,
            "keep_pages": keep_pages,
            "closed": "",
            "step_seconds": step_seconds,
            "clock_start": world.clock.timestamp() if step_seconds is not None else None,
        },
    )
    return log


def request_log_close(*, world, reason: str) -> None:
    """From now on the world answers every request with 'episode over' (`reason` says why)."""
    if not reason:
        raise ValueError("say why the world closes")
    RequestLog.objects.filter(world=world).update(closed=reason[:200])


def requests_so_far(*, world) -> int:
    """The seq of the world's last logged request (0: none, or no log)."""
    return RequestLog.objects.filter(world=world).values_list("requests", flat=True).first() or 0


def logged_requests(*, world, since: int = 0) -> list[LoggedRequest]:
    """The world's logged requests after seq `since`, in order (without their pages)."""
    return list(LoggedRequest.objects.filter(world=world, seq__gt=since).defer("page").order_by("seq"))


def last_page(*, world) -> dict | None:
    """{"path", "title", "html"} of the last full page the world served its session, or None."""
    row = (
        LoggedRequest.objects.filter(world=world, refused=False, page__isnull=False)
        .order_by("-seq")
        .only("path", "page")
        .first()
    )
    if row is None:
        return None
    html = zlib.decompress(bytes(row.page)).decode("utf-8", "replace")
    found = TITLE.search(html)
    title = " ".join(found.group(1).split()) if found else ""
    return {"path": row.path, "title": unescape(title), "html": html}
