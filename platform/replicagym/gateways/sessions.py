"""One engine-driven episode per gateway session, started for an agent token within its suites.

Playwright's sync API is bound to the thread that started it and refuses to run inside
an asyncio loop, so each session owns one thread: every engine call of the session runs
there (`GatewaySession.call`), and that thread's Chromium is closed with the session.
"""

import asyncio
import logging
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from django.db import transaction
from django.utils import timezone

from episodes.browser import shutdown_browser
from episodes.creation import EpisodeError
from episodes.driver import EpisodeDriver
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
)
from replicagym.catalogue.packs import TaskNotFound, task_current
from verifiers.agent_view import agent_view

log = logging.getLogger(__name__)

GATEWAY_CLAIM = "gateway:"
MAX_SEED = 2**31 - 1
MAX_ACTION = 100_000
MAX_EPISODE_ID = 255  # OpenEnv's ResetRequest.episode_id
MAX_TIMEOUT_S = 3600.0
RESET_FIELDS = ("task", "seed", "episode_id", "screenshot", "variation")
ACTION_FIELDS = ("action", "metadata")


class GatewayError(ValueError):
    """A request the gateway refuses; the message says why.

    status: the HTTP status it maps to (422 for invalid input, as OpenEnv's FastAPI server answers);
    retry_after: seconds until a refused start may succeed (a quota), else None.
    """

    def __init__(self, message: str, status: int = 422, *, retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def bearer_token(header: str | None):
    """The live agent token of an `Authorization: Bearer rg_...` header, or GatewayError(401)."""
    scheme, _, secret = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise GatewayError("send the agent token as 'Authorization: Bearer rg_...'", 401)
    try:
        return token_authenticate(secret.strip())
    except TokenError as exc:
        raise GatewayError(str(exc), 401) from None


def reset_arguments(data) -> tuple[str, int | None, str | None, bool, int | None]:
    """(task id, world seed or None, the client's episode id or None, include the screenshot, variation or None) from a
    reset, or GatewayError.

    The fields are OpenEnv's ResetRequest (seed, episode_id) plus the task to run, the screenshot switch and the
    episode's variation (episodes.variation: drawn per episode unless the seed or the variation is given).
    """
    if not isinstance(data, dict):
        raise GatewayError('reset takes an object: {"task": "<replica>.<slug>", "seed": 7}')
    unknown = set(data) - set(RESET_FIELDS)
    if unknown:
        raise GatewayError(f"unknown reset field(s) {', '.join(sorted(unknown))} (fields: {', '.join(RESET_FIELDS)})")
    task, seed, screenshot = data.get("task"), data.get("seed"), data.get("screenshot", False)
    episode_id = data.get("episode_id")
    if not isinstance(task, str) or not 1 <= len(task) <= 160:
        raise GatewayError("reset needs task: a task id such as testbed.open-note")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
        raise GatewayError(f"seed must be a whole number from 0 to {MAX_SEED} (the world's seed), not {seed!r}")
    variation = data.get("variation")
    if variation is not None and (
        isinstance(variation, bool) or not isinstance(variation, int) or not 0 <= variation <= MAX_SEED
    ):
        raise GatewayError(
            f"variation must be a whole number from 0 to {MAX_SEED} (the episode's variation), not {variation!r}"
        )
    if episode_id is not None and (
        not isinstance(episode_id, str) or not 1 <= len(episode_id) <= MAX_EPISODE_ID or not episode_id.isprintable()
    ):
        raise GatewayError(
            f"episode_id must be a printable string of 1 to {MAX_EPISODE_ID} characters (your label "
            f"for the episode), not {episode_id!r}"
        )
    if not isinstance(screenshot, bool):
        raise GatewayError(f"screenshot must be true or false, not {screenshot!r}")
    return task, seed, episode_id, screenshot, variation


def action_argument(data) -> str:
    """The action string of an action object, {"action": "<action string>", "metadata": {...}}, or GatewayError.

    The object is what OpenEnv sends: the data of a WebSocket step message, the `action` of an HTTP step.
    """
    if not isinstance(data, dict):
        raise GatewayError('an action is an object: {"action": "click(\'a51\')"}')
    unknown = set(data) - set(ACTION_FIELDS)
    if unknown:
        raise GatewayError(f"unknown action field(s) {', '.join(sorted(unknown))} (fields: {', '.join(ACTION_FIELDS)})")
    action = data.get("action")
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


def gateway_episode_start(*, token: AgentToken, task, seed: int | None, variation: int | None = None) -> Episode:
    """A running engine-driven episode for the token (its agent: token_agent): its quotas are checked (and the slot taken) under the lock."""
    try:
        return token_episode_start(
            token=token, task=task, seed=seed, variation=variation, claimed_by=f"{GATEWAY_CLAIM}{os.getpid()}"
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
        self.screenshot = False
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
        task_id, seed, label, screenshot, variation = reset_arguments(data)
        try:
            task = task_current(task_id)
        except TaskNotFound:
            raise GatewayError(f"unknown task {task_id!r}", 404) from None
        try:
            token_scope_check(token=self.token, task=task)
        except TokenScopeError as exc:
            raise GatewayError(str(exc), 403) from None
        # a refused start changes nothing: the quota is checked before this session's episode ends
        quota_check(self.token, replacing=self.episode if self.driver is not None else None)
        self._end("reset before the episode ended")
        self.episode = gateway_episode_start(token=self.token, task=task, seed=seed, variation=variation)
        self.label = label
        self.screenshot, self.done, self.reward = screenshot, False, None
        self.driver = EpisodeDriver(self.episode)
        try:
            obs = self.driver.open()
        except Exception as exc:
            self.driver.fail(exc)
            self.driver, self.done = None, True
            raise GatewayError(f"the episode could not start: {type(exc).__name__}", 500) from None
        return self._result(obs)

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
        driver = self.driver
        try:
            obs, stop = driver.step(action)
        except Exception as exc:
            self.episode = driver.fail(exc)
            self.driver, self.done, self.reward = None, True, 0.0
            return self._result(driver.observation)
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
        obs = self.driver.observation if self.driver is not None else None
        return {
            **(
                self._result(obs)
                if obs is not None
                else {"observation": None, "reward": self.reward, "done": self.done}
            ),
            "state": self.state(),
        }

    def finish(self) -> dict:
        """End a running episode as it stands (verified, rewarded) and return its state."""
        if self.driver is not None:
            driver, self.driver = self.driver, None
            self.episode = driver.finish()
            self.done, self.reward = True, float((self.episode.rewards or {}).get("episode_reward", 0.0))
        return self.state()

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
        return {"observation": obs.to_dict(screenshot=self.screenshot), "reward": self.reward, "done": self.done}


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
        self.closing: set[asyncio.Task] = set()

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
        self.closing.add(task)
        task.add_done_callback(self.closing.discard)

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
