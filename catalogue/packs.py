"""Task packs: the task files under replicas/<replica>/tasks/, validated and synced into the catalogue.

One pack is no replica's: the cross-app tasks under replicas/crossapp/tasks/ (WORKSPACE_PACK), each naming
the workspace it is played in (`"workspace": {"replicas": [...]}`, its tabs in that order) instead of a
replica. Such a task's replica is the group's label (its replicas joined by commas, in name order), which
the verifiers read as every member's tables; its params function is given the cached template workspace.

Every problem is reported with the file and the JSON path it is at, and a pack
with any bad file changes nothing in the database.
"""

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction
from replicagym.jsonintake import JsonIntakeError, json_intake

from replicas.worlds.faults import fault_spec_errors
from replicas.worlds.registry import get_replica, replicas
from replicas.worlds.schema_errors import schema_errors, schema_validator
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import InvalidWorldRequest, template_get_or_build
from replicas.worlds.snapshot import canonical_json
from replicas.worlds.workspaces import group_label, workspace_template_get_or_build
from verifiers.actions import ActionError, parse_action
from verifiers.interaction import interaction_errors
from verifiers.placeholders import MissingParam, expand_actions, fill, fill_text, for_each_line, placeholder_paths
from verifiers.spec import SpecError, validate_spec

from .models import Suite, Task
from .task_templates import (
    TemplateError,
    call_picker,
    function_at,
    is_template,
    template_errors,
    template_params,
    variation_rng,
)

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SUITE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
# The task file format, published for authors and tools; what it cannot say is checked below.
TASK_SCHEMA_FILE = "task.schema.json"
SUITES_FILE = "suites.json"
# The pack of cross-app tasks: a folder beside the replicas' (no app of its own: it holds task files and
# the params functions that read a template workspace), its tasks `crossapp.<slug>`.
WORKSPACE_PACK = "crossapp"


class PackError(ValueError):
    """One or more task files are invalid; `errors` holds one line per problem."""

    def __init__(self, errors: list[str]):
        self.errors = errors
        super().__init__("\n".join(errors))


@dataclass
class PackTask:
    task_id: str
    spec: dict
    params: dict
    content_hash: str
    params_hash: str
    source: str


def sha256_json(doc) -> str:
    return hashlib.sha256(canonical_json(doc).encode()).hexdigest()


def pack_dir(replica: str) -> Path:
    if replica == WORKSPACE_PACK:
        return Path(settings.BASE_DIR) / "replicas" / WORKSPACE_PACK / "tasks"
    config = get_replica(replica)
    return Path(config.path) / "tasks"


def pack_names() -> list[str]:
    """Every pack: each installed replica's, then the cross-app one."""
    return [*sorted(replicas()), WORKSPACE_PACK]


def task_replica(spec: dict) -> str:
    """The replica a (shape-checked) task is played and verified in: its own, or its workspace's group label."""
    return group_label(spec["workspace"]["replicas"]) if "workspace" in spec else spec["replica"]


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(settings.BASE_DIR))
    except ValueError:
        return str(path)


def _lines(where: str, errors: list[tuple[str, str]]) -> list[str]:
    """A PackError's lines: the file, then each problem's JSON path ($ for the whole document) and message."""
    return [f"{where}: {path or '$'}: {message}" for path, message in errors]


