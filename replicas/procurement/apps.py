# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
from replicas.worlds.enterprise import config


class ProcurementConfig(config.EnterpriseConfig):
    """Northwind Procure: compiled by the environment factory (manage.py factory build) from the anchor of sha256
    c0fd214d7573e536; every file of this folder is generated: change the anchor and rebuild. Its pages,
    REST endpoints, writes and seed generator are the shared enterprise runtime (replicas/worlds/enterprise/)."""

    name = "replicas.procurement"
    label = "procurement"
    verbose_name = "Northwind Procure"
    default_auto_field = "django.db.models.BigAutoField"

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
