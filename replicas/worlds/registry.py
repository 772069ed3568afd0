"""The registry: replicas declare themselves through ReplicaConfig, the platform finds them.

A replica is a Django app whose AppConfig derives from ReplicaConfig. Settings
install every app folder under replicas/, so adding a replica edits no list, and
the platform (tests, bench, episodes, fault library, front-end build) reaches a
replica only through the contract below: it never names one.
"""

import hashlib
import importlib
import importlib.util
import inspect
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from django.apps import AppConfig, apps
from django.conf import settings


class UnknownReplica(LookupError):
    pass


class UnknownVariant(LookupError):
    pass


@dataclass(frozen=True)
class ReplicaUser:
    """A replica user signed in on one world: what a person types on the sign-in page
    and the session a browser (or a test client) carries instead of typing it."""

    role: str
    login: str
    password: str
    session_key: str

    def cookies(self, origin: str) -> list[dict]:
        """Playwright cookies carrying the session on `origin` (http://host:port)."""
        host = origin.split("://", 1)[1].rsplit(":", 1)[0]
        return [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": self.session_key,
                "domain": host,
                "path": "/",
                "httpOnly": True,
                "secure": False,
                "sameSite": "Lax",
                "expires": -1,
            }
        ]

    def storage_state(self, origin: str) -> dict:
        """A Playwright storage state signed in as this user (`browser.new_context(storage_state=...)`)."""
        return {"cookies": self.cookies(origin), "origins": []}


