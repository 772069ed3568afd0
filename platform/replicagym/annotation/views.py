"""The annotation pages: queue, recording status, review, per-annotator figures, assignment and exports."""

import threading
import zipfile
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db import close_old_connections, transaction
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from catalogue.packs import suite_current
from episodes.models import Screenshot
from episodes.step_pages import step_pages
from replicagym.accounts.roles import Role, role_required, user_roles
from replicas.worlds.recording import recording_start_url

from .exports import SOURCES, ExportError, dataset_export, parse_sources
from .models import DatasetExport, Item, Recording
from .selectors import annotator_stats, queue_for, review_list
from .services import (
    AnnotationError,
    item_claim,
    item_skip,
    items_create,
    recording_review,
    recording_start,
    recordings_collect,
)

ANNOTATORS = (Role.ANNOTATOR,)
REVIEWERS = (Role.AUTHOR,)  # authors and admins review


def _is_reviewer(user) -> bool:
    roles = user_roles(user)
    return Role.ADMIN in roles or Role.AUTHOR in roles


@role_required(*ANNOTATORS)
@require_GET
def queue(request):
    recordings_collect()
    return render(
        request, "annotation/queue.html", {"queue": queue_for(request.user), "reviewer": _is_reviewer(request.user)}
    )


@role_required(*ANNOTATORS)
@require_POST
def claim(request, pk: int):
    try:
        item = item_claim(item_id=pk, user=request.user)
    except AnnotationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Item {item.pk} is yours: open its world to record it.")
    return redirect("annotation:queue")


@role_required(*ANNOTATORS)
@require_POST
def skip(request, pk: int):
    try:
        item_skip(item_id=pk, user=request.user, reason=request.POST.get("reason", ""))
    except AnnotationError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Item {pk} skipped.")
    return redirect("annotation:queue")


@role_required(*ANNOTATORS)
@require_POST
def record(request, pk: int):
    """Open (or reopen) the item's recording: off to its world, where the bar and the recorder are."""
    try:
        recording = recording_start(item_id=pk, user=request.user)
    except AnnotationError as exc:
        messages.error(request, str(exc))
        return redirect("annotation:queue")
    back = request.build_absolute_uri(reverse("annotation:recording", args=[recording.pk]))
    if recording.return_url != back:
        Recording.objects.filter(pk=recording.pk).update(return_url=back)
    return redirect(recording_start_url(world=recording.world, session=recording.pk, port=request.get_port()))


@role_required(*ANNOTATORS)
@require_GET
def recording_detail(request, pk: int):
    recording = get_object_or_404(
        Recording.objects.select_related("item__task", "replay", "annotator", "reviewer"), pk=pk, item__isnull=False
    )  # a demonstration belongs to the task editor
    if recording.annotator_id != request.user.pk and not _is_reviewer(request.user):
        raise Http404("no such recording")
    recordings_collect()
    recording.refresh_from_db()
    template = "annotation/recording_status.html" if request.htmx else "annotation/recording.html"
    context = {
        "recording": recording,
        "steps": recording.steps.order_by("index"),
        "failed_checks": _failed_checks(recording),
    }
    return render(request, template, context)


def _failed_checks(recording: Recording) -> list[str]:
    """The names of the required checks the replay missed: what to do differently. Not their details,
    which may hold the answer key (an annotator would then re-record the answer, not the work)."""
    verdict = (recording.replay.verdict if recording.replay else None) or {}
    return [
        a["name"]
        for a in verdict.get("assertions", [])
        if isinstance(a, dict) and a.get("required", True) and not a.get("passed")
    ]


@role_required(*REVIEWERS)
@require_GET
def review_queue(request):
    recordings_collect()
    return render(request, "annotation/review_list.html", {"recordings": review_list(), "stats": annotator_stats()})


def _review_steps(recording: Recording) -> list[dict]:
    """The replay's steps, each on the page it acted on with the element it named outlined."""
    recorded = {s.index: s for s in recording.steps.all()}
    out = []
    for step, before, box in step_pages(recording.replay) if recording.replay else []:
        rec = recorded.get(step.index)
        out.append(
            {
                "index": step.index,
                "action": step.action,
                "thought": rec.thought if rec else "",
                "error": step.error,
                "url": step.url,
                "before": before.sha256 if before else None,
                "box": box,
                "screenshot": step.screenshot.sha256 if step.screenshot else None,
                "diverged": bool(recording.divergence and recording.divergence.get("step") == step.index),
            }
        )
    return out


@role_required(*REVIEWERS)
def review(request, pk: int):
    recording = get_object_or_404(
        Recording.objects.select_related("item__task", "replay", "annotator"), pk=pk, item__isnull=False
    )
    if request.method == "POST":
        decision = request.POST.get("decision")
        if decision not in ("accept", "reject"):
            messages.error(request, "choose accept or reject")
        else:
            try:
                recording_review(
                    recording_id=pk,
                    reviewer=request.user,
                    accept=decision == "accept",
                    comment=request.POST.get("comment", ""),
                )
            except AnnotationError as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, f"Recording {pk} {'accepted' if decision == 'accept' else 'rejected'}.")
                return redirect("annotation:review_queue")
    steps = _review_steps(recording)
    try:
        current = min(max(int(request.GET.get("step", 0)), 0), max(len(steps) - 1, 0))
    except ValueError:
        current = 0
    context = {
        "recording": recording,
        "steps": steps,
        "current": steps[current] if steps else None,
        "position": current,
        "instruction": recording.item.task.with_params(recording.item.params).instruction,
    }
    template = "annotation/review_step.html" if request.htmx else "annotation/review.html"
    return render(request, template, context)


