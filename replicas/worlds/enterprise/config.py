"""The AppConfig base of a compiled replica: its hooks (sign-in, bench pages, screenshot tour) served by the shared
runtime, and its variants, derived from its spec.json and families file. The replica's apps.py subclasses it with its
data (start pages, roles, pickers, audit)."""

import hashlib
import importlib
import inspect
import json
from pathlib import Path

from django.utils.functional import cached_property

from replicas.worlds import registry

from . import seeding
from .variants import families_read, replica_variants


class EnterpriseConfig(registry.ReplicaConfig):
    """A replica compiled by the environment factory: `<app>.runtime.RUNTIME` is its Enterprise runtime."""

    @cached_property
    def variants(self) -> dict[str, dict]:
        """The anchor's sizes, the large sizes and the variant families, from the replica's spec.json and families
        file (variants.py): the compiled files hold the families' number, not their knobs."""
        folder = Path(self.path)
        return replica_variants(json.loads((folder / "spec.json").read_text()), families_read(folder))

    # Models load after the app configs: the hooks reach the runtime when called.
    def runtime(self):
        return importlib.import_module(f"{self.name}.runtime").RUNTIME

    def sign_in(self, world, role=None):
        return self.runtime().services.person_sign_in(world=world, role=self.check_role(role))

    def episode_session(self, browser, *, world, server):
        from .toolplay import ToolSession  # it imports models, which an AppConfig's module must not before apps load

        return ToolSession(browser, world=world, runtime=self.runtime(), server=server)

    def bench_pages(self, world):
        """The first list (its search box first), a record, the approvals inbox."""
        slug = self.runtime().domain.spec["entities"][0]["slug"]
        return [f"/{slug}", f"/{slug}/1001", "/approvals"]

    def screenshot_tour(self, world):
        return self.runtime().screenshot_tour(world)

    @cached_property
    def generator_version(self) -> str:
        """The registry's version (the replica's seed module, models and clock hook) and the shared generator's
        source: a change to either rebuilds the template worlds."""
        digest = hashlib.sha256(super().generator_version.encode())
        digest.update(inspect.getsource(seeding).encode())
        return digest.hexdigest()[:16]
