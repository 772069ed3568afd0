"""One world template per test module, instead of one per test.

A test that makes a world inside its rolled-back transaction builds the world's template
there too (seconds for a product replica), and the rollback throws it away again. A module
that uses `module_template(...)` builds it once, committed, before its first test; every
test then clones it (milliseconds). After the module it is removed, since other modules
expect an empty database. A transactional test's flush removes it as well: the tests after
it in that module build their own, as they would without this fixture.
"""

import pytest
from django.db import connection

from replicas.worlds.models import World
from replicas.worlds.services import template_get_or_build, world_delete


def module_template(replica: str, *seeds: int, variant: str = "small"):
    """An autouse module-scoped fixture committing the templates of (replica, seed, variant) for each of `seeds`
    (seed 7 when none is given: the seed of most tasks)."""
    seeds = seeds or (7,)

    @pytest.fixture(scope="module", autouse=True)
    def committed_template(django_db_setup, django_db_blocker):
        with django_db_blocker.unblock():
            for seed in seeds:
                template_get_or_build(replica=replica, seed=seed, variant=variant)
        yield
        with django_db_blocker.unblock():
            for template in World.objects.filter(is_template=True, replica=replica, seed__in=seeds, variant=variant):
                world_delete(world=template)
            # the connection this opens after a browser test was left open at the end of the session (PostgreSQL
            # then refused to drop the test database: "being accessed by other users"); it is not needed after this
            connection.close()

    return committed_template
