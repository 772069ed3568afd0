"""The gym-style Python API: `gymnasium.make("replicagym/<replica>.<slug>")` gives a ReplicaEnv.

Each reset() is a new episode in a fresh world of the task; step() takes a
BrowserGym-style action string. The env drives its own browser in this process
and records the episode like any other, so its verdict, rewards and trajectory are
in the database afterwards (`env.unwrapped.episode`).

Importing this module registers one id per task of every installed pack, setting Django
up first (DJANGO_SETTINGS_MODULE, default replicagym.settings) in a process that has not:
an import that cannot register any id fails, rather than leaving `make` to say the id is unknown.
Models and the engine are imported when an env is made or reset, after that setup.
"""

import io
import logging
import os

import gymnasium
import numpy as np
from gymnasium import spaces

from verifiers.agent_view import agent_view

from .engine.observation import DISPLAY_ORIGIN, display_url

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
    goal, chat_messages, step, and dom (HTML) when `dom=True`.
    Action: an action string such as `click("a51")` or `fill("a12", "text")`.
    `trace=True` records each episode's Playwright trace (its path: the episode's trace_path).
    reward: the episode reward when the episode ends (0 before); with `dense_checkpoints=True`, each step
    also pays its share of the task's checkpoint credit as it reaches a milestone (episodes.engine.checkpoints;
    info["checkpoints_new"] gives their indices, never their names); terminated when
    the agent sends a message to the user or reports the task infeasible;
    truncated at the step or time limit.

    Two resets with the same seed give equal observations and infos (gymnasium's check_env):
    URLs are shown on the fixed display origin (episodes.engine.observation.display_url), not the
    world's own, which carries a token per world; wall time is left out (the episode record
    has it), and so are the episode's and world's ids, which are new every reset: the episode
    is `env.unwrapped.episode`. info holds the task, world_seed and variation, and once the
    episode ends its status and the agent's view of its verdict.
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
        dense_checkpoints: bool = False,
    ):
        _django_ready()
        from catalogue.packs import task_current

        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.task_id = task
        self.task = task_current(task)  # fails early on an unknown task
        self.render_mode = render_mode
        self.dom = dom
        self.viewport = tuple(viewport)
        self.world_seed = world_seed
        self.trace = bool(trace)
        if not isinstance(dense_checkpoints, bool):
            raise ValueError(f"dense_checkpoints must be true or false, not {dense_checkpoints!r}")
        self.dense_checkpoints = dense_checkpoints
        self.max_steps = int(self.task.limits["max_steps"])
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
        """A new episode in a fresh world; `seed` chooses the world and the answer key.

        The world seed: `world_seed_for(task, seed)`, the pool's seed at index `seed mod len(pool)`, where the
        pool is the task's own seed and 1..EPISODE_WORLD_SEEDS, in order (its template is built if it is not
        yet). The task's picks: the episode's variation, drawn from np_random once it is seeded with `seed`.
        A reset without a seed continues np_random's sequence: it draws the pool index, then the variation.
        So reset(seed=s) plays the same world with the same answer key each time. `options={"world_seed": n}`
        (or the env's world_seed) fixes the world's seed instead; the picks still follow the seed. A world
        seed on which the task has nothing to be about gives the task's own seed, as a drawn variation does.
        """
        from .creation import episode_create
        from .driver import EpisodeDriver
        from .models import Episode
        from .variation import variation_check

        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"world_seed"}
        if unknown:
            raise ValueError(f"unknown reset options: {', '.join(sorted(unknown))} (known: world_seed)")
        world_seed = options.get("world_seed", self.world_seed)
        if world_seed is not None:
            variation_check(world_seed, "world_seed")
        self._end_current("reset before the episode ended")
        world_seed, variation = self._choose(seed, world_seed)
        self.episode = episode_create(
            task=self.task,
            agent="gym",
            seed=world_seed,
            variation=variation,
            agent_seed=seed or 0,
            status=Episode.Status.RUNNING,
            claimed_by=f"{GYM_CLAIM}{os.getpid()}",
            trace=self.trace,
            agent_settings={"dense_checkpoints": True} if self.dense_checkpoints else None,
        )
        self.driver = EpisodeDriver(self.episode)
        try:
            obs = self.driver.open()
        except Exception as exc:
            self.driver.fail(exc)
            self.driver = None
            raise
        return self._observation(obs), self._info()

    def _choose(self, seed: int | None, world_seed: int | None) -> tuple[int, int]:
        """(world seed, variation) of the next episode, as reset() documents."""
        from catalogue.task_templates import TemplateError

        from .variation import VARIATION_MAX, pool_seeds, variation_resolve

        if world_seed is not None:  # the caller's: a world the task cannot be played on is refused by episode_create
            return world_seed, int(self.np_random.integers(0, VARIATION_MAX, endpoint=True))
        index = seed if seed is not None else int(self.np_random.integers(0, len(pool_seeds(self.task))))
        world_seed = world_seed_for(self.task, index)
        variation = int(self.np_random.integers(0, VARIATION_MAX, endpoint=True))
        try:
            variation_resolve(task=self.task, seed=world_seed, variation=variation)
        except (TemplateError, LookupError):  # nothing on this world for the task's picks
            world_seed = self.task.seed
        return world_seed, variation

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
        reward, dense = 0.0, {}
        if driver.step_checkpoints is not None:  # dense checkpoints: the milestones this step reached, by index
            reward, dense = driver.step_checkpoints["reward"], {"checkpoints_new": list(driver.step_checkpoints["new"])}
        info = {**self._info(), **dense}
        if terminated or truncated:
            status = None
            if truncated and not terminated and driver.out_of_time:
                from .models import Episode

                status = Episode.Status.TIMED_OUT
            episode = driver.finish(status=status)
            self.driver = None
            reward += float((episode.rewards or {}).get("episode_reward", 0.0))
            info = {**self._info(episode), **dense}
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
        info = {"task": self.task_id, "world_seed": episode.world_seed, "variation": episode.variation}
        if episode.is_final:
            # the agent-facing view (verifiers.agent_view): passed and the signals, never the assertions
            info.update(status=episode.status, **agent_view(episode.verdict, episode.rewards), error=episode.error)
        return info

    def _observation(self, obs) -> dict:
        get = (lambda k, d=None: obs.get(k, d)) if isinstance(obs, dict) else (lambda k, d=None: getattr(obs, k, d))
        self._last_png = get("screenshot") or b""
        tabs = get("tabs") or []
        origin = get("origin") or ""

        def shown(text: str) -> str:  # the world's origin, wherever the page quotes it, as agents are shown it
            return text.replace(origin, DISPLAY_ORIGIN) if origin else text

        out = {
            "url": display_url(get("url", "") or "", origin),
            "title": get("title", "") or "",
            "goal": get("instruction", "") or "",
            "screenshot": _png_to_array(self._last_png, (self.viewport[1], self.viewport[0])),
            "axtree": shown(get("axtree", "") or ""),
            "focused_element": get("focused_bid") or "",
            "last_action": get("last_action", "") or "",
            "last_action_error": shown(get("last_action_error", "") or ""),
            "open_pages_urls": tuple(display_url(str(t.get("url", "")), origin) for t in tabs),
            "open_pages_titles": tuple(str(t.get("title", "")) for t in tabs),
            "chat_messages": tuple(
                {"role": str(m.get("role", "")), "message": str(m.get("message", m.get("text", "")))}
                for m in (get("chat") or [])
            ),
            "step": min(int(get("step", 0) or 0), self.max_steps),
        }
        if self.dom:
            out["dom"] = shown(get("html") or "")
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
        from .engine.browser import shutdown_browser

        super().close()
        shutdown_browser()


