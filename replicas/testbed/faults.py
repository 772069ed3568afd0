"""The testbed's side of fault injection (see replicas/worlds/faults/data.py): which sessions
are signed in, the product's own error page, and two data faults (one applied at world
creation, one fired mid-episode), so the platform's fault tests exercise every hook."""

from django.http import HttpResponse, JsonResponse
from django.utils.html import format_html

from replicas.worlds.clock import now
from replicas.worlds.faults import DataFaultError
from replicas.worlds.faults.library import LEGACY_DATE_FORMATS
from replicas.worlds.faults.pages import wants_json

from .models import Member, Note
from .services import SIGNIN


def session_is_signed_in(session) -> bool:
    return SIGNIN.session_is_signed_in(session)


def error_response(request, *, status: int, code: str, message: str) -> HttpResponse:
    """JSON for API calls, otherwise the notes app's own error page."""
    if wants_json(request):
        return JsonResponse({"error": message, "code": code}, status=status)
    page = format_html(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error {} – Testbed Notes</title></head>'
        "<body><main><h1>Testbed Notes could not do that.</h1><p>{}</p><p>Error code: {}</p>"
        '<a href="{}">Try again</a></main></body></html>',
        status,
        message,
        status,
        request.get_full_path(),
    )
    return HttpResponse(page, status=status)


def stale_record(ctx) -> dict:
    """An open note another member takes over while the agent has it open."""
    if ctx.phase == "arm":
        notes = Note.objects.filter(done=False).order_by("public_id")
        record = ctx.params.get("record")
        if record is not None:  # the spec names the note
            notes = notes.filter(public_id=record) if isinstance(record, int) else notes.none()
        if not notes:
            raise DataFaultError(f"record: no suitable open note {record!r} in this world")
        note = ctx.rng.choice(list(notes))
        return {"model": "note", "record": note.public_id, "route": f"^/notes/{note.public_id}$"}
    note = Note.objects.get(public_id=ctx.detail["record"])
    other = ctx.rng.choice(list(Member.objects.exclude(pk=note.owner_id).order_by("public_id")))
    before = note.owner.public_id
    note.owner, note.updated_at = other, now()
    note.save(update_fields=["owner", "updated_at"])
    return {
        "model": "note",
        "record": note.public_id,
        "changed": {"owner": [before, other.public_id]},
        "by": other.public_id,
    }


def legacy_format(ctx) -> dict:
    """Notes from a legacy import: their date kept only as a first line of text in the old format."""
    notes = list(Note.objects.order_by("public_id"))
    chosen = sorted(ctx.rng.sample(notes, k=min(ctx.params["count"], len(notes))), key=lambda n: n.public_id)
    values = {}
    for note in chosen:
        values[str(note.public_id)] = note.updated_at.strftime(LEGACY_DATE_FORMATS[ctx.params["format"]])
        note.body = f"Imported {values[str(note.public_id)]}\n{note.body}"
        note.save(update_fields=["body"])
    return {
        "model": "note",
        "records": [n.public_id for n in chosen],
        "field": "body",
        "format": ctx.params["format"],
        "values": values,
    }


DATA_FAULTS = {"stale_record": stale_record, "legacy_format": legacy_format}
