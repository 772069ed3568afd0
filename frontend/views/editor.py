"""The task editor: a task built in the browser from the schemas, validated as the author types, saved as versions."""

import json

from django.contrib import messages
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from replicagym.accounts.roles import Role, role_required
from replicagym.annotation.demonstrations import (
    demonstration_actions,
    demonstration_of,
    demonstration_start,
    demonstration_url,
)
from replicagym.annotation.services import AnnotationError

from catalogue.authoring import DraftError, draft_errors, draft_instances, task_save
from catalogue.models import Suite, Task
from catalogue.packs import SUITE_NAME, task_params
from replicas.worlds.registry import get_replica, replicas
from replicas.worlds.routing import world_url
from replicas.worlds.services import world_create
from replicas.worlds.signin_link import world_signin_url
from verifiers.placeholders import fill, fill_text, generalise_action

from ..editor import codec, fields
from ..selfcheck_runs import reference_checks

MAX_PREVIEW_SEEDS = 12


def _blank(replica: str) -> dict:
    config = get_replica(replica)
    return {
        "replica": replica,
        "variant": "default" if "default" in config.variants else sorted(config.variants)[0],
        "seed": 1,
        "difficulty": "easy",
        "start_page": next(iter(config.start_pages.values()), "/"),
        "verifier": {"assertions": [{"kind": "state"}]},
    }


def _suites_posted(post) -> tuple[list[str], list[tuple[str, str]]]:
    names = [n for n in post.getlist("suites") if n]
    new = post.get("new_suite", "").strip()
    errors = []
    if new:
        if SUITE_NAME.match(new):
            names.append(new)
        else:
            errors.append(("new_suite", f"{new!r} is not a suite name (lowercase letters, digits, - and _)"))
    return list(dict.fromkeys(names)), errors


def _kinds(post) -> dict:
    return {name.split(":", 1)[1]: post[name] for name in post if name.startswith("kind:")}


def _layout(spec: dict, raw: dict, kinds: dict) -> dict:
    names = sorted(replicas())
    replica = spec.get("replica") if spec.get("replica") in names else names[0]
    return {
        "basic": fields.basic_inputs(spec, raw, names),
        "params": fields.param_items(spec, raw, replica, kinds),
        "params_python": spec.get("params") if isinstance(spec.get("params"), str) else "",
        "faults": fields.fault_items(spec, raw, replica),
        "assertions": fields.assertion_items(spec, raw, replica),
        "allowed_changes": fields.allowed_change_items(spec, raw, replica),
        "checkpoints": fields.checkpoint_items(spec, raw, replica),
        "negatives": fields.negative_items(spec, raw),
        "param_kinds": fields.PARAM_KINDS,
        "fault_names": fields.fault_names(),
        "assertion_kinds": fields.schema("verifier")["properties"]["assertions"]["items"]["properties"]["kind"]["enum"],
        "roles": get_replica(replica).roles,
    }


def _slots(layout: dict) -> list[str]:
    """Every path an error can be shown at, the most specific first."""
    paths = [
        "slug",
        "params",
        "faults",
        "verifier",
        "verifier.assertions",
        "verifier.allowed_changes",
        "verifier.checkpoints",
        "negative_examples",
        "reference_solution",
        "limits",
        "reward_weights",
        "new_suite",
        "interaction",
        "audit",
    ]
    paths += [i.path for i in layout["basic"].values()]
    for section in ("params", "faults", "assertions", "allowed_changes", "checkpoints", "negatives"):
        for item in layout[section]:
            paths.append(item.path)
            paths += [i.path for i in item.inputs]
    return sorted(set(paths), key=len, reverse=True)


def _place(errors, slots) -> tuple[dict, list]:
    """Errors by the slot (input or item) they belong to; those that fit none are general."""
    placed, general = {}, []
    for path, message in errors:
        slot = next((s for s in slots if path == s or path.startswith(s + ".") or path.startswith(s + "[")), None)
        if slot is None:
            general.append((path, message))
        else:
            placed.setdefault(slot, []).append((path, message))
    return placed, general


