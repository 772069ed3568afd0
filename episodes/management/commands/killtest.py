"""`manage.py killtest [--trials 20] [--episodes 20] [--kill worker|browser|both]`: kill -9 a worker or its Chromium in
the middle of runs and check nothing is lost.

On the configured queue (the embedded default's database queue, or the Celery broker
of CELERY_BROKER_URL), each trial starts a run of --episodes oracle episodes of one
cheap task on --workers worker processes and, at a random moment, either kills one
worker's whole process group (its pool and its Chromium too) with SIGKILL and starts
it again, or SIGKILLs that worker's Chromium processes only (--kill browser; `both`
draws one of the two per trial); it then upkeeps like the scheduler until the run is done. It then checks the run
finished,
no episode is left queued or running, and each episode was recorded once: it
passed, with one verdict and one set of steps (exactly its reference's steps,
numbered 0, 1, 2, ...). It prints a line per trial and the totals. SIGTERM or Ctrl-C
stops it, and its workers with it.
"""

import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import psutil
from celery import current_app
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.db.models import Count

from bench.scenario import resolve_task
from catalogue.packs import PackError, packs_sync
from episodes.creation import episode_create
from episodes.models import Episode, Run
from episodes.queue.heartbeat import worker_identity
from episodes.queue.workers import scheduler_tick
from episodes.runs import enqueue_episodes, run_create
from ops.fleet import ROOT, celery_worker_argv, chromium_kill, chromium_processes, run_recorded_once, worker_env
from replicas.worlds.cli import one_line_errors, positive_int, replica_arg, signals_held, stop_on_signals

KILLS = ("worker", "browser", "both")
STOP_WAIT_S = 10  # how long a stopped killtest gives its workers to leave before it kills them


def process_group(pgid: int) -> set[int]:
    """Pids of a process group (a Celery worker runs episodes in its pool child, not its main process)."""
    pids = set()
    for pid in psutil.pids():
        try:
            if os.getpgid(pid) == pgid:
                pids.add(pid)
        except ProcessLookupError:  # the process ended while we looked
            continue
    return pids


