"""ReplicaGym settings: everything configurable is read from the environment here.

The embedded default needs no services: a SQLite file under DATA_DIR and a Celery
broker kept in files under DATA_DIR. DATABASE_URL and CELERY_BROKER_URL switch to
PostgreSQL and Redis or RabbitMQ.
"""

from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from .env import envbool, envint, envlist, envpath, envstr, parse_broker_url, parse_database_url, persisted_secret

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DATA_DIR = envpath("REPLICAGYM_DATA_DIR", BASE_DIR / "data")
DATA_DIR.mkdir(parents=True, exist_ok=True)  # the embedded default keeps its database and queue here

PRODUCTION = envbool("REPLICAGYM_PRODUCTION", False)
# Off unless a developer turns it on (DEBUG=true): its error pages show agents the settings and
# every route, and the embedded default serves agents too.
DEBUG = envbool("DEBUG", False)
SECRET_KEY = envstr("SECRET_KEY")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set when REPLICAGYM_PRODUCTION is true")
    SECRET_KEY = "dev-only-insecure-key-replicagym"  # noqa: S105 - never used in production mode
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured(
        "DEBUG must be off when REPLICAGYM_PRODUCTION is true: its error pages show settings and routes"
    )

# Replica users' credentials derive from the world's seed and this secret, so knowing
# the seed is not enough to sign in as another desk user. Not part of any snapshot.
WORLD_SECRET = envstr("REPLICAGYM_WORLD_SECRET") or persisted_secret(DATA_DIR / "world-secret")

# Worlds are served on their own origin, w-<token>.<WORLD_DOMAIN>, so cookies and
# storage never mix between worlds; Chromium resolves *.localhost to loopback.
WORLD_DOMAIN = envstr("REPLICAGYM_WORLD_DOMAIN", "localhost").lower()
PUBLIC_PORT = envint("REPLICAGYM_PORT", 8000, minimum=1)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["localhost", "127.0.0.1", f".{WORLD_DOMAIN}", "testserver"])

# Worlds not used for this many hours are removed by `world gc`.
WORLD_GC_HOURS = envint("REPLICAGYM_WORLD_GC_HOURS", 24, minimum=1)
# Warm pool (replicas.worlds.pool): worlds cloned ahead per (replica, seed, variant) that
# episodes start in; 0 disables it. Refills run in a background thread after a take
# ("thread") or only through `manage.py world pool fill` ("off").
WORLD_POOL_SIZE = envint("REPLICAGYM_WORLD_POOL_SIZE", 2, minimum=0)
WORLD_POOL_REFILL = envstr("REPLICAGYM_WORLD_POOL_REFILL", "thread")
if WORLD_POOL_REFILL not in ("thread", "off"):
    raise ImproperlyConfigured(f"REPLICAGYM_WORLD_POOL_REFILL={WORLD_POOL_REFILL!r} must be 'thread' or 'off'")
# Episodes started over the API, the gateways, the gym and runs play a world seed drawn among the
# task's own and 1..N whose templates are built (episodes.variation); 0: the task's own seed only
# (its pickers still choose per episode).
EPISODE_WORLD_SEEDS = envint("REPLICAGYM_EPISODE_WORLD_SEEDS", 16, minimum=0)

CHROMIUM_PATH = envstr("CHROMIUM_PATH", "/usr/bin/chromium")
# The episode engine serves worlds from an in-process server unless this names one (http://host:port).
SERVE_URL = envstr("REPLICAGYM_SERVE_URL", "")
# OpenAI-compatible chat completions endpoint for the openai:<model> agent.
OPENAI_BASE_URL = envstr("OPENAI_BASE_URL", "https://api.openai.com/v1")
OPENAI_API_KEY = envstr("OPENAI_API_KEY", "")
# Remote agents (http:URL) a run launched from the UI or the API may name: these endpoints (URL
# prefixes, comma-separated) and what is under them, and none by default; each must also resolve
# to public addresses only, unless REPLICAGYM_REMOTE_AGENT_PRIVATE allows loopback and private ones.
# run_suite, the operator's own command, is not held to them (episodes.agents.endpoints).
REMOTE_AGENT_ENDPOINTS = envlist("REPLICAGYM_REMOTE_AGENT_ENDPOINTS", [])
for _endpoint in REMOTE_AGENT_ENDPOINTS:
    if urlsplit(_endpoint).scheme not in ("http", "https") or not urlsplit(_endpoint).hostname:
        raise ImproperlyConfigured(f"REPLICAGYM_REMOTE_AGENT_ENDPOINTS: {_endpoint!r} is not an http(s) URL")
