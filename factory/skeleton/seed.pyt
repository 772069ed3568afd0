"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "__ANCHOR_SHA256__"

generate = RUNTIME.seeder.generate
