"""One engine-driven episode per gateway session, started for an agent token within its suites.

Playwright's sync API is bound to the thread that started it and refuses to run inside
an asyncio loop, so each session owns one thread: every engine call of the session runs
there (`GatewaySession.call`), and that thread's Chromium is closed with the session.
"""

import asyncio
import base64
import binascii
import logging
import math
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass

from django import db
from django.db import transaction
from django.utils import timezone

from catalogue.packs import TaskNotFound, task_current
from episodes.creation import EpisodeError
from episodes.driver import EpisodeDriver
from episodes.engine.browser import shutdown_browser
from episodes.engine.observation import (
    DISPLAY_ORIGIN,
    OBSERVATION_SETTING,
    display_url,
    observation_settings,
    prune_axtree,
    render_observation,
)
from episodes.models import Episode
from replicagym.accounts.models import AgentToken
from replicagym.accounts.tokens import (
    QuotaExceeded,
    TokenError,
    TokenScopeError,
    token_authenticate,
    token_check_live,
    token_episode_start,
    token_quota_check,
    token_scope_check,
    token_tasks,
)
from verifiers.agent_view import agent_view

log = logging.getLogger(__name__)

GATEWAY_CLAIM = "gateway:"
MAX_SEED = 2**31 - 1
MAX_ACTION = 100_000
MAX_EPISODE_ID = 255  # OpenEnv's ResetRequest.episode_id
MAX_TIMEOUT_S = 3600.0
RESET_FIELDS = ("task", "seed", "episode_id", "variation", "mode", "screenshots", "full_every")
# OpenEnv's BrowserGymAction names the action string `action_str`; ours is `action`: either is taken
ACTION_FIELDS = ("action", "action_str", "metadata")
# A step whose action is this ends the episode as it stands (verified, rewarded), as the WebSocket's
# finish message and POST /finish do: the way a stock client, which sends only steps, finishes.
FINISH_ACTION = "finish()"


class GatewayError(ValueError):
    """A request the gateway refuses; the message says why.

    status: the HTTP status it maps to (422 for invalid input, as OpenEnv's FastAPI server answers);
    retry_after: seconds until a refused start may succeed (a quota), else None.
    """

    def __init__(self, message: str, status: int = 422, *, retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def header_token(header: str | None):
    """The live agent token of an Authorization header, or GatewayError(401).

    `Bearer rg_...`, or `Basic` with the token as the password (any user name): the form an HTTP or
    WebSocket library sends for credentials in the URL, http://token:rg_...@host:port, which is how
    OpenEnv's stock client (it takes only a base URL) carries the token.
    """
    scheme, _, value = (header or "").partition(" ")
    secret = value.strip()
    if scheme.lower() == "basic" and secret:
        try:
            secret = base64.b64decode(secret, validate=True).decode("utf-8").partition(":")[2]
        except (binascii.Error, UnicodeDecodeError):
            raise GatewayError("a Basic Authorization header must be base64 of 'user:rg_...'", 401) from None
    elif scheme.lower() != "bearer":
        secret = ""
    if not secret:
        raise GatewayError(
            "send the agent token as 'Authorization: Bearer rg_...' or in the URL, http://token:rg_...@host", 401
        )
    try:
        return token_authenticate(secret)
    except TokenError as exc:
        raise GatewayError(str(exc), 401) from None


@dataclass(frozen=True)
class ResetArguments:
    task: str | None  # None: one of the token's tasks, picked by the seed if there is one
    seed: int | None
    episode_id: str | None
    variation: int | None
    agent_settings: dict  # the episode's observation mode, as episodes.engine.observation reads it


def _whole(data: dict, name: str, what: str) -> int | None:
    value = data.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED):
        raise GatewayError(f"{name} must be a whole number from 0 to {MAX_SEED} ({what}), not {value!r}")
    return value


