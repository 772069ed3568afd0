# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
from replicas.worlds import registry


class ProcurementConfig(registry.ReplicaConfig):
    """Northwind Procure: compiled by the environment factory (manage.py factory build) from the anchor of sha256
    6b227318a5f32039; every file of this folder is generated: change the anchor and rebuild."""

    name = "replicas.procurement"
    label = "procurement"
    verbose_name = "Northwind Procure"
    default_auto_field = "django.db.models.BigAutoField"

    variants = {"default": {"size": 3}, "small": {"size": 1}}
    start_pages = {
        "approvals": "/approvals",
        "vendors": "/vendors",
        "purchase-requests": "/purchase-requests",
        "purchase-orders": "/purchase-orders",
        "goods-receipts": "/goods-receipts",
        "invoices": "/invoices",
        "sign-in": "/login",
    }
    login_path = "/login"
    roles = ("requester", "approver", "buyer", "ap_clerk")
    bench_task = ""
    pickers = {"person": "replicas.procurement.tasks.params:person"}
    audit = {
        "credential_params": ["user_email", "user_password"],
        "derived": {
            "procurement.vendor": ["updated_at"],
            "procurement.purchaserequest": ["total", "updated_at"],
            "procurement.purchaseorder": ["updated_at"],
            "procurement.goodsreceipt": ["updated_at"],
            "procurement.invoice": ["updated_at"],
            "procurement.auditentry": ["number", "at"],
        },
    }

    # Models load after the app configs: the hooks import them when called.
    def sign_in(self, world, role=None):
        from .services import person_sign_in

        return person_sign_in(world=world, role=self.check_role(role))

    def bench_pages(self, world):
        """The first list (its search box first), a record, the approvals inbox."""
        return ["/vendors", "/vendors/1001", "/approvals"]
