"""One engine-driven episode per gateway session, started for an agent token within its suites.

Playwright's sync API is bound to the thread that started it and refuses to run inside
an asyncio loop, so each session owns one thread: every engine call of the session runs
there (`GatewaySession.call`), and that thread's Chromium is closed with the session.
"""
import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

from episodes.browser import shutdown_browser
from episodes.creation import episode_create
from episodes.driver import EpisodeDriver
from episodes.models import Episode
from replicagym.accounts.models import TokenEpisode
from replicagym.accounts.tokens import TokenError, TokenScopeError, token_authenticate, token_scope_check
from replicagym.catalogue.packs import TaskNotFound, task_current
from verifiers.agent_view import agent_view

GATEWAY_CLAIM = "gateway:"
MAX_SEED = 2**31 - 1
MAX_ACTION = 100_000


class GatewayError(ValueError):
    """A request the gateway refuses; the message says why (status: the HTTP status it maps to)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def bearer_token(header: str | None):
    """The live agent token of an `Authorization: Bearer rg_...` header, or GatewayError(401)."""
    scheme, _, secret = (header or "").partition(" ")
    if scheme.lower() != "bearer" or not secret.strip():
        raise GatewayError("send the agent token as 'Authorization: Bearer rg_...'", 401)
    try:
        return token_authenticate(secret.strip())
    except TokenError as exc:
        raise GatewayError(str(exc), 401) from None


def reset_arguments(data) -> tuple[str, int | None, bool]:
    """(task id, world seed or None, include the screenshot) from a reset message, or GatewayError."""
    if not isinstance(data, dict):
        raise GatewayError('reset takes an object: {"task": "<replica>.<slug>", "seed": 7}')
    unknown = set(data) - {"task", "seed", "screenshot"}
    if unknown:
        raise GatewayError(f"unknown reset field(s) {', '.join(sorted(unknown))} (fields: task, seed, screenshot)")
    task, seed, screenshot = data.get("task"), data.get("seed"), data.get("screenshot", False)
    if not isinstance(task, str) or not 1 <= len(task) <= 160:
        raise GatewayError("reset needs task: a task id such as testbed.open-note")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED):
        raise GatewayError(f"seed must be a whole number from 0 to {MAX_SEED} (the world's seed), not {seed!r}")
    if not isinstance(screenshot, bool):
        raise GatewayError(f"screenshot must be true or false, not {screenshot!r}")
    return task, seed, screenshot


def step_argument(data) -> str:
    action = data.get("action") if isinstance(data, dict) else None
    if not isinstance(action, str) or not 1 <= len(action) <= MAX_ACTION:
        raise GatewayError(f'step needs action: an action string of 1 to {MAX_ACTION} characters, as in click("a51")')
    return action


class GatewaySession:
    """At most one running episode at a time, driven by the engine in the session's own thread."""

    def __init__(self, token, *, agent: str):
        self.token = token
        self.agent = agent
        self.driver: EpisodeDriver | None = None
        self.episode: Episode | None = None
        self.screenshot = False
        self.done = False
        self.reward: float | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gateway-episode")

    async def call(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    # --- the engine side: each runs in the session's thread ---

    def reset(self, data) -> dict:
        task_id, seed, screenshot = reset_arguments(data)
        try:
            task = task_current(task_id)
        except TaskNotFound:
            raise GatewayError(f"unknown task {task_id!r}", 404) from None
        try:
            token_scope_check(token=self.token, task=task)
        except TokenScopeError as exc:
            raise GatewayError(str(exc), 403) from None
        self._end("reset before the episode ended")
        self.episode = episode_create(task=task, agent=self.agent, owner=self.token.user, seed=seed,
                                      status=Episode.Status.RUNNING, claimed_by=f"{GATEWAY_CLAIM}{os.getpid()}")
        TokenEpisode.objects.create(token=self.token, episode=self.episode, created_at=self.episode.created_at)
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
        action = step_argument(data)
        if self.driver is None:
            raise GatewayError("no running episode: send reset first" if self.episode is None
                               else "the episode has ended: send reset for a new one", 409)
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
        return {**(self._result(obs) if obs is not None else {"observation": None, "reward": self.reward, "done": self.done}),
                "state": self.state()}

    def finish(self) -> dict:
        """End a running episode as it stands (verified, rewarded) and return its state."""
        if self.driver is not None:
            driver, self.driver = self.driver, None
            self.episode = driver.finish()
            self.done, self.reward = True, float((self.episode.rewards or {}).get("episode_reward", 0.0))
        return self.state()

    def state(self) -> dict:
        if self.episode is None:
            return {"episode_id": None, "task": None, "step_count": 0, "status": None, "done": False}
        self.episode.refresh_from_db()
        state = {"episode_id": self.episode.pk, "task": self.episode.task.task_id,
                 "step_count": self.episode.steps.count(), "status": self.episode.status, "done": self.done}
        if self.episode.is_final:
            state.update(agent_view(self.episode.verdict, self.episode.rewards))
        return state

    def close(self) -> None:
        try:
            self._end("closed before the episode ended")
        finally:
            shutdown_browser()  # this thread's Chromium

    async def aclose(self) -> None:
        try:
            await self.call(self.close)
        finally:
            self._thread.shutdown(wait=False)

    def _end(self, why: str) -> None:
        if self.driver is not None:
            driver, self.driver = self.driver, None
            self.episode = driver.finish(status=Episode.Status.FAILED, error=why)

    def _result(self, obs) -> dict:
        return {"observation": obs.to_dict(screenshot=self.screenshot), "reward": self.reward, "done": self.done}
