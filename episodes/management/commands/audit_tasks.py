"""`manage.py audit_tasks [replica ...] [--task ID] [--json]`: the mutation audit of task verifiers.

Per task: its reference solution is played in a real episode (it must pass), doing
nothing is played (it must fail), and every mutant of the reference episode
(`verifiers.audit`) is judged by the task's verifier; a mutant that still earns full
reward and that the task file does not declare equivalent is a hole. Answer tasks'
keys must differ across seeds. Exits non-zero when any task has a hole.
"""

import json
import os
import sys
from pathlib import Path

from django.core.management.base import CommandError

from catalogue.models import Task
from catalogue.packs import PackError, pack_names, task_files, task_sync
from replicas.worlds.cli import ReplicaGymCommand, positive_int

from ...audit import task_audit


class Command(ReplicaGymCommand):
    help = (
        "Mutation audit of task verifiers: every mutant of each reference solution must fail or be declared equivalent."
    )

    def add_arguments(self, parser):
        parser.add_argument("packs", nargs="*", help="replica names whose packs to audit (default: every pack)")
        parser.add_argument("--task", action="append", default=[], help="only this task id (repeatable)")
        parser.add_argument(
            "--seeds", type=positive_int, default=5, help="seeds an answer task's key must vary over (default 5)"
        )
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print one JSON object per task, then the totals"
        )
        parser.add_argument("--out", help="also write the whole report (tasks and totals) to this JSON file")

    def handle(self, *args, packs, task, seeds, as_json, out, **options):
        # Playwright's sync API runs an event loop in this thread, where Django refuses ORM calls;
        # the episodes played here only call the ORM synchronously.
        os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        known = pack_names()
        packs = packs or sorted(n for n in known if task_files(n))
        unknown = [p for p in packs if p not in known]
        if unknown:
            raise CommandError(f"unknown pack(s): {', '.join(unknown)} (packs: {', '.join(known)})")
        tasks = []
        for pack in packs:
            try:
                task_sync(replica=pack)
            except PackError as e:
                raise CommandError(f"pack {pack} is invalid:\n" + "\n".join(e.errors)) from None
            tasks += list(Task.objects.filter(pack=pack, is_current=True).order_by("task_id"))
        if task:
            missing = sorted(set(task) - {t.task_id for t in tasks})
            if missing:
                raise CommandError(f"no such task in the pack(s): {', '.join(missing)}")
            tasks = [t for t in tasks if t.task_id in task]
        if not tasks:
            raise CommandError("no tasks to audit")
        reports = []
        for i, t in enumerate(tasks, 1):
            self._progress(i - 1, len(tasks), t.task_id)
            report = task_audit(t, seeds=seeds)
            reports.append(report)
            if as_json:
                self.stdout.write(json.dumps(report.as_dict()))
        self._progress(len(tasks), len(tasks), "done")
        sys.stderr.write("\n")
        totals = _totals(reports)
        if as_json:
            self.stdout.write(json.dumps({"totals": totals}))
        if out:
            Path(out).write_text(
                json.dumps({"totals": totals, "tasks": [r.as_dict() for r in reports]}, indent=1) + "\n"
            )
        else:
            self._table(reports, totals)
        bad = [r for r in reports if not r.ok]
        if bad:
            raise CommandError(
                f"{len(bad)} of {len(reports)} task(s) have undeclared surviving mutants or failed checks"
            )

    def _progress(self, done: int, total: int, label: str):
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label[:60]:<60}")
        sys.stderr.flush()

    def _table(self, reports, totals):
        rows = [("task", "mutants", "killed", "declared", "undeclared", "seconds", "ok")]
        for r in reports:
            declared = len(r.survivors) - len(r.undeclared)
            rows.append(
                (
                    r.task_id,
                    str(r.mutants),
                    str(r.killed),
                    str(declared),
                    str(len(r.undeclared)),
                    f"{r.seconds:.1f}",
                    "ok" if r.ok else "HOLES",
                )
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            self.stdout.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        for r in reports:
            for s in r.undeclared:
                self.stdout.write(f"{r.task_id}: survivor {s.id}")
            for problem in r.problems:
                self.stdout.write(f"{r.task_id}: {problem}")
        self.stdout.write(
            f"{totals['tasks']} task(s): {totals['mutants']} mutants, {totals['killed']} killed, "
            f"{totals['declared']} declared equivalent, {totals['undeclared']} undeclared survivors, "
            f"{totals['problems']} failed checks; {totals['seconds_per_task']:.1f} s per task"
        )


def _totals(reports) -> dict:
    return {
        "tasks": len(reports),
        "mutants": sum(r.mutants for r in reports),
        "killed": sum(r.killed for r in reports),
        "declared": sum(len(r.survivors) - len(r.undeclared) for r in reports),
        "undeclared": sum(len(r.undeclared) for r in reports),
        "problems": sum(len(r.problems) for r in reports),
        "seconds_per_task": sum(r.seconds for r in reports) / max(1, len(reports)),
    }
