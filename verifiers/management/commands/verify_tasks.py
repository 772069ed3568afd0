"""`manage.py verify_tasks [PACK ...]`: every task's reference passes, the empty run and each negative example fail."""

import json
import os

from django.core.management.base import CommandError

from catalogue.models import Task
from catalogue.packs import PackError, pack_names, task_files, task_sync
from replicas.worlds.cli import ReplicaGymCommand
from verifiers.selfcheck import task_selfcheck


def _cell(outcome) -> str:
    if outcome is None:
        return "-"
    if outcome.passed is None:
        return "error"
    return "pass" if outcome.passed else "fail"


class Command(ReplicaGymCommand):
    help = "Self-test the verifiers of task packs: reference must pass, empty and negative examples must fail."

    def add_arguments(self, parser):
        parser.add_argument("packs", nargs="*", help="replica names whose packs to check (default: every pack)")
        parser.add_argument("--task", action="append", default=[], help="only this task id (repeatable)")
        parser.add_argument(
            "--directory", help="read the pack from this folder instead of replicas/<PACK>/tasks (one PACK)"
        )
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="print one JSON object per task instead of a table"
        )

    def handle(self, *args, packs, task, directory, as_json, **options):
        from episodes.driver import episode_play

        # Playwright's sync API runs an event loop in this thread, in which Django refuses
        # ORM calls; the episodes this command plays only ever call the ORM synchronously.
        os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        known = pack_names()
        packs = packs or sorted(n for n in known if task_files(n))
        unknown = [p for p in packs if p not in known]
        if unknown:
            raise CommandError(f"unknown pack(s): {', '.join(unknown)} (packs: {', '.join(known)})")
        if directory and len(packs) != 1:
            raise CommandError("--directory reads one pack: name its replica")
        tasks = []
        for pack in packs:
            try:
                task_sync(replica=pack, directory=directory)
            except PackError as e:
                raise CommandError(f"pack {pack} is invalid:\n" + "\n".join(e.errors))
            tasks += list(Task.objects.filter(pack=pack, is_current=True).order_by("task_id"))
        if task:
            missing = sorted(set(task) - {t.task_id for t in tasks})
            if missing:
                raise CommandError(f"no such task in the pack(s): {', '.join(missing)}")
            tasks = [t for t in tasks if t.task_id in task]
        if not tasks:
            raise CommandError("no tasks to check")
        checks = []
        for t in tasks:
            check = task_selfcheck(task=t, play=episode_play)
            checks.append(check)
            if as_json:
                self.stdout.write(_json_line(check))
        if not as_json:
            self._table(checks)
        bad = [c for c in checks if not c.ok]
        if bad:
            raise CommandError(f"{len(bad)} of {len(checks)} task(s) have a verifier that is wrong")

    def _table(self, checks):
        rows = [("task", "reference", "empty", "negatives", "ok")]
        for c in checks:
            failing = sum(1 for n in c.negatives if n.passed is False)
            negatives = f"{failing}/{len(c.negatives)} fail" if c.negatives else "-"
            rows.append((c.task_id, _cell(c.reference), _cell(c.empty), negatives, "ok" if c.ok else "WRONG"))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        for row in rows:
            self.stdout.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        for c in checks:
            for problem in c.problems:
                self.stdout.write(f"{c.task_id}: {problem}")
        self.stdout.write(f"{sum(c.ok for c in checks)} of {len(checks)} task(s) ok")


def _json_line(check) -> str:
    def outcome(o):
        return (
            None
            if o is None
            else {"passed": o.passed, "detail": o.detail, "episode": o.episode, "action_error": o.action_error}
        )

    return json.dumps(
        {
            "task": check.task_id,
            "ok": check.ok,
            "problems": check.problems,
            "reference": outcome(check.reference),
            "empty": outcome(check.empty),
            "negatives": {n.label: outcome(n) for n in check.negatives},
        }
    )