@role_required(Role.ANNOTATOR, Role.AUTHOR)
@require_GET
def screenshot(request, sha: str):
    shot = Screenshot.objects.filter(sha256=sha).first()
    if shot is None:
        raise Http404("no such screenshot")
    return FileResponse(open(settings.DATA_DIR / shot.path, "rb"), content_type="image/png")


@role_required()
def assign(request):
    """Admins put items in the queue: a task, seeds, an annotator (or everyone)."""
    users = get_user_model().objects.filter(groups__name=Role.ANNOTATOR.value).order_by("username")
    if request.method == "POST":
        task_id = request.POST.get("task", "").strip()
        who = request.POST.get("annotator", "").strip()
        try:
            seeds = [int(s) for s in request.POST.get("seeds", "").replace(",", " ").split()]
        except ValueError:
            messages.error(request, "seeds are whole numbers separated by commas or spaces")
        else:
            assignee = users.filter(username=who).first() if who else None
            if who and assignee is None:
                messages.error(request, f"{who} is not an annotator")
            else:
                try:
                    made = items_create(task=task_id, seeds=seeds or None, assignee=assignee, created_by=request.user)
                except AnnotationError as exc:
                    messages.error(request, str(exc))
                else:
                    messages.success(
                        request, f"{len(made)} item(s) of {task_id} queued for {who or 'every annotator'}."
                    )
                    for seed, why in made.skipped.items():
                        messages.warning(
                            request, f"Seed {seed} skipped: its world has nothing the task can be about ({why})."
                        )
                    return redirect("annotation:assign")
    items = Item.objects.select_related("task", "assignee", "claimed_by").order_by("-pk")[:100]
    return render(request, "annotation/assign.html", {"annotators": users, "items": items})


def _export_run(export_id: int):
    """Runs in its own thread: the export drives the engine (Playwright is per thread) and reports progress."""
    close_old_connections()
    export = DatasetExport.objects.get(pk=export_id)
    DatasetExport.objects.filter(pk=export_id).update(status=DatasetExport.Status.RUNNING)

    def progress(done, total):
        DatasetExport.objects.filter(pk=export_id).update(done=done, total=total)

    try:
        result = dataset_export(
            fmt=export.format, suite=export.suite, sources=export.sources, out=export.out, progress=progress
        )
    except Exception as exc:  # the page shows why; the thread must not die silently
        DatasetExport.objects.filter(pk=export_id).update(
            status=DatasetExport.Status.FAILED, error=f"{type(exc).__name__}: {exc}"
        )
    else:
        DatasetExport.objects.filter(pk=export_id).update(status=DatasetExport.Status.DONE, card=result.card)
    finally:
        close_old_connections()


@role_required()
def exports(request):
    if request.method == "POST":
        fmt, suite = request.POST.get("format", ""), request.POST.get("suite", "").strip()
        try:
            sources = parse_sources(request.POST.getlist("sources"))
            if fmt not in ("sft", "dpo") or not suite:
                raise ExportError("choose a format and a suite")
            # the suite names the export's folder: only a known suite gets that far
            suite_current(suite)
        except (ExportError, LookupError) as exc:
            messages.error(request, str(exc).strip('"'))
        else:
            export = DatasetExport.objects.create(format=fmt, suite=suite, sources=sources, out="", owner=request.user)
            # the creation time keeps a folder apart from one an earlier database left with the same id
            out = settings.DATA_DIR / "exports" / f"{export.pk}-{suite}-{fmt}-{export.created_at:%Y%m%dT%H%M%S%f}"
            DatasetExport.objects.filter(pk=export.pk).update(out=str(out))
            transaction.on_commit(
                lambda: threading.Thread(
                    target=_export_run, args=(export.pk,), daemon=True, name=f"export-{export.pk}"
                ).start()
            )
            return redirect("annotation:exports")
    rows = DatasetExport.objects.all()[:20]
    running = any(e.status in (DatasetExport.Status.QUEUED, DatasetExport.Status.RUNNING) for e in rows)
    template = "annotation/exports_table.html" if request.htmx else "annotation/exports.html"
    return render(request, template, {"exports": rows, "sources": SOURCES, "running": running})


IMAGES_ZIP = "images.zip"


def _images_zip(out: Path) -> Path:
    """The export's screenshots (the rows name images/<sha256>.png) as one zip beside them, made on the first download:
    PNGs are stored as they are, since they do not compress further."""
    target = out / IMAGES_ZIP
    if not target.is_file():
        partial = out / f".{IMAGES_ZIP}.{threading.get_ident()}"
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_STORED) as archive:
            for image in sorted((out / "images").glob("*.png")):
                archive.write(image, f"images/{image.name}")
        partial.replace(target)  # two downloads at once each write their own, and the last rename wins whole
    return target


@role_required()
@require_GET
def export_file(request, pk: int, name: str):
    export = get_object_or_404(DatasetExport, pk=pk, status=DatasetExport.Status.DONE)
    if name == IMAGES_ZIP:
        return FileResponse(open(_images_zip(Path(export.out)), "rb"), as_attachment=True, filename=IMAGES_ZIP)
    if name not in ("sft.jsonl", "sft_episodes.jsonl", "dpo.jsonl", "card.json", "README.md"):
        raise Http404("no such file")
    path = Path(export.out) / name
    if not path.is_file():
        raise Http404("no such file")
    return FileResponse(open(path, "rb"), as_attachment=True, filename=name)


@role_required()
@require_GET
def stats(request):
    return render(request, "annotation/stats.html", {"stats": annotator_stats()})