class SpawnedEnvFactory:
    """Builds a ReplicaEnv in a fresh (spawned) worker process on the parent's database.

    Picklable, so AsyncVectorEnv can hand it to its workers; in the process that made it (the parent,
    which makes one env to read the spaces) it just makes the env.
    """

    def __init__(self, task: str, database: str, env_kwargs: dict):
        self.task, self.database, self.env_kwargs = task, database, dict(env_kwargs)
        self.parent_pid = os.getpid()

    def __call__(self) -> gymnasium.Env:
        from django.db import connections

        if os.getpid() == self.parent_pid:
            return ReplicaEnv(self.task, **self.env_kwargs)
        from .queue.local_workers import child_setup

        # unpickling this factory imported this module, which set Django up on the settings' database
        # before the parent's (a test database in tests) was known: no query has run on it yet
        connections["default"].close()
        connections["default"].settings_dict["NAME"] = self.database
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


def world_seed_for(task, seed: int) -> int:
    """The world seed reset(seed=`seed`) plays for `task` (a Task): its pool's seed at index `seed` mod the pool's size.

    The pool is the task's own seed and 1..EPISODE_WORLD_SEEDS, sorted (episodes.variation.pool_seeds): fixed by
    the settings, not by which templates happen to be built, so a seed names the same world on every machine.
    """
    from .variation import pool_seeds

    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a whole number, at least 0, not {seed!r}")
    pool = pool_seeds(task)
    return pool[seed % len(pool)]


def register_envs() -> list[str]:
    """Register one env id per task of every installed pack (from the files: no database needed)."""
    from catalogue.packs import task_files
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


_django_ready()
if not register_envs():
    raise ImportError("episodes.gym registered no environment: no installed pack has a task file")
