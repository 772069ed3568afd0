"""Tasks and suites authored in the browser: validation with JSON paths, saving versions, diffs, import and export.

A draft is a task spec exactly as a pack file holds it. Every save that changes the spec or its
answer key is a new Task row (the version is the content hash, as for pack files), and the
previous version stays for the episodes that ran it. Export writes the pack file; importing it
back gives the same content hash.
"""

import difflib
import json
import re

from django.db import transaction
from replicagym.jsonintake import JsonIntakeError, json_check, json_intake

from replicas.worlds.faults.spec import fault_spec_errors
from replicas.worlds.registry import replicas
from replicas.worlds.services import template_get_or_build
from verifiers.placeholders import PLACEHOLDER
from verifiers.spec import spec_errors

from .models import Suite, Task
from .packs import (
    SUITE_NAME,
    PackTask,
    filled_errors,
    pack_dir,
    sha256_json,
    shape_errors,
    suite_upsert,
    task_params,
    task_version_upsert,
)
from .task_templates import TemplateError, is_template, template_instances

# Tasks made in the editor: a pack of their own, so syncing a replica's files never retires them.
AUTHORED_PACK = "authored"
MAX_SEEDS = 20


class DraftError(ValueError):
    """A draft that cannot be saved; `errors` are (json_path, message) pairs."""

    def __init__(self, errors: list[tuple[str, str]]):
        self.errors = errors
        super().__init__("; ".join(f"{p}: {m}" for p, m in errors))


def draft_errors(spec, *, replaces: str | None = None) -> tuple[list[tuple[str, str]], dict | None]:
    """Every problem of a draft as (json_path, message), and its answer key when it could be computed.
    `replaces`: the task id the draft was opened from; a pack task opened in the editor is its own file's
    task, not a clash with it (task_save still refuses to save over it)."""
    if not isinstance(spec, dict):
        return [("", "a task is one JSON object")], None
    try:  # the editor's JSON fields are parsed one by one: the whole draft is held to the intake's limits here
        json_check(spec)
    except JsonIntakeError as exc:
        return [(exc.member, exc.message)], None
    replica = spec.get("replica")
    if replica not in replicas():
        return [("replica", f"unknown replica {replica!r} (installed: {', '.join(sorted(replicas()))})")], None
    slug = spec.get("slug") if isinstance(spec.get("slug"), str) else ""
    errors = shape_errors(spec, replica, slug)
    if isinstance(spec.get("verifier"), dict):
        errors += [(f"verifier.{p}" if p else "verifier", m) for p, m in spec_errors(spec["verifier"], replica=replica)]
    faults = spec.get("faults", [])
    if isinstance(faults, list) and not any(PLACEHOLDER.search(json.dumps(f)) for f in faults):
        errors += fault_spec_errors(faults, replica=replica)
    if slug and (pack_dir(replica) / f"{slug}.json").exists() and replaces != f"{replica}.{slug}":
        errors.append(("slug", f"{replica} already has a task file {slug}.json; pick another slug"))
    errors = _unique(errors)
    if errors:
        return errors, None
    try:
        params = task_params(spec)
    except TemplateError as exc:
        return [(exc.path, exc.message)], None
    except Exception as exc:  # a replica's params function or picker: report it, do not crash the editor
        return [("params", f"{type(exc).__name__}: {exc}")], None
    errors = _unique(filled_errors(spec, params, replica))
    return errors, (None if errors else params)


def _unique(errors):
    seen, out = set(), []
    for e in errors:
        if e not in seen:
            seen.add(e)
            out.append(e)
    return out


def draft_instances(spec: dict, seeds) -> list[dict]:
    """The template's answer key on each seed (or why that seed has none): what the editor lists."""
    if not is_template(spec.get("params")):
        return []
    seeds = list(seeds)[:MAX_SEEDS]

    def world(seed):
        return template_get_or_build(replica=spec["replica"], seed=seed, variant=spec.get("variant", "default"))

    return template_instances(spec, seeds, build_world=world)


def task_id_of(spec: dict) -> str:
    return f"{spec['replica']}.{spec['slug']}"


