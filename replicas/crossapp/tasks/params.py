"""Answer keys of the cross-app tasks: each a function of the template workspace the task is played in.

They read the workspace's shared people and references (replicas.worlds.workspaces) and the group's
state (`episode_snapshot`), so a key names only records the workspace really holds.
"""

from replicas.worlds.signin import workspace_password
from replicas.worlds.workspaces import episode_snapshot, workspace_worlds

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
