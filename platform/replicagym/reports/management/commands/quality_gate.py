"""`manage.py quality_gate SUITE --agent SPEC -k 5 [--low 2 --high 4] [--workers N]`: gate a suite's tasks.

Runs the baseline agent k times per task (one run, attempts = k), records per task version
how often it passed, and prints the k-out-of-k counts and the kept set: the tasks solved
between low and high times, neither trivial nor impossible for the baseline.
"""

import sys
from concurrent.futures import as_completed

from django.core.management.base import CommandError

from catalogue.packs import PackError, packs_sync
from episodes.queue.local_workers import process_pool, run_one
from episodes.runs import runs_finish
from replicagym.reports.quality import (
    DEFAULT_AGENT,
    DEFAULT_HIGH,
    DEFAULT_K,
    DEFAULT_LOW,
    GATED_SUFFIX,
    GateError,
    gate_results,
    gate_settle,
    gate_start,
    gated_tasks,
)
from replicas.worlds.cli import ReplicaGymCommand, positive_int


def bound(text: str) -> int:
    return positive_int(text) if text != "0" else 0


class Command(ReplicaGymCommand):
    help = "Run a baseline agent k times per task of a suite and keep the tasks it solves between low and high times."
    user_errors = (GateError,)

    def add_arguments(self, parser):
        parser.add_argument("suite", help="suite name (each replica's pack is a suite named after the replica)")
        parser.add_argument(
            "--tasks",
            default="",
            dest="task_filter",
            help="only the suite's tasks whose id matches this pattern (wildcards * ? [ ]), e.g. '<replica>.fault-*'",
        )
        parser.add_argument("--agent", default=DEFAULT_AGENT, help=f"baseline agent spec (default {DEFAULT_AGENT})")
        parser.add_argument("-k", type=positive_int, default=DEFAULT_K, help=f"attempts per task (default {DEFAULT_K})")
        parser.add_argument(
            "--low", type=bound, default=DEFAULT_LOW, help=f"fewest passes to keep a task (default {DEFAULT_LOW})"
        )
        parser.add_argument(
            "--high", type=bound, default=DEFAULT_HIGH, help=f"most passes to keep a task (default {DEFAULT_HIGH})"
        )
        parser.add_argument("--workers", type=positive_int, default=1, help="local worker processes")
        parser.add_argument(
            "--no-sync", action="store_true", help="use the catalogue as it is (skip loading task packs)"
        )

    def handle(self, *args, suite, task_filter, agent, k, low, high, workers, no_sync, **options):
        if not no_sync:
            try:
                packs_sync(suite)
            except PackError as exc:
                raise CommandError(f"invalid task pack: {exc.errors[0]}") from None
        gate = gate_start(suite=suite, task_filter=task_filter, agent=agent, k=k, low=low, high=high, enqueue=False)
        ids = list(gate.run.episodes.order_by("pk").values_list("pk", flat=True))
        self._progress(
            f"quality gate {gate.pk} (run {gate.run_id}): {suite} x {k} attempts = {len(ids)} episodes, "
            f"agent {agent}, keep {low}..{high} of {k}"
        )
        if workers == 1:
            for n, pk in enumerate(ids, start=1):
                self._report_one(n, len(ids), run_one(pk))
        else:
            with process_pool(workers) as pool:
                futures = [pool.submit(run_one, pk) for pk in ids]
                for n, future in enumerate(as_completed(futures), start=1):
                    self._report_one(n, len(ids), future.result())
        runs_finish(run_ids=[gate.run_id])
        if not gate_settle(gate=gate):
            raise CommandError(f"run {gate.run_id} still has unfinished episodes")
        results = gate_results(gate=gate)
        width = max(len(r.task.task_id) for r in results)
        for r in results:
            self.stdout.write(
                f"{r.task.task_id.ljust(width)}  {r.passes}/{r.attempts}  {r.get_verdict_display().lower()}"
            )
        kept = [r.task.task_id for r in results if r.kept]
        self.stdout.write(
            f"kept {len(kept)} of {len(results)} (solved {low} to {high} times out of {k}): "
            + (", ".join(kept) or "none")
        )
        gated = gated_tasks(gate.suite.name)
        if gated:
            self.stdout.write(f"suite {gate.suite.name}{GATED_SUFFIX}: the {len(gated)} task(s) the latest gates kept")

    def _progress(self, line: str):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def _report_one(self, n: int, total: int, r: dict):
        self._progress(f"[{n}/{total}] {r['task']} attempt {r['attempt'] + 1}: {r['status']}, {r['steps']} steps")
