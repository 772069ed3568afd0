"""What faults put on the wire: error answers, the interstitial modal, the layout-shift banner."""

import json
from urllib.parse import urlencode

from django.http import HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils.html import format_html

from .data import hook
from .library import BANNER_PATH, DISMISS_PATH

ERRORS = {
    400: ("bad_request", "Bad Request", "The request could not be understood. Check the address and try again."),
    408: ("timeout", "Request Timeout", "The service took too long to respond. Please try again."),
    504: ("timeout", "Gateway Timeout", "The service took too long to respond. Please try again."),
    500: ("server_error", "Internal Server Error", "Something went wrong on our end. Please try again."),
    503: (
        "unavailable",
        "Service Unavailable",
        "The service is temporarily unavailable. Please try again in a moment.",
    ),
}

# One fixed wording per kind, so every run shows the same modal.
INTERSTITIALS = {
    "survey": (
        "How are we doing?",
        "How likely are you to recommend the Agent Workspace to a colleague? It takes 30 seconds.",
        [("dismiss", "No thanks"), ("accept", "Take the survey")],
    ),
    "cookie_banner": (
        "We value your privacy",
        "We use cookies to improve your experience and to analyse traffic. Choose which cookies we may use.",
        [("reject", "Reject all"), ("accept", "Accept all cookies")],
    ),
    "product_tour": (
        "Welcome to the new Agent Workspace",
        "Tickets, customer context and apps now live side by side. Take a quick tour of what changed.",
        [("skip", "Skip tour"), ("accept", "Start tour")],
    ),
    "new_version": (
        "A new version is available",
        "We've shipped improvements to the workspace. Reload to get the latest version.",
        [("later", "Remind me later"), ("accept", "Reload now")],
    ),
}


def wants_json(request) -> bool:
    accept = request.headers.get("Accept", "")
    return request.path.startswith("/api/") or ("application/json" in accept and "text/html" not in accept)


def error_response(request, world, status: int) -> HttpResponse:
    """The answer of a failing route: the replica's own error page if it has one, else a plain one."""
    code, title, message = ERRORS[status]
    custom = hook(world.replica, "error_response")
    if custom is not None:
        return custom(request, status=status, code=code, message=message)
    return plain_error_response(request, status)


def plain_error_response(request, status: int) -> HttpResponse:
    """An error answer that reads nothing of the request but its path (and its Accept header)."""
    code, title, message = ERRORS[status]
    if wants_json(request):
        return JsonResponse({"error": message, "code": code}, status=status)
    body = format_html(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{} {}</title></head>'
        '<body style="font-family:system-ui,sans-serif;margin:15vh auto;max-width:32rem;color:#2f3941">'
        '<h1>{}</h1><p>{}</p><p><a href="{}">Try again</a></p></body></html>',
        status,
        title,
        title,
        message,
        request.get_full_path(),
    )
    return HttpResponse(body, status=status)


def _html_ok(response) -> bool:
    return (
        response.status_code == 200
        and not getattr(response, "streaming", False)
        and response.get("Content-Type", "").startswith("text/html")
    )


def is_full_page(request, response) -> bool:
    """A whole HTML document the browser will render (not an htmx fragment, a file or a redirect)."""
    return _html_ok(response) and not request.htmx and b"</body>" in response.content


def is_fragment(request, response) -> bool:
    """An htmx partial answer: swapped into the page the browser already shows."""
    return _html_ok(response) and bool(request.htmx)


def interstitial_markup(*, index: int, kind: str, next_path: str) -> str:
    title, text, buttons = INTERSTITIALS[kind]
    actions = "".join(
        format_html(
            '<button type="submit" name="choice" value="{}" class="rg-btn{}">{}</button>',
            value,
            " rg-btn--primary" if i == len(buttons) - 1 else "",
            label,
        )
        for i, (value, label) in enumerate(buttons)
    )
    return _modal(index, kind, next_path, title, text, actions)


def _modal(index, kind, next_path, title, text, actions) -> str:
    head = format_html(
        '<div class="rg-backdrop" id="rg-interstitial-{}" data-rg-fault="{}">'
        '<div class="rg-modal rg-modal--{}" role="dialog" aria-modal="true" aria-labelledby="rg-title-{}">'
        '<form method="post" action="{}" class="rg-modal__form">'
        '<button type="submit" name="choice" value="close" class="rg-modal__close" aria-label="Close">×</button>'
        '<h2 class="rg-modal__title" id="rg-title-{}">{}</h2><p class="rg-modal__text">{}</p>'
        '<input type="hidden" name="fault" value="{}"><input type="hidden" name="next" value="{}">',
        index,
        index,
        kind,
        index,
        DISMISS_PATH,
        index,
        title,
        text,
        index,
        next_path,
    )
    return head + '<div class="rg-modal__actions">' + actions + "</div></form></div></div>"


def layout_shift_config(*, index: int, params: dict, next_path: str) -> dict:
    return {
        "fault": index,
        "selector": params["selector"],
        "shift_px": params["shift_px"],
        "delay_ms": params["delay_ms"],
        "href": f"{BANNER_PATH}?{urlencode({'fault': index, 'next': next_path})}",
    }


LAYER = "rg-faults-layer"


def inject(response, *, modals: list[str], shifts: list[dict]) -> None:
    """Put the fault layer (modals), the layout-shift settings and the script at the end of the body.

    The layer is there even when empty, so that an htmx answer can fill it later.
    """
    parts = [
        format_html('<link rel="stylesheet" href="{}">', static("worlds/faults.css")),
        f'<div id="{LAYER}">{"".join(modals)}</div>',
    ]
    if shifts:
        # </ never appears in the JSON, so it cannot close the script element
        data = json.dumps(shifts, sort_keys=True).replace("</", "<\\/")
        parts.append(f'<script type="application/json" id="rg-layout-shift">{data}</script>')
    parts.append(format_html('<script src="{}"></script>', static("worlds/faults.js")))
    markup = "".join(parts).encode()
    content = response.content
    at = content.rfind(b"</body>")
    _set_content(response, content[:at] + markup + content[at:])


def inject_fragment(response, *, modals: list[str]) -> None:
    """Fill the page's fault layer from an htmx answer: an out-of-band swap, the page stays as it is.

    Wrapped in a <template>, which htmx unwraps for out-of-band swaps: parsed after a
    table-row answer, a bare <form> would be torn out of the modal (foster parenting).
    """
    markup = f'<template><div id="{LAYER}" hx-swap-oob="true">{"".join(modals)}</div></template>'.encode()
    _set_content(response, response.content + markup)


def _set_content(response, content: bytes) -> None:
    response.content = content
    if response.has_header("Content-Length"):
        response["Content-Length"] = str(len(content))
