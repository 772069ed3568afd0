"""ASGI entry points of the gateways, with Django set up first: `uvicorn replicagym.gateways.asgi:openenv` (or `:mcp`)
`--app-dir platform`.

`openenv` serves the MCP gateway at /mcp too, as OpenEnv's own servers do (`openenv validate` checks it).
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
django.setup()

from .mcp_server import mcp_http_app  # noqa: E402 - the gateways read models: Django first
from .openenv import openenv_app  # noqa: E402

# each app its own MCP server: a server's session manager runs in one app's lifespan only
openenv = openenv_app(mcp=mcp_http_app())
mcp = mcp_http_app()
