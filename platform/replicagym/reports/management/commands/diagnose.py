"""`manage.py diagnose RUN [RUN...]`: why the episodes of these runs failed, weaknesses ranked by share of failures."""

import json

from replicagym.reports.diagnosis import DiagnosisError, diagnose, parse_run_ids
from replicas.worlds.cli import ReplicaGymCommand


class Command(ReplicaGymCommand):
    help = "Group the failed episodes of one run or several and rank the weaknesses they show."
    user_errors = (DiagnosisError,)

    def add_arguments(self, parser):
        parser.add_argument("runs", nargs="+", help="run ids (space or comma separated)")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print the diagnosis as JSON")

    def handle(self, *args, runs, as_json, **options):
        found = diagnose(run_ids=parse_run_ids(" ".join(runs)))
        if as_json:
            self.stdout.write(json.dumps(found.as_dict(), indent=2))
            return
        self.stdout.write(
            f"runs {', '.join(map(str, found.runs))}: {found.failures} of {found.episodes} episodes failed"
        )
        if not found.failures:
            return
        self.stdout.write("weaknesses, most failures first:")
        for rank, w in enumerate(found.weaknesses, start=1):
            examples = ", ".join(f"episode {pk}" for pk in w.examples)
            self.stdout.write(
                f"{rank:>3}. {w.share:>6.1%}  {w.dimension}: {w.label}  ({w.count} failed; e.g. {examples})"
            )
