"""openenv-core's clients and models, and a BrowserGym client as TRL's example writes it, for the OpenEnv gateway's
tests. A module of its own so that only the test process that runs those tests imports openenv-core: its package
imports gradio (about 4 s of CPU), which every xdist worker would otherwise pay while collecting, on each backend."""

from openenv.cli._validation import validate_running_environment
from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.types import (
    Action,
    EnvironmentMetadata,
    HealthResponse,
    Observation,
    ResetResponse,
    SchemaResponse,
    State,
    StepResponse,
    WSErrorResponse,
    WSObservationResponse,
    WSStateResponse,
)
from openenv.core.generic_client import GenericEnvClient

__all__ = [
    "validate_running_environment",
    "StepResult",
    "EnvClient",
    "Action",
    "EnvironmentMetadata",
    "HealthResponse",
    "Observation",
    "ResetResponse",
    "SchemaResponse",
    "State",
    "StepResponse",
    "WSErrorResponse",
    "WSObservationResponse",
    "WSStateResponse",
    "GenericEnvClient",
    "BrowserGymAction",
    "BrowserGymObservation",
    "BrowserGymEnv",
]


class BrowserGymAction(Action):
    """OpenEnv's browsergym_env action, as its models declare it (openenv-core does not ship them)."""

    action_str: str


class BrowserGymObservation(Observation):
    """OpenEnv's browsergym_env observation fields and types (extra fields forbidden, as Observation does)."""

    text: str = ""
    url: str = ""
    screenshot: list[list[list[int]]] | None = None
    goal: str = ""
    axtree_txt: str = ""
    pruned_html: str = ""
    error: str = ""
    last_action_error: bool = False


class BrowserGymEnv(EnvClient):
    """A client following browsergym_env's documented interface: it sends action_str and reads those fields."""

    def _step_payload(self, action):
        return action.model_dump()

    def _parse_result(self, payload):
        obs = payload.get("observation", {})
        named = {name: obs[name] for name in BrowserGymObservation.model_fields if name in obs and name != "metadata"}
        observation = BrowserGymObservation(
            **named, done=payload.get("done", False), reward=payload.get("reward"), metadata=obs.get("metadata", {})
        )
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload):
        return State.model_validate(payload)
