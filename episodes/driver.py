"""The agent loop: open the start page, execute actions step by step, record each Step, then finish.

The loop never sleeps: it waits only on the browser's settle signal and the agent's answer.
"""

import logging
import os
import time
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from replicas.worlds.clock import world_clock_advance
from replicas.worlds.faults import fault_events, world_step
from replicas.worlds.registry import get_replica
from replicas.worlds.requestlog import logged_requests, request_log_open, requests_so_far
from replicas.worlds.routing import world_origin, world_token_from_host, world_url
from replicas.worlds.workspaces import workspace_clock_advance, workspace_world
from verifiers.actions import ANSWER_ACTIONS, ActionError, parse_action
from verifiers.placeholders import fill_text

from .agents import ScriptedAgent, agent_from_spec, task_info
from .blobs import screenshot_store
from .creation import EpisodeError, episode_create
from .engine.browser import BrowserCrashed, EpisodeSession, shutdown_browser
from .engine.checkpoints import CheckpointWatch
from .engine.observation import observation_settings, render_observation, tree_changes
from .engine.server import replica_server
from .external import request_doc
from .models import Episode, Step
from .queue.claims import ClaimLost, claim_current, claim_touch, episode_retry
from .queue.heartbeat import browser_call, heartbeat_follow
from .runs import run_cancelled
from .verdict import episode_finish

log = logging.getLogger("replicagym.episodes")


def _obs_get(obs, name, default=None):
    if isinstance(obs, dict):
        return obs.get(name, default)
    return getattr(obs, name, default)


def _parsed_action(text: str):
    try:
        action = parse_action(text)
    except ActionError:
        return None, None
    return action, action.to_dict()


def _action_name(action) -> str:
    return getattr(action, "name", None) or type(action).__name__


def _page_changed(before, after) -> bool | None:
    if before is None or after is None:
        return None
    return any(_obs_get(before, k) != _obs_get(after, k) for k in ("url", "axtree"))


AXTREE_CHANGE_LINES = 200  # the viewer shows what a step changed, not a copy of every page


def _axtree_change(before, after) -> str:
    """The accessibility-tree lines a step removed (-) and added (+), in tree order; empty if none."""
    old, new = _obs_get(before, "axtree"), _obs_get(after, "axtree")
    if not isinstance(old, str) or not isinstance(new, str) or old == new:
        return ""
    lines = tree_changes(old, new)
    if len(lines) > AXTREE_CHANGE_LINES:
        lines = [*lines[:AXTREE_CHANGE_LINES], f"... {len(lines) - AXTREE_CHANGE_LINES} more lines"]
    return "\n".join(lines)


def _step_tabs(obs, worlds) -> list[dict] | None:
    """The observation's tabs as a step keeps them: [{"url", "active", "app"}], "app" the replica whose world (one of
    the episode's `worlds`) the tab's page is on, blank for any other page; None if the observation has no tabs."""
    tabs = _obs_get(obs, "tabs")
    if not isinstance(tabs, list) or not tabs:
        return None
    apps = {world.token: world.replica for world in worlds}
    out = []
    for tab in tabs:
        if not isinstance(tab, dict):
            continue
        url = str(tab.get("url") or "")[:2000]
        out.append(
            {
                "url": url,
                "active": tab.get("active") is True,
                "app": apps.get(world_token_from_host(urlsplit(url).netloc), ""),
            }
        )
    return out


def _record_step(
    *,
    episode,
    tries,
    index,
    action_text,
    parsed,
    result,
    obs,
    fault_events,
    timings,
    changed=None,
    requests=(),
    writes=None,
    target_box=None,
    axtree_change="",
    observation="",
    target_bid=None,
    checkpoints=None,
    tabs=None,
):
    png = _obs_get(obs, "screenshot")
    shot = screenshot_store(png=png) if isinstance(png, (bytes, bytearray)) and png else None
    with transaction.atomic():
        # fenced: only the current claim writes steps (a worker presumed lost raises ClaimLost here)
        claim_touch(episode_id=episode.pk, tries=tries)
        Step.objects.create(
            episode=episode,
            index=index,
            action=action_text,
            parsed=parsed,
            error=_obs_get(result, "error") or "",
            url=_obs_get(obs, "url", "")[:2000],
            title=(_obs_get(obs, "title") or "")[:500],
            action_ms=timings.get("action", 0),
            settle_ms=timings.get("settle", 0),
            observe_ms=timings.get("observe", 0),
            fault_events=fault_events,
            screenshot=shot,
            changed=changed,
            requests=list(requests),
            writes=writes,
            target_box=target_box,
            axtree_change=axtree_change,
            observation=observation,
            target_bid=target_bid or "",
            checkpoints=checkpoints,
            tabs=tabs,
        )


