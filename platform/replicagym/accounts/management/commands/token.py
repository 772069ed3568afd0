"""`manage.py token create|list|revoke`: agent tokens from the command line (the secret is printed once)."""

import argparse
import json

from django.core.management.base import BaseCommand, CommandError

from replicagym.accounts.models import AgentToken
from replicagym.accounts.tokens import TokenError, token_create, token_revoke, user_by_name
from replicas.worlds.cli import OneLineParser, one_line_errors


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {value}")
    return value


def suite_list(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"must be suite names separated by commas, not {text!r}")
    return names


class Command(BaseCommand):
    help = "Create, list and revoke agent tokens (hashed, expiring, scoped to suites, with quotas)."

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, parser_class=OneLineParser)
        create = sub.add_parser("create", help="create a token and print its secret (shown this once)")
        create.add_argument("--user", required=True)
        create.add_argument("--suites", type=suite_list, required=True, help="comma-separated suite names")
        create.add_argument("--expires-days", type=positive_int, required=True)
        create.add_argument("--concurrent", type=positive_int, default=4, help="episodes queued or running at once")
        create.add_argument("--per-hour", type=positive_int, default=60, help="episodes started per sliding hour")
        create.add_argument("--name", default="", help="what the token is for")
        create.add_argument(
            "--model-agents",
            type=lambda text: [m for m in text.split(",") if m.strip()],
            default=[],
            help="comma-separated model agents (openai:MODEL) its runs may use, on the platform's key",
        )
        lst = sub.add_parser("list", help="list tokens as JSON lines (never their secret)")
        lst.add_argument("--user", default=None)
        revoke = sub.add_parser("revoke", help="revoke a token by its id")
        revoke.add_argument("id", type=positive_int)

    def handle(self, *args, action, **options):
        try:
            getattr(self, f"do_{action}")(**options)
        except TokenError as exc:
            raise CommandError(str(exc), returncode=2) from None

    def _emit(self, doc):
        self.stdout.write(json.dumps(doc, sort_keys=True, default=str))

    def _describe(self, token: AgentToken) -> dict:
        return {
            "id": token.pk,
            "user": token.user.get_username(),
            "name": token.name,
            "prefix": token.prefix,
            "suites": token.suites,
            "model_agents": token.model_agents,
            "concurrent": token.max_concurrent,
            "per_hour": token.max_per_hour,
            "created_at": token.created_at.isoformat(),
            "expires_at": token.expires_at.isoformat(),
            "revoked_at": token.revoked_at.isoformat() if token.revoked_at else None,
            "last_used_at": token.last_used_at.isoformat() if token.last_used_at else None,
            "state": token.state(),
        }

    def do_create(self, *, user, suites, expires_days, concurrent, per_hour, name, model_agents, **_):
        issued = token_create(
            user=user_by_name(user),
            suites=suites,
            expires_days=expires_days,
            max_concurrent=concurrent,
            max_per_hour=per_hour,
            name=name,
            model_agents=model_agents,
        )
        self._emit({**self._describe(issued.token), "secret": issued.secret})
        self.stderr.write("The secret is shown only now; the platform keeps only its hash.")

    def do_list(self, *, user, **_):
        tokens = AgentToken.objects.select_related("user").order_by("pk")
        if user is not None:
            tokens = tokens.filter(user=user_by_name(user))
        for token in tokens:
            self._emit(self._describe(token))

    def do_revoke(self, *, id, **_):
        self._emit(self._describe(token_revoke(token_id=id)))