def _context(spec, raw, kinds, *, errors=(), params=None, task=None, suites=(), new_suite=""):
    layout = _layout(spec, raw, kinds)
    placed, general = _place(errors, _slots(layout))
    return {
        **layout,
        "spec": spec,
        "errors": placed,
        "general_errors": general,
        "error_count": len(errors),
        "params_preview": params,
        "param_names": fields.param_names(spec, params),
        "instruction_preview": _preview(spec, params),
        "task": task,
        "reference_checks": reference_checks(task),
        "suite_names": list(Suite.objects.filter(is_current=True).order_by("name").values_list("name", flat=True)),
        "suites_selected": list(suites),
        "new_suite": new_suite,
    }


def _preview(spec, params):
    if not params or not isinstance(spec.get("instruction"), str):
        return ""
    try:
        return fill_text(spec["instruction"], params)
    except ValueError:
        return ""


@role_required(Role.AUTHOR)
def task_new(request):
    replica = request.GET.get("replica") or sorted(replicas())[0]
    if replica not in replicas():
        return HttpResponseBadRequest(f"unknown replica {replica!r}")
    return render(request, "frontend/editor.html", _context(_blank(replica), {}, {}))


@role_required(Role.AUTHOR)
def task_edit(request, task_id):
    task = get_object_or_404(Task, task_id=task_id, is_current=True)
    suites = task.suites.filter(is_current=True).values_list("name", flat=True)
    return render(request, "frontend/editor.html", _context(task.spec, {}, {}, task=task, suites=suites))


def _decoded(request):
    form = codec.decode(request.POST)
    spec = form.spec
    if spec.get("replica") not in replicas():
        spec["replica"] = sorted(replicas())[0]
    verifier = spec.get("verifier")
    if (
        isinstance(verifier, dict)
        and "allowed_changes" not in verifier
        and any(isinstance(a, dict) and a.get("only_allowed") for a in verifier.get("assertions") or [])
    ):
        # a form cannot send an empty list: "only allowed changes" with none listed means nothing may change
        verifier["allowed_changes"] = []
    return form, spec


@role_required(Role.AUTHOR)
@require_POST
def editor_validate(request):
    """Live validation (htmx): every slot's messages, swapped in out of band, and the answer-key preview."""
    form, spec = _decoded(request)
    suites, suite_errors = _suites_posted(request.POST)
    errors, params = draft_errors(spec, replaces=request.POST.get("task_id") or None) if not form.errors else ([], None)
    errors = form.errors + suite_errors + errors
    context = _context(spec, form.raw, _kinds(request.POST), errors=errors, params=params)
    context["all_slots"] = [(fields.slot_id(s), context["errors"].get(s, [])) for s in _slots(context)]
    return render(request, "frontend/editor_validation.html", context)


