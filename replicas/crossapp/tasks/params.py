"""Answer keys of the cross-app tasks: each a function of the template workspace the task is played in.

They read the workspace's shared people and references (replicas.worlds.workspaces) and the group's
state (`episode_snapshot`), so a key names only records the workspace really holds.
"""

import re
from datetime import datetime, timedelta
from decimal import Decimal

from replicas.worlds.signin import workspace_password
from replicas.worlds.workspaces import episode_snapshot, workspace_clock, workspace_worlds

UNSOLVED = ("new", "open", "pending", "hold")
AGENT = "employee-1"  # the shared employee the tasks sign in as: one email and password in every app


class NoCandidate(LookupError):
    """The workspace holds no record this task can be about."""


def _agent(workspace) -> dict:
    person = next(p for p in workspace.people["employee"] if p["key"] == AGENT)
    return {
        "agent_name": person["name"],
        "agent_email": person["email"],
        "agent_password": workspace_password(seed=workspace.seed, person=AGENT),
    }


def _sign_in_id(workspace, replica: str, person: str) -> str:
    """The id an app's sign-in holds for a shared person (the desk's user id, the board's username), as
    verifiers name a row's author or assignee there."""
    return next(user for user, key in workspace.sign_ins[replica].items() if key == person)


def _linked_pair(workspace, index: int) -> dict:
    """The `index`-th ticket and the work item it cites (the workspace links them by their place in its lists)."""
    tickets = [r for r in workspace.references.get("ticket", []) if r["replica"] == "supportdesk"]
    items = [r for r in workspace.references.get("work_item", []) if r["replica"] == "board"]
    if index >= min(len(tickets), len(items)):
        raise NoCandidate(f"the workspace links {min(len(tickets), len(items))} tickets to work items")
    tables = episode_snapshot(workspace_worlds(workspace)[0])["tables"]
    ticket = tables["supportdesk.ticket"][str(tickets[index]["number"])]
    if ticket["status"] not in UNSOLVED:  # the tasks act on the ticket: a closed one takes no note
        raise NoCandidate(f"ticket #{ticket['public_id']} cited by the board is {ticket['status']}")
    item = tables["board.issue"][items[index]["key"]]
    people = tables["board.person"]
    return {
        **_agent(workspace),
        "agent_id": _sign_in_id(workspace, "supportdesk", AGENT),
        "agent_username": _sign_in_id(workspace, "board", AGENT),
        "ticket": tickets[index]["number"],
        "work_item": item["key"],
        "status": item["status"],
        "assignee": people[item["assignee"]]["name"] if item["assignee"] else "Unassigned",
    }


def first_linked_pair(workspace) -> dict:
    return _linked_pair(workspace, 0)


def second_linked_pair(workspace) -> dict:
    return _linked_pair(workspace, 1)


# --- desk and board: tickets tagged as bugs -------------------------------------------------------------

# the desk's ticket priorities as the board's: a triage maps one to the other
SEVERITY = {"urgent": "Highest", "high": "High", "normal": "Medium", "low": "Low", "": "Medium"}
WEEK = 7 * 24 * 3600


def _tables(workspace) -> dict:
    return episode_snapshot(workspace_worlds(workspace)[0])["tables"]


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _project(workspace, tables: dict) -> dict:
    """The board's project of the desk's product, its active sprint and the key its next work item takes."""
    key = workspace.references["project"][0]["key"]
    numbers = [i["number"] for i in tables["board.issue"].values() if i["project"] == key]
    active = [s for s in tables["board.sprint"].values() if s["project"] == key and s["state"] == "active"]
    if len(active) != 1:
        raise NoCandidate(f"{key} has {len(active)} active sprints")
    return {
        "project": key,
        "project_name": tables["board.project"][key]["name"],
        "next_key": f"{key}-{max(numbers) + 1}",
        "sprint": str(active[0]["public_id"]),
        "sprint_name": active[0]["name"],
    }


