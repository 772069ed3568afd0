"""Benchmarks of ReplicaGym's hot paths: world reset, episode start and step, throughput,
the replica server under load, memory, and a side-by-side run with BrowserGym.

`manage.py bench` runs them; each section is a function returning a JSON-able dict.
"""