def reset_arguments(data) -> ResetArguments:
    """The arguments of a reset, or GatewayError. Every field is optional: an empty reset runs one of the token's tasks.

    The fields are OpenEnv's ResetRequest (seed, episode_id) plus the task to run, the episode's variation
    (episodes.variation: drawn per episode unless the seed or the variation is given) and its observation
    mode (mode, screenshots, full_every: episodes.engine.observation).
    """
    if not isinstance(data, dict):
        raise GatewayError('reset takes an object: {"task": "<replica>.<slug>", "seed": 7}')
    unknown = set(data) - set(RESET_FIELDS)
    if unknown:
        raise GatewayError(f"unknown reset field(s) {', '.join(sorted(unknown))} (fields: {', '.join(RESET_FIELDS)})")
    task, episode_id = data.get("task"), data.get("episode_id")
    if task is not None and (not isinstance(task, str) or not 1 <= len(task) <= 160):
        raise GatewayError(f"task must be a task id such as testbed.open-note, not {task!r}")
    seed = _whole(data, "seed", "the world's seed")
    variation = _whole(data, "variation", "the episode's variation")
    if episode_id is not None and (
        not isinstance(episode_id, str) or not 1 <= len(episode_id) <= MAX_EPISODE_ID or not episode_id.isprintable()
    ):
        raise GatewayError(
            f"episode_id must be a printable string of 1 to {MAX_EPISODE_ID} characters (your label "
            f"for the episode), not {episode_id!r}"
        )
    # the gateway's default is no screenshots: the engine then skips the capture, and a reply stays small
    wanted = {"screenshots": False} | {k: data[k] for k in ("mode", "screenshots", "full_every") if k in data}
    settings = {OBSERVATION_SETTING: wanted}
    try:
        observation_settings(settings)
    except ValueError as exc:
        raise GatewayError(str(exc)) from None
    return ResetArguments(task, seed, episode_id, variation, settings)


def action_argument(data) -> str:
    """The action string of an action object, {"action": "<action string>", "metadata": {...}}, or GatewayError.

    The object is what OpenEnv sends: the data of a WebSocket step message, the `action` of an HTTP step.
    """
    if not isinstance(data, dict):
        raise GatewayError('an action is an object: {"action": "click(\'a51\')"}')
    unknown = set(data) - set(ACTION_FIELDS)
    if unknown:
        raise GatewayError(f"unknown action field(s) {', '.join(sorted(unknown))} (fields: {', '.join(ACTION_FIELDS)})")
    if "action" in data and "action_str" in data:
        raise GatewayError("send the action string as either action or action_str, not both")
    action = data.get("action", data.get("action_str"))
    if not isinstance(action, str) or not 1 <= len(action) <= MAX_ACTION:
        raise GatewayError(f'step needs action: an action string of 1 to {MAX_ACTION} characters, as in click("a51")')
    if not isinstance(data.get("metadata", {}), dict):
        raise GatewayError("an action's metadata must be an object")
    return action


def step_request_argument(data) -> dict:
    """The action object of an HTTP step body (OpenEnv's StepRequest: action, timeout_s, request_id), or GatewayError.

    timeout_s and request_id are checked and otherwise unused, as OpenEnv's own server does for an
    environment whose step takes neither: the task's limits bound a step.
    """
    if not isinstance(data, dict):
        raise GatewayError('step takes an object: {"action": {"action": "click(\'a51\')"}}')
    unknown = set(data) - {"action", "timeout_s", "request_id"}
    if unknown:
        raise GatewayError(
            f"unknown step field(s) {', '.join(sorted(unknown))} (fields: action, timeout_s, request_id)"
        )
    if "action" not in data or not isinstance(data["action"], dict):
        raise GatewayError('step needs action: an object such as {"action": "click(\'a51\')"}, not a bare string')
    timeout = data.get("timeout_s")
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or not 0 < timeout <= MAX_TIMEOUT_S
    ):
        raise GatewayError(
            f"timeout_s must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:.0f}, not {timeout!r}"
        )
    request_id = data.get("request_id")
    if request_id is not None and (not isinstance(request_id, str) or len(request_id) > MAX_EPISODE_ID):
        raise GatewayError(f"request_id must be a string of at most {MAX_EPISODE_ID} characters")
    return data["action"]