def _linked_tickets(tables: dict) -> set[str]:
    """Tickets an internal note already links to a work item (the workspace's pairs)."""
    return {
        str(c["ticket"])
        for c in tables["supportdesk.comment"].values()
        if not c["public"] and c["body"].startswith("Escalated to engineering: tracked as ")
    }


def _bug_tickets(tables: dict) -> list[dict]:
    linked = _linked_tickets(tables)
    return sorted(
        (
            t
            for t in tables["supportdesk.ticket"].values()
            if "bug" in t["tags"] and t["status"] in UNSOLVED and str(t["public_id"]) not in linked
        ),
        key=lambda t: t["public_id"],
    )


DEFAULT_PRIORITY = "Medium"  # the board's Create dialog preselects it: a triage that keeps it is free


def bug_tickets_this_week(workspace) -> dict:
    """This week's two unsolved, unlinked tickets tagged bug, in ticket-number order, and an older one that is not.

    The triage task files this week's only: an agent that files every bug ticket files one too many. The two
    tickets' severities map to two different priorities, at least one not the Create dialog's default, so an
    agent that ignores severity (keeps the default, or gives both the same priority) files one at the wrong one."""
    tables = _tables(workspace)
    now = workspace_clock(workspace)
    tickets = _bug_tickets(tables)
    recent = [t for t in tickets if (now - _when(t["created_at"])).total_seconds() <= WEEK]
    older = [t for t in tickets if (now - _when(t["created_at"])).total_seconds() > WEEK]
    if len(recent) != 2 or not older:
        raise NoCandidate(f"{len(recent)} bug tickets this week and {len(older)} older ones")
    priorities = [SEVERITY[t["priority"]] for t in recent]
    if len(set(priorities)) != 2 or set(priorities) == {DEFAULT_PRIORITY}:
        raise NoCandidate(f"this week's bug tickets map to {priorities}: severity would not decide the triage")
    project = _project(workspace, tables)
    number = int(project["next_key"].rsplit("-", 1)[1])
    first, second = recent
    return {
        **_agent(workspace),
        **project,
        "agent_id": _sign_in_id(workspace, "supportdesk", AGENT),
        "agent_username": _sign_in_id(workspace, "board", AGENT),
        "ticket": first["public_id"],
        "subject": first["subject"],
        "priority": priorities[0],
        "status": first["status"],
        "ticket_2": second["public_id"],
        "subject_2": second["subject"],
        "priority_2": priorities[1],
        "status_2": second["status"],
        "next_key_2": f"{project['project']}-{number + 1}",
        "older_ticket": older[0]["public_id"],
    }


def older_bug_ticket(workspace) -> dict:
    """The oldest unsolved ticket tagged bug that no work item tracks yet, with the key its work item takes."""
    tables = _tables(workspace)
    tickets = _bug_tickets(tables)
    if not tickets:
        raise NoCandidate("no unlinked bug ticket")
    ticket = min(tickets, key=lambda t: t["created_at"])
    requester = tables["supportdesk.user"][str(ticket["requester"])]
    return {
        **_agent(workspace),
        **_project(workspace, tables),
        "agent_id": _sign_in_id(workspace, "supportdesk", AGENT),
        "agent_username": _sign_in_id(workspace, "board", AGENT),
        "ticket": ticket["public_id"],
        "subject": ticket["subject"],
        "first_name": requester["name"].split()[0],
    }


def _colleague(workspace, index: int = 1) -> dict:
    """A shared colleague of the agent's, with the desk group they work in (a ticket is assigned within its group)."""
    person = workspace.people["employee"][index]
    tables = _tables(workspace)
    user = _sign_in_id(workspace, "supportdesk", person["key"])
    groups = sorted(m["group"] for m in tables["supportdesk.membership"].values() if str(m["user"]) == user)
    if not groups:
        raise NoCandidate(f"{person['name']} is in no desk group")
    return {
        "colleague_name": person["name"],
        "colleague_id": user,
        "colleague_username": _sign_in_id(workspace, "board", person["key"]),
        "colleague_group": groups[0],
        "colleague_group_name": tables["supportdesk.group"][groups[0]]["name"],
    }


