# imported as a module so that apps.py defines exactly one AppConfig, which Django then picks
from replicas.worlds.enterprise import config


class TimeoffConfig(config.EnterpriseConfig):
    """Harbor Leave: compiled by the environment factory (manage.py factory build) from the anchor of sha256
    b909398385269223; every file of this folder is generated: change the anchor and rebuild. Its pages,
    REST endpoints, writes and seed generator are the shared enterprise runtime (replicas/worlds/enterprise/)."""

    name = "replicas.timeoff"
    label = "timeoff"
    verbose_name = "Harbor Leave"
    default_auto_field = "django.db.models.BigAutoField"

    variants = {
        "100k": {"size": 2084},
        "10k": {"size": 209},
        "default": {"size": 3},
        "family1": {
            "size": 1,
            "policy": "standard",
            "limit_factor": 1,
            "away_shift": 0,
            "persona": "standard",
            "people_shift": 0,
            "salt": 1,
        },
        "family10": {
            "size": 1,
            "policy": "standard",
            "limit_factor": 1,
            "away_shift": 0,
            "persona": "standard",
            "people_shift": 0,
            "salt": 2,
        },
        "family11": {
            "size": 1,
            "policy": "strict",
            "limit_factor": 0.5,
            "away_shift": 1,
            "persona": "standard",
            "people_shift": 0,
            "salt": 2,
        },
        "family12": {
            "size": 1,
            "policy": "lenient",
            "limit_factor": 2,
            "away_shift": -1,
            "persona": "standard",
            "people_shift": 0,
            "salt": 2,
        },
        "family2": {
            "size": 1,
            "policy": "strict",
            "limit_factor": 0.5,
            "away_shift": 1,
            "persona": "standard",
            "people_shift": 0,
            "salt": 1,
        },
        "family3": {
            "size": 1,
            "policy": "lenient",
            "limit_factor": 2,
            "away_shift": -1,
            "persona": "standard",
            "people_shift": 0,
            "salt": 1,
        },
        "family4": {
            "size": 1,
            "policy": "standard",
            "limit_factor": 1,
            "away_shift": 0,
            "persona": "lean",
            "people_shift": -1,
            "salt": 1,
        },
        "family5": {
            "size": 1,
            "policy": "strict",
            "limit_factor": 0.5,
            "away_shift": 1,
            "persona": "lean",
            "people_shift": -1,
            "salt": 1,
        },
        "family6": {
            "size": 1,
            "policy": "lenient",
            "limit_factor": 2,
            "away_shift": -1,
            "persona": "lean",
            "people_shift": -1,
            "salt": 1,
        },
        "family7": {
            "size": 1,
            "policy": "standard",
            "limit_factor": 1,
            "away_shift": 0,
            "persona": "crowded",
            "people_shift": 2,
            "salt": 1,
        },
        "family8": {
            "size": 1,
            "policy": "strict",
            "limit_factor": 0.5,
            "away_shift": 1,
            "persona": "crowded",
            "people_shift": 2,
            "salt": 1,
        },
        "family9": {
            "size": 1,
            "policy": "lenient",
            "limit_factor": 2,
            "away_shift": -1,
            "persona": "crowded",
            "people_shift": 2,
            "salt": 1,
        },
        "small": {"size": 1},
    }
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