def shape_errors(spec, replica: str, stem: str) -> list[tuple[str, str]]:
    """The schema's problems as (json_path, message), then what a schema cannot say: the slug is the file
    name, the replica is the pack's, the variant is one of the replica's."""
    if not isinstance(spec, dict):
        return [("", f"a task file holds one JSON object, not {type(spec).__name__}")]
    errors = schema_errors(schema_validator(TASK_SCHEMA_FILE), spec)
    if isinstance(spec.get("slug"), str) and SLUG.match(spec["slug"]) and spec["slug"] != stem:
        errors.append(("slug", f"{spec['slug']!r} differs from the file name {stem!r}"))
    if errors:
        return errors
    if replica == WORKSPACE_PACK:
        return _workspace_shape_errors(spec)
    if "workspace" in spec:
        errors.append(
            (
                "workspace",
                f"a task of the {replica} pack is played in that replica: cross-app tasks "
                f"are the {WORKSPACE_PACK} pack's",
            )
        )
    elif spec["replica"] != replica:
        errors.append(("replica", f"must be {replica!r} (the pack's replica), not {json.dumps(spec['replica'])[:60]}"))
    if isinstance(spec.get("variant"), str):
        try:
            get_replica(replica).knobs(spec["variant"])
        except LookupError as exc:
            errors.append(("variant", str(exc).strip(chr(34) + chr(39))))
    if is_template(spec.get("params")) and not errors:
        errors += template_errors(spec["params"], replica=replica)
    return errors


def _workspace_shape_errors(spec: dict) -> list[tuple[str, str]]:
    """What a cross-app task's shape may get wrong beyond the schema: its workspace must be one that can be made,
    its params a function of the template workspace, and nothing armed on one world alone."""
    if "workspace" not in spec:
        return [("workspace", f"a task of the {WORKSPACE_PACK} pack names its workspace, not a replica")]
    errors = []
    try:
        for name in spec["workspace"]["replicas"]:
            get_replica(name).knobs(spec.get("variant", "default"))
        group_label(spec["workspace"]["replicas"])
    except (LookupError, InvalidWorldRequest) as exc:
        errors.append(("workspace.replicas", str(exc).strip(chr(34) + chr(39))))
    if is_template(spec.get("params")):
        errors.append(("params", "a cross-app task's params are a 'module:function' given the template workspace"))
    if spec.get("faults"):
        errors.append(("faults", "a cross-app task arms faults per member: workspace.faults names the member"))
    if spec.get("interaction"):
        errors.append(
            ("interaction", "a cross-app task has no interaction yet: it is per world, and tasks name no member")
        )
    members = spec["workspace"]["replicas"]
    for key, allowed in (("start_pages", members[1:]), ("faults", members)):
        for name in spec["workspace"].get(key, {}):
            if name == members[0] and key == "start_pages":
                errors.append((f"workspace.{key}.{name}", "the first tab opens at the task's start_page"))
            elif name not in allowed:
                errors.append((f"workspace.{key}.{name}", f"must name one of {', '.join(allowed)}"))
    return errors


def task_params(spec: dict, *, variation: int | None = None) -> dict:
    """The answer key, computed on the cached template world of the task's seed: a declarative
    template (task_templates) evaluated there, or the task's params function run with that world bound.
    An episode's `variation` gives the pickers their randomness (see task_templates)."""
    ref = spec.get("params")
    if not ref:
        return {}
    if "workspace" in spec:
        template = workspace_template_get_or_build(
            replicas=spec["workspace"]["replicas"], seed=spec["seed"], variant=spec.get("variant", "default")
        )
        return _checked_params(ref, function_at(ref)(template))
    template = template_get_or_build(replica=spec["replica"], seed=spec["seed"], variant=spec.get("variant", "default"))
    if is_template(ref):
        return template_params(ref, world=template, variation=variation)
    func = function_at(ref)
    with bound_world(template):
        result = call_picker(func, template, rng=variation_rng(template, variation, ref))
    return _checked_params(ref, result)


def _checked_params(ref: str, result) -> dict:
    if not isinstance(result, dict) or not all(isinstance(k, str) for k in result):
        raise TypeError(f"{ref} returned {type(result).__name__}, not a dict with string keys")
    # round-trip so that what is stored is exactly what the JSON column gives back
    return json.loads(canonical_json(result))


