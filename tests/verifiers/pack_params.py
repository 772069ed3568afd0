"""Params (answer keys) for the task pack the verify_tasks tests write."""

from replicas.testbed.models import Note


def first_open_note(world):
    return {"note": Note.objects.filter(done=False).order_by("public_id").first().public_id}
