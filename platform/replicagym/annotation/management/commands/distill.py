"""`manage.py distill SUITE --teacher SPEC --episodes N --out DIR`: a teacher's verified successes become SFT, its
failures DPO's rejected side, in one command (run_suite, then the two exports over that run).

It ends by counting the DPO pairs whose two sides are one action written two ways (a selector and
the bid of its element, an alias, other quoting): such a pair teaches syntax, and the export
writes every action in bid syntax so that there are none."""

import json
import math
from pathlib import Path

from django.core.management import call_command
from django.core.management.base import CommandError

from catalogue.packs import suite_current
from episodes.models import Run
from replicagym.annotation.exports import ExportError, dataset_export, syntax_only_pairs
from replicas.worlds.cli import ReplicaGymCommand, positive_int

from .export_dataset import add_observation_arguments


class Command(ReplicaGymCommand):
    help = "Run a teacher agent over a suite and keep its verified successes as SFT and its failures as DPO rejected."
    user_errors = (ExportError,)

    def add_arguments(self, parser):
        parser.add_argument("suite")
        parser.add_argument("--teacher", required=True, help="an agent spec: openai:MODEL, http:URL, oracle, ...")
        parser.add_argument("--episodes", type=positive_int, required=True, help="about this many episodes in all")
        parser.add_argument("--workers", type=positive_int, default=1)
        parser.add_argument("--out", required=True, help="a new folder: sft/, dpo/ and the run's report.json go in it")
        add_observation_arguments(parser)

    def handle(self, *args, suite, teacher, episodes, workers, out, observation, full_every, **options):
        out = Path(out)
        if out.exists() and any(out.iterdir()):
            raise CommandError(f"--out: {out} is not empty")
        try:
            tasks = suite_current(suite).tasks.count()
        except LookupError as exc:
            raise CommandError(str(exc.args[0] if exc.args else exc)) from None
        if not tasks:
            raise CommandError(f"suite {suite!r} holds no tasks")
        out.mkdir(parents=True, exist_ok=True)
        before = Run.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        attempts = math.ceil(episodes / tasks)
        call_command(
            "run_suite",
            suite,
            agent=teacher,
            attempts=attempts,
            workers=workers,
            out=str(out / "report.json"),
            stdout=self.stdout,
            stderr=self.stderr,
        )
        run = Run.objects.filter(pk__gt=before, agent=teacher, suite__name=suite).order_by("pk").first()
        if run is None:
            raise CommandError("run_suite made no run")
        prompts = {"observation": observation, "full_every": full_every}
        sft = dataset_export(fmt="sft", suite=suite, sources=["runs"], run=run.pk, out=out / "sft", **prompts)
        # the chosen side may also come from other verified sources of the same task and seed
        dpo = dataset_export(
            fmt="dpo", suite=suite, sources=["runs", "annotators", "oracle"], run=run.pk, out=out / "dpo", **prompts
        )
        rows = [json.loads(line) for line in (dpo.out / "dpo.jsonl").read_text(encoding="utf-8").splitlines()]
        self.stdout.write(
            f"run {run.pk}: {sft.card['counts']['episodes']} verified episode(s), {sft.card['counts']['steps']} "
            f"SFT steps in {sft.out}; {dpo.card['counts']['pairs']} DPO pair(s) in {dpo.out}, "
            f"{syntax_only_pairs(rows)} of them differing only in syntax"
        )
