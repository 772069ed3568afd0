"""`manage.py multihost [--episodes 40] [--task ID]`: web and two workers on hosts of their own, joined by veth.

Makes three network namespaces on this machine (web, worker A, worker B) joined by
veth pairs to a bridge, reaches the PostgreSQL database of DATABASE_URL and Redis
through forwarders on the bridge, runs gunicorn and the scheduler on the web host and
a Celery worker on each worker host, submits a run of --episodes oracle episodes to
the web host's REST API, and checks each episode was recorded once and both worker
hosts played some. Prints a line per step, the summary and a JSON line; exits non-zero
on any failed check. Needs root, iproute2 and PostgreSQL (SQLite cannot be shared
between hosts); the layout is in ops/multihost.py.
"""

import json
import secrets
import sys

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from replicagym.accounts.roles import Role, role_grant

from bench.scenario import resolve_task
from catalogue.packs import PackError, packs_sync
from ops.multihost import MultihostError, missing_requirements, multihost_run
from replicas.worlds.cli import one_line_errors, positive_int, replica_arg, stop_on_signals


def default_redis() -> str:
    broker = settings.CELERY_BROKER_URL
    return broker if broker.startswith("redis://") else "redis://127.0.0.1:6379"


class Command(BaseCommand):
    help = (
        "Run oracle episodes on two worker hosts (network namespaces) submitted through a web host's API; "
        "check each is recorded once."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        parser.add_argument("--episodes", type=positive_int, default=40, help="episodes of the run (at most 100)")
        parser.add_argument(
            "--task",
            default=None,
            help="the task every episode plays with the oracle (default: the replica's bench task)",
        )
        parser.add_argument(
            "--replica",
            type=replica_arg,
            default=None,
            help="whose bench task is played (default: the first, by name, declaring one)",
        )
        parser.add_argument("--concurrency", type=positive_int, default=1, help="episodes at once on each worker host")
        parser.add_argument("--timeout", type=positive_int, default=600, help="seconds the run may take once submitted")
        parser.add_argument(
            "--redis",
            default=None,
            help="the Redis server, redis://host:port (default: CELERY_BROKER_URL's if Redis, else "
            "127.0.0.1:6379); the run takes one of its databases 8 to 11 and flushes it",
        )
        parser.add_argument(
            "--no-sync", action="store_true", help="use the catalogue as it is (skip loading task packs)"
        )

    def handle(self, *args, episodes, task, replica, concurrency, timeout, redis, no_sync, **options):
        if connection.vendor == "sqlite":
            raise CommandError(
                "multihost needs PostgreSQL: a SQLite file cannot be shared between hosts "
                "(set DATABASE_URL=postgres://user@host:5432/name)"
            )
        if episodes > 100:
            raise CommandError("--episodes: a run holds at most 100 attempts of one task")
        redis = redis or default_redis()
        try:
            missing = missing_requirements(redis_url=redis)
        except MultihostError as exc:
            raise CommandError(str(exc)) from None
        if missing:
            raise CommandError("multihost cannot run here: " + "; ".join(missing))
        self._migrate_if_needed()
        if not no_sync:
            self._sync(task, replica)
        try:
            task_obj = resolve_task(task, replica)
        except LookupError as exc:
            raise CommandError(f"--task: {exc.args[0] if exc.args else exc}") from None
        stop_on_signals()  # a stopped multihost takes its hosts down too (SIGTERM would otherwise skip the teardown)
        user, password = self._submitter()
        try:
            summary = multihost_run(
                task=task_obj,
                episodes=episodes,
                username=user.username,
                password=password,
                redis_url=redis,
                concurrency=concurrency,
                timeout=timeout,
                say=self._say,
            )
        except MultihostError as exc:
            raise CommandError(str(exc)) from None
        except SystemExit:  # SIGTERM or Ctrl-C (stop_on_signals): the exit status says which
            self._say("interrupted; the hosts are torn down")
            raise
        finally:
            get_user_model().objects.filter(pk=user.pk).update(is_active=False)  # its session dies with the run
        self._print(summary)
        if summary["problems"]:
            raise CommandError(f"{len(summary['problems'])} check(s) failed: " + "; ".join(summary["problems"][:10]))

    def _migrate_if_needed(self):
        try:
            executor = MigrationExecutor(connection)
        except DatabaseError as exc:
            raise CommandError(f"database {connection.settings_dict['NAME']}: {str(exc).strip()}") from None
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            self._say(f"migrating {connection.settings_dict['NAME']} first")
            call_command("migrate", verbosity=0, interactive=False)

    @staticmethod
    def _sync(task: str | None, replica: str | None):
        """Load the pack the task comes from (all of them when it is not known yet: seconds more)."""
        try:
            packs_sync(task.partition(".")[0] if task else replica)
        except PackError as exc:
            raise CommandError(f"invalid task pack: {exc.errors[0]}") from None

    @staticmethod
    def _submitter():
        """A staff user of this run only (authors may run the oracle), signed in on the web host with its password."""
        password = secrets.token_urlsafe(24)
        user = get_user_model().objects.create_user(username=f"multihost-{secrets.token_hex(4)}", password=password)
        role_grant(user=user, role=Role.AUTHOR)
        return user, password

    def _print(self, summary: dict):
        per_worker = ", ".join(f"{worker}: {n}" for worker, n in sorted(summary["by_worker"].items()))
        traffic = "; ".join(
            f"{service} {s['bytes']} bytes over {sum(s['connections'].values())} connections "
            f"from {', '.join(sorted(s['connections']))}"
            for service, s in sorted(summary["traffic"].items())
        )
        statuses = ", ".join(f"{n} {status}" for status, n in sorted(summary["statuses"].items()))
        self._say(f"episodes: {summary['episodes']} ({statuses}), {summary['redeliveries']} redelivered")
        self._say(f"by worker: {per_worker}")
        self._say(f"through the forwarders: {traffic}")
        self._say(
            f"wall: {summary['wall_seconds']} s (hosts ready in {summary['setup_seconds']} s, "
            f"run {summary['run_seconds']} s)"
        )
        self._say("checks: " + ("ok" if not summary["problems"] else "FAILED: " + "; ".join(summary["problems"][:5])))
        self.stdout.write(json.dumps(summary, sort_keys=True))

    def _say(self, line: str):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
