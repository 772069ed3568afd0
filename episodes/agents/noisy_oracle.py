"""A noisy oracle: the task's reference solution played with seeded slips, a baseline that makes the
quality gate meaningful offline (the oracle always passes, the random agent almost never does).

Before each reference step, with probability `rate`, the agent slips in one of three ways a
careless person does: it acts on the wrong element (a click on another visible control in place
of the step), skips the step, or stops early. The slips depend only on (seed, episode seed, step),
so an episode replays the same way and the k attempts of a run (episode seeds 0..k-1) differ.
"""

import json
import random

from verifiers.actions import ActionError, parse_action

from .base import AgentError
from .random_agent import interactive_elements
from .scripted import OracleAgent

SLIPS = ("wrong_element", "skipped_step", "early_stop")
DEFAULT_RATE = 0.05  # about 60% of clean runs over a 10-step reference: the middle band the gate keeps


class NoisyOracleAgent(OracleAgent):
    name = "noisy-oracle"

    def __init__(self, actions: list[str], *, rate: float = DEFAULT_RATE, seed: int = 0, episode_seed: int = 0):
        super().__init__(actions)
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
            raise AgentError(f"the slip rate must be a number between 0 and 1, not {rate!r}")
        for value, what in ((seed, "seed"), (episode_seed, "episode seed")):
            if isinstance(value, bool) or not isinstance(value, int):
                raise AgentError(f"the noisy oracle's {what} must be an integer, not {value!r}")
        self.rate = float(rate)
        self.seed = seed
        self.episode_seed = episode_seed
        self.slips: list[dict] = []  # what went wrong, for tests and the curious: [{"step", "slip", "action"}]
        self.rng = self._fresh_rng()

    def _fresh_rng(self) -> random.Random:
        # a string seed is hashed with SHA-512 by random.Random: stable across processes and runs
        return random.Random(f"noisy-oracle:{self.seed}:{self.episode_seed}")

    def reset(self, task_info=None):
        super().reset(task_info)
        self.slips = []
        self.rng = self._fresh_rng()

    def act(self, observation) -> str | None:
        while self.position < len(self.actions):
            step = self.position
            # two draws per reference step whatever happens, so one slip does not reshuffle the rest
            slipped = self.rng.random() < self.rate
            kind = self.rng.choice(SLIPS)
            if not slipped:
                self.position += 1
                return self.actions[step]
            if kind == "early_stop":
                self.slips.append({"step": step, "slip": kind, "action": None})
                self.position = len(self.actions)
                return None
            self.position += 1
            if kind == "skipped_step":
                self.slips.append({"step": step, "slip": kind, "action": None})
                continue
            wrong = self._wrong_element(observation, self.actions[step])
            self.slips.append({"step": step, "slip": kind, "action": wrong})
            if wrong is not None:
                return wrong
            # nothing else to click on this page: the slip becomes a skipped step
        return None

    def _wrong_element(self, observation, intended: str) -> str | None:
        """A click on a visible control other than the one the step acts on, or None if there is none."""
        try:
            target = getattr(parse_action(intended), "element", None)
        except ActionError:
            target = None
        axtree = getattr(observation, "axtree", None) or ""
        elements = [e for e in interactive_elements(axtree) if e["bid"] != target and e["name"] != target]
        if not elements:
            return None
        return f"click({json.dumps(self.rng.choice(elements)['bid'])})"


def noisy_oracle_from_spec(arg: str, *, oracle: OracleAgent, episode_seed: int) -> NoisyOracleAgent:
    """The agent of `noisy-oracle[:RATE[:SEED]]` playing `oracle`'s actions; AgentError says what is wrong."""
    rate_text, _, seed_text = arg.partition(":")
    rate, seed = DEFAULT_RATE, 0
    if rate_text:
        try:
            rate = float(rate_text)
        except ValueError:
            raise AgentError(f"noisy-oracle:RATE needs a slip rate between 0 and 1, not {rate_text!r}") from None
    if seed_text:
        try:
            seed = int(seed_text)
        except ValueError:
            raise AgentError(f"noisy-oracle:RATE:SEED needs an integer seed, not {seed_text!r}") from None
    return NoisyOracleAgent(oracle.actions, rate=rate, seed=seed, episode_seed=episode_seed)
