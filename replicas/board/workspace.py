"""The issue board in a workspace (ReplicaConfig.workspace_offer / workspace_adopt).

It offers its team (employees), its first project and that project's open bugs (work items a
support desk's tickets can mention); it adopts the shared people, becomes the project of the
desk's product, and links each work item paired with a desk ticket back to it, labelled as
customer-reported. Where the board has simulated colleagues, each work item offered carries what its
assignee tells when asked (replicas.board.simulated): the answer key of a task that must ask them.
"""

from . import simulated
from .models import Issue, Person, Project

# work items offered for pairing with tickets: as many as a workspace shares people
PAIRED_ITEMS = 3
CUSTOMER_LABEL = "customer-reported"


def _team():
    return Person.objects.filter(active=True).order_by("public_id")


def _project() -> Project | None:
    return Project.objects.order_by("key").first()


def _work_items(project: Project):
    """Open bugs first (what a customer's ticket becomes), then other open work, in number order."""
    open_items = Issue.objects.filter(project=project, resolution="").exclude(issue_type__in=["epic", "subtask"])
    bugs = list(open_items.filter(issue_type="bug").order_by("number")[:PAIRED_ITEMS])
    rest = list(open_items.exclude(issue_type="bug").order_by("number")[: PAIRED_ITEMS - len(bugs)])
    return bugs + rest


def offer(world) -> dict:
    project = _project()
    items = _work_items(project) if project is not None else []
    told = simulated.enabled(world)
    return {
        "people": {"employee": [{"name": p.name, "email": p.email} for p in _team()[:5]]},
        "references": {
            "project": [{"key": project.key, "name": project.name}] if project is not None else [],
            "work_item": [
                {
                    "key": i.key,
                    "title": i.summary,
                    "project": project.key,
                    **(
                        {"release": simulated.planned_release(i), "workaround": simulated.workaround(i)} if told else {}
                    ),
                }
                for i in items
            ],
        },
    }


def _take_identity(person: Person, shared: dict) -> None:
    """`person` becomes `shared` (name and email; the username, the board's own id, stays)."""
    email = shared["email"]
    if Person.objects.exclude(pk=person.pk).filter(email__iexact=email).exists():
        raise ValueError(f"board: {email} is already another person's address")
    person.name, person.email = shared["name"], email
    person.save(update_fields=["name", "email"])


def adopt(world, *, people: dict, references: dict) -> dict:
    sign_ins = {}
    shared = people.get("employee", [])
    for person, identity in zip(list(_team()[: len(shared)]), shared, strict=True):
        _take_identity(person, identity)
        sign_ins[identity["key"]] = person.username
    project = _project()
    products = references.get("product", [])
    if project is not None and products:
        # the team builds the desk's product: its project carries the product's name
        project.name = products[0]["name"]
        project.save(update_fields=["name"])
    tickets = references.get("ticket", [])
    items = [i for i in references.get("work_item", []) if i["replica"] == world.replica]
    for ticket, item in zip(tickets, items, strict=False):
        issue = Issue.objects.get(key=item["key"])
        note = f"Reported by customers in support ticket #{ticket['number']}: {ticket['subject']}"
        issue.description = f"{note}\n\n{issue.description}" if issue.description else note
        if CUSTOMER_LABEL not in issue.labels:
            issue.labels = [*issue.labels, CUSTOMER_LABEL]
        issue.save(update_fields=["description", "labels"])
    return sign_ins
