"""Reads of annotation: a person's queue, the review list, per-annotator figures."""

from statistics import median

from django.contrib.auth import get_user_model

from .models import Item, Recording
from .services import available_to


def queue_for(user) -> dict:
    """{"mine": items the user holds, "open": items they may claim, "submitted": their recordings in flight}."""
    items = Item.objects.select_related("task", "assignee")
    return {
        "mine": list(items.filter(status=Item.Status.CLAIMED, claimed_by=user)),
        "open": list(items.filter(available_to(user), status=Item.Status.OPEN)),
        "submitted": list(
            Recording.objects.select_related("item__task", "reviewer")
            .filter(annotator=user)
            .exclude(status=Recording.Status.RECORDING)[:50]
        ),
    }


def review_list() -> list[Recording]:
    """Recordings waiting for a reviewer, oldest first."""
    return list(
        Recording.objects.select_related("item__task", "annotator", "replay")
        .filter(status__in=Recording.REVIEWABLE)
        .order_by("submitted_at")
    )


def annotator_stats() -> list[dict]:
    """Per annotator: items done (accepted), acceptance rate over reviewed recordings, median seconds per recording."""
    rows = {}
    for rec in Recording.objects.exclude(status=Recording.Status.RECORDING).values(
        "annotator_id", "status", "started_at", "submitted_at"
    ):
        row = rows.setdefault(rec["annotator_id"], {"submitted": 0, "accepted": 0, "rejected": 0, "seconds": []})
        row["submitted"] += 1
        row["accepted"] += rec["status"] == Recording.Status.ACCEPTED
        row["rejected"] += rec["status"] == Recording.Status.REJECTED
        if rec["submitted_at"]:
            row["seconds"].append((rec["submitted_at"] - rec["started_at"]).total_seconds())
    names = dict(get_user_model().objects.filter(pk__in=rows).values_list("pk", "username"))
    out = []
    for pk, row in sorted(rows.items(), key=lambda kv: names.get(kv[0], "")):
        reviewed = row["accepted"] + row["rejected"]
        out.append(
            {
                "annotator": names.get(pk, str(pk)),
                "submitted": row["submitted"],
                "done": row["accepted"],
                "reviewed": reviewed,
                "acceptance_rate": round(row["accepted"] / reviewed, 3) if reviewed else None,
                "median_seconds": round(median(row["seconds"]), 1) if row["seconds"] else None,
            }
        )
    return out