def filled_errors(spec: dict, params: dict, replica: str) -> list[tuple[str, str]]:
    """What the answer key shows wrong, as (json_path, message): placeholders it does not fill, and the
    verifier, interaction, faults and actions once filled."""
    errors = []
    for key in (
        "instruction",
        "start_page",
        "reference_solution",
        "negative_examples",
        "verifier",
        "faults",
        "interaction",
        "workspace",
    ):
        for path, name in placeholder_paths(spec.get(key), key):
            if name not in params:
                known = ", ".join(sorted(params)) or "none: the task has no params"
                errors.append((path, f"placeholder {{{name}}} is not filled by params (params give: {known})"))
    if errors:
        return errors
    try:
        validate_spec(spec["verifier"], replica=replica, params=params)
    except SpecError as exc:
        errors.append((f"verifier.{exc.path}" if exc.path else "verifier", exc.detail))
    if "interaction" in spec:
        errors += [
            (f"interaction{path}", message)
            for path, message in interaction_errors(spec["interaction"], replica=replica, params=params)
        ]
    errors += fault_spec_errors(fill(spec.get("faults", []), params), replica=replica)
    for member, faults in (spec.get("workspace") or {}).get("faults", {}).items():
        errors += [
            (f"workspace.faults.{member}{path.removeprefix('faults')}", message)
            for path, message in fault_spec_errors(fill(faults, params), replica=member)
        ]
    lists = [("reference_solution", spec.get("reference_solution") or [])]
    lists += [
        (f"negative_examples[{i}].actions", ex["actions"]) for i, ex in enumerate(spec.get("negative_examples") or [])
    ]
    for path, actions in lists:
        try:
            expand_actions(actions, params)
        except MissingParam as exc:
            errors.append((f"{path}{exc.path}", exc.message))
            continue
        for i, action in enumerate(actions):
            head = for_each_line(action)
            # a loop's line is checked with its list's first item (an empty list plays nothing)
            items = params.get(head[1]) if head else None
            if head and not items:
                continue
            try:
                parse_action(fill_text(head[2], {**params, head[0]: items[0]}) if head else fill_text(action, params))
            except ActionError as exc:
                errors.append((f"{path}[{i}]", str(exc)))
    return errors


def load_task_file(path: Path, replica: str, params_cache: dict | None = None) -> PackTask:
    """One task file, validated; raises PackError naming the file and JSON paths."""
    where = _rel(path)
    try:
        spec = json_intake(path.read_bytes())
    except OSError as exc:
        raise PackError([f"{where}: cannot read: {exc}"]) from None
    except JsonIntakeError as exc:
        raise PackError([f"{where}: {exc.relative()}"]) from None
    errors = shape_errors(spec, replica, path.stem)
    if errors:
        raise PackError(_lines(where, errors))
    cache = params_cache if params_cache is not None else {}
    task_in = task_replica(spec)
    # a template is a list: its canonical text keys the cache like a 'module:function' reference does
    key = (canonical_json(spec.get("params")), task_in, spec["seed"], spec.get("variant", "default"))
    try:
        if key not in cache:
            cache[key] = task_params(spec)
        params = cache[key]
    except TemplateError as exc:
        raise PackError([f"{where}: {exc}"]) from None
    except Exception as exc:  # the params function is task-author code: report, don't crash the sync
        raise PackError([f"{where}: params: {spec.get('params')} failed: {type(exc).__name__}: {exc}"]) from None
    errors = filled_errors(spec, params, task_in)
    if errors:
        raise PackError(_lines(where, errors))
    return PackTask(
        task_id=f"{replica}.{spec['slug']}",
        spec=spec,
        params=params,
        content_hash=sha256_json(spec),
        params_hash=sha256_json(params),
        source=where,
    )


def task_files(replica: str, *, directory: Path | None = None) -> list[Path]:
    """The task files of a replica's pack (or of `directory`), in name order: the one listing of a pack."""
    folder = Path(directory) if directory is not None else pack_dir(replica)
    return sorted(p for p in folder.glob("*.json") if p.name != SUITES_FILE) if folder.is_dir() else []


