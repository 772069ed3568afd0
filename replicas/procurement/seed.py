"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "6b227318a5f3203914793f00d9cb471ca77f1734f1f637f40f291c42bb9e135a"

generate = RUNTIME.seeder.generate
