"""Servers that put episodes where RL stacks expect them: OpenEnv (HTTP and WebSocket) and MCP."""
