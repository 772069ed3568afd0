"""Functions run in spawned processes by tests/test_world_pool.py: nothing imports models at module level
(a spawned child unpickles these before Django is set up)."""


def child_setup(db_name: str):
    """The parent's (test) database, then Django; the settings module comes from the inherited environment."""
    import django
    from django.conf import settings

    settings.DATABASES["default"]["NAME"] = db_name
    django.setup()


def claim_in_child(key: dict):
    from replicas.worlds.pool import pool_claim

    world = pool_claim(**key)
    return world.pk if world is not None else None
