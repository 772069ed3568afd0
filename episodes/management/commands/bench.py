"""`manage.py bench`: measure resets, steps, page renders, throughput (full mode and, with --obs, another
observation mode), the server, memory, BrowserGym side by side, and characters per observation by mode."""

import json
import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from bench.report import SECTIONS, BenchOptions, run_sections, table
from bench.serve import KINDS as SERVER_KINDS
from episodes.engine.observation import OBSERVATION_MODES
from replicas.worlds.cli import ReplicaGymCommand, positive_int, replica_arg, stop_on_signals


class Command(ReplicaGymCommand):
    help = "Benchmark the platform's hot paths; writes JSON and prints a short table."

    def add_arguments(self, parser):
        parser.add_argument(
            "--quick", action="store_true", help="fewer repetitions and smaller worlds (a minute or two)"
        )
        parser.add_argument("--out", default=None, help="where to write the JSON report (default: DATA_DIR/bench.json)")
        parser.add_argument("--only", default="", help=f"comma-separated sections: {', '.join(SECTIONS)}")
        parser.add_argument(
            "--repeat", type=positive_int, help="samples per measurement, renders per page too (overrides the preset)"
        )
        parser.add_argument(
            "--variants", default="", help="world variants for the reset section (default: default,10k,100k)"
        )
        parser.add_argument(
            "--requests", type=positive_int, help="requests for the server section (overrides the preset)"
        )
        parser.add_argument(
            "--world-variant",
            default="",
            help="world variant of the step, render and server sections (default: default)",
        )
        parser.add_argument("--servers", default="", help="servers for the server section (default: engine,gunicorn)")
        parser.add_argument("--workers", default="", help="worker counts for the throughput section (default: 1,2,4)")
        parser.add_argument("--episodes", type=positive_int, help="oracle episodes per worker count (throughput)")
        parser.add_argument(
            "--obs",
            choices=[m for m in OBSERVATION_MODES if m != "full"],
            default=None,
            help="throughput: also run each worker count in this observation mode without screenshots, "
            "next to full mode, and print the ratio",
        )
        parser.add_argument(
            "--obs-tasks",
            type=positive_int,
            help="observations: tasks per replica whose reference solutions are measured (default: all)",
        )
        parser.add_argument(
            "--replica",
            type=replica_arg,
            default=None,
            help="replica measured (default: the first, by name, declaring a bench task)",
        )
        parser.add_argument(
            "--task",
            default="",
            help="task id driven by the start, throughput, memory and BrowserGym sections "
            "(default: the replica's bench task)",
        )

    def handle(
        self,
        *args,
        quick,
        out,
        only,
        repeat,
        variants,
        requests,
        workers,
        episodes,
        obs,
        obs_tasks,
        replica,
        task,
        world_variant,
        servers,
        **_,
    ):
        stop_on_signals()  # SIGTERM and Ctrl-C stop the servers and worker processes it starts (their finally blocks)
        sections = [s.strip() for s in only.split(",") if s.strip()] or list(SECTIONS)
        unknown = [s for s in sections if s not in SECTIONS]
        if unknown:
            raise CommandError(f"unknown section(s) {', '.join(unknown)} (known: {', '.join(SECTIONS)})")
        try:
            worker_counts = [int(w) for w in workers.split(",") if w.strip()]
        except ValueError:
            raise CommandError(f"--workers must be comma-separated integers, not {workers!r}") from None
        if any(w < 1 or w > 16 for w in worker_counts):
            raise CommandError("--workers counts must be from 1 to 16")
        server_kinds = [k.strip() for k in servers.split(",") if k.strip()]
        if any(k not in SERVER_KINDS for k in server_kinds):
            raise CommandError(f"--servers must name {' and/or '.join(SERVER_KINDS)}, not {servers!r}")
        options = BenchOptions.preset(quick=quick).override(
            replica=replica or None,
            repeat=repeat,
            variants=[v.strip() for v in variants.split(",") if v.strip()] or None,
            requests=requests,
            workers=worker_counts or None,
            episodes=episodes,
            obs=obs,
            obs_tasks=obs_tasks,
            task=task or None,
            world_variant=world_variant or None,
            servers=server_kinds or None,
        )
        # Playwright's sync API runs an event loop in this thread, in which Django refuses
        # ORM calls; the bench (like a worker) only ever calls the ORM synchronously.
        os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
        if pending:  # episodes would error on missing columns and the numbers would mean nothing
            raise CommandError(f"the database has {len(pending)} unapplied migration(s): run manage.py migrate first")
        out_path = Path(out) if out else Path(settings.DATA_DIR) / "bench.json"
        if out_path.parent and not out_path.parent.exists():
            raise CommandError(f"--out: folder {str(out_path.parent)!r} does not exist")

        def save(report):
            out_path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")

        report = run_sections(sections, options, progress=lambda line: self.stderr.write(line), save=save)
        self.stdout.write(table(report))
        self.stdout.write(f"\nwritten to {out_path}")
        failed = [name for name, result in report["sections"].items() if "error" in result]
        if failed:
            raise CommandError(f"section(s) failed: {', '.join(failed)} (errors and tracebacks are in {out_path})")
