"""Agent tokens: creation (the secret is shown once), authentication, revocation, suite scope, quotas.

The secret is 256 random bits, so a plain sha256 digest is enough to store it: there is nothing
to brute-force, and the lookup stays one indexed query per request.
"""

import hashlib
import math
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from catalogue.models import Suite, Task
from episodes.creation import API_CLAIM, episode_create
from episodes.models import Episode

from .models import AgentToken, TokenEpisode

SECRET_PREFIX = "rg_"
MAX_EXPIRES_DAYS = 3650
MAX_CONCURRENT = 1000
MAX_PER_HOUR = 100_000
HOUR = timedelta(hours=1)
MODEL_AGENT = re.compile(r"^openai:[\w.:/@+-]{1,100}$")
# Writing last_used_at on every request would make each API call a write; once a minute is enough.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(ValueError):
    """Bad input for a token operation; the message says what to change."""


class TokenScopeError(PermissionError):
    pass


class QuotaExceeded(Exception):
    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class IssuedToken:
    token: AgentToken
    secret: str  # shown once, at creation; only its digest is stored


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _bounded(name: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise TokenError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return value


def token_create(
    *,
    user,
    suites: list[str],
    expires_days: int,
    max_concurrent: int = 4,
    max_per_hour: int = 60,
    name: str = "",
    model_agents: list[str] = (),
) -> IssuedToken:
    if not user.is_active:
        raise TokenError(f"user {user.get_username()!r} is inactive")
    names = sorted({s.strip() for s in suites if s.strip()})
    if not names:
        raise TokenError("a token needs at least one suite (--suites a,b)")
    known = set(Suite.objects.filter(is_current=True, name__in=names).values_list("name", flat=True))
    if unknown := [n for n in names if n not in known]:
        available = (
            ", ".join(sorted(set(Suite.objects.filter(is_current=True).values_list("name", flat=True)))) or "none"
        )
        raise TokenError(f"unknown suite(s) {', '.join(unknown)} (suites: {available})")
    expires_days = _bounded("expires-days", expires_days, 1, MAX_EXPIRES_DAYS)
    max_concurrent = _bounded("concurrent", max_concurrent, 1, MAX_CONCURRENT)
    max_per_hour = _bounded("per-hour", max_per_hour, 1, MAX_PER_HOUR)
    if len(name) > 100:
        raise TokenError("name must be at most 100 characters")
    model_agents = sorted({m.strip() for m in model_agents if m.strip()})
    if bad := [m for m in model_agents if not MODEL_AGENT.match(m)]:
        raise TokenError(f"model agents are written openai:MODEL, not {', '.join(map(repr, bad))}")
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    now = timezone.now()
    token = AgentToken.objects.create(
        user=user,
        name=name,
        prefix=secret[:10],
        digest=digest(secret),
        suites=names,
        model_agents=model_agents,
        max_concurrent=max_concurrent,
        max_per_hour=max_per_hour,
        created_at=now,
        expires_at=now + timedelta(days=expires_days),
    )
    return IssuedToken(token=token, secret=secret)


def token_revoke(*, token_id: int) -> AgentToken:
    token = AgentToken.objects.filter(pk=token_id).first()
    if token is None:
        raise TokenError(f"no token with id {token_id}")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def _live(token: AgentToken | None, now) -> AgentToken:
    if token is None:
        raise TokenError("invalid token")
    if token.revoked_at is not None:
        raise TokenError(f"this token was revoked on {token.revoked_at:%Y-%m-%d %H:%M} UTC")
    if token.expires_at <= now:
        raise TokenError(f"this token expired on {token.expires_at:%Y-%m-%d %H:%M} UTC")
    if not token.user.is_active:
        raise TokenError("the token's user is inactive")
    return token


def token_authenticate(secret: str) -> AgentToken:
    """The live token for a secret, or TokenError saying why not (unknown, revoked, expired, user inactive)."""
    now = timezone.now()
    token = _live(AgentToken.objects.select_related("user").filter(digest=digest(secret)).first(), now)
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        AgentToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def token_check_live(token: AgentToken) -> None:
    """TokenError unless `token` is still live as stored now: for a connection authenticated once
    (a WebSocket) whose token may be revoked or expire while it stays open."""
    _live(AgentToken.objects.select_related("user").filter(pk=token.pk).first(), timezone.now())


def token_tasks(token: AgentToken):
    """Current tasks of the token's suites."""
    in_scope = Suite.objects.filter(is_current=True, name__in=token.suites).values("tasks__task_id")
    return Task.objects.filter(is_current=True, task_id__in=in_scope)


def token_episodes(token: AgentToken):
    """The episodes `token` started: all a token sees or may finish, not every episode of its user."""
    return Episode.objects.filter(pk__in=TokenEpisode.objects.filter(token=token).values("episode_id"))


def token_model_agent_check(*, token: AgentToken, agent: str) -> None:
    """TokenScopeError unless the token's scope names `agent`, a model agent (openai:MODEL), which spends the
    platform's key.
    """
    if agent.strip() not in token.model_agents:
        named = ", ".join(token.model_agents) or "none"
        raise TokenScopeError(
            f"{agent.strip()} spends the platform's model key: this token may run the model agents "
            f"its scope names only ({named})"
        )


def token_scope_check(*, token: AgentToken, task: Task) -> None:
    if not Suite.objects.filter(is_current=True, name__in=token.suites, tasks__task_id=task.task_id).exists():
        raise TokenScopeError(
            f"this token may start episodes of the suites {', '.join(token.suites)} only; "
            f"task {task.task_id!r} is in none of them"
        )


def token_quota_check(token: AgentToken, now, *, wanted: int = 1) -> None:
    """QuotaExceeded (with its retry-after) if `token` may not start `wanted` more episodes now (a run
    queues all of its episodes at once, so they all count); call it under the token row's lock."""
    if wanted > min(token.max_concurrent, token.max_per_hour):
        # no wait would help: say so instead of a Retry-After that would only fail again
        raise QuotaExceeded(
            f"{wanted} episodes at once are over this token's limits ({token.max_concurrent} queued or running, "
            f"{token.max_per_hour} an hour): launch fewer",
            None,
        )
    active = list(
        token_episodes(token).filter(status__in=(Episode.Status.QUEUED, Episode.Status.RUNNING)).select_related("task")
    )
    if len(active) + wanted > token.max_concurrent:
        # the soonest an episode must end is its time limit after it started
        ends = [
            (e.started_at or e.created_at) + timedelta(seconds=float(e.instance.limits["max_seconds"])) for e in active
        ]
        wait = max(1, math.ceil((min(ends) - now).total_seconds()))
        more = "finish one before starting another" if wanted == 1 else f"{wanted} more would pass it"
        raise QuotaExceeded(
            f"{len(active)} episodes of this token are queued or running (limit {token.max_concurrent}); {more}",
            wait,
        )
    started = TokenEpisode.objects.filter(token=token, created_at__gt=now - HOUR)
    count = started.count()
    if count + wanted > token.max_per_hour:
        # the hour has room for `wanted` once enough of its oldest starts are an hour old
        ageing = list(
            started.order_by("created_at").values_list("created_at", flat=True)[: count + wanted - token.max_per_hour]
        )
        wait = max(1, math.ceil((ageing[-1] + HOUR - now).total_seconds()))
        if wanted == 1:
            raise QuotaExceeded(f"this token started {token.max_per_hour} episodes in the last hour (its limit)", wait)
        raise QuotaExceeded(
            f"{wanted} episodes would pass this token's limit of {token.max_per_hour} an hour "
            f"({count} started in the last hour)",
            wait,
        )


def token_agent(token: AgentToken) -> str:
    """The agent kind recorded for a token's episodes: `external:<token name>` (its id when unnamed).

    Recorded by the server from who runs the episode, never taken from the request: exports
    pick their sources by it, and an agent that could call its episodes `oracle` would plant
    its own trajectories as oracle data.
    """
    return f"external:{token.name or f'token-{token.pk}'}"


def token_episode_start(
    *,
    token: AgentToken,
    task: Task,
    seed: int | None = None,
    variation: int | None = None,
    claimed_by: str | None = None,
    agent_settings: dict | None = None,
) -> Episode:
    """A running episode for the token (agent `token_agent`), if the task is in its suites and its quotas allow one
    more.

    By default the agent drives it from its own browser (the API's claim); a gateway that drives it
    with the engine passes its own `claimed_by`. Its world seed and picks vary per episode
    (episodes.variation) unless the caller fixes the world's `seed` or the `variation`;
    `agent_settings` may choose its observation mode (episodes.engine.observation).
    """
    token_scope_check(token=token, task=task)
    with transaction.atomic():
        # one start at a time per token, so two concurrent requests cannot both take the last slot
        locked = AgentToken.objects.select_for_update().get(pk=token.pk)
        now = timezone.now()
        token_quota_check(locked, now)
        episode = episode_create(
            task=task,
            agent=token_agent(locked),
            owner=locked.user,
            seed=seed,
            status=Episode.Status.RUNNING,
            variation=variation,
            vary=True,
            claimed_by=claimed_by or f"{API_CLAIM}{locked.user.pk}",
            agent_settings=agent_settings,
        )
        TokenEpisode.objects.create(token=locked, episode=episode, created_at=now)
    return episode


def user_by_name(username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise TokenError(f"no user named {username!r}")
    return user
