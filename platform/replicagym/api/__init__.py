"""The platform's REST API: tasks and episodes for agents that bring their own browser."""
