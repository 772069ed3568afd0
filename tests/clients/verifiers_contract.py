"""verifiers' v0 interface, as its docs and source (verifiers 0.3.1, `verifiers.legacy`) define it, for a contract test.

The library cannot be imported here: this project's own top-level package is named `verifiers`, and
verifiers 0.3.x pins mcp 2.0 where the MCP gateway needs 2.3 (0.4.0 has no MultiTurnEnv at all). So the
adapter is loaded against this stand-in, which keeps what the adapter relies on: `MultiTurnEnv(max_turns=...,
dataset=..., rubric=...)`, the `@vf.stop` and `@vf.cleanup` method decorators, `Rubric(funcs, weights)`
whose functions get the keyword arguments they name; and `play_rollout` runs a rollout in the library's
order: setup_state, then model turn and env_response until a stop condition or max_turns, the cleanup
methods, then the rubric.
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

    async def score(self, **objects) -> float:
        total = 0.0
        for func, weight in zip(self.funcs, self.weights, strict=True):
            accepted = inspect.signature(func).parameters
            given = (
                objects
                if any(p.kind is p.VAR_KEYWORD for p in accepted.values())
                else {k: v for k, v in objects.items() if k in accepted}
            )
            total += weight * float(await func(**given))
        return total


class MultiTurnEnv:
    def __init__(self, max_turns: int = -1, timeout_seconds=None, dataset=None, rubric=None, **kwargs):
        self.max_turns, self.dataset, self.rubric = max_turns, dataset, rubric or Rubric()

    async def setup_state(self, state, **kwargs):
        return state

    def _marked(self, kind):
        found = [getattr(self, n) for n in dir(type(self)) if getattr(getattr(type(self), n), kind, False)]
        return sorted(found, key=lambda m: -getattr(m, f"{kind}_priority"))


def stub_verifiers(monkeypatch):
    """The adapter module, loaded with this stand-in as `verifiers` (sys.modules is restored after the test)."""
    stub = types.ModuleType("verifiers")
    stub.MultiTurnEnv, stub.Rubric, stub.stop, stub.cleanup = MultiTurnEnv, Rubric, _mark("stop"), _mark("cleanup")
    monkeypatch.setitem(sys.modules, "verifiers", stub)
    spec = importlib.util.spec_from_file_location("replicagym_client.verifiers_env", ADAPTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def play_rollout(env, row: dict, make_policy) -> dict:
    """One rollout of `row` with a scripted policy (`make_policy(goal)`, its `reply(text)` the model's turn)."""
    state = {"prompt": list(row["prompt"]), "info": dict(row["info"]), "trajectory": []}
    state = await env.setup_state(state) or state
    first = state["prompt"][-1]["content"]
    policy = make_policy(first.partition("\n")[0].removeprefix("Goal: "))
    messages, seen = list(state["prompt"]), first
    while True:
        reply = policy.reply(seen)
        messages.append({"role": "assistant", "content": reply})
        state["trajectory"].append(reply)
        if any([await stop(state) for stop in env._marked("stop")]):
            break
        if 0 < env.max_turns <= len(state["trajectory"]):
            break
        response = await env.env_response(messages, state)
        messages += response
        seen = response[-1]["content"]
        if any([await stop(state) for stop in env._marked("stop")]):
            break
    reward = await env.rubric.score(state=state, prompt=state["prompt"], completion=messages, info=state["info"])
    client = state["replicagym"]["client"]
    for cleanup in env._marked("cleanup"):
        await cleanup(state)
    return {"reward": reward, "turns": len(state["trajectory"]), "closed": client._ws is None}
