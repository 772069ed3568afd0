"""The API's error answers: JSON, and never Django's debug pages, whatever DEBUG says.

With DEBUG on, an unmatched /api/ path would get Django's technical 404 (every URL pattern of
the platform) and an unhandled exception its technical 500 (a traceback and the settings);
an agent holding a token must see neither.
"""

import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import JsonResponse
from rest_framework.response import Response
from rest_framework.views import exception_handler

from replicagym.accounts.roles import public

log = logging.getLogger("replicagym.api")


def api_exception_handler(exc, context):
    """DRF's answer for the exceptions it knows; a bare 500 (the exception logged here) for the rest."""
    response = exception_handler(exc, context)
    if response is not None:
        return response
    if isinstance(exc, RequestDataTooBig):  # Django's own limit, met before the JSON intake's when DRF reads the body
        return Response(
            {"detail": f"$: the body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes", "path": "$"}, status=400
        )
    if isinstance(exc, SuspiciousOperation):  # what Django answers 400 to, left to it before this handler
        return Response({"detail": "bad request"}, status=400)
    view = context.get("view")
    log.error("API %s failed", type(view).__name__ if view else "view", exc_info=exc)
    return Response({"detail": "server error"}, status=500)


@public
def api_not_found(request, rest=""):
    """Any /api/ path no operation serves: anyone may be told so, and nothing more."""
    return JsonResponse({"detail": f"no API operation at {request.path[:200]}"}, status=404)
