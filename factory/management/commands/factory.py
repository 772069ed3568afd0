"""manage.py factory build ANCHOR_DIR: compile an anchor into replicas/<domain>/ (docs/factory.md).
manage.py factory generate ANCHOR_DIR --variants N: record N variant families (policies x personas x seeds) in the
anchor folder (families.json) and build: the replica serves them as variants family1..familyN.
manage.py factory tasks DOMAIN: the build's second step, run in a child process that has the replica installed.
manage.py factory gate ANCHOR_DIR: run the quality gate over the built replica's tasks and record the scores in the
anchor folder (gate.json), which the next build applies.
manage.py factory mcp DOMAIN --url ORIGIN --email E --password P: the replica's operations as MCP tools (stdio)
against the world served at ORIGIN, acting as that person.
manage.py factory tools DOMAIN: play every task's reference solution by tool calls (tool_solutions.json) in an episode
judged by the task's verifier; fails unless each passes.
manage.py factory paraphrase ANCHOR_DIR: other wordings of the built replica's instructions from a configured model,
cached in the anchor folder (paraphrases.json) for the next build (factory/paraphrase.py)."""

import json
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from replicagym.reports.models import QualityGate

from factory.anchor import AnchorError, anchor_read
from factory.build import GATE, BuildError, factory_build, gate_record, tasks_write
from factory.synth import tasks_synthesise
from factory.variants import families_write
from replicas.worlds.enterprise.variants import MAX_FAMILIES
from replicas.worlds.registry import UnknownReplica, get_replica

GATE_AGENT = "noisy-oracle:0.05:7"  # the noisy oracle's own default slip rate: 0.1 failed every long walk


