"""`manage.py run_suite SUITE --agent SPEC --attempts K --workers N --out report.json`: run a benchmark.

The run is made by the run lifecycle (episodes.runs, as the UI and the API make theirs):
episodes are created up front (one per task x attempt), then run by N local worker
processes (or, with --celery, by the Celery workers of the configured broker);
progress goes to stderr, the JSON report (replicagym.reports) to --out (or stdout).
"""

import argparse
import json
import multiprocessing
import sys
import time
from concurrent.futures import as_completed
from pathlib import Path

from django.core.management.base import CommandError
from replicagym.reports.report import run_report

from catalogue.packs import PackError, packs_sync
from episodes.models import Episode, Run
from episodes.queue.local_workers import episode_summary, process_pool, run_one
from episodes.runs import PRIORITIES, RunError, run_create, run_episodes_create, runs_finish
from episodes.trajectory import trajectory_export
from replicas.worlds.cli import ReplicaGymCommand, positive_int, seed_arg, signals_held, stop_on_signals


def json_object(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError('expected a JSON object, as in {"timeout": 30}')
    return value


def priority_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in PRIORITIES:
        raise argparse.ArgumentTypeError(
            f"must be a whole number from {PRIORITIES.start} to {PRIORITIES.stop - 1}, not {text!r}"
        )
    return value


class Command(ReplicaGymCommand):
    help = "Run a suite with an agent (K attempts per task over N workers) and write a JSON report."
    user_errors = (RunError,)

    def add_arguments(self, parser):
        parser.add_argument(
            "suite",
            help="suite name (each replica's pack is a suite named after the replica); "
            "'-' for every current task matched by --tasks",
        )
        parser.add_argument(
            "--agent", required=True, help="oracle | random[:SEED] | replay:FILE | http:URL | openai:MODEL"
        )
        parser.add_argument(
            "--agent-settings",
            type=json_object,
            default={},
            help="agent settings as JSON, e.g. '{\"timeout\": 30}' (timeout, max_failures, temperature)",
        )
        parser.add_argument(
            "--tasks", default="", help="only the task ids matching this pattern, e.g. 'shop.checkout-*'"
        )
        parser.add_argument("--no-faults", action="store_true", help="leave the tasks' faults unarmed")
        parser.add_argument(
            "--seed",
            type=seed_arg,
            default=None,
            help="the run's seed: each episode's world seed and answer key follow from it, the task and "
            "the attempt (default: drawn; printed as the run starts)",
        )
        parser.add_argument(
            "--fixed", action="store_true", help="play every task on its own seed with its own picks (no variation)"
        )
        parser.add_argument("--priority", type=priority_arg, default=0, help="-10..10: workers take higher first")
        parser.add_argument("--attempts", type=positive_int, default=1, help="attempts per task (K)")
        parser.add_argument("--workers", type=positive_int, default=1, help="local worker processes (N)")
        parser.add_argument("--out", help="where to write the JSON report (default: stdout)")
        parser.add_argument(
            "--celery", action="store_true", help="enqueue on the configured broker instead of local processes"
        )
        parser.add_argument(
            "--no-sync", action="store_true", help="use the catalogue as it is (skip loading task packs)"
        )
        parser.add_argument(
            "--trajectories", help="a folder to write each episode's trajectory to (<task>-<attempt>.jsonl)"
        )

    def handle(
        self,
        *args,
        suite,
        agent,
        agent_settings,
        tasks,
        no_faults,
        priority,
        attempts,
        workers,
        out,
        celery,
        no_sync,
        trajectories,
        seed,
        fixed,
        **options,
    ):
        # SIGTERM and Ctrl-C stop the worker processes too (their replica servers and browsers die with them)
        stop_on_signals()
        out_path = Path(out) if out else None
        if out_path is not None and not out_path.parent.is_dir():
            raise CommandError(f"--out: no folder {out_path.parent}")
        if trajectories and not Path(trajectories).is_dir():
            raise CommandError(f"--trajectories: no folder {trajectories}")
        if not no_sync:
            try:
                packs_sync(suite)
            except PackError as exc:
                raise CommandError(
                    f"invalid task pack: {exc.errors[0]}"
                    + (f" (+{len(exc.errors) - 1} more)" if len(exc.errors) > 1 else "")
                ) from None
        if fixed and seed is not None:
            raise CommandError("--seed sets the episodes' variations: it cannot go with --fixed")
        run = run_create(
            suite=None if suite == "-" else suite,
            task_filter=tasks,
            agent=agent,
            agent_settings=agent_settings,
            attempts=attempts,
            workers=workers,
            faults=not no_faults,
            priority=priority,
            seed=seed,
            vary=not fixed,
        )
        episodes = run_episodes_create(run_id=run.pk, enqueue=celery)
        total = len(episodes)
        self._progress(
            f"run {run.pk}: {suite}{f' [{tasks}]' if tasks else ''} ({total // attempts} tasks) x {attempts} "
            "attempt(s) "
            f"= {total} episodes, agent {agent}, "
            + (f"seed {run.seed}, " if run.seed is not None else "fixed seeds, ")
            + ("celery" if celery else f"{workers} worker(s)")
        )
        started = time.monotonic()
        if celery:
            self._wait_celery(run, total)
        elif workers == 1:
            for n, ep in enumerate(episodes, start=1):
                self._report_one(n, total, run_one(ep.pk))
        else:
            self._run_pool([e.pk for e in episodes], workers, total)
        runs_finish(run_ids=[run.pk])  # unless it was cancelled meanwhile (the UI, the API)
        run.refresh_from_db()
        if trajectories:
            for ep in run.episodes.select_related("task"):
                trajectory_export(episode=ep, path=Path(trajectories) / f"{ep.task.task_id}-{ep.attempt}.jsonl")
        report = run_report(run=run)
        report["wall_seconds"] = round(time.monotonic() - started, 2)
        Run.objects.filter(pk=run.pk).update(report=report)
        text = json.dumps(report, indent=2, sort_keys=True)
        totals = report["totals"]
        self._progress(f"done: {totals['passes']}/{totals['attempts']} passed in {report['wall_seconds']} s")
        if out_path is not None:
            out_path.write_text(text + "\n")
            self._progress(f"report written to {out_path}")
        else:
            self.stdout.write(text)

    def _progress(self, line: str):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def _report_one(self, n: int, total: int, r: dict):
        reward = "-" if r["reward"] is None else f"{r['reward']:.2f}"
        tail = f" ({r['error'][:120]})" if r["error"] else ""
        self._progress(
            f"[{n}/{total}] {r['task']} attempt {r['attempt'] + 1}: {r['status']}, {r['steps']} steps, "
            f"{r['seconds']} s, reward {reward}{tail}"
        )

    def _run_pool(self, ids: list[int], workers: int, total: int):
        pool = process_pool(workers)
        try:
            futures = [pool.submit(run_one, pk) for pk in ids]
            for n, future in enumerate(as_completed(futures), start=1):
                self._report_one(n, total, future.result())
        except BaseException:
            # stopped (SIGTERM, Ctrl-C) or failed: leaving the pool normally would first run every episode
            # still waiting in it; those never start, and the running ones' processes end now
            with signals_held():
                pool.shutdown(wait=False, cancel_futures=True)
                for child in multiprocessing.active_children():
                    child.terminate()
                    child.join(timeout=10)
            raise
        pool.shutdown()

    def _wait_celery(self, run: Run, total: int):
        seen = set()
        while len(seen) < total:
            done = Episode.objects.filter(run=run, status__in=Episode.ENDED).exclude(pk__in=seen)
            for ep in done:
                seen.add(ep.pk)
                self._report_one(len(seen), total, episode_summary(ep))
            if len(seen) < total:
                time.sleep(0.5)  # polling the database for results of other processes, not pacing an episode
