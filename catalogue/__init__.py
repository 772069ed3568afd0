"""The task catalogue: tasks, suites and task packs."""