class Command(BaseCommand):
    help = "Compile an anchor (anchor.yaml) into a replica: models, migration, seed, pages, API, graph, tasks."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        build = sub.add_parser("build", help="compile ANCHOR_DIR/anchor.yaml into replicas/<domain>/")
        build.add_argument("anchor_dir", type=Path)
        tasks = sub.add_parser("tasks", help="synthesise a built replica's tasks in sandbox worlds (build step)")
        tasks.add_argument("domain")
        gate = sub.add_parser(
            "gate", help="score the built replica's tasks with the quality gate into ANCHOR_DIR/gate.json"
        )
        gate.add_argument("anchor_dir", type=Path)
        # seeded: the same tasks get the same scores on every machine
        gate.add_argument("--agent", default=GATE_AGENT, help=f"baseline agent spec (default {GATE_AGENT})")
        gate.add_argument("-k", type=int, default=5, help="attempts per task (default 5)")
        gate.add_argument("--low", type=int, default=2, help="fewest passes to keep a task (default 2)")
        gate.add_argument("--high", type=int, default=4, help="most passes to keep a task (default 4)")
        gate.add_argument(
            "--tasks", default="", help="only the tasks whose id matches this pattern, e.g. 'procurement.edit-*'"
        )
        gate.add_argument("--no-sync", action="store_true", help="use the catalogue as it is (skip loading task packs)")
        gate.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
        generate = sub.add_parser(
            "generate", help="compile N variant families (policies x personas x seeds) into the anchor's replica"
        )
        generate.add_argument("anchor_dir", type=Path)
        generate.add_argument("--variants", type=int, required=True, help=f"how many families (0 to {MAX_FAMILIES})")
        mcp = sub.add_parser("mcp", help="serve a compiled replica's tools over MCP (stdio) against a served world")
        mcp.add_argument("domain")
        mcp.add_argument("--url", required=True, help="the world's origin, e.g. http://w-TOKEN.localhost:8000")
        mcp.add_argument("--email", required=True, help="the person the tools act as")
        mcp.add_argument("--password", required=True)
        paraphrase = sub.add_parser(
            "paraphrase", help="ask a model (FACTORY_PARAPHRASE_MODEL_URL, _MODEL) for other wordings of the tasks"
        )
        paraphrase.add_argument("anchor_dir", type=Path)
        tools = sub.add_parser("tools", help="play each task's reference solution by tool calls; fail unless all pass")
        tools.add_argument("domain")
        tools.add_argument("--tasks", default="*", help="only the slugs matching this pattern, e.g. 'approve-*'")

    def handle(self, *args, action, **options):
        if action == "paraphrase":
            return self._paraphrase(**options)
        if action == "gate":
            return self._gate(**options)
        if action == "mcp":
            return self._mcp(**options)
        if action == "tools":
            return self._tools(**options)
        if action == "generate":
            if not 0 <= options["variants"] <= MAX_FAMILIES:
                raise CommandError(f"--variants: from 0 to {MAX_FAMILIES}, not {options['variants']}")
            if not (options["anchor_dir"] / "anchor.yaml").is_file():
                raise CommandError(f"{options['anchor_dir']} holds no anchor.yaml")
            families_write(options["anchor_dir"], options["variants"])
            action = "build"  # the families are part of what the build compiles
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
                f"built replicas/{report.domain}/: {report.files} files, {report.tasks} tasks "
                f"({report.dropped} dropped by the quality gate) in {report.seconds:.1f} s "
                f"({report.cpu_seconds:.1f} s of CPU)"
            )
            return
        try:
            config = get_replica(options["domain"])
        except UnknownReplica as exc:
            raise CommandError(str(exc)) from None
        tasks, tools = tasks_synthesise(replica=config.label)
        tasks_write(Path(config.path), tasks, tools)
        self.stdout.write(f"{len(tasks)} tasks written to replicas/{config.label}/tasks/")

    def _paraphrase(self, *, anchor_dir, **options):
        from factory.paraphrase import ParaphraseError, cache_fill  # noqa: PLC0415 - only this command asks a model

        try:
            anchor, _sha = anchor_read(anchor_dir)
        except AnchorError as exc:
            raise CommandError(str(exc)) from None
        tasks = sorted((Path(settings.BASE_DIR) / "replicas" / anchor["domain"] / "tasks").glob("*.json"))
        if not tasks:
            raise CommandError(f"replicas/{anchor['domain']} has no tasks: build it first")
        try:
            asked, kept = cache_fill(anchor_dir, [json.loads(p.read_text())["instruction"] for p in tasks])
        except ParaphraseError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{asked} instructions asked, {kept} wordings kept; rebuild to ship them")

    def _mcp(self, *, domain, url, email, password, **options):
        try:
            config = get_replica(domain)
        except UnknownReplica as exc:
            raise CommandError(str(exc)) from None
        if not hasattr(config, "runtime"):
            raise CommandError(f"{domain} was not compiled by the factory: it has no tools to serve")
        config.runtime().mcp_server(url=url, email=email, password=password).run("stdio")

    def _tools(self, *, domain, tasks, **options):
        from factory.tools import tool_solutions_check  # noqa: PLC0415 - the episode engine loads only for this

        try:
            get_replica(domain)
        except UnknownReplica as exc:
            raise CommandError(str(exc)) from None
        found = tool_solutions_check(domain, tasks)
        for slug, why in found.items():
            self.stdout.write(f"{'pass' if not why else 'FAIL'}  {slug}" + (f": {why}" if why else ""))
        failed = [slug for slug, why in found.items() if why]
        if not found:
            raise CommandError(f"no task of {domain} with a tool reference solution matches {tasks!r}")
        if failed:
            raise CommandError(f"{len(failed)} of {len(found)} tool reference solutions failed")
        self.stdout.write(f"{len(found)} tool reference solutions passed")

    def _gate(self, *, anchor_dir, agent, k, low, high, workers, tasks, no_sync, **options):
        try:
            anchor, _sha = anchor_read(anchor_dir)
        except AnchorError as exc:
            raise CommandError(str(exc)) from None
        domain = anchor["domain"]
        try:
            config = get_replica(domain)
        except UnknownReplica as exc:
            raise CommandError(f"{exc}: build it first") from None
        call_command(
            "quality_gate",
            domain,
            task_filter=tasks,
            agent=agent,
            k=k,
            low=low,
            high=high,
            workers=workers,
            no_sync=no_sync,
            stdout=self.stdout,
        )
        gate = QualityGate.objects.filter(suite__name=domain).latest("pk")
        passes = {r.task.task_id.removeprefix(f"{domain}."): r.passes for r in gate.results.select_related("task")}
        recorded = gate_record(
            folder=Path(config.path),
            gate_file=Path(anchor_dir) / GATE,
            agent=agent,
            k=k,
            low=low,
            high=high,
            passes=passes,
        )
        kept = sum(low <= s["passes"] <= high for s in recorded["tasks"].values())
        self.stdout.write(
            f"{anchor_dir / GATE}: {len(passes)} tasks scored now, {len(recorded['tasks'])} in all, "
            f"{kept} in the band; rebuild to apply it"
        )
