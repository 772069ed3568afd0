"""Seed generator: the shared runtime's (replicas/worlds/enterprise/seeding.py) over this replica's spec: the people
of each role and every entity's records, then the anchor's complexity layers and the history the states imply."""

from .runtime import RUNTIME

# changes with the anchor, so template worlds are rebuilt when the anchor does (ReplicaConfig.generator_version)
ANCHOR_SHA256 = "c5f16e1613a31525d0f2daf1fd60ee80267d3ecc3ecc7a4cea4993c29c620c7c"

generate = RUNTIME.seeder.generate
