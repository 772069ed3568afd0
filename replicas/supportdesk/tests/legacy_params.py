"""The support desk's params functions as they were before their tasks became declarative templates
(replicas/supportdesk/tasks/*.json), kept verbatim as the reference that test_declarative_params.py
checks the templates against. Not used by any task."""

from replicas.supportdesk.tasks.params import (
    BILLING,
    SECURITY,
    NoCandidate,
    _group,
    _signin,
    _tagged,
    _unsolved,
    desk_agent,
)


def escalate_premium(world) -> dict:
    """A billing ticket of a Gold or Platinum member, outside Tier 2 Billing, whose priority is below High."""
    agent = desk_agent()
    tier2 = _group(BILLING)
    for ticket in _tagged("billing"):
        if ticket.group_id == tier2.pk or ticket.requester.loyalty_tier not in ("gold", "platinum"):
            continue
        if ticket.priority in ("high", "urgent"):
            continue
        return {
            **_signin(agent),
            "ticket": ticket.public_id,
            "customer": ticket.requester.name,
            "tier": ticket.requester.get_loyalty_tier_display(),
            "tier2": tier2.public_id,
            "priority_before": ticket.priority,
        }
    raise NoCandidate("no premium customer's billing ticket to escalate")


def reassign_security(world) -> dict:
    """An unassigned account ticket (2FA, login, locked) sitting outside Accounts & Security."""
    agent = desk_agent()
    security = _group(SECURITY)
    for ticket in _unsolved(assignee__isnull=True).exclude(group=security):
        if "account" in ticket.tags:
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "group": security.public_id,
                "group_name": security.name,
                "group_before": ticket.group.public_id if ticket.group_id else None,
                "status_before": ticket.status,
            }
    raise NoCandidate("no unassigned account ticket outside Accounts & Security")


def bug_ticket(world) -> dict:
    """The first unsolved bug report whose priority is not Urgent: raise it and mark it a Problem."""
    agent = desk_agent()
    for ticket in _tagged("bug"):
        if ticket.priority != "urgent" and ticket.type != "problem" and ticket.status != "new":
            return {
                **_signin(agent),
                "ticket": ticket.public_id,
                "priority_before": ticket.priority,
                "type_before": ticket.type,
                "status_before": ticket.status,
            }
    raise NoCandidate("no unsolved bug report to triage")


def take_new(world) -> dict:
    """The first new, unassigned ticket the agent may take (no group, or one of the agent's groups)."""
    agent = desk_agent()
    groups = set(agent.memberships.values_list("group_id", flat=True))
    for ticket in _unsolved(status="new", assignee__isnull=True):
        if ticket.group_id is None or ticket.group_id in groups:
            return {**_signin(agent), "ticket": ticket.public_id}
    raise NoCandidate("no new unassigned ticket the agent may take")
