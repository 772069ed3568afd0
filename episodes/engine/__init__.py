"""The episode engine proper: the browser, what the agent observes, the replica server, the agent loop."""