def _timings(result, measured_ms: float) -> dict:
    found = _obs_get(result, "timings") or {}
    out = {k: float(found.get(f"{k}_ms", 0) or 0) for k in ("action", "settle", "observe")}
    if not any(out.values()):  # a session that does not time its phases: the whole step is the action
        out = {"action": measured_ms, "settle": 0.0, "observe": 0.0}
    return out


TRACES_DIR = "traces"  # under DATA_DIR: one zip per traced episode, opened by `playwright show-trace`


def trace_file_for(episode) -> Path:
    return settings.DATA_DIR / TRACES_DIR / f"episode-{episode.pk}.zip"


def session_open(
    *,
    world,
    start_page: str,
    instruction: str,
    trace_path: Path | None = None,
    screenshots: bool = True,
    other_worlds=(),
    other_pages=(),
):
    """The episode's browser on `world` at `start_page`, and a tab on each of `other_worlds` (the other apps of
    its workspace) at the same place's path of `other_pages` (its home page where none is given), the first
    tab active."""
    # Playwright's sync API runs an asyncio loop in this thread; the engine's ORM calls
    # beside it are plain synchronous calls, which Django refuses unless told so.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    _host, port = replica_server()
    origin = world_origin(world, port)
    # the page's own Date.now() reads the world clock too, so screenshots repeat across runs
    return EpisodeSession.open(
        origin=origin,
        start_url=origin + start_page,
        instruction=instruction,
        frozen_time=world.clock,
        trace_path=trace_path,
        screenshots=screenshots,
        other_tabs=tuple(
            world_url(other, page, port)
            for other, page in zip(other_worlds, [*other_pages, *["/"] * len(other_worlds)], strict=False)
        ),
    )


def workspace_start_pages(instance) -> list[str]:
    """Where a cross-app task's other tabs open, in its workspace's order after the first: the path its
    workspace section's `start_pages` gives that app (placeholders filled from the params), else "/"."""
    workspace = instance.spec.get("workspace")
    if workspace is None:
        return []
    pages = workspace.get("start_pages") or {}
    return [fill_text(pages.get(name, "/"), instance.params) for name in workspace["replicas"][1:]]


def agent_for(episode):
    """The agent object for an episode's agent spec (see episodes.agents), reset for its task."""
    # an owned episode's agent was named in the UI or the API: fenced as when its run was launched
    return agent_from_spec(
        episode.agent,
        task=episode.instance,
        seed=episode.seed,
        settings=episode.agent_settings,
        fenced=episode.owner_id is not None,
    )


