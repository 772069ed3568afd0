"""The shared runtime of the replicas the environment factory compiles (`manage.py factory build`, docs/factory.md):
pages, REST endpoints, writes under the anchor's policies and the seed generator, parameterised by the replica's
spec.json. A compiled replica holds only its domain (spec, models, graph, tasks) and thin modules that bind this
runtime to it (runtime.Enterprise). Kept light: apps.py imports config before the models are loaded."""
