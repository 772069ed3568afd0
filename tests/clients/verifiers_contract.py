"""verifiers' v0 interface, as its docs and source (verifiers 0.3.1, `verifiers.legacy`) define it, for a contract test.

The library cannot be imported here: this project's own top-level package is named `verifiers`, and
verifiers 0.3.x pins mcp 2.0 where the MCP gateway needs 2.3 (0.4.0 has no MultiTurnEnv at all). So the
adapter is loaded against this stand-in, which keeps what the adapter relies on: `MultiTurnEnv(max_turns=...,
dataset=..., rubric=...)`, the `@vf.stop` and `@vf.cleanup` method decorators, `Rubric(funcs, weights)`
whose functions get the keyword arguments they name, `score_rollout(state)`; `is_completed(state)` and
`cleanup(state)` running the decorated methods, `init_state(row, client, model)` refusing a string
`info["task"]` (the library's own task payload). examples/verifiers_episodes.py drives a rollout through them.
"""

import importlib.util
import inspect
import sys
import types
from pathlib import Path

ADAPTER = Path(__file__).resolve().parents[2] / "platform" / "replicagym_client" / "verifiers_env.py"


def _mark(kind):
    def decorator(func=None, *, priority: int = 0, **kwargs):
        def mark(f):
            setattr(f, kind, True)
            setattr(f, f"{kind}_priority", priority)
            return f

        return mark(func) if func is not None else mark

    return decorator


class Rubric:
    def __init__(self, funcs=None, weights=None, parser=None):
        self.funcs = funcs or []
        self.weights = weights or [1.0] * len(self.funcs)
        if len(self.weights) != len(self.funcs):
            raise ValueError("Number of weights must match number of functions")

    async def score_rollout(self, state):
        """Each function called with the rollout objects it names (all of them if it takes **kwargs)."""
        objects = {"state": state, "prompt": state["prompt"], "completion": state["completion"], "info": state["info"]}
        total = 0.0
        for func, weight in zip(self.funcs, self.weights, strict=True):
            accepted = inspect.signature(func).parameters
            takes_all = any(p.kind is p.VAR_KEYWORD for p in accepted.values())
            total += weight * float(await func(**{k: v for k, v in objects.items() if takes_all or k in accepted}))
        state["reward"] = total


class ClientConfig:
    """The model client's configuration, which a rollout's state records."""


class MultiTurnEnv:
    def __init__(self, max_turns: int = -1, timeout_seconds=None, dataset=None, rubric=None, **kwargs):
        self.max_turns, self.dataset, self.rubric = max_turns, dataset, rubric or Rubric()

    async def init_state(self, input, client, model, sampling_args=None):
        """The row's fields and the rollout's bookkeeping; `info["task"]` is the library's own task payload, a JSON
        object (a plain string is refused, as verifiers 0.3 refuses it)."""
        if isinstance((input.get("info") or {}).get("task"), str):
            raise ValueError("Serialized task payloads must be JSON objects.")
        if not isinstance(client, ClientConfig):
            raise TypeError("client must be a Client or a ClientConfig")
        return {
            "prompt": list(input["prompt"]),
            "info": dict(input.get("info") or {}),
            "model": model,
            "trajectory": [],
            "completion": None,
            "reward": None,
            "final_env_response": None,
        }

    async def setup_state(self, state, **kwargs):
        return state

    async def is_completed(self, state, **kwargs) -> bool:
        """The library's own stop conditions that apply here (max_turns, a final env response), then the subclass's."""
        if 0 < self.max_turns <= len(state["trajectory"]) or state.get("final_env_response") is not None:
            return True
        return any([await stop(state=state, env=self) for stop in self._marked("stop")])

    async def cleanup(self, state, **kwargs):
        for handler in self._marked("cleanup"):
            await handler(state=state, env=self)

    def _marked(self, kind):
        found = [getattr(self, n) for n in dir(type(self)) if getattr(getattr(type(self), n), kind, False)]
        return sorted(found, key=lambda m: -getattr(m, f"{kind}_priority"))


def stub_verifiers(monkeypatch):
    """The adapter module, loaded with this stand-in as `verifiers` (sys.modules is restored after the test)."""
    stub = types.ModuleType("verifiers")
    stub.MultiTurnEnv, stub.Rubric, stub.ClientConfig = MultiTurnEnv, Rubric, ClientConfig
    stub.stop, stub.cleanup = _mark("stop"), _mark("cleanup")
    monkeypatch.setitem(sys.modules, "verifiers", stub)
    spec = importlib.util.spec_from_file_location("replicagym_client.verifiers_env", ADAPTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