class EpisodeDriver:
    """Drives one running episode step by step: the loop of episode_run, and the gym env's step().

    Each step: arm step-triggered faults, execute the action in the browser (an
    invalid action or a missing element becomes the observation's last action
    error, and the episode goes on), record the Step, advance the world clock.
    """

    def __init__(self, episode: Episode):
        if episode.status != Episode.Status.RUNNING:
            raise EpisodeError(f"episode {episode.pk} is {episode.status}, not running: claim it first")
        self.episode = episode
        self.tries = episode.tries  # this claim's fencing token: its writes need the episode still on this try
        self.instance = episode.instance
        self.world = episode.world
        # a cross-app task's episode runs in every app of its workspace, one tab each in the task's order
        # (the episode's world is the first); the others' requests and clocks are followed alike
        workspace = self.instance.spec.get("workspace")
        self.worlds = [self.world]
        if workspace is not None:
            self.worlds += [workspace_world(self.world.workspace, name) for name in workspace["replicas"][1:]]
        self.limits = self.instance.limits
        # the episode's observation mode (episodes.engine.observation); checked when the episode was made
        self.observation_settings = observation_settings(episode.agent_settings)
        self.session = None
        self.index = 0
        self.deadline = None
        self.observation = None
        self._previous_axtree = None  # the tree before self.observation's: a diff-mode agent is shown the change
        # fault events are numbered per world; a step records each world's after its mark
        self._since = {world.pk: 0 for world in self.worlds}
        self._seen = {
            world.pk: 0 for world in self.worlds
        }  # so are each world's logged requests: world id -> the last seq read
        # dense checkpoints, off by default: the milestones each step reached (episodes.engine.checkpoints)
        self.checkpoint_watch = None
        self.step_checkpoints = None  # the last step's: {"new": [...], "reward": float}

    def open(self):
        self.deadline = time.monotonic() + float(self.limits["max_seconds"])
        # the world logs the browser's requests, so each step knows the rows it wrote
        # (opened here, not at creation: an episode may come back with a fresh world)
        for world in self.worlds:
            request_log_open(world=world)
        for attempt in (1, 2):
            try:
                with browser_call(starting=True):
                    self.session = session_open(
                        world=self.world,
                        start_page=self.instance.start_page,
                        instruction=self.instance.instruction,
                        trace_path=trace_file_for(self.episode) if self.episode.trace else None,
                        screenshots=self.observation_settings.screenshots,
                        other_worlds=self.worlds[1:],
                        other_pages=workspace_start_pages(self.instance),
                    )
                break
            except PlaywrightTimeout:
                # nothing has happened in the world yet, so a start page that loaded too
                # slowly (a busy machine) is retried once rather than failing the episode
                if attempt == 2:
                    raise
                log.warning("episode %s: the start page timed out; opening it again", self.episode.pk)
        # a compiled replica's episode takes the replica's own operations as tool calls too (enterprise.toolplay)
        replica = get_replica(self.world.replica)
        self.session = replica.episode_session(self.session, world=self.world, server=replica_server)
        with browser_call():
            self.observation = self.session.observe()
        # loading the start pages is no step of the agent's
        self._seen = {world.pk: requests_so_far(world=world) for world in self.worlds}
        if self.episode.agent_settings.get("dense_checkpoints") is True:
            watch = CheckpointWatch(
                spec=self.instance.verifier, params=self.episode.params, initial=self.episode.initial_state.doc
            )
            self.checkpoint_watch = watch if watch.watched else None
        # the page the agent's first action acts on: the viewer outlines that action's target on it
        png = _obs_get(self.observation, "screenshot")
        if isinstance(png, (bytes, bytearray)) and png:
            claim_current(episode_id=self.episode.pk, tries=self.tries).update(
                start_screenshot=screenshot_store(png=png)
            )
        return self.observation

    @property
    def out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    @property
    def out_of_steps(self) -> bool:
        return self.index >= int(self.limits["max_steps"])

    def step(self, action_text: str) -> tuple[object, bool]:
        """Execute one action; returns (observation, the action was a stop action)."""
        if self.out_of_steps:
            raise EpisodeError(f"the step limit of {self.limits['max_steps']} is reached")
        action_text = action_text if isinstance(action_text, str) else str(action_text)
        # a claim the sweep took away acts no more: its world is gone, the episode is another try's
        claim_touch(episode_id=self.episode.pk, tries=self.tries, beat=False)
        for world in self.worlds:
            world_step(world=world, index=self.index)
        action, parsed = _parsed_action(action_text)
        given = self.observation_text()
        started = time.perf_counter()
        with browser_call():
            result = self.session.step(action_text)
        measured = (time.perf_counter() - started) * 1000
        obs = _obs_get(result, "observation", result)
        self.world.refresh_from_db(fields=["clock"])
        # what fired before the step (step triggers) and during it (its requests)
        events = []
        for world in self.worlds:  # a cross-app task's faults are armed on whichever member it names
            fired = list(fault_events(world=world, since=self._since[world.pk]))
            if fired:
                self._since[world.pk] = max(e["seq"] for e in fired)
            events += [{**e, "replica": world.replica} for e in fired] if len(self.worlds) > 1 else fired
        # the requests the browser made during the step (to any app of its workspace), and the rows they wrote
        requests = []
        for world in self.worlds:
            logged = logged_requests(world=world, since=self._seen[world.pk])
            if logged:
                self._seen[world.pk] = logged[-1].seq
            requests += logged
        writes = [w for r in requests for w in r.writes]
        if self.checkpoint_watch is not None:
            self.step_checkpoints = self.checkpoint_watch.after_step(world=self.world, writes=writes)
        _record_step(
            episode=self.episode,
            tries=self.tries,
            index=self.index,
            action_text=action_text,
            parsed=parsed,
            result=result,
            obs=obs,
            fault_events=events,
            timings=_timings(result, measured),
            changed=_page_changed(self.observation, obs),
            requests=[request_doc(r) for r in requests],
            writes=writes,
            target_box=_obs_get(result, "target_box"),
            target_bid=_obs_get(result, "target_bid"),
            axtree_change=_axtree_change(self.observation, obs),
            observation=given,
            checkpoints=self.step_checkpoints,
            tabs=_step_tabs(obs, self.worlds),
        )
        if self.world.workspace_id is not None:  # one clock for the group
            workspace_clock_advance(workspace=self.world.workspace, seconds=float(self.limits["step_seconds"]))
        else:
            world_clock_advance(world=self.world, seconds=float(self.limits["step_seconds"]))
        self.index += 1
        self._previous_axtree = _obs_get(self.observation, "axtree")
        self.observation = obs
        return obs, action is not None and _action_name(action) in ANSWER_ACTIONS

    def observation_text(self) -> str:
        """The current observation as text in the episode's mode: what its agent is given to choose the next action.

        Kept with the step that action makes, so a trainer that generated the action can rebuild its prompt.
        """
        mode = self.observation_settings
        return render_observation(
            self.observation,
            mode.mode,
            self._previous_axtree,
            step=_obs_get(self.observation, "step", self.index),
            full_every=mode.full_every,
        )

    def end_page(self, status: str | None = None) -> tuple[dict | None, list[str]]:
        """The final page (none for an errored episode) and the agent's messages; raises what the browser raised."""
        final_page = None
        if self.session is not None and status != Episode.Status.ERRORED:
            with browser_call():
                final_page = self.session.final_page()
        return final_page, list(getattr(self.session, "messages", []) or [])

    def finish(self, *, status: str | None = None, error: str = "", ended: tuple | None = None) -> Episode:
        """Read the final page and messages (unless `ended` holds them), close the browser context, verify and
        reward.
        """
        final_page, messages = None, []
        try:
            final_page, messages = ended if ended is not None else self.end_page(status)
        except Exception as exc:
            status, error = self._failure(exc)
        finally:
            self.close()
        return episode_finish(
            episode=self.episode, messages=messages, final_page=final_page, status=status, error=error
        )

    def fail(self, exc: BaseException) -> Episode:
        """End the episode errored after `exc`, keeping the steps recorded so far."""
        status, error = self._failure(exc)
        messages = list(getattr(self.session, "messages", []) or []) if self.session is not None else []
        self.close()
        return episode_finish(episode=self.episode, messages=messages, final_page=None, status=status, error=error)

    def _failure(self, exc: BaseException) -> tuple[str, str]:
        if isinstance(exc, BrowserCrashed):
            # the next episode in this process gets a fresh browser (shutting the dead one down
            # makes the next session launch one); this one keeps its trajectory. Only an episode
            # whose steps a client drives (the gym, the gateways) ends here: episode_run retries.
            shutdown_browser()
            return Episode.Status.ERRORED, f"browser crashed: {exc}"
        log.error("episode %s errored", self.episode.pk, exc_info=exc)
        return Episode.Status.ERRORED, f"{type(exc).__name__}: {exc}"

    def close(self):
        if self.session is not None:
            session, self.session = self.session, None
            try:
                with browser_call():
                    session.close()
            except Exception:  # a crashed browser may fail to close; the episode is already decided
                log.warning("closing the session of episode %s failed", self.episode.pk, exc_info=True)
            trace = getattr(session, "trace_path", None)  # a stand-in session (tests) has none
            if trace is not None and trace.is_file():
                self.episode.trace_path = str(trace.relative_to(settings.DATA_DIR))
                claim_current(episode_id=self.episode.pk, tries=self.tries).update(trace_path=self.episode.trace_path)


