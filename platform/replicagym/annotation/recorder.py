"""The recording bar, served on the world's own origin under /__recording__/ (replicas.worlds.recording).

The bar holds the instruction, the steps so far, the thought for the next step, the
answer to the user and Submit; the world's pages run in a frame under it, so the bar
is never part of the replica's page. Requests here are a recording session's (the
worlds layer checked its signed cookie); posts also carry the session's token, which
a page of another origin cannot read.
"""

from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt

from replicagym.jsonintake import JsonIntakeError, json_intake
from replicas.worlds.recording import recording_token, recording_token_valid

from .models import Recording
from .services import AnnotationError, recording_step_add, recording_submit, recording_thought_set

MAX_BODY = 64_000


def _error(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


@csrf_exempt  # called by the worlds middleware, never through a URL pattern; posts carry the session token instead
def recording_handler(request, *, world, session: int, subpath: str):
    recording = Recording.objects.select_related("item__task", "annotator").filter(pk=session, world=world).first()
    if recording is None:
        return render(request, "worlds/page_not_found.html", status=404)
    if subpath == "" and request.method == "GET":
        return _bar(request, recording, world)
    if request.method != "POST":
        return _error("only POST here", 405)
    if not recording_token_valid(request, session=session):
        return _error("missing or wrong X-Recording-Token", 403)
    if len(request.body) > MAX_BODY:
        return _error(f"a post holds at most {MAX_BODY} bytes", 413)
    try:
        doc = json_intake(request.body or b"{}", max_bytes=MAX_BODY)
    except JsonIntakeError as exc:
        return _error(f"the body: {exc}")
    if not isinstance(doc, dict):
        return _error("the body must be a JSON object")
    try:
        if subpath == "steps":
            step = recording_step_add(
                recording=recording,
                action=doc.get("action"),
                url=doc.get("url", ""),
                tab=doc.get("tab", ""),
                at_ms=doc.get("at_ms", 0),
                thought=doc.get("thought", ""),
                replace=bool(doc.get("replace")),
                selector=doc.get("selector", ""),
            )
            return JsonResponse({"index": step.index, "action": step.action, "thought": step.thought})
        if subpath == "thought":
            step = recording_thought_set(recording=recording, index=doc.get("index"), thought=doc.get("thought", ""))
            return JsonResponse({"index": step.index, "thought": step.thought})
        if subpath == "submit":
            recording_submit(recording=recording, user=recording.annotator)
            return JsonResponse({"status": recording.status, "next": recording.return_url})
    except AnnotationError as exc:
        return _error(str(exc))
    return _error(f"no such recorder path: {subpath}", 404)


def _bar(request, recording: Recording, world):
    brief = recording.briefing()
    steps = list(recording.steps.order_by("index").values("index", "action", "thought"))
    return render(
        request,
        "annotation/record_bar.html",
        {
            "recording": recording,
            "brief": brief,
            "instruction": brief["instruction"],
            "start_page": brief["start_page"],
            "steps": steps,
            "config": {
                "token": recording_token(world=world, session=recording.pk),
                "started": int(recording.started_at.timestamp() * 1000),
                "steps": len(steps),
                "editable": recording.status == Recording.Status.RECORDING,
                "back": recording.return_url,
            },
        },
    )