def load_pack(replica: str, *, directory: Path | None = None) -> list[PackTask]:
    """Every task file of a replica's pack, validated; all problems of all files in one PackError."""
    tasks, errors, cache = [], [], {}
    for path in task_files(replica, directory=directory):
        try:
            tasks.append(load_task_file(path, replica, cache))
        except PackError as exc:
            errors += exc.errors
    if errors:
        raise PackError(errors)
    return tasks


def load_suites(replica: str, task_ids: set[str], *, directory: Path | None = None) -> dict[str, dict]:
    """Suites declared in the pack's optional suites.json: {"name": {"description": "...", "tasks": ["slug", ...]}}."""
    folder = Path(directory) if directory is not None else pack_dir(replica)
    path = folder / SUITES_FILE
    if not path.exists():
        return {}
    where = _rel(path)
    try:
        doc = json_intake(path.read_bytes())
    except OSError as exc:
        raise PackError([f"{where}: cannot read: {exc}"]) from None
    except JsonIntakeError as exc:
        raise PackError([f"{where}: {exc.relative()}"]) from None
    if not isinstance(doc, dict):
        raise PackError([f"{where}: $: must be an object of suite name -> {{description, tasks}}"])
    errors, suites = [], {}
    for name, body in doc.items():
        if not SUITE_NAME.match(name):
            errors.append(f"{where}: {name}: suite names are lowercase slugs (a-z, 0-9, - and _)")
            continue
        if not isinstance(body, dict) or not isinstance(body.get("tasks"), list) or not body["tasks"]:
            errors.append(f"{where}: {name}.tasks: must be a non-empty list of task slugs")
            continue
        if body.keys() - {"tasks", "description"}:
            errors.append(f"{where}: {name}: unknown keys {sorted(body.keys() - {'tasks', 'description'})}")
        ids = []
        for i, ref in enumerate(body["tasks"]):
            task_id = ref if isinstance(ref, str) and "." in ref else f"{replica}.{ref}"
            if task_id not in task_ids:
                errors.append(f"{where}: {name}.tasks[{i}]: no task {ref!r} in the {replica} pack")
            ids.append(task_id)
        suites[name] = {"description": str(body.get("description", "")), "tasks": ids}
    if errors:
        raise PackError(errors)
    return suites


def suite_upsert(name: str, tasks: list[Task], description: str = "") -> Suite:
    version = sha256_json(sorted(f"{t.task_id}@{t.content_hash}:{t.params_hash}" for t in tasks))
    suite = Suite.objects.filter(name=name, version=version).first()
    Suite.objects.filter(name=name, is_current=True).exclude(version=version).update(is_current=False)
    if suite is None:
        suite = Suite.objects.create(name=name, version=version, description=description, is_current=True)
        suite.tasks.set(tasks)
    elif not suite.is_current or suite.description != description:
        suite.is_current, suite.description = True, description
        suite.save(update_fields=["is_current", "description"])
    return suite


def task_version_upsert(item: PackTask, *, replica: str, pack: str) -> tuple[Task, bool]:
    """Make `item` its task's current version: the row of that content and answer key, created when new.
    Returns (task, created); the previous current version stays for the episodes that ran it."""
    task = Task.objects.filter(
        task_id=item.task_id, content_hash=item.content_hash, params_hash=item.params_hash
    ).first()
    Task.objects.filter(task_id=item.task_id, is_current=True).exclude(pk=getattr(task, "pk", None)).update(
        is_current=False
    )
    if task is None:
        task = Task.objects.create(
            task_id=item.task_id,
            replica=replica,
            slug=item.spec["slug"],
            pack=pack,
            title=item.spec["title"],
            difficulty=item.spec["difficulty"],
            spec=item.spec,
            params=item.params,
            content_hash=item.content_hash,
            params_hash=item.params_hash,
            source=item.source,
            is_current=True,
        )
        return task, True
    if not task.is_current:
        task.is_current = True
        task.save(update_fields=["is_current"])
    return task, False


