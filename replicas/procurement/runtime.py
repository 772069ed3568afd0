"""This replica's runtime: the shared enterprise runtime (replicas/worlds/enterprise/: pages, REST endpoints, writes
under the anchor's policies, seed generator) bound to its spec.json. Written by the environment factory."""

from pathlib import Path

from replicas.worlds.enterprise.runtime import Enterprise

RUNTIME = Enterprise(Path(__file__).parent / "spec.json")