@role_required(Role.AUTHOR)
@require_POST
def editor_form(request):
    """Re-render the form after a structural change: an item added or removed, a kind or the replica changed."""
    form, spec = _decoded(request)
    kinds = _kinds(request.POST)
    op = request.POST.get("op", "")
    action, _, arg = op.partition(":")
    added = None
    try:
        if action == "add":
            section, _, kind = arg.partition(":")
            new = {
                "params": lambda: fields.new_param(kind or "pick", len(spec.get("params") or [])),
                "faults": lambda: {"name": kind or fields.fault_names()[0]},
                "verifier.assertions": lambda: {"kind": kind or "state"},
                "verifier.allowed_changes": lambda: {},
                "verifier.checkpoints": lambda: {},
                "negative_examples": lambda: {},
            }[section]()
            if section == "params" and not isinstance(spec.get("params"), list):
                spec["params"] = []
            added = codec.append(spec, section, new)
            if section == "params":
                kinds[f"params[{len(spec['params']) - 1}]"] = kind or "pick"
        elif action == "remove":
            codec.remove(spec, arg)
            kinds = {}
    except (KeyError, ValueError, IndexError, TypeError) as exc:
        return HttpResponseBadRequest(f"bad editor operation {op!r}: {exc}")
    for path, kind in kinds.items():  # a param whose kind changed starts that kind's body empty
        try:
            step = spec["params"][codec.parse_path(path)[1]]
        except (KeyError, IndexError, ValueError, TypeError):
            continue
        if kind in fields.PARAM_KINDS and kind not in step:
            for other in fields.PARAM_KINDS:
                step.pop(other, None)
            step.pop("args", None)
            if kind in fields.OBJECT_KINDS:
                step[kind] = {}
    suites, _ = _suites_posted(request.POST)
    task = Task.objects.filter(task_id=request.POST.get("task_id", ""), is_current=True).first()
    raw = {} if action == "remove" else form.raw
    context = _context(spec, raw, kinds, task=task, suites=suites, new_suite=request.POST.get("new_suite", ""))
    response = render(request, "frontend/editor_form.html", {**context, **_demonstration_posted(request)})
    # the validator checks the new form; the page keeps the added item in view (it jumped 7,000 px away)
    events = {"editorChanged": None, **({"editorItemAdded": {"path": added}} if added else {})}
    response["HX-Trigger-After-Settle"] = json.dumps(events)
    return response


@role_required(Role.AUTHOR)
@require_POST
def editor_save(request):
    form, spec = _decoded(request)
    suites, suite_errors = _suites_posted(request.POST)
    task = Task.objects.filter(task_id=request.POST.get("task_id", ""), is_current=True).first()
    errors = form.errors + suite_errors
    if not errors:
        try:
            saved = task_save(spec=spec, suites=suites, replaces=task.task_id if task else None)
        except DraftError as exc:
            errors = exc.errors
        else:
            messages.success(request, f"Saved {saved.task_id}, version {saved.version}.")
            return redirect("frontend:task", task_id=saved.task_id)
    messages.error(
        request, f"Not saved: {len(errors)} problem{'s' if len(errors) != 1 else ''} to fix (shown at each field)."
    )
    context = _context(
        spec,
        form.raw,
        _kinds(request.POST),
        errors=errors,
        task=task,
        suites=suites,
        new_suite=request.POST.get("new_suite", ""),
    )
    return render(request, "frontend/editor.html", {**context, **_demonstration_posted(request)}, status=422)


@role_required(Role.AUTHOR)
@require_POST
def editor_instances(request):
    """The template's answer key on each seed asked for, or why a seed has no candidate.

    Each seed may need its template world built (seconds apiece): the list comes back at once as one
    row per seed, and each row fetches itself (`one_seed`), so rows fill in as their worlds are ready
    instead of the whole list arriving after a minute and a half with nothing shown meanwhile."""
    _form, spec = _decoded(request)
    if "one_seed" in request.POST:
        return _instance_row(request, spec, request.POST["one_seed"])
    text = request.POST.get("preview_seeds", "")
    try:
        seeds = [int(s) for s in text.replace(",", " ").split()]
    except ValueError:
        return _instances_error(request, f"seeds are whole numbers separated by commas, not {text!r}")
    if not seeds or len(seeds) > MAX_PREVIEW_SEEDS or any(s < 0 for s in seeds):
        return _instances_error(request, f"give 1 to {MAX_PREVIEW_SEEDS} seeds (0 or more)")
    if not isinstance(spec.get("params"), list):
        return _instances_error(request, "the task has no template params to instantiate")
    return render(request, "frontend/editor_instances.html", {"pending": list(dict.fromkeys(seeds))})


def _instances_error(request, message: str):
    return render(request, "frontend/editor_instances.html", {"error": message})


