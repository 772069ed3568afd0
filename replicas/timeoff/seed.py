"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "25291df89bb59a0076edfe19f055e1c5a06f6cd937189c46e5c2b842ecc9095e"

generate = RUNTIME.seeder.generate
