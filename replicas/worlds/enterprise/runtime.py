"""One compiled replica's runtime: its Domain (from spec.json) and the shared services, pages, REST endpoints, seed
generator, task picker and screenshot tour bound to it. A compiled replica makes one (its runtime.py) and its thin
modules (urls, seed, tasks/params) read from it."""

import json
from pathlib import Path

from django.urls import path
from django.views.generic import RedirectView

from replicas.worlds.registry import get_replica

from .api import Api
from .domain import Domain
from .seeding import Seeder
from .services import Services
from .views import Views

# the first path segments of the pages every replica has (urlpatterns below): no entity's list may take one
PAGES = ("login", "logout", "approvals", "audit", "search", "docs", "api")


class Enterprise:
    def __init__(self, spec_path: Path):
        self.domain = Domain.load(spec_path)
        self.graph_path = Path(spec_path).with_name("graph.json")
        self.services = Services(self.domain)
        self.views = Views(self.domain, self.services)
        self.api = Api(self.domain, self.services)
        self.seeder = Seeder(self.domain)

    def urlpatterns(self) -> list:
        """URLs served on a world's origin: the pages, then the REST endpoints under /api/."""
        views, api = self.views, self.api
        return [
            path("", RedirectView.as_view(url="/approvals", permanent=False)),
            path("login", views.login, name="login"),
            path("logout", views.logout, name="logout"),
            path("approvals", views.approvals, name="approvals"),
            path("audit", views.audit_log, name="audit"),
            path("search", views.search, name="search"),
            path("docs", views.doc_index, name="docs"),
            path("docs/<slug:page>", views.doc_page, name="doc"),
            path("api/<slug:slug>", api.collection),
            path("api/<slug:slug>/<int:number>", api.item),
            path("api/<slug:slug>/<int:number>/<slug:move>", api.transition),
            path("<slug:slug>", views.entity_list, name="list"),
            path("<slug:slug>/new", views.record_new, name="new"),
            path("<slug:slug>/<int:number>", views.record_detail, name="record"),
            path("<slug:slug>/<int:number>/edit", views.record_edit, name="edit"),
            path("<slug:slug>/<int:number>/do/<slug:move>", views.record_transition, name="transition"),
        ]

    def mcp_server(self, *, url: str, email: str, password: str, http=None):
        """The replica's operations (graph.json's tools) as an MCP server against the world served at `url`, acting
        as the person `email` (mcp.py)."""
        # the MCP SDK takes seconds to import: only a process that serves the tools pays for it
        from .mcp import replica_mcp_server  # noqa: PLC0415

        graph = json.loads(self.graph_path.read_text())
        return replica_mcp_server(self.domain, graph, url=url, email=email, password=password, http=http)

    def person_picker(self, world, seed, number: int, grounded: int | None = None) -> dict:
        """Person `number`'s email and password in worlds of `seed`: a task's `user_email` and `user_password`
        (a picker of the synthesised tasks, called with the template world bound). A task synthesised in the world
        of one seed (`grounded`: its record, its state, its actor) has no candidate in another world: LookupError,
        and an episode drawing another seed plays the task's own (episodes.variation)."""
        if grounded is not None and seed != grounded:
            raise LookupError(f"the task is grounded in the world of seed {grounded}, not {seed}")
        found = self.domain.person_model().objects.filter(number=number).first()
        if found is None:
            raise LookupError(f"no person {number}")
        return {"email": found.email, "password": self.services.person_password(seed=seed, number=number)}

    def screenshot_tour(self, world):
        """The tour of `manage.py screenshots <domain>`: the approvals inbox, the list and a record of the entity
        whose transitions the policies guard most, as its deciding role, and its new-record form as the role that
        creates it; files named factory-<domain>-*.png. World bound."""
        domain = self.domain
        config = get_replica(domain.label)
        machines = [e for e in domain.spec["entities"] if e["machine"]]
        main = max(machines, key=lambda e: sum(len(m["guards"]) for m in e["machine"]["transitions"]))
        guarded = max(main["machine"]["transitions"], key=lambda m: len(m["guards"]))
        record = (
            domain.model(main["name"])
            .objects.filter(**{f"{main['machine']['field']}__in": guarded["from"]})
            .order_by("number")
            .first()
        )
        decider = config.sign_in(world, guarded["roles"][0]).session_key
        creator = config.sign_in(world, main["create"]["roles"][0]).session_key if "create" in main else None
        name = f"factory-{domain.label}"

        def shoot(camera):
            page = camera.page(decider, width=1440, height=900)
            camera.shot(page, f"{name}-approvals.png", "/approvals")
            camera.shot(page, f"{name}-list.png", f"/{main['slug']}")
            if record is not None:
                camera.shot(page, f"{name}-record.png", f"/{main['slug']}/{record.number}")
            if creator is not None:
                camera.shot(camera.page(creator, width=1440, height=900), f"{name}-form.png", f"/{main['slug']}/new")

        return shoot
