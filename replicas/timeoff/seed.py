"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "b909398385269223556a70a5c648136cc1a4e90c6bc66ebc1d2c1f7d30737ba5"

generate = RUNTIME.seeder.generate
