"""DRF authentication by agent token: `Authorization: Token <secret>` (or `Bearer <secret>`)."""

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header

from .tokens import TokenError, token_authenticate

KEYWORDS = (b"token", b"bearer")


class AgentTokenAuthentication(BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None  # not ours: session authentication may still apply
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Token <secret>'")
        try:
            secret = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("invalid token") from None
        try:
            token = token_authenticate(secret)
        except TokenError as exc:
            raise exceptions.AuthenticationFailed(str(exc)) from None
        return token.user, token

    def authenticate_header(self, request):
        return self.keyword