def episode_run(*, episode_id: int, agent=None) -> Episode:
    """Run a claimed (running) episode to its end and finish it; returns the finished episode.

    `agent` overrides the one built from the episode's agent spec (used by episode_play).
    When Chromium crashes under the episode, a fresh browser is launched and the episode
    is claimed again in place with a fresh world (episode_retry), as a lost worker's
    would be, until its budget of tries is spent; a claim the sweep took away ends here.
    """
    while True:
        episode = Episode.objects.select_related("task", "world").get(pk=episode_id)
        driver = EpisodeDriver(episode)
        try:
            return _episode_drive(driver, agent)
        except BrowserCrashed as exc:
            driver.close()
            with browser_call():
                shutdown_browser()  # the next session launches a new Chromium
            tries = episode_retry(episode_id=episode_id, tries=driver.tries, reason=f"browser crashed: {exc}")
            if tries is None:
                return Episode.objects.select_related("task", "world").get(pk=episode_id)
            heartbeat_follow(episode_id=episode_id, tries=tries)
            if agent is not None:  # a given agent starts its task over; one built from the spec is built afresh
                agent.reset(task_info(episode.instance))
        except ClaimLost as exc:
            # swept while this process was silent: the episode is the later claim's now, so nothing more is written
            log.warning("episode %s: %s; stopping", episode_id, exc)
            driver.close()
            return Episode.objects.select_related("task", "world").get(pk=episode_id)


