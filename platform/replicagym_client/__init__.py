"""A Django-free client of ReplicaGym's OpenEnv server, and adapters for RL trainers built on it.

- `ReplicaGymClient` / `AsyncReplicaGymClient` (`client`): reset, step, finish, state over the WebSocket;
- `trl_env.ReplicaGymToolEnv` and `trl_env.reward`: TRL GRPOTrainer's `environment_factory`;
- `verifiers_env.load_environment`: a verifiers MultiTurnEnv with its Rubric;
- `skyrl_env.ReplicaGymTextEnv`: a SkyRL-gym BaseTextEnv.
The adapters import their trainer's library; the clients need only `websockets`.
"""

from .client import AsyncReplicaGymClient, ReplicaGymClient, ReplicaGymError, StepResult

__all__ = ["AsyncReplicaGymClient", "ReplicaGymClient", "ReplicaGymError", "StepResult"]