def quota_check(token: AgentToken, *, replacing: Episode | None = None) -> None:
    """The REST API's quota check (token_episode_start's), under the same lock on the token's row.

    `replacing`: a running episode that this start ends first (a reset of a session): it does not
    count against the new one. Raises GatewayError(429, retry_after) past a quota; writes nothing.
    """
    try:
        with transaction.atomic():
            locked = AgentToken.objects.select_for_update().get(pk=token.pk)
            savepoint = transaction.savepoint()
            try:
                if replacing is not None:  # counted as it will be once ended, then put back
                    Episode.objects.filter(pk=replacing.pk, status=Episode.Status.RUNNING).update(
                        status=Episode.Status.FAILED
                    )
                token_quota_check(locked, timezone.now())
            finally:
                transaction.savepoint_rollback(savepoint)
    except QuotaExceeded as exc:
        raise GatewayError(f"{exc}; retry after {exc.retry_after} s", 429, retry_after=exc.retry_after) from None


def gateway_episode_start(
    *, token: AgentToken, task, seed: int | None, variation: int | None = None, agent_settings: dict | None = None
) -> Episode:
    """A running engine-driven episode for the token (its agent: token_agent): its quotas are checked (and the slot
    taken) under the lock.
    """
    try:
        return token_episode_start(
            token=token,
            task=task,
            seed=seed,
            variation=variation,
            claimed_by=f"{GATEWAY_CLAIM}{os.getpid()}",
            agent_settings=agent_settings,
        )
    except QuotaExceeded as exc:
        raise GatewayError(f"{exc}; retry after {exc.retry_after} s", 429, retry_after=exc.retry_after) from None
    except EpisodeError as exc:  # a seed whose world holds nothing the task can be about
        raise GatewayError(str(exc)) from None


