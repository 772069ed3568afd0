"""`manage.py first_run`: what a fresh install needs before anyone signs in (bin/start runs it each start).

It makes the admin account when there is none and prints its sign-in once, and loads the task
packs into the catalogue when the catalogue is empty. Run again, it changes nothing.
"""

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from catalogue.models import Task
from replicagym.accounts.people import PersonError, first_admin_create


class Command(BaseCommand):
    help = "Make the first admin account (printing its password once) and sync the task packs into an empty catalogue."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://localhost:8000/", help="where the platform answers, for the hint")

    def handle(self, *args, url, **options):
        try:
            made = first_admin_create()
        except PersonError as exc:
            raise CommandError(f"could not make the first admin: {exc}", returncode=2) from None
        if made:
            user, password = made
            self.stdout.write(
                f"first run: an admin account was made. Sign in at {url}accounts/login/ as {user.username!r} "
                f"with the password {password!r} (shown only now; change it with `manage.py changepassword "
                f"{user.username}`; add people with `manage.py user create NAME --role author|annotator|admin`)."
            )
        if not Task.objects.exists():
            self.stdout.write("first run: the catalogue is empty; loading the task packs (manage.py task_sync)")
            call_command("task_sync", stdout=self.stdout, stderr=self.stderr)
