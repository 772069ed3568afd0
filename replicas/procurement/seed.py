"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "c0fd214d7573e53647714706dffd7250172f0fbbf001ab07b9e62582e4d86798"

generate = RUNTIME.seeder.generate