REMOTE_AGENT_PRIVATE = envbool("REPLICAGYM_REMOTE_AGENT_PRIVATE", False)


def _discover_replicas() -> list[str]:
    """Every folder under replicas/ with an apps.py is a replica app (no central list)."""
    folder = BASE_DIR / "replicas"
    return sorted(
        f"replicas.{p.name}" for p in folder.iterdir() if p.is_dir() and (p / "apps.py").exists() and p.name != "worlds"
    )


INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "django_htmx",
    "replicas.worlds",
    *_discover_replicas(),
    "catalogue",
    "episodes",
    "verifiers",
    "replicagym.accounts",
    "replicagym.annotation",
    "replicagym.reports",
    "frontend",
    "factory",  # the environment factory: `manage.py factory build` and the UI kit compiled replicas render with
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # before the world middleware: they tell htmx requests apart by request.htmx, and one of them may
    # answer before the view (an episode that is over)
    "django_htmx.middleware.HtmxMiddleware",
    "replicas.worlds.routing.WorldRoutingMiddleware",
    "replicas.worlds.signin_link.WorldSignInMiddleware",
    "replicas.worlds.recording.RecordingMiddleware",
    "replicas.worlds.requestlog.RequestLogMiddleware",
    "replicas.worlds.faults.middleware.FaultMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "replicagym.urls"
WSGI_APPLICATION = "replicagym.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": parse_database_url(
        "DATABASE_URL", envstr("DATABASE_URL", f"sqlite:///{DATA_DIR / 'replicagym.sqlite3'}"), BASE_DIR
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
# Serve straight from the apps' static folders, so no collectstatic step is needed.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
MEDIA_ROOT = DATA_DIR / "media"

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# --- Celery and the episode queue -------------------------------------------
# The embedded default needs no broker: the episode rows are the queue. Workers
# (`manage.py worker`) claim the oldest queued episode with a conditional UPDATE,
# so an episode stays queued until a worker has it, and the scheduler puts the
# episodes of a lost worker back. With CELERY_BROKER_URL set to Redis or RabbitMQ,
# each episode is a Celery message acknowledged late (after the task), so a lost
# worker's message is delivered again; the conditional claim still runs it once.
CELERY_BROKER_URL = parse_broker_url("CELERY_BROKER_URL", envstr("CELERY_BROKER_URL", "filesystem://"))
EPISODE_QUEUE = "database" if CELERY_BROKER_URL.startswith("filesystem") else "celery"
_BROKER_DIR = DATA_DIR / "broker"
# Redis keeps a delivered, unacknowledged message aside and hands it out again once
# it is this old: a worker killed between fetching and claiming loses nothing.
# Longer episodes are delivered again while they run and skipped by the claim.
REDIS_VISIBILITY_SECONDS = envint("REPLICAGYM_REDIS_VISIBILITY_SECONDS", 300, minimum=5)
if CELERY_BROKER_URL.startswith("filesystem"):
    # no episode goes through it; it carries the odd task sent to Celery by hand
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_BROKER_DIR / "queue"),
        "data_folder_out": str(_BROKER_DIR / "queue"),
        "processed_folder": str(_BROKER_DIR / "processed"),
        # exchange tables, which kombu would otherwise write to the working directory
        "control_folder": str(_BROKER_DIR / "control"),
        "store_processed": False,
    }