def _instance_row(request, spec: dict, text: str):
    """One seed's row: its answer key, or why it has none."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        return render(request, "frontend/editor_instance_row.html", {"inst": {"seed": text, "error": "not a seed"}})
    errors, _params = draft_errors({**spec, "seed": seed})
    problems = [e for e in errors if e[0].startswith("params")]
    if problems and not any("no " in m and "matches" in m for _, m in problems):
        inst = {"seed": seed, "error": "; ".join(m for _, m in problems), "path": problems[0][0]}
    else:
        inst = draft_instances(spec, [seed])[0]
    return render(request, "frontend/editor_instance_row.html", {"inst": inst})


@role_required(Role.AUTHOR)
@require_POST
def editor_open_world(request):
    """A fresh world of the editor's replica, variant and seed, and a link that opens it signed in."""
    _form, spec = _decoded(request)
    config, variant, seed, problems = _world_of(spec)
    role = request.POST.get("world_role") or (config.roles[0] if config.roles else "")
    if role and role not in config.roles:
        problems.append(f"{config.label} has no role {role!r} (roles: {', '.join(config.roles)})")
    if problems:
        return render(request, "frontend/editor_world.html", {"problems": problems})
    world = world_create(replica=config.label, seed=seed, variant=variant)
    user = config.sign_in(world, role or None) if config.roles else None
    start = (
        spec.get("start_page")
        if isinstance(spec.get("start_page"), str) and "{" not in spec.get("start_page", "")
        else "/"
    )
    url = world_signin_url(world=world, user=user, next_path=start) if user else world_url(world, start)
    return render(request, "frontend/editor_world.html", {"world": world, "url": url, "user": user, "role": role})