class ReplicaConfig(AppConfig):
    """Declares a replica: the whole contract between a replica and the platform.

    Data (class attributes):
    - `variants`: name -> knobs (a dict the seed generator reads); "default" is required.
    - `start_pages`: name -> path inside the world (the first is the default).
    - `seed_module`: dotted path of a module with `generate(gen)` (default: `<app>.seed`).
    - `urls_module`: the urlconf served on the world's origin (default: `<app>.urls`).
    - `faults_module`: the replica's side of fault injection (default: `<app>.faults`, optional):
      `DATA_FAULTS` appliers, `session_is_signed_in`, `error_response`; see worlds/faults/data.py.
    - `workspace_module`: the replica's side of workspaces (default: `<app>.workspace`, optional):
      `offer(world)` and `adopt(world, *, people, references)`, called by the two hooks below.
    - `checks_module`: imported before the replica's verifier specs are validated or run, so
      its `@register_check` functions exist (default: `<app>.checks`, optional).
    - `login_path`: the sign-in page (fault recovery after an expired session; the bench
      recognises it). Empty when the replica has no sign-in.
    - `roles`: the roles `sign_in` accepts, the default first.
    - `npm_packages`: npm package -> exact version the replica's front end is built from
      (frontend/package.json must pin the same); `frontend_assets`: (file under
      node_modules, destination under the app's `static/`) pairs that `build_frontend` copies;
      files given one destination are concatenated into it in their order (a bundle).
    - `bench_task`: the task id the benchmarks drive (episode start, steps, throughput, memory,
      BrowserGym); empty: the replica's first task with a reference solution.
    - `policies` / `pickers`: name -> "module:function" that declarative task templates call
      (catalogue.task_templates): a policy `fn(world, **args)` returns one JSON value (a refund
      limit, a return window); a picker `fn(world, seed, **args)` returns a dict of params or
      raises LookupError when the world has no candidate. Both run with the world bound.
    - `audit`: what the mutation audit (verifiers.audit) needs to know of the replica:
      `derived` (table -> fields the server computes, which no action sets on its own: an
      order's total, a line's unit price), `credential_params` (params that are sign-in
      details, not constraints an assertion must read) and `false_claims` (sentences an agent
      must not write unless it did the work: "I have refunded you").
    - `paraphrases.json` in the replica's folder (optional): task slug -> other wordings of its
      instruction, with the same facts; an episode with a variation draws one of them or the
      task's own (episodes.variation.instruction_pick).

    Hooks (methods; the world is passed, and bound where noted):
    - `sign_in(world, role=None) -> ReplicaUser | None`: a user of `role` signed in on `world`
      (credentials and a session); None when the world has no such user.
    - `on_clock_advance(world)`: called, with the world bound, every time the world clock moves
      (`worlds.clock.world_clock_advance`: each episode step, by the task's `limits.step_seconds`),
      so time-based automations run in episodes as they would in the product.
    - `workspace_offer(world) -> dict`, world bound: what this world can share in a workspace
      (replicas.worlds.workspaces), in the vocabulary the replicas agree on through this docstring,
      never through imports: `{"people": {kind: [{"name", "email"}, ...]}, "references": {kind:
      [record, ...]}}`, each list in a stable order. People kinds: `employee` (someone who signs in to
      work: a desk agent, a board member, shop staff) and `customer`. The workspace shares person i
      of a kind as the i-th candidate of every member offering that kind (at most 3, and no more
      than the shortest list offers), named as the first member in name order names them. Reference
      kinds and their fields: `order` {number, person, placed_at, total, currency}; `product` {code,
      name}; `ticket` {number, subject, product}; `project` {key, name}; `work_item` {key, title,
      project}. A record's `person` is `[kind, i]` (this world's i-th candidate); records of people
      the workspace does not share are dropped. Default: the workspace module's `offer`, else nothing.
    - `workspace_adopt(world, *, people, references) -> dict`, world bound: make this world agree
      with the group: its i-th candidate of each kind takes `people[kind][i]`'s name and email, and
      its records cite the others' (`references[kind]`, each record with the `replica` that offered
      it and `person` as a shared key such as `customer-1`; a ticket and a work item at one index
      of their lists are paired by both sides). Returns {shared key: the id this replica's sign-in
      (worlds.signin.WorldSignIn) holds for that person}: those people then sign in with the
      workspace's one password. Default: the workspace module's `adopt`, else nothing.
    - `bench_pages(world) -> list[str]`, world bound: the pages the server benchmark fetches
      (signed in), the first of them with a text field the step benchmark types into.
    - `screenshot_tour(world) -> shoot(camera) | None`, world bound: what `manage.py screenshots`
      captures for the docs. It reads the world (sessions, showcase rows) and returns a function
      that drives the camera (no ORM there: Playwright's loop runs in that thread). Default: the
      `tour(world)` of the replica's `screenshots` module, if it ships one.
    """

    variants: dict[str, dict] = {"default": {}}
    start_pages: dict[str, str] = {"home": "/"}
    seed_module: str = ""
    urls_module: str = ""
    faults_module: str = ""
    checks_module: str = ""
    workspace_module: str = ""
    login_path: str = ""
    roles: tuple[str, ...] = ()
    npm_packages: dict[str, str] = {}
    frontend_assets: list[tuple[str, str]] = []
    bench_task: str = ""
    policies: dict[str, str] = {}
    pickers: dict[str, str] = {}
    audit: dict = {}

    @property
    def replica_name(self) -> str:
        return self.label

    @property
    def urlconf(self) -> str:
        return self.urls_module or f"{self.name}.urls"

    def knobs(self, variant: str) -> dict:
        try:
            return self.variants[variant]
        except KeyError:
            names = ", ".join(sorted(self.variants))
            raise UnknownVariant(f"unknown variant {variant!r} for replica {self.label!r} (known: {names})") from None

    def generator(self):
        return importlib.import_module(self.seed_module or f"{self.name}.seed")

    def optional_module(self, dotted: str):
        """The module `dotted`, or None when the replica does not ship it (its errors still raise)."""
        return importlib.import_module(dotted) if importlib.util.find_spec(dotted) is not None else None

    def faults_hooks(self):
        return self.optional_module(self.faults_module or f"{self.name}.faults")

    def load_checks(self) -> None:
        self.optional_module(self.checks_module or f"{self.name}.checks")

    def sign_in(self, world, role: str | None = None) -> ReplicaUser | None:
        """A user of `role` (default: the first of `roles`) signed in on `world`."""
        if not self.roles:
            return None
        raise NotImplementedError(f"replica {self.label!r} declares roles but no sign_in")

    def check_role(self, role: str | None) -> str:
        role = role or (self.roles[0] if self.roles else "")
        if role not in self.roles:
            known = ", ".join(self.roles) or "none"
            raise ValueError(f"replica {self.label!r} has no role {role!r} (known: {known})")
        return role

    def workspace_hooks(self):
        return self.optional_module(self.workspace_module or f"{self.name}.workspace")

    def workspace_offer(self, world) -> dict:
        module = self.workspace_hooks()
        return module.offer(world) if module is not None else {}

    def workspace_adopt(self, world, *, people: dict, references: dict) -> dict:
        module = self.workspace_hooks()
        return module.adopt(world, people=people, references=references) if module is not None else {}

    def on_clock_advance(self, world) -> None:
        """Nothing happens with time in a replica without automations."""

    def episode_session(self, browser, *, world, server):
        """The session an episode on `world` acts through: its browser session, unless the replica takes actions of
        its own too (a compiled replica's tool calls). `server()` gives the (host, port) serving the world's origin."""
        return browser

    def bench_pages(self, world) -> list[str]:
        return list(self.start_pages.values())

    def screenshot_tour(self, world):
        module = self.optional_module(f"{self.name}.screenshots")
        return module.tour(world) if module is not None else None

    @property
    def static_dir(self) -> Path:
        return Path(self.path) / "static"

    @cached_property
    def world_models(self) -> list:
        """The replica's world-scoped models, parents before children (foreign keys)."""
        from .models import WorldModel

        declared = [m for m in self.get_models() if issubclass(m, WorldModel)]
        for model in declared:
            if not model.public_key:
                raise TypeError(f"{model.__name__} declares no public_key")
        ordered, seen = [], set()

        def visit(model, path=()):
            if model in seen:
                return
            if model in path:
                return  # a cycle (self reference): order within it does not matter
            for field in model._meta.concrete_fields:
                target = field.related_model if field.is_relation else None
                if target in declared and target is not model:
                    visit(target, path + (model,))
            seen.add(model)
            ordered.append(model)

        for model in declared:
            visit(model)
        return ordered

    @cached_property
    def generator_version(self) -> str:
        """Changes whenever the seed generator, the models or the clock hook (run on a new
        world) change, invalidating templates."""
        digest = hashlib.sha256()
        for code in (self.generator(), self.models_module, type(self).on_clock_advance):
            digest.update(inspect.getsource(code).encode())
        return digest.hexdigest()[:16]


def replicas() -> dict[str, ReplicaConfig]:
    return {c.label: c for c in apps.get_app_configs() if isinstance(c, ReplicaConfig)}


def get_replica(name: str) -> ReplicaConfig:
    found = replicas()
    if name not in found:
        known = ", ".join(sorted(found)) or "none"
        raise UnknownReplica(f"unknown replica {name!r} (known: {known})")
    return found[name]
