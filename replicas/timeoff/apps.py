# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
from replicas.worlds.enterprise import config


class TimeoffConfig(config.EnterpriseConfig):
    """Harbor Leave: compiled by the environment factory (manage.py factory build) from the anchor of sha256
    25291df89bb59a00; every file of this folder is generated: change the anchor and rebuild. Its pages,
    REST endpoints, writes and seed generator are the shared enterprise runtime (replicas/worlds/enterprise/)."""

    name = "replicas.timeoff"
    label = "timeoff"
    verbose_name = "Harbor Leave"
    default_auto_field = "django.db.models.BigAutoField"

    start_pages = {
        "approvals": "/approvals",
        "departments": "/departments",
        "employees": "/employees",
        "time-off-requests": "/time-off-requests",
        "sign-in": "/login",
    }
    login_path = "/login"
    roles = ("employee", "manager", "hr_admin")
    bench_task = ""
    pickers = {"person": "replicas.timeoff.tasks.params:person"}
    audit = {
        "credential_params": ["user_email", "user_password"],
        "derived": {
            "timeoff.department": ["updated_at"],
            "timeoff.employee": ["updated_at"],
            "timeoff.timeoffrequest": ["updated_at"],
            "timeoff.auditentry": ["number", "at"],
        },
    }
