"""The work queue: claiming episodes, heartbeats and sweeping lost workers, the worker loops."""