def first_pair_and_colleague(workspace) -> dict:
    return {**_linked_pair(workspace, 0), **_colleague(workspace)}


# --- desk and shop: a shared customer's order -----------------------------------------------------------


def _money(amount: Decimal) -> str:
    return f"${amount:,.2f}"


def _next_refund(tables: dict) -> str:
    return f"RF-{max(int(r.split('-')[1]) for r in tables['shop.refund']) + 1}"


def _customer_tickets(workspace, tables: dict) -> list[tuple[dict, dict, dict]]:
    """(ticket, its requester, the shop's order it cites) for every unsolved ticket of a shared customer."""
    emails = {p["email"] for p in workspace.people.get("customer", [])}
    out = []
    for ticket in sorted(tables["supportdesk.ticket"].values(), key=lambda t: t["public_id"]):
        requester = tables["supportdesk.user"][str(ticket["requester"])]
        order = tables["shop.order"].get(ticket["order_number"])
        if ticket["status"] in UNSOLVED and requester["email"] in emails and order is not None:
            out.append((ticket, requester, order))
    return out


def _lines(tables: dict, order: str) -> list[dict]:
    return sorted((i for i in tables["shop.orderitem"].values() if i["order"] == order), key=lambda i: i["line"])


def _case(workspace, tables, ticket, requester, order) -> dict:
    return {
        **_agent(workspace),
        "agent_id": _sign_in_id(workspace, "supportdesk", AGENT),
        "ticket": ticket["public_id"],
        "order": order["public_id"],
        "customer": requester["name"],
        "first_name": requester["name"].split()[0],
    }


def missing_item_refund(workspace) -> dict:
    """A shared customer's ticket asking for a refund for a missing item, whose order in the shop has one line,
    delivered, active and not refunded yet: the refund the agent issues and the number the shop gives it."""
    tables = _tables(workspace)
    refunded = {r["item"] for r in tables["shop.refund"].values()}
    for ticket, requester, order in _customer_tickets(workspace, tables):
        lines = _lines(tables, order["public_id"])
        if "missing_item" not in ticket["tags"] or len(lines) != 1:
            continue
        line = lines[0]
        if line["status"] != "active" or not line["delivered_at"] or f"{order['public_id']}|1" in refunded:
            continue
        amount = Decimal(line["unit_price"]) * line["quantity"]
        case = _case(workspace, tables, ticket, requester, order)
        if "board.issue" in tables:  # the work item the ticket's note names, where the board is in the workspace
            key = next(r["key"] for r in workspace.references["work_item"] if r["key"] in _note_keys(tables, ticket))
            case["work_item"] = key
        return {
            **case,
            "line": line["line"],
            "item_title": line["title"],
            "amount": f"{amount:.2f}",
            "amount_display": _money(amount),
            "refund": _next_refund(tables),
        }
    raise NoCandidate("no shared customer's missing-item ticket on a one-line order")


def _note_keys(tables: dict, ticket: dict) -> str:
    return " ".join(
        c["body"]
        for c in tables["supportdesk.comment"].values()
        if str(c["ticket"]) == str(ticket["public_id"]) and not c["public"]
    )


def duplicate_charge_refunded(workspace) -> dict:
    """A shared customer's duplicate-charge ticket whose order the shop already refunded once: the refund's
    number and amount, which the agent reads in the back office and cites to the customer."""
    tables = _tables(workspace)
    for ticket, requester, order in _customer_tickets(workspace, tables):
        refunds = [r for r in tables["shop.refund"].values() if r["order"] == order["public_id"]]
        if "duplicate_charge" in ticket["tags"] and len(refunds) == 1:
            return {
                **_case(workspace, tables, ticket, requester, order),
                "refund": refunds[0]["public_id"],
                "amount_display": _money(Decimal(refunds[0]["amount"])),
            }
    raise NoCandidate("no shared customer's duplicate-charge ticket on an order refunded once")


