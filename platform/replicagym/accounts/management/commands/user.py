"""`manage.py user create NAME --role admin|author|annotator [--password P]` and `manage.py user list`."""

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from replicagym.accounts.people import PERSON_ROLES, PersonError, person_create
from replicagym.accounts.roles import user_roles
from replicas.worlds.cli import OneLineParser, one_line_errors


class Command(BaseCommand):
    help = "Create platform users with a role (admin, author, annotator) and list them."

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True, parser_class=OneLineParser)
        create = sub.add_parser("create", help="create a user; a generated password is printed this once")
        create.add_argument("username")
        create.add_argument("--role", required=True, choices=[str(r) for r in PERSON_ROLES])
        create.add_argument("--password", default=None, help="default: a generated one")
        create.add_argument("--email", default="")
        sub.add_parser("list", help="list users and their roles as JSON lines")

    def handle(self, *args, action, **options):
        if action == "create":
            try:
                user, password = person_create(
                    username=options["username"],
                    role=options["role"],
                    password=options["password"],
                    email=options["email"],
                )
            except PersonError as exc:
                raise CommandError(str(exc), returncode=2) from None
            doc = {"username": user.username, "roles": sorted(user_roles(user))}
            if options["password"] is None:
                doc["password"] = password
            self.stdout.write(json.dumps(doc, sort_keys=True))
            return
        for user in get_user_model().objects.order_by("username"):
            doc = {"username": user.username, "active": user.is_active, "roles": sorted(user_roles(user))}
            self.stdout.write(json.dumps(doc, sort_keys=True))