def task_sync(*, replica: str, directory: Path | None = None) -> dict:
    """Upsert a pack into the catalogue: new versions for changed files, retire removed ones, refresh suites."""
    loaded = load_pack(replica, directory=directory)
    suites = load_suites(replica, {t.task_id for t in loaded}, directory=directory)
    summary = {"replica": replica, "created": [], "unchanged": [], "retired": [], "suites": []}
    with transaction.atomic():
        current = {}
        for item in loaded:
            task, created = task_version_upsert(item, replica=task_replica(item.spec), pack=replica)
            summary["created" if created else "unchanged"].append(item.task_id)
            current[item.task_id] = task
        retired = Task.objects.filter(pack=replica, is_current=True).exclude(task_id__in=current)
        summary["retired"] = sorted(retired.values_list("task_id", flat=True))
        retired.update(is_current=False)
        if current:
            suite_upsert(replica, list(current.values()), f"Every task of the {replica} pack")
            summary["suites"].append(replica)
        for name, body in suites.items():
            suite_upsert(name, [current[i] for i in body["tasks"]], body["description"])
            summary["suites"].append(name)
    return summary


def task_sync_all() -> list[dict]:
    """Sync every pack that has task files: each installed replica's, and the cross-app one."""
    return [task_sync(replica=name) for name in pack_names() if task_files(name)]


def _declared_suites(pack: str) -> set[str]:
    """The suite names a pack's suites.json declares, read without validating it (task_sync does that)."""
    try:
        doc = json_intake((pack_dir(pack) / SUITES_FILE).read_bytes())
    except (OSError, JsonIntakeError):
        return set()
    return set(doc) if isinstance(doc, dict) else set()


def packs_sync(name: str | None) -> list[dict]:
    """Sync what a command about `name` needs: the pack of that name, or the pack whose suites.json declares a suite
    of that name, or the packs the tasks of a suite made in the editor come from (none for tasks made there too);
    every pack when `name` is None or names none of these (the command then reports what it does not know).

    A pack's first sync builds the world templates its tasks' params are picked from: every pack took about 24 s
    of CPU, the testbed's alone under 1 s, and a command run on one suite paid for all of them.
    """
    with_files = [p for p in pack_names() if task_files(p)]
    named = [p for p in with_files if p == name or name in _declared_suites(p)]
    if not named and name is not None:
        authored = Suite.objects.filter(name=name, is_current=True).first()
        if authored is not None:
            named = sorted(set(authored.tasks.values_list("pack", flat=True)) & set(with_files))
            return [task_sync(replica=p) for p in named]
    return [task_sync(replica=p) for p in named] if named else task_sync_all()


class TaskNotFound(LookupError):
    pass


def task_current(task_id: str) -> Task:
    """The current version of a task; syncs its replica's pack once if the catalogue has none yet."""
    task = Task.objects.filter(task_id=task_id, is_current=True).first()
    if task is None and isinstance(task_id, str) and "." in task_id:
        replica, slug = task_id.split(".", 1)
        # only a task file that exists triggers a sync: an unknown id must stay cheap
        if replica in pack_names() and SLUG.match(slug) and (pack_dir(replica) / f"{slug}.json").is_file():
            task_sync(replica=replica)
            task = Task.objects.filter(task_id=task_id, is_current=True).first()
    if task is None:
        raise TaskNotFound(f"unknown task {task_id!r}")
    return task


def suite_current(name: str) -> Suite:
    suite = Suite.objects.filter(name=name, is_current=True).first()
    if suite is None and name in pack_names() and pack_dir(name).is_dir():
        task_sync(replica=name)
        suite = Suite.objects.filter(name=name, is_current=True).first()
    if suite is None:
        raise LookupError(f"unknown suite {name!r}")
    return suite