# --- shop and board: returns the policy decides ---------------------------------------------------------


def late_return(workspace) -> dict:
    """The first requested return asked for after its seller's return window closed: the policy refuses it."""
    tables = _tables(workspace)
    for ret in sorted(tables["shop.returnrequest"].values(), key=lambda r: r["public_id"]):
        item = tables["shop.orderitem"][ret["item"]]
        if ret["status"] != "requested" or not item["delivered_at"]:
            continue
        window = tables["shop.seller"][str(item["seller"])]["return_window_days"]
        deadline = _when(item["delivered_at"]) + timedelta(days=window)
        if _when(ret["requested_at"]) > deadline:
            return {
                **_agent(workspace),
                **_project(workspace, tables),
                "agent_username": _sign_in_id(workspace, "board", AGENT),
                "rma": ret["public_id"],
                "order": item["order"],
                "window_days": window,
            }
    raise NoCandidate("no return requested after its window")


def second_pair(workspace) -> dict:
    """The second linked pair with the agent's desk id (the tasks reply on its ticket)."""
    return _linked_pair(workspace, 1)


def duplicate_charge_and_project(workspace) -> dict:
    """The duplicate-charge case, with the board project its bug is filed in and the key that bug takes."""
    tables = _tables(workspace)
    return {
        **duplicate_charge_refunded(workspace),
        **_project(workspace, tables),
        "agent_username": _sign_in_id(workspace, "board", AGENT),
    }


def missing_item_delivery(workspace) -> dict:
    """The missing-item case's order and the day the shop delivered its line, as the back office prints it."""
    case = missing_item_refund(workspace)
    tables = _tables(workspace)
    day = _when(tables["shop.orderitem"][f"{case['order']}|{case['line']}"]["delivered_at"])
    return {**case, "delivered": f"{day:%b} {day.day}, {day.year}"}


# --- the board's project pages: what "per the runbook" and "per the definition of done" mean ------------

RUNBOOK_ONCALL = re.compile(r"On call: \[~([A-Za-z0-9._-]+)\]")
RUNBOOK_PRIORITY = re.compile(r"Sets its priority to \*(\w+)\*")
RUNBOOK_LABEL = re.compile(r"Adds the label \{\{([\w-]+)\}\}")
RUNBOOK_STATUS = re.compile(r"Moves it to \*([\w ]+)\*")
DONE_VERSION = re.compile(r"set \*Fix versions\* to \{\{([\w.]+)\}\}")
DONE_LABEL = re.compile(r"Add the label \{\{([\w-]+)\}\}")


def _page_value(tables: dict, project: str, slug: str, pattern: re.Pattern) -> str:
    """The one value `pattern` finds on a project page of the board, as a person reads it there."""
    page = tables["board.projectpage"].get(f"{project}|{slug}")
    found = pattern.findall(page["body"]) if page else []
    if len(found) != 1:
        raise NoCandidate(f"{project}'s page {slug} states {len(found)} values for {pattern.pattern}")
    return found[0]


def _runbook(tables: dict, project: str) -> dict:
    """The escalation steps of the project's on-call runbook: whom to assign, the priority, label and status."""
    username = _page_value(tables, project, "on-call-runbook", RUNBOOK_ONCALL)
    return {
        "oncall_username": username,
        "oncall_name": tables["board.person"][username]["name"],
        "runbook_priority": _page_value(tables, project, "on-call-runbook", RUNBOOK_PRIORITY),
        "runbook_label": _page_value(tables, project, "on-call-runbook", RUNBOOK_LABEL),
        "runbook_status": _page_value(tables, project, "on-call-runbook", RUNBOOK_STATUS),
    }


