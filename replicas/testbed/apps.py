# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
from replicas.worlds import registry


class TestbedConfig(registry.ReplicaConfig):
    """A minimal replica for the platform's own tests: a team's notes with a sign-in, a list,
    a form, one time-based rule and one access rule (a policy), a picker for templates.
    Tiny worlds, so platform tests run fast on it."""

    name = "replicas.testbed"
    label = "testbed"
    verbose_name = "Testbed"
    default_auto_field = "django.db.models.BigAutoField"

    variants = {"default": {"notes": 12}, "small": {"notes": 6}}
    start_pages = {"notes": "/notes", "sign-in": "/login"}
    login_path = "/login"
    roles = ("owner", "member")
    bench_task = "testbed.complete-note"
    policies = {"editable_owners": "replicas.testbed.policies:editable_owners"}
    pickers = {"member": "replicas.testbed.tasks.params:member_signin"}
    audit = {"credential_params": ["email", "password"]}

    # Models load after the app configs: the hooks import them when called.
    def sign_in(self, world, role=None):
        from .services import member_sign_in

        return member_sign_in(world=world, role=self.check_role(role))

    def on_clock_advance(self, world):
        """Notes whose reminder time has come are flagged, as the product's reminder job would."""
        from .services import reminders_run

        reminders_run()

    def bench_pages(self, world):
        """A note's edit form (a text field first), then the list."""
        from .models import Note

        first = Note.objects.order_by("public_id").values_list("public_id", flat=True).first()
        return [f"/notes/{first}", "/notes"]
