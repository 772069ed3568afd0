"""The token scheme as drf-spectacular describes it in the OpenAPI schema (registered on import: the API's URLs
import it).
"""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class AgentTokenScheme(OpenApiAuthenticationExtension):
    target_class = "replicagym.accounts.authentication.AgentTokenAuthentication"
    name = "agentToken"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "An agent token, as `Token <secret>` (manage.py token create).",
        }
