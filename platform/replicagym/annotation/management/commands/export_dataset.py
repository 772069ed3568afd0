"""`manage.py export_dataset --format sft|dpo [--suite S] --source annotators,oracle,runs --out DIR
[--observation full|text|diff --full-every N]`."""

import sys

from episodes.engine.observation import OBSERVATION_MODES
from replicagym.annotation.exports import FORMATS, SOURCES, ExportError, dataset_export
from replicagym.annotation.observations import CaptureError
from replicas.worlds.cli import ReplicaGymCommand, positive_int


class Command(ReplicaGymCommand):
    help = "Export verified episodes as SFT JSON lines or DPO triples, with screenshots and a dataset card."
    user_errors = (ExportError, CaptureError)

    def add_arguments(self, parser):
        parser.add_argument("--format", required=True, choices=FORMATS)
        parser.add_argument("--suite", help="only tasks of this suite (default: every task)")
        parser.add_argument("--source", default=",".join(SOURCES), help=f"comma-separated: {', '.join(SOURCES)}")
        parser.add_argument("--out", required=True, help="a new (or empty) folder")
        add_observation_arguments(parser)

    def handle(self, *args, format, suite, source, out, observation, full_every, **options):  # noqa: A002
        def progress(done, total):
            sys.stderr.write(f"\robserved {done}/{total} episodes")
            if done == total:
                sys.stderr.write("\n")

        result = dataset_export(
            fmt=format,
            suite=suite,
            sources=source,
            out=out,
            progress=progress,
            observation=observation,
            full_every=full_every,
        )
        counts = ", ".join(f"{n} {what}" for what, n in result.card["counts"].items())
        self.stdout.write(f"{result.out}: {counts} ({', '.join(result.files)}, card.json, README.md)")


def add_observation_arguments(parser) -> None:
    """The prompts' observation mode, as export_dataset and distill take it."""
    parser.add_argument(
        "--observation",
        choices=OBSERVATION_MODES,
        default="full",
        help="how prompts show each page: the whole accessibility tree, its pruned text, or what changed",
    )
    parser.add_argument(
        "--full-every", type=positive_int, default=5, help="diff mode: the whole page every N steps (default 5)"
    )