elif CELERY_BROKER_URL.startswith(("redis", "rediss")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": REDIS_VISIBILITY_SECONDS,
        "unacked_restore_interval": max(1, min(10, REDIS_VISIBILITY_SECONDS // 3)),
        "unacked_restore_throttle": 1,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
CELERY_TASK_IGNORE_RESULT = True  # outcomes live in the database rows, not a result backend
CELERY_TASK_ACKS_LATE = True  # a worker that dies mid-task leaves the message for another
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = envbool("CELERY_TASK_ALWAYS_EAGER", False)
# A worker process writes its heartbeat (and its episode's) this often; one silent
# for WORKER_LOST_SECONDS is lost, and the scheduler puts its episode back in the
# queue, at most EPISODE_MAX_TRIES claims in all, then errors it with the reason.
WORKER_HEARTBEAT_SECONDS = envint("REPLICAGYM_WORKER_HEARTBEAT_SECONDS", 5, minimum=1)
WORKER_LOST_SECONDS = envint("REPLICAGYM_WORKER_LOST_SECONDS", 30, minimum=2)
if WORKER_LOST_SECONDS < 2 * WORKER_HEARTBEAT_SECONDS:
    raise ImproperlyConfigured(
        f"REPLICAGYM_WORKER_LOST_SECONDS={WORKER_LOST_SECONDS} must be at least twice "
        f"REPLICAGYM_WORKER_HEARTBEAT_SECONDS={WORKER_HEARTBEAT_SECONDS}: one late heartbeat is no lost worker"
    )
EPISODE_MAX_TRIES = envint("REPLICAGYM_EPISODE_MAX_TRIES", 3, minimum=1)
# `manage.py scheduler` runs the sweep, finishes runs and collects worlds this often.
SCHEDULER_SECONDS = envint("REPLICAGYM_SCHEDULER_SECONDS", 15, minimum=1)
# The MCP gateway closes an MCP session, and an episode, with no request for this long: the episode ends
# (timed out) and frees its slot of the token's concurrent episodes.
MCP_IDLE_SECONDS = envint("REPLICAGYM_MCP_IDLE_SECONDS", 120, minimum=1)

# --- REST framework -------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "replicagym.accounts.authentication.AgentTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # every API view declares the roles it admits (replicagym.accounts.roles); none declared, nobody admitted
    "DEFAULT_PERMISSION_CLASSES": ["replicagym.accounts.permissions.HasRole"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # JSON bodies through the platform's intake (size, depth, finite numbers): a 400 naming the path, never a 500
    "DEFAULT_PARSER_CLASSES": [
        "replicagym.api.parsers.IntakeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    # errors as JSON, never Django's debug pages (a traceback, the settings), even with DEBUG on
    "EXCEPTION_HANDLER": "replicagym.api.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "ReplicaGym API",
    "DESCRIPTION": "Worlds, tasks, episodes and rewards for browser agents.",
    "VERSION": "0.1.0",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"replicagym": {"handlers": ["console"], "level": envstr("LOG_LEVEL", "INFO")}},
}

# What production mode changes, in one place: the support desk's browser tests run under it too.
PRODUCTION_SECURITY = {
    "SESSION_COOKIE_HTTPONLY": True,
    # Pages hand scripts the CSRF token (a meta tag, hx-headers), so no script needs the cookie.
    "CSRF_COOKIE_HTTPONLY": True,
    # Sent only on requests that arrived over https (SecurityMiddleware checks request.is_secure()).
    "SECURE_HSTS_SECONDS": envint("REPLICAGYM_HSTS_SECONDS", 365 * 24 * 3600, minimum=0),
}
if PRODUCTION:
    SESSION_COOKIE_HTTPONLY = PRODUCTION_SECURITY["SESSION_COOKIE_HTTPONLY"]
    CSRF_COOKIE_HTTPONLY = PRODUCTION_SECURITY["CSRF_COOKIE_HTTPONLY"]
    SECURE_HSTS_SECONDS = PRODUCTION_SECURITY["SECURE_HSTS_SECONDS"]
# Served over https (directly, or behind a proxy that says so in X-Forwarded-Proto):
# session and CSRF cookies then only travel over https.
HTTPS = envbool("REPLICAGYM_HTTPS", False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
