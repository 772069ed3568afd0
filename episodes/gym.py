"""The gym-style Python API: `gymnasium.make("replicagym/<replica>.<slug>")` gives a ReplicaEnv.

Each reset() is a new episode in a fresh world of the task; step() takes a
BrowserGym-style action string. The env drives its own browser in this process
(Django must be configured) and records the episode like any other, so its
verdict, rewards and trajectory are in the database afterwards.

Nothing here imports a model or the engine at module level: gymnasium imports this
module for its entry points, possibly before Django is set up, so the catalogue and
the engine are imported when an env is made or reset.
"""

import io
import logging
import os

import gymnasium
import numpy as np
from gymnasium import spaces

from verifiers.agent_view import agent_view

log = logging.getLogger("replicagym.episodes")

ENV_PREFIX = "replicagym/"
MAX_TEXT = 1_000_000
GYM_CLAIM = "gym:"


class UnicodeText(spaces.Text):
    """A Text space over any Unicode text: pages hold names, currencies and emoji, not only [a-zA-Z0-9]."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed=None):
        super().__init__(max_length=max_length, min_length=min_length, seed=seed)

    def contains(self, x) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other) -> bool:
        return isinstance(other, UnicodeText) and (self.min_length, self.max_length) == (
            other.min_length,
            other.max_length,
        )


def _png_to_array(png: bytes, shape: tuple[int, int]) -> np.ndarray:
    from PIL import Image

    height, width = shape
    if not png:
        return np.zeros((height, width, 3), dtype=np.uint8)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    if image.size != (width, height):  # a device scale or a clipped capture: fit the declared space
        image = image.resize((width, height))
    return np.asarray(image, dtype=np.uint8).copy()


def _django_ready() -> None:
    """Set Django up in a process that has not (a vector env's spawned worker), from DJANGO_SETTINGS_MODULE."""
    from django.apps import apps

    if not apps.ready:
        import django

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "replicagym.settings")
        django.setup()


