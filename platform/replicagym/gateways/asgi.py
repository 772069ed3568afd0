"""ASGI entry points of the gateways, with Django set up first: `uvicorn replicagym.gateways.asgi:openenv` (or `:mcp`) `--app-dir platform`."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
django.setup()

from .mcp_server import mcp_server  # noqa: E402 - the gateways read models: Django first
from .openenv import openenv_app  # noqa: E402

openenv = openenv_app()
mcp = mcp_server()[0].streamable_http_app()
