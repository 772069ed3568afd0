"""manage.py factory build ANCHOR_DIR: compile an anchor into replicas/<domain>/ (docs/factory.md).
manage.py factory tasks DOMAIN: the build's second step, run in a child process that has the replica installed."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from factory.anchor import AnchorError
from factory.build import BuildError, factory_build, tasks_write
from factory.synth import tasks_synthesise
from replicas.worlds.registry import UnknownReplica, get_replica


class Command(BaseCommand):
    help = "Compile an anchor (anchor.yaml) into a replica: models, migration, seed, pages, API, graph, tasks."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        build = sub.add_parser("build", help="compile ANCHOR_DIR/anchor.yaml into replicas/<domain>/")
        build.add_argument("anchor_dir", type=Path)
        tasks = sub.add_parser("tasks", help="synthesise a built replica's tasks in sandbox worlds (build step)")
        tasks.add_argument("domain")

    def handle(self, *args, action, **options):
        if action == "build":
            try:
                report = factory_build(anchor_dir=options["anchor_dir"])
            except AnchorError as exc:
                raise CommandError(
                    "the anchor is not valid:\n" + "\n".join(f"  {path or '(file)'}: {msg}" for path, msg in exc.errors)
                ) from None
            except BuildError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(
                f"built replicas/{report.domain}/: {report.files} files, {report.tasks} tasks in {report.seconds:.1f} s"
            )
            return
        try:
            config = get_replica(options["domain"])
        except UnknownReplica as exc:
            raise CommandError(str(exc)) from None
        tasks = tasks_synthesise(replica=config.label)
        tasks_write(Path(config.path), tasks)
        self.stdout.write(f"{len(tasks)} tasks written to replicas/{config.label}/tasks/")