def second_pair_per_definition_of_done(workspace) -> dict:
    """The second linked pair and what the board's definition of done asks of a fixed bug: its fix version and
    label (the item has neither yet, else doing nothing would pass)."""
    pair = _linked_pair(workspace, 1)
    tables = _tables(workspace)
    item = tables["board.issue"][pair["work_item"]]
    version = _page_value(tables, item["project"], "definition-of-done", DONE_VERSION)
    label = _page_value(tables, item["project"], "definition-of-done", DONE_LABEL)
    if version in item["fix_versions"] or label in item["labels"] or item["status"] == "Done":
        raise NoCandidate(f"{pair['work_item']} already meets part of the definition of done")
    labels = [*item["labels"], label]
    return {
        **pair,
        "project": item["project"],
        "done_version": version,
        "done_label": label,
        "fix_versions_after": sorted([*item["fix_versions"], version]),
        "labels_after": labels,
        "labels_after_text": " ".join(labels),
    }


def first_pair_per_runbook(workspace) -> dict:
    """The first linked pair and what the board's on-call runbook makes of its work item when support
    escalates it. The runbook's values differ from the item's own (else doing nothing would pass)."""
    pair = _linked_pair(workspace, 0)
    tables = _tables(workspace)
    item = tables["board.issue"][pair["work_item"]]
    runbook = _runbook(tables, item["project"])
    same = [f for f, v in (("priority", "runbook_priority"), ("status", "runbook_status")) if item[f] == runbook[v]]
    if same or item["assignee"] == runbook["oncall_username"] or runbook["runbook_label"] in item["labels"]:
        raise NoCandidate(f"{pair['work_item']} already has the runbook's {same or 'assignee or label'}")
    labels = [*item["labels"], runbook["runbook_label"]]
    return {
        **pair,
        **runbook,
        "project": item["project"],
        "labels_after": labels,
        "labels_after_text": " ".join(labels),
    }


# --- the board's simulated colleagues: what only the assignee can tell ---------------------------------


def first_pair_colleague_workaround(workspace) -> dict:
    """The first linked pair, the colleague who takes its work item over, and the workaround they tell when
    asked on it (the board shares what its people would answer; the agent can learn it only by asking)."""
    pair = _linked_pair(workspace, 0)
    item = next(r for r in workspace.references["work_item"] if r["key"] == pair["work_item"])
    if "workaround" not in item:
        raise NoCandidate("the board of this workspace has no simulated colleagues")
    return {
        **pair,
        **_colleague(workspace),
        "agent_first_name": pair["agent_name"].split()[0],
        "workaround": item["workaround"],
    }


# --- desk and shop: a damaged item sent again -----------------------------------------------------------


def _next_order(tables: dict) -> str:
    return f"ORD-{max(int(o.split('-')[1]) for o in tables['shop.order']) + 1}"


def damaged_item_replacement(workspace) -> dict:
    """The shared customer's ticket reporting a damaged item of one of their orders (the shop's `damaged_item`
    reference): the line to send again, the number the replacement order takes, and the original's address."""
    tables = _tables(workspace)
    for damaged in workspace.references.get("damaged_item", []):
        key = f"{damaged['order']}|{damaged['line']}"
        item = tables["shop.orderitem"].get(key)
        if item is None or item["status"] != "active" or not item["delivered_at"]:
            continue
        cited = [
            (ticket, requester, order)
            for ticket, requester, order in _customer_tickets(workspace, tables)
            if "damaged_item" in ticket["tags"] and order["public_id"] == damaged["order"]
        ]
        if len(cited) != 1:
            raise NoCandidate(f"{len(cited)} damaged-item tickets cite {damaged['order']}")
        ticket, requester, order = cited[0]
        others = [i for i in _lines(tables, order["public_id"]) if i["line"] != item["line"]]
        return {
            **_case(workspace, tables, ticket, requester, order),
            "account": order["account"],
            "line": item["line"],
            "other_line": others[0]["line"],
            "item_title": item["title"],
            "variant": item["variant"],
            "quantity": item["quantity"],
            "replacement": _next_order(tables),
            **{f: order[f] for f in ("ship_name", "ship_line1", "ship_line2", "ship_city", "ship_state", "ship_zip")},
        }
    raise NoCandidate("the workspace's shop reports no damaged item of a shared customer")