def _episode_drive(driver: EpisodeDriver, agent) -> Episode:
    """One try of episode_run: the agent loop and the finish; a crashed browser or a lost claim propagates."""
    episode = driver.episode
    status, error = None, ""
    try:
        agent = agent if agent is not None else agent_for(episode)
        obs = driver.open()
        while not driver.out_of_steps:
            if driver.out_of_time:
                break
            if run_cancelled(episode.run_id):  # stop between steps: every recorded step is whole
                status, error = Episode.Status.CANCELLED, f"run {episode.run_id} was cancelled"
                break
            action_text = agent.act(obs)
            if action_text is None:  # the agent has nothing more to do
                break
            obs, stop = driver.step(action_text)
            if stop:
                break
        if status is None and driver.out_of_time:
            status, error = Episode.Status.TIMED_OUT, f"episode time limit of {driver.limits['max_seconds']} s reached"
        elif status is None:
            # a remote agent that gave up (timeouts, bad replies) says why; the verdict still decides the status
            agent_error = getattr(agent, "last_error", "") or ""
            error = f"agent: {agent_error}" if agent_error else ""
        ended = driver.end_page(status)
    except (BrowserCrashed, ClaimLost):
        raise
    except Exception as exc:
        return driver.fail(exc)
    return driver.finish(status=status, error=error, ended=ended)


# --- fixed action lists ---------------------------------------------------------


def episode_play(
    *,
    task_id,
    actions: list[str] | None = None,
    agent: str | None = None,
    seed: int | None = None,
    trace: bool = False,
    agent_settings: dict | None = None,
) -> Episode:
    """Run a fixed action list, or the agent a spec names ("oracle", "negative:0": verify_tasks), on a task in
    this process (tests, the self-check); returns the finished episode. `agent_settings` as `episode_create`'s
    (the observation mode, screenshots on or off)."""
    if (actions is None) == (agent is None):
        raise EpisodeError("give either actions or an agent spec")
    if actions is not None and (not isinstance(actions, list) or not all(isinstance(a, str) for a in actions)):
        raise EpisodeError("actions must be a list of action strings")
    episode = episode_create(
        task=task_id,
        agent=agent or "script",
        seed=seed,
        status=Episode.Status.RUNNING,
        trace=trace,
        agent_settings=agent_settings,
    )
    if actions is not None:
        player = ScriptedAgent(actions)
        player.reset(task_info(episode.instance))
    else:
        player = agent_for(episode)
    return episode_run(episode_id=episode.pk, agent=player)