class ReplicaEnv(gymnasium.Env):
    """One task of a replica as a gymnasium environment.

    Observation (a Dict): url, title, screenshot (H x W x 3 uint8), axtree (text with
    bids), focused_element, last_action_error, open_pages_urls, open_pages_titles,
    goal, chat_messages, step, elapsed_time, and dom (HTML) when `dom=True`.
    Action: an action string such as `click("a51")` or `fill("a12", "text")`.
    `trace=True` records each episode's Playwright trace (its path: the episode's trace_path).
    reward: the episode reward when the episode ends (0 before); terminated when
    the agent sends a message to the user or reports the task infeasible;
    truncated at the step or time limit.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 1}

    def __init__(
        self,
        task: str,
        *,
        render_mode: str | None = None,
        dom: bool = False,
        viewport=(1280, 800),
        world_seed: int | None = None,
        trace: bool = False,
    ):
        _django_ready()
        from replicagym.catalogue.packs import task_current

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.task_id = task
        self.render_mode = render_mode
        self.dom = dom
        self.viewport = tuple(viewport)
        self.world_seed = world_seed
        self.trace = bool(trace)
        task_obj = task_current(task)  # fails early on an unknown task
        self.max_steps = int(task_obj.limits["max_steps"])
        width, height = self.viewport
        text = UnicodeText
        space = {
            "url": text(4000),
            "title": text(2000),
            "goal": text(20_000),
            "screenshot": spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8),
            "axtree": text(MAX_TEXT),
            "focused_element": text(32),
            "last_action": text(MAX_TEXT),
            "last_action_error": text(MAX_TEXT),
            "open_pages_urls": spaces.Sequence(text(4000), stack=False),
            "open_pages_titles": spaces.Sequence(text(2000), stack=False),
            "chat_messages": spaces.Sequence(spaces.Dict({"role": text(32), "message": text(100_000)}), stack=False),
            "step": spaces.Discrete(self.max_steps + 1),
            "elapsed_time": spaces.Box(0.0, 1e9, shape=(1,), dtype=np.float64),
        }
        if dom:
            space["dom"] = text(20 * MAX_TEXT)
        self.observation_space = spaces.Dict(space)
        self.action_space = UnicodeText(100_000, min_length=1)
        self.driver = None
        self.episode = None
        self._last_png = b""

    # --- gymnasium API ---

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new episode in a fresh world. `seed` seeds np_random, and the episode's variation is drawn from it
        (episodes.variation): its world seed, among the task's pool of built templates, and its task's picks.
        So reset(seed=s) gives the same world and answer key each time, and resets after it without a seed
        continue the same sequence. `options={"world_seed": n}` (or the env's world_seed) fixes the world's seed;
        the picks still vary with the seed."""
        from .creation import episode_create
        from .driver import EpisodeDriver
        from .models import Episode
        from .variation import VARIATION_MAX

        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"world_seed"}
        if unknown:
            raise ValueError(f"unknown reset options: {', '.join(sorted(unknown))} (known: world_seed)")
        self._end_current("reset before the episode ended")
        world_seed = options.get("world_seed", self.world_seed)
        variation = int(self.np_random.integers(0, VARIATION_MAX, endpoint=True))
        self.episode = episode_create(
            task=self.task_id,
            agent="gym",
            seed=world_seed,
            variation=variation,
            agent_seed=seed or 0,
            status=Episode.Status.RUNNING,
            claimed_by=f"{GYM_CLAIM}{os.getpid()}",
            trace=self.trace,
        )
        self.driver = EpisodeDriver(self.episode)
        try:
            obs = self.driver.open()
        except Exception as exc:
            self.driver.fail(exc)
            self.driver = None
            raise
        return self._observation(obs), self._info()

    def step(self, action):
        if self.driver is None:
            raise RuntimeError("call reset() before step() (the episode has ended or never started)")
        driver = self.driver
        try:
            obs, stop = driver.step(action)
        except Exception as exc:
            episode = driver.fail(exc)
            self.driver = None
            info = self._info(episode)
            return self._observation(driver.observation), 0.0, True, False, info
        terminated, truncated = stop, driver.out_of_steps or driver.out_of_time
        reward, info = 0.0, self._info()
        if terminated or truncated:
            status = None
            if truncated and not terminated and driver.out_of_time:
                from .models import Episode

                status = Episode.Status.TIMED_OUT
            episode = driver.finish(status=status)
            self.driver = None
            reward = float((episode.rewards or {}).get("episode_reward", 0.0))
            info = self._info(episode)
        return self._observation(obs), reward, terminated, truncated, info

    def render(self):
        if self.render_mode == "rgb_array":
            return _png_to_array(self._last_png, (self.viewport[1], self.viewport[0]))
        return None

    def close(self):
        self._end_current("closed before the episode ended")
        super().close()

    # --- helpers ---

    def _end_current(self, why: str):
        if self.driver is not None:
            from .models import Episode

            driver, self.driver = self.driver, None
            driver.finish(status=Episode.Status.FAILED, error=why)

    def _info(self, episode=None) -> dict:
        episode = episode or self.episode
        info = {"episode": episode.pk, "task": self.task_id, "world": episode.world.token if episode.world else None}
        if episode.is_final:
            # the agent-facing view (verifiers.agent_view): passed and the signals, never the assertions
            info.update(status=episode.status, **agent_view(episode.verdict, episode.rewards), error=episode.error)
        return info

    def _observation(self, obs) -> dict:
        get = (lambda k, d=None: obs.get(k, d)) if isinstance(obs, dict) else (lambda k, d=None: getattr(obs, k, d))
        self._last_png = get("screenshot") or b""
        tabs = get("tabs") or []
        out = {
            "url": get("url", "") or "",
            "title": get("title", "") or "",
            "goal": get("instruction", "") or "",
            "screenshot": _png_to_array(self._last_png, (self.viewport[1], self.viewport[0])),
            "axtree": get("axtree", "") or "",
            "focused_element": get("focused_bid") or "",
            "last_action": get("last_action", "") or "",
            "last_action_error": get("last_action_error", "") or "",
            "open_pages_urls": tuple(str(t.get("url", "")) for t in tabs),
            "open_pages_titles": tuple(str(t.get("title", "")) for t in tabs),
            "chat_messages": tuple(
                {"role": str(m.get("role", "")), "message": str(m.get("message", m.get("text", "")))}
                for m in (get("chat") or [])
            ),
            "step": min(int(get("step", 0) or 0), self.max_steps),
            "elapsed_time": np.array([float(get("elapsed_ms", 0.0) or 0.0) / 1000.0], dtype=np.float64),
        }
        if self.dom:
            out["dom"] = get("html") or ""
        return out


