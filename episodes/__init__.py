"""The episode engine: browser runner, observations, actions, agents, trajectories, gym API."""