def _world_of(spec: dict) -> tuple:
    """The draft's replica config, variant and seed for a world, and what is wrong with them."""
    config = get_replica(spec["replica"])
    variant = spec.get("variant") if spec.get("variant") in config.variants else None
    seed = spec.get("seed")
    problems = []
    if variant is None:
        problems.append(f"choose one of the variants of {config.label}: {', '.join(sorted(config.variants))}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        problems.append("the seed must be a whole number, 0 or more")
    return config, variant, seed, problems


# --- reference solution and negative examples recorded by demonstration ---------------------


def _answer_key(spec: dict) -> dict | None:
    """The draft's params on its seed, even while other parts of the draft are unfinished; None if they fail."""
    errors, params = draft_errors(spec)
    if params is not None or any(
        path.split(".")[0].split("[")[0] in ("params", "replica", "variant", "seed") for path, _ in errors
    ):
        return params
    try:
        return task_params(spec)
    except Exception:  # noqa: BLE001 - a template or params function that fails: the bar shows the text as written
        return None


def _demonstration_context(request, recording, **extra) -> dict:
    return {
        "demonstration": recording,
        "demonstration_link": demonstration_url(recording, port=request.get_port()),
        "demonstration_steps": recording.steps.count(),
        **extra,
    }


def _demonstration_posted(request) -> dict:
    """The panel of the demonstration the form carries, so a re-rendered form keeps it (nothing for a stale id)."""
    if not request.POST.get("demonstration"):
        return {}
    try:
        return _demonstration_context(
            request, demonstration_of(recording_id=request.POST["demonstration"], user=request.user)
        )
    except AnnotationError:
        return {}


@role_required(Role.AUTHOR)
@require_POST
def editor_record(request):
    """Start a demonstration: a fresh world of the draft's replica, variant and seed with its faults, recorded in a
    new tab by the annotators' recorder; the panel links to it and pulls its actions into the form."""
    _form, spec = _decoded(request)
    config, variant, seed, problems = _world_of(spec)
    params = _answer_key(spec) if not problems else None
    faults = spec.get("faults") or []
    try:
        faults = fill(faults, params or {})
    except ValueError:
        problems.append("the faults hold placeholders the template params do not fill yet: fix the params first")
    if problems:
        return render(request, "frontend/editor_demonstration.html", {"demonstration_problems": problems})

    def filled(text):
        try:
            return fill_text(text, params or {})
        except ValueError:
            return text

    start = spec.get("start_page") if isinstance(spec.get("start_page"), str) else ""
    start = filled(start)
    if not start.startswith("/") or "{" in start:
        start = next(iter(config.start_pages.values()), "/")
    brief = {
        "title": spec.get("title") or "Untitled task",
        "task_id": f"{config.label}.{spec['slug']}" if isinstance(spec.get("slug"), str) else "",
        "instruction": filled(spec["instruction"]) if isinstance(spec.get("instruction"), str) else "",
        "start_page": start,
    }
    try:
        recording = demonstration_start(
            replica=config.label, variant=variant, seed=seed, faults=faults, user=request.user, brief=brief
        )
    except AnnotationError as exc:
        return render(request, "frontend/editor_demonstration.html", {"demonstration_problems": [str(exc)]})
    return render(request, "frontend/editor_demonstration.html", _demonstration_context(request, recording))


PULL_TARGETS = {"reference": "the reference solution", "negative": "a new negative example"}


@role_required(Role.AUTHOR)
@require_POST
def editor_pull(request):
    """Put the demonstration's recorded actions into the reference solution or a new negative example; the form comes
    back with them and live validation checks them like typed actions. A refusal shows at the panel, changing
    nothing."""
    form, spec = _decoded(request)
    into = request.POST.get("pull_into", "")
    try:
        if into not in PULL_TARGETS:
            raise AnnotationError(f"pull into the reference solution or a new negative example, not {into!r}")
        recording = demonstration_of(recording_id=request.POST.get("demonstration"), user=request.user)
        world = recording.world
        if world is None:
            raise AnnotationError(f"the world of demonstration {recording.pk} is gone: record a new one")
        if (world.replica, world.variant, world.seed) != (spec.get("replica"), spec.get("variant"), spec.get("seed")):
            raise AnnotationError(
                f"demonstration {recording.pk} was recorded in {world.replica} {world.variant} seed "
                f"{world.seed}, not in the draft's world: record a new one"
            )
        actions = demonstration_actions(recording)
        if not actions:
            raise AnnotationError(
                f"demonstration {recording.pk} has no steps yet: do the task in the recording tab first"
            )
    except AnnotationError as exc:
        response = render(request, "frontend/editor_demonstration_error.html", {"message": str(exc)})
        response["HX-Retarget"] = "#demonstration-error"  # only the panel's message changes, not the form
        response["HX-Reswap"] = "innerHTML"
        return response
    # literals that are the draft's param values become placeholders, so the recording plays on other seeds
    key = _answer_key(spec) or {}
    recorded, actions = actions, [generalise_action(action, key) for action in actions]
    generalised = sum(a != b for a, b in zip(recorded, actions, strict=True))
    raw = dict(form.raw)
    if into == "reference":
        spec["reference_solution"] = actions
        raw.pop("reference_solution", None)
    else:
        codec.append(spec, "negative_examples", {"name": f"recorded demonstration {recording.pk}", "actions": actions})
    suites, _ = _suites_posted(request.POST)
    task = Task.objects.filter(task_id=request.POST.get("task_id", ""), is_current=True).first()
    context = _context(
        spec, raw, _kinds(request.POST), task=task, suites=suites, new_suite=request.POST.get("new_suite", "")
    )
    note = (
        f"Pulled {len(actions)} action{'s' if len(actions) != 1 else ''} of demonstration {recording.pk} into "
        f"{PULL_TARGETS[into]}"
        + (f"; {generalised} written with placeholders where they typed a param's value." if generalised else ".")
    )
    response = render(
        request,
        "frontend/editor_form.html",
        {**context, **_demonstration_context(request, recording, demonstration_note=note)},
    )
    response["HX-Trigger-After-Settle"] = "editorChanged"  # the validator checks the pulled actions
    return response
