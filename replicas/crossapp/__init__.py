"""The cross-app task pack (catalogue.packs.WORKSPACE_PACK): tasks played in a workspace, one app per tab.

No Django app: a folder of task files and the params functions that read a template workspace. Those read
the group's state as verifiers do (tables named `<replica>.<model>`), never a replica's models, so the pack
imports no replica and every replica stays independent of it.
"""