class GatewaySession:
    """At most one running episode at a time, driven by the engine in the session's own thread."""

    def __init__(self, token, *, recheck_token: bool = False):
        self.token = token
        # a connection authenticated once (a WebSocket) checks its token again at each reset and step;
        # HTTP and MCP requests authenticate each request already
        self.recheck_token = recheck_token
        self.driver: EpisodeDriver | None = None
        self.episode: Episode | None = None
        self.settings = observation_settings(None)
        self.observation: dict | None = None  # the latest observation as replies give it
        self.previous_axtree: str | None = None  # what a diff-mode observation is a diff against
        self.done = False
        self.reward: float | None = None
        self.label: str | None = None  # the client's episode_id (OpenEnv's reset field), if it gave one
        self.last_used = time.monotonic()
        self._in_flight = 0
        self.closed = False
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gateway-episode")

    def idle_seconds(self) -> float:
        """Seconds since the session's last call ended; 0 while one is in flight."""
        return 0.0 if self._in_flight else time.monotonic() - self.last_used

    async def call(self, fn, *args):
        if self.closed and fn != self.close:
            raise GatewayError("this episode's session was closed: it is no longer running", 409)
        self._in_flight += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)
        except RuntimeError:
            if self.closed:  # closed while this call waited: its thread takes no more work
                raise GatewayError("this episode's session was closed: it is no longer running", 409) from None
            raise
        finally:
            self._in_flight -= 1
            self.last_used = time.monotonic()

    # --- the engine side: each runs in the session's thread ---

    def _require_live_token(self) -> None:
        """A token revoked or expired while its session is open (a WebSocket authenticates once) starts and
        steps nothing more: its running episode ends, and the refusal is a 401."""
        if not self.recheck_token:
            return
        try:
            token_check_live(self.token)
        except TokenError as exc:
            self._end(f"the agent token is no longer valid: {exc}")
            raise GatewayError(str(exc), 401) from None

    def reset(self, data) -> dict:
        self._require_live_token()
        args = reset_arguments(data)
        task = self._task(args.task, args.seed)
        # a refused start changes nothing: the quota is checked before this session's episode ends
        quota_check(self.token, replacing=self.episode if self.driver is not None else None)
        self._end("reset before the episode ended")
        self.episode = gateway_episode_start(
            token=self.token, task=task, seed=args.seed, variation=args.variation, agent_settings=args.agent_settings
        )
        self.label = args.episode_id
        self.settings = observation_settings(args.agent_settings)
        self.done, self.reward, self.observation, self.previous_axtree = False, None, None, None
        self.driver = EpisodeDriver(self.episode)
        try:
            obs = self.driver.open()
        except Exception as exc:
            self.driver.fail(exc)
            self.driver, self.done = None, True
            raise GatewayError(f"the episode could not start: {type(exc).__name__}", 500) from None
        return self._result(obs)

    def _task(self, task_id: str | None, seed: int | None):
        """The current task `task_id`, or with none one of the token's, the same for the same seed; GatewayError if
        it is unknown or out of the token's scope."""
        if task_id is None:
            in_scope = sorted(token_tasks(self.token).values_list("task_id", flat=True))
            if not in_scope:
                raise GatewayError("the agent token's suites hold no task to run", 403)
            task_id = in_scope[seed % len(in_scope)] if seed is not None else random.choice(in_scope)
        try:
            task = task_current(task_id)
        except TaskNotFound:
            raise GatewayError(f"unknown task {task_id!r}", 404) from None
        try:
            token_scope_check(token=self.token, task=task)
        except TokenScopeError as exc:
            raise GatewayError(str(exc), 403) from None
        return task

    def step(self, data) -> dict:
        """One step; `data` is the action object, {"action": "<action string>"}."""
        self._require_live_token()
        action = action_argument(data)
        if self.driver is None:
            raise GatewayError(
                "no running episode: send reset first"
                if self.episode is None
                else "the episode has ended: send reset for a new one",
                409,
            )
        if action.strip() == FINISH_ACTION:
            return self.finish_step()
        driver = self.driver
        try:
            obs, stop = driver.step(action)
        except Exception as exc:
            self.episode = driver.fail(exc)
            self.driver, self.done, self.reward = None, True, 0.0
            return self._result(None)
        if stop or driver.out_of_steps or driver.out_of_time:
            status = Episode.Status.TIMED_OUT if not stop and driver.out_of_time else None
            self.episode = driver.finish(status=status)
            self.driver, self.done = None, True
            self.reward = float((self.episode.rewards or {}).get("episode_reward", 0.0))
        return self._result(obs)

    def current(self) -> dict:
        """The latest observation (as the last reset or step returned it) with the episode's state."""
        if self.episode is None:
            raise GatewayError("no episode: reset first", 409)
        return {**self._result(None), "state": self.state()}

    def finish(self) -> dict:
        """End a running episode as it stands (verified, rewarded) and return its state."""
        if self.driver is not None:
            driver, self.driver = self.driver, None
            self.episode = driver.finish()
            self.done, self.reward = True, float((self.episode.rewards or {}).get("episode_reward", 0.0))
        return self.state()

    def finish_step(self) -> dict:
        """`finish` as a step's reply: the last observation, the episode's reward, done."""
        if self.driver is None:
            raise GatewayError("no running episode to finish: send reset first", 409)
        self.finish()
        return self._result(None)

    def state(self) -> dict:
        if self.episode is None:
            return {"episode_id": None, "episode": None, "task": None, "step_count": 0, "status": None, "done": False}
        self.episode.refresh_from_db()
        # OpenEnv's State.episode_id is a string: the client's own id if it gave one at reset
        state = {
            "episode_id": self.label or str(self.episode.pk),
            "episode": self.episode.pk,
            "task": self.episode.task.task_id,
            "step_count": self.episode.steps.count(),
            "status": self.episode.status,
            "done": self.done,
        }
        if self.episode.is_final:
            state.update(agent_view(self.episode.verdict, self.episode.rewards))
        return state

    def close(self, why: str = "closed before the episode ended", status: str = Episode.Status.FAILED) -> None:
        try:
            self._end(why, status)
        finally:
            shutdown_browser()  # this thread's Chromium
            db.connections.close_all()  # and its database connections, which the thread's end would not close

    async def aclose(self, why: str = "closed before the episode ended", status: str = Episode.Status.FAILED) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            await self.call(self.close, why, status)
        finally:
            self._thread.shutdown(wait=False)

    def _end(self, why: str, status: str = Episode.Status.FAILED) -> None:
        if self.driver is not None:
            driver, self.driver = self.driver, None
            self.done = True
            self.episode = driver.finish(status=status, error=why)

    def _result(self, obs) -> dict:
        """A reply of OpenEnv's shape, {observation, reward, done}: for a new observation `obs`, or (None) the
        latest one again."""
        if obs is not None:
            self.observation = self._observation(obs)
            self.previous_axtree = obs.axtree
        return {"observation": self.observation, "reward": self.reward, "done": self.done}

    def _observation(self, obs) -> dict:
        """The engine's observation in the episode's mode, with OpenEnv's BrowserGym names beside ours.

        `text` is what an agent of the mode is given (episodes.engine.observation.render_observation); `axtree_txt`
        the page's tree in the mode (pruned but for full mode); `goal` the instruction; `error` the last
        action's error and `last_action_error` whether there was one (BrowserGymObservation's types).
        Every URL and text shows the world on DISPLAY_ORIGIN, so no world token reaches an agent and two
        episodes of one group read alike.
        """
        mode = self.settings.mode
        reply = obs.to_dict(screenshot=self.settings.screenshots) | {
            "text": render_observation(
                obs, mode, self.previous_axtree, step=obs.step, full_every=self.settings.full_every
            ),
            "goal": obs.instruction,
            "axtree_txt": obs.axtree if mode == "full" else prune_axtree(obs.axtree),
            "pruned_html": obs.html or "",
            "error": obs.last_action_error,
            "last_action_error": bool(obs.last_action_error),
            "metadata": {"episode": self.episode.pk, "mode": mode},
        }
        reply["url"] = display_url(obs.url, obs.origin)
        return on_display_origin(reply, obs.origin)


