"""Binds each request to exactly one world, chosen by the request's host.

A world is served on its own origin, http://w-<token>.<WORLD_DOMAIN>:<port>/, so
its cookies and storage are its own and its paths can look like the product's.
Any other host is the platform itself. An unknown or deleted world gets a 404
page that names nothing of any other world.
"""

import logging
import re

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.db import connection, transaction
from django.http import Http404
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.utils.log import log_response

from .faults import pages
from .models import World, world_write_lock
from .registry import get_replica
from .scoping import bound_world
from .services import world_touch

PREFIX = "w-"
PAGE_NOT_FOUND = "worlds/page_not_found.html"  # unless the replica has its own `<replica>/404.html`
SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}
log = logging.getLogger("replicagym.isolation")
# paths an agent has no business asking a world for: the platform's API and admin, path tricks
PROBE = re.compile(r"^/(?:api|admin)(?:/|$)|\.\.|%2e|%2f|%5c", re.I)


def _resolves(path: str, urlconf: str) -> bool:
    try:
        resolve(path, urlconf=urlconf)
    except Resolver404:
        return False
    return True


def _is_probe(path: str, world_urlconf: str) -> bool:
    """A path of the platform itself, or one that tries to climb out of the world's URLs.

    A path the world serves itself (its own API under /api/v2/..., say) is no probe:
    its 404 is a record that is not there.
    """
    if _resolves(path, world_urlconf):
        return False
    if PROBE.search(path):
        return True
    return path != "/" and _resolves(path, settings.ROOT_URLCONF)


def world_token_from_host(host: str) -> str | None:
    name = host.rsplit(":", 1)[0].lower() if not host.startswith("[") else host
    suffix = "." + settings.WORLD_DOMAIN
    if name.startswith(PREFIX) and name.endswith(suffix):
        token = name[len(PREFIX) : -len(suffix)]
        if token and "." not in token:
            return token
    return None


def world_origin(world, port: int | None = None) -> str:
    port = settings.PUBLIC_PORT if port is None else port
    return f"http://{PREFIX}{world.token}.{settings.WORLD_DOMAIN}:{port}"


def world_url(world, path: str = "/", port: int | None = None) -> str:
    return world_origin(world, port) + path


class WorldRoutingMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = world_token_from_host(request.get_host())
        if token is None:
            request.world = None
            return self.get_response(request)
        world = World.objects.filter(token=token, is_template=False, pooled=False).first()  # pooled: nobody's yet
        if world is None:
            return render(request, "worlds/not_found.html", status=404)
        request.world = world
        request.urlconf = get_replica(world.replica).urlconf
        world_touch(world=world)
        with bound_world(world):
            if request.method in SAFE_METHODS or not connection.features.has_select_for_update:
                response = self.get_response(request)
            else:
                # A write request holds its world's lock from its first query: public ids
                # (ticket #8301) are read as "highest + 1" before the row is saved, so the
                # lock must cover the whole request. SQLite's IMMEDIATE transactions
                # already let one writer in at a time.
                with transaction.atomic():
                    world_write_lock(world.id)
                    request.holds_world_lock = True
                    response = self.get_response(request)
        if response.status_code == 404 and not _resolves(request.path_info, request.urlconf):
            # No route matched: Django's own 404 page, with DEBUG on, lists every route of
            # the replica, a map of the product an agent should find by using it.
            response = render(request, [f"{world.replica}/404.html", PAGE_NOT_FOUND], status=404)
            if _is_probe(request.path_info, request.urlconf):
                # the world never answers for the platform; who asks for it is worth knowing
                log.warning("world %s refused a probe: %s %s", world.token, request.method, request.path[:500])
        return response

    def process_exception(self, request, exception):
        """A world's failing view answers with the world's own pages, never Django's debug pages.

        With DEBUG on (the embedded default: the web process serves worlds to annotators and their
        recordings) those show the traceback, its frames' variables and the platform's settings; the
        404 one lists every route of the replica. A 403 is Django's plain page with DEBUG on or off.
        """
        world = getattr(request, "world", None)
        if world is None or isinstance(exception, PermissionDenied):
            return None
        if isinstance(exception, Http404):
            return render(request, [f"{world.replica}/404.html", PAGE_NOT_FOUND], status=404)
        if getattr(request, "holds_world_lock", False):
            # answering here must not commit what the failed view wrote in the lock's transaction
            transaction.set_rollback(True)
        status = 400 if isinstance(exception, (BadRequest, SuspiciousOperation)) else 500
        try:
            response = pages.error_response(request, world, status)
        except Exception:  # the replica's page may read what made the view fail (a query string too long)
            response = pages.plain_error_response(request, status)
        log_response(
            "%s: %s", response.reason_phrase, request.path, response=response, request=request, exception=exception
        )
        return response
