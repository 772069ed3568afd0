"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "1d75b9cc6ff7f2d0c2303b4fcc1fdff780dc91c2655d3e856b5f1ab2ec6e4b4b"

generate = RUNTIME.seeder.generate