def on_display_origin(value, origin: str):
    """`value` (JSON-able) with the world's origin replaced by DISPLAY_ORIGIN in every string of it."""
    if isinstance(value, str):
        return value.replace(origin, DISPLAY_ORIGIN) if origin else value
    if isinstance(value, dict):
        return {k: on_display_origin(v, origin) for k, v in value.items()}
    if isinstance(value, list):
        return [on_display_origin(v, origin) for v in value]
    return value


class SessionTable:
    """A gateway's open sessions by key, each closed after `idle_seconds` without a call on it, and all
    of them when the server stops (`running()`, the server's lifespan).

    Only the server's event loop touches it, never across an await, so it needs no lock. A closed
    session is forgotten at once; its closing (ending the episode verifies the world: seconds) runs
    in a task of its own.
    """

    def __init__(self, *, idle_seconds: float, idle_why: str, stopped_why: str):
        if (
            isinstance(idle_seconds, bool)
            or not isinstance(idle_seconds, int | float)
            or not 0 < idle_seconds < float("inf")
        ):
            raise ValueError(f"idle_seconds must be a positive number of seconds, not {idle_seconds!r}")
        self.idle_seconds = float(idle_seconds)
        self.idle_why, self.stopped_why = idle_why, stopped_why
        self.sessions: dict = {}
        self.closing: dict[asyncio.Task, int] = {}  # each closing under way, with its session's agent token id

    def close_soon(self, key, why: str, status: str) -> None:
        """Forget the session of `key` now; end its episode with `status` and `why` in a task of its own."""
        session = self.sessions.pop(key, None)
        if session is None:  # finished or closed already
            return

        async def close():
            try:
                await session.aclose(why, status)
            except Exception:
                log.exception("closing the gateway session %s failed", key)

        task = asyncio.get_running_loop().create_task(close())
        self.closing[task] = session.token.pk
        task.add_done_callback(lambda done: self.closing.pop(done, None))

    async def closed_for(self, token_pk: int) -> None:
        """Wait for the closings of the token's sessions still under way, so that a start of the token finds the
        slots of the episodes this table already let go free, however long their verifying takes."""
        pending = [task for task, pk in self.closing.items() if pk == token_pk]
        if pending:
            await asyncio.wait(pending)

    async def reap_idle(self) -> None:
        """Close every session that had no call for idle_seconds, until cancelled."""
        while True:
            await asyncio.sleep(min(self.idle_seconds / 4, 30.0))
            for key, session in list(self.sessions.items()):
                if session.idle_seconds() >= self.idle_seconds:
                    self.close_soon(
                        key, f"{self.idle_why} for {self.idle_seconds:g} s: closed as idle", Episode.Status.TIMED_OUT
                    )

    async def close_all(self) -> None:
        """Close what is still open and wait for every closing to end."""
        for key in list(self.sessions):
            self.close_soon(key, self.stopped_why, Episode.Status.FAILED)
        if self.closing:
            await asyncio.gather(*self.closing, return_exceptions=True)

    @asynccontextmanager
    async def running(self):
        reaper = asyncio.get_running_loop().create_task(self.reap_idle())
        try:
            yield
        finally:
            reaper.cancel()
            await self.close_all()