# --- vector envs ------------------------------------------------------------------------------

# Spawned, not forked: a forked child would share the parent's database connection and
# Playwright's threads. Observations hold text and variable-length sequences, which
# shared memory cannot carry, so they come back through the pipes.
ASYNC_VECTOR_KWARGS = {"context": "spawn", "shared_memory": False}
MAX_VECTOR_ENVS = 64


class _BrowserOwner(gymnasium.Wrapper):
    """The env of a vector worker process: closing it also closes that process's Chromium."""

    def close(self):
        from .browser import shutdown_browser

        super().close()
        shutdown_browser()


class SpawnedEnvFactory:
    """Builds a ReplicaEnv in a fresh (spawned) worker process on the parent's database.

    Picklable, so AsyncVectorEnv can hand it to its workers; in a process where Django
    is already set up (the parent, which makes one env to read the spaces) it just makes the env.
    """

    def __init__(self, task: str, database: str, env_kwargs: dict):
        self.task, self.database, self.env_kwargs = task, database, dict(env_kwargs)

    def __call__(self) -> gymnasium.Env:
        from django.apps import apps

        if apps.ready:
            return ReplicaEnv(self.task, **self.env_kwargs)
        from .pool import child_setup

        child_setup(self.database)
        return _BrowserOwner(ReplicaEnv(self.task, **self.env_kwargs))


def replica_vector_env(*, task: str, num_envs: int = 1, **env_kwargs) -> gymnasium.vector.AsyncVectorEnv:
    """N episodes of `task` stepped in parallel, each in its own worker process with its own Chromium.

    The vector entry point of every registered id, so `gymnasium.make_vec("replicagym/<task>", num_envs=N)`
    returns this; `vectorization_mode="async"` gives the same with `vector_kwargs=ASYNC_VECTOR_KWARGS`.
    """
    from django.db import connection

    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= MAX_VECTOR_ENVS:
        raise ValueError(f"num_envs must be a whole number from 1 to {MAX_VECTOR_ENVS}, not {num_envs!r}")
    database = str(connection.settings_dict["NAME"])
    factory = SpawnedEnvFactory(task, database, env_kwargs)
    return gymnasium.vector.AsyncVectorEnv([factory] * num_envs, **ASYNC_VECTOR_KWARGS)


def register_envs() -> list[str]:
    """Register one env id per task of every installed pack (from the files: no database needed)."""
    from replicagym.catalogue.packs import task_files

    from replicas.worlds.registry import replicas

    ids = []
    for name in sorted(replicas()):
        for path in task_files(name):
            env_id = f"{ENV_PREFIX}{name}.{path.stem}"
            if env_id not in gymnasium.registry:
                _register(env_id, f"{name}.{path.stem}")
            ids.append(env_id)
    return ids


def register_task(task_id: str) -> str:
    """Register an env id for one task (e.g. a task from a test pack)."""
    env_id = f"{ENV_PREFIX}{task_id}"
    if env_id not in gymnasium.registry:
        _register(env_id, task_id)
    return env_id


def _register(env_id: str, task_id: str) -> None:
    gymnasium.register(
        id=env_id,
        entry_point="episodes.gym:ReplicaEnv",
        vector_entry_point="episodes.gym:replica_vector_env",
        kwargs={"task": task_id},
    )


try:
    from django.apps import apps as _apps

    if _apps.ready:
        register_envs()
except Exception:  # registration must not break an import; make() then names the missing id
    log.warning("could not register ReplicaGym envs", exc_info=True)
