"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "5b5e9df2387cf5955a274f2e03c642743e7e0ddbdf5e9f48067a83bc4d829c4b"

generate = RUNTIME.seeder.generate