def task_save(*, spec: dict, suites: list[str] | None = None, replaces: str | None = None) -> Task:
    """Save a draft as the task's current version (a new row when its content or answer key changed);
    add it to `suites` (each a new suite version). Raises DraftError and changes nothing when it is invalid.

    `replaces` is the task id the draft was opened from: a draft whose slug names another existing task
    (a new task, or an edit whose slug was changed to another's) is refused, never saved over it."""
    errors, params = draft_errors(spec, replaces=replaces)
    suites = list(suites or [])
    errors += [
        (f"suites[{i}]", f"{name!r} is not a suite name (lowercase letters, digits, - and _)")
        for i, name in enumerate(suites)
        if not isinstance(name, str) or not SUITE_NAME.match(name)
    ]
    existing = Task.objects.filter(task_id=task_id_of(spec)).exclude(pack=AUTHORED_PACK).first() if not errors else None
    if existing is not None:
        errors.append(
            ("slug", f"{existing.task_id} belongs to the {existing.pack} pack: edit its file, or pick another slug")
        )
    if (
        not errors
        and replaces != task_id_of(spec)
        and Task.objects.filter(task_id=task_id_of(spec), is_current=True).exists()
    ):
        errors.append(
            (
                "slug",
                f"{task_id_of(spec)} exists already: open it from the catalogue to change it, or pick another slug",
            )
        )
    if errors:
        raise DraftError(errors)
    item = PackTask(
        task_id=task_id_of(spec),
        spec=spec,
        params=params,
        content_hash=sha256_json(spec),
        params_hash=sha256_json(params),
        source="",
    )
    with transaction.atomic():
        task, _created = task_version_upsert(item, replica=spec["replica"], pack=AUTHORED_PACK)
        for name in suites:
            suite_add(name=name, task=task)
    return task


def version_restore(*, task_id: str, version_pk: int) -> Task:
    """Make an earlier version of an authored task its current one again (checked as a new save would be),
    in the suites that hold the current version. Raises DraftError and changes nothing when it cannot."""
    old = Task.objects.filter(task_id=task_id, pk=version_pk).first()
    if old is None:
        raise DraftError([("version", f"{task_id} has no version {version_pk}")])
    if old.pack != AUTHORED_PACK:
        raise DraftError([("version", f"{task_id} belongs to the {old.pack} pack: its file decides its version")])
    if old.is_current:
        raise DraftError([("version", f"version {old.version} is the current one already")])
    current = Task.objects.filter(task_id=task_id, is_current=True).first()
    suites = list(current.suites.filter(is_current=True).values_list("name", flat=True)) if current else []
    return task_save(spec=old.spec, suites=suites, replaces=task_id)


def suite_add(*, name: str, task: Task) -> Suite:
    """A new version of suite `name` holding `task` in place of any other version of it."""
    current = Suite.objects.filter(name=name, is_current=True).first()
    members = [t for t in (current.tasks.all() if current else []) if t.task_id != task.task_id]
    return suite_upsert(name, [*members, task], current.description if current else "")


def suite_save(*, name: str, task_ids: list[str], description: str = "") -> Suite:
    """Set a suite's tasks (the current version of each) and description: a new suite version when they change."""
    errors = []
    if not isinstance(name, str) or not SUITE_NAME.match(name):
        errors.append(("name", "a suite name is lowercase letters, digits, - and _, starting with a letter or digit"))
    if len(description) > 300:
        errors.append(("description", "at most 300 characters"))
    tasks = {t.task_id: t for t in Task.objects.filter(task_id__in=task_ids, is_current=True)}
    errors += [(f"tasks[{i}]", f"no current task {tid!r}") for i, tid in enumerate(task_ids) if tid not in tasks]
    if not task_ids:
        errors.append(("tasks", "a suite holds at least one task"))
    if errors:
        raise DraftError(errors)
    with transaction.atomic():
        return suite_upsert(name, [tasks[t] for t in dict.fromkeys(task_ids)], description)


def task_export(task: Task) -> str:
    """The task as a pack file (replicas/<replica>/tasks/<slug>.json)."""
    return json.dumps(task.spec, indent=2, ensure_ascii=False) + "\n"


def task_import(text: str, *, suites: list[str] | None = None) -> Task:
    """A pack file's task saved as an authored version; the content hash is the file's."""
    try:
        spec = json_intake(text)
    except JsonIntakeError as exc:
        raise DraftError([(exc.member, exc.message)]) from None
    return task_save(spec=spec, suites=suites)


def version_diff(old: Task, new: Task) -> list[str]:
    """Unified diff of two versions' pack files, then of their answer keys."""

    def lines(doc):
        return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False).splitlines()

    spec = difflib.unified_diff(
        lines(old.spec), lines(new.spec), f"{old.version} spec", f"{new.version} spec", lineterm=""
    )
    params = difflib.unified_diff(
        lines(old.params), lines(new.params), f"{old.version} answer key", f"{new.version} answer key", lineterm=""
    )
    return [*spec, *params]


SLUGGISH = re.compile(r"[^a-z0-9]+")


def slug_from_title(title: str) -> str:
    return SLUGGISH.sub("-", title.lower()).strip("-")[:96]