class Workers:
    """Worker processes on one queue, each in its own process group so a kill takes its pool and browser with it."""

    def __init__(self, *, count: int, queue: str, heartbeat: int, lost_after: int, visibility: int, logs: Path):
        self.queue, self.logs, self.count = queue, logs, count
        self.env = worker_env(
            REPLICAGYM_WORKER_HEARTBEAT_SECONDS=str(heartbeat),
            REPLICAGYM_WORKER_LOST_SECONDS=str(lost_after),
            REPLICAGYM_REDIS_VISIBILITY_SECONDS=str(visibility),
        )
        self.procs: list[subprocess.Popen] = []

    def start(self) -> None:
        # one at a time into self.procs, so a stop arriving meanwhile finds those already started
        for i in range(self.count):
            self.procs.append(self._start(i))

    def _command(self, i: int) -> list[str]:
        if settings.EPISODE_QUEUE == "database":
            return [sys.executable, str(ROOT / "manage.py"), "worker", "--queue", self.queue]
        return celery_worker_argv(node=f"killtest{i}-{self.queue}@%h", queue=self.queue)

    def _start(self, i: int) -> subprocess.Popen:
        log = open(self.logs / f"worker-{i}.log", "a")  # noqa: SIM115 - the child holds it; closed with the process
        try:
            return subprocess.Popen(
                self._command(i), cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        finally:
            log.close()

    def kill_and_restart(self, i: int) -> None:
        os.killpg(self.procs[i].pid, signal.SIGKILL)
        self.procs[i].wait()
        self.procs[i] = self._start(i)

    def revive(self) -> int:
        """Start again the workers that ended by themselves (one wedged in its browser exits), as bin/start's
        supervisor would.
        """
        revived = 0
        for i, proc in enumerate(self.procs):
            if proc.poll() is not None:
                self.procs[i] = self._start(i)
                revived += 1
        return revived

    def kill_browser(self, i: int) -> int:
        """SIGKILL worker i's Chromium (the worker lives on); returns how many processes died."""
        return chromium_kill(self.procs[i].pid)

    def stop(self) -> None:
        """SIGTERM every worker's group (each leaves after its episode at hand), SIGKILL what is left after
        STOP_WAIT_S.
        """
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT_S
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


class Command(BaseCommand):
    help = (
        "Kill -9 a worker at a random moment of each of --trials runs; check every run finishes with each "
        "episode recorded once."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        return one_line_errors(super().create_parser(prog_name, subcommand, **kwargs))

    def add_arguments(self, parser):
        parser.add_argument("--trials", type=positive_int, default=20)
        parser.add_argument("--episodes", type=positive_int, default=20, help="episodes per run")
        parser.add_argument("--workers", type=positive_int, default=2, help="worker processes")
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
        parser.add_argument("--seed", type=int, default=None, help="seed of the random kill moments (default: random)")
        parser.add_argument(
            "--lost-after",
            type=positive_int,
            default=10,
            help="seconds of silence after which a worker counts as lost (its heartbeat comes every third of that)",
        )
        parser.add_argument("--trial-timeout", type=positive_int, default=600, help="seconds a trial may take")
        parser.add_argument(
            "--kill",
            choices=KILLS,
            default="worker",
            help="what dies: the worker's process group, its Chromium only, or one of the two per trial",
        )
        parser.add_argument(
            "--mid-episode",
            action="store_true",
            help="kill only while the worker runs an episode (by default the moment may fall between episodes)",
        )
        parser.add_argument(
            "--no-sync", action="store_true", help="use the catalogue as it is (skip loading task packs)"
        )

    def handle(
        self,
        *args,
        trials,
        episodes,
        workers,
        task,
        replica,
        seed,
        lost_after,
        trial_timeout,
        kill,
        mid_episode,
        no_sync,
        **options,
    ):
        stop_on_signals()  # SIGTERM and Ctrl-C stop the workers too (they run in sessions of their own)
        if lost_after < 3:
            raise CommandError("--lost-after must be at least 3 seconds (three heartbeats)")
        if not no_sync:
            try:
                packs_sync(task.partition(".")[0] if task else replica)
            except PackError as exc:
                raise CommandError(f"invalid task pack: {exc.errors[0]}") from None
        try:
            task_obj = resolve_task(task, replica)
        except LookupError as exc:
            raise CommandError(f"--task: {exc.args[0] if exc.args else exc}") from None
        task = task_obj.task_id
        seed = random.randrange(2**32) if seed is None else seed
        rng = random.Random(seed)
        broker = (
            "embedded (episode rows as the queue)"
            if settings.EPISODE_QUEUE == "database"
            else settings.CELERY_BROKER_URL.split("@")[-1]
        )
        queue = f"killtest-{uuid.uuid4().hex[:8]}"
        logs = Path(settings.DATA_DIR) / "killtest" / queue
        logs.mkdir(parents=True, exist_ok=True)
        heartbeat = max(1, lost_after // 3)
        self._say(
            f"killtest: {trials} trial(s) x {episodes} episodes of {task} (oracle) on {workers} workers, "
            f"broker {broker}, queue {queue}, seed {seed}, worker lost after {lost_after} s, killing: {kill}"
        )
        pool = Workers(
            count=workers,
            queue=queue,
            heartbeat=heartbeat,
            lost_after=lost_after,
            visibility=max(5, 3 * lost_after),
            logs=logs,
        )
        results = []
        try:
            pool.start()
            for n in range(1, trials + 1):
                what = rng.choice(KILLS[:2]) if kill == "both" else kill
                result = self._trial(
                    pool,
                    task_obj,
                    episodes,
                    workers,
                    queue,
                    rng,
                    timedelta(seconds=lost_after),
                    trial_timeout,
                    mid_episode,
                    what,
                )
                results.append(result)
                self._say(self._line(n, trials, result))
        finally:
            with signals_held():  # a second SIGTERM must not leave workers behind halfway through
                pool.stop()
                if settings.EPISODE_QUEUE == "celery":
                    with current_app.connection_for_write() as conn:  # duplicate deliveries nobody needs any more
                        conn.default_channel.queue_purge(queue)
        totals = {
            "broker": broker,
            "trials": len(results),
            "episodes": sum(r["episodes"] for r in results),
            "kills": len(results),
            "worker_kills": sum(r["killed"] == "worker" for r in results),
            "browser_kills": sum(r["killed"] == "browser" for r in results),
            "lost": sum(r["lost"] for r in results),
            "stuck": sum(r["stuck"] for r in results),
            "duplicated": sum(r["duplicated"] for r in results),
            "killed_mid_episode": sum(r["running_at_kill"] for r in results),
            "workers_restarted_after_exiting": sum(r["revived"] for r in results),
            "redeliveries": sum(r["redeliveries"] for r in results),
            "succeeded": sum(r["statuses"].get("succeeded", 0) for r in results),
            "failed_checks": sum(len(r["problems"]) for r in results),
            "seconds_total": round(sum(r["seconds"] for r in results), 1),
            "seconds_per_trial_median": round(statistics.median(r["seconds"] for r in results), 1),
            "recovery_seconds_max": round(max(r["recovery_seconds"] for r in results), 1),
            "seed": seed,
        }
        self.stdout.write(json.dumps(totals, sort_keys=True))
        problems = [f"trial {i}: {p}" for i, r in enumerate(results, start=1) for p in r["problems"]]
        if problems:
            raise CommandError(f"{len(problems)} check(s) failed: " + "; ".join(problems[:10]))

    def _trial(self, pool, task, count, workers, queue, rng, lost_after, timeout, mid_episode, what) -> dict:
        started = time.monotonic()
        run = run_create(suite=task.replica, agent="oracle", attempts=count, workers=workers)
        with transaction.atomic():
            ids = [episode_create(task=task, agent="oracle", run=run, attempt=i).pk for i in range(count)]
            Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)
            enqueue_episodes(ids, queue=queue)
        # the moment: after a random number of episodes finished, plus up to two seconds
        # (with --mid-episode: once the victim runs one, plus up to half a second)
        target = rng.randrange(count - 1 if mid_episode and count > 1 else count)
        victim = rng.randrange(workers)
        delay = rng.uniform(0, 0.5 if mid_episode else 2)
        deadline = started + timeout
        finished = Episode.objects.filter(run=run, status__in=Episode.FINAL)
        while finished.count() < target and time.monotonic() < deadline:
            time.sleep(0.1)  # polling other processes' progress
        while True:
            if mid_episode:
                victim = self._busy_victim(run, pool, victim, deadline, finished, count)
            time.sleep(delay)
            running_at_kill = self._running_on(run, pool.procs[victim].pid)
            if running_at_kill or not mid_episode or time.monotonic() >= deadline or finished.count() >= count:
                break
            # the victim's episode ended during the delay (a short task, a loaded machine): kill it in its next one
            delay = 0
        if what == "browser":
            # a worker's first episode launches its Chromium: a kill before that would hit nothing
            while not chromium_processes(pool.procs[victim].pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            running_at_kill = self._running_on(run, pool.procs[victim].pid)
        done_at_kill = finished.count()
        if what == "worker":
            pool.kill_and_restart(victim)
        elif not pool.kill_browser(victim):
            self._say(f"worker {victim} had no Chromium to kill")
        killed_at = time.monotonic()
        # upkeep as the scheduler does, quickly, until the run is done
        revived = 0
        while time.monotonic() < deadline:
            revived += pool.revive()
            scheduler_tick(stale_after=lost_after)
            if Run.objects.filter(pk=run.pk, status=Run.Status.DONE).exists():
                break
            time.sleep(0.5)
        ended = time.monotonic()
        recorded = run_recorded_once(run, task)
        return {
            **recorded,
            **self._tally(run, task),
            "killed": what,
            "revived": revived,
            "victim": victim,
            "done_at_kill": done_at_kill,
            "running_at_kill": running_at_kill,
            "seconds": ended - started,
            "recovery_seconds": ended - killed_at,
        }

    @staticmethod
    def _tally(run, task) -> dict:
        """Episodes lost (ended without passing: the oracle passes its task), stuck (still queued or running) and
        duplicated (recorded more than once: more steps than the reference has)."""
        out = {"lost": 0, "stuck": 0, "duplicated": 0}
        for ep in Episode.objects.filter(run=run).annotate(n=Count("steps")):
            if not ep.is_final:
                out["stuck"] += 1
            elif ep.status != Episode.Status.SUCCEEDED:
                out["lost"] += 1
            if ep.n > len(task.with_params(ep.params).reference_solution):
                out["duplicated"] += 1
        return out

    def _busy_victim(self, run, pool, drawn: int, deadline: float, finished, count: int) -> int:
        """The drawn worker once it runs one of the run's episodes, or another worker that does.

        The other worker may take every episode (the drawn one still starting on a loaded
        machine): waiting for the drawn one alone then lasted until the trial's deadline.
        """
        while time.monotonic() < deadline and finished.count() < count:
            busy = [i for i, proc in enumerate(pool.procs) if self._running_on(run, proc.pid)]
            if busy:
                return drawn if drawn in busy else busy[0]
            time.sleep(0.1)  # polling other processes' progress
        return drawn

    @staticmethod
    def _running_on(run, pgid: int) -> int:
        group = process_group(pgid)
        return sum(
            worker_identity(claimed)[1] in group
            for claimed in Episode.objects.filter(run=run, status=Episode.Status.RUNNING).values_list(
                "claimed_by", flat=True
            )
        )

    @staticmethod
    def _line(n, trials, r) -> str:
        statuses = ", ".join(f"{v} {k}" for k, v in sorted(r["statuses"].items()))
        verdict = "ok" if not r["problems"] else "FAILED: " + "; ".join(r["problems"][:3])
        what = "worker" if r["killed"] == "worker" else "the Chromium of worker"
        return (
            f"trial {n}/{trials}: killed {what} {r['victim']} after {r['done_at_kill']} finished "
            f"({r['running_at_kill']} running on it), {r['redeliveries']} redelivered; {statuses}; "
            f"{r['seconds']:.1f} s (recovery {r['recovery_seconds']:.1f} s): {verdict}"
        )

    def _say(self, line: str):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
