"""The registry orders the support desk's world models parents first: its models hold the deepest
chain of foreign keys of any replica (Organization -> User -> Ticket -> Comment), so the ordering
that cloning and deleting rely on is checked here as well as on the testbed (tests/test_worlds.py)."""

from replicas.worlds.registry import get_replica


def test_registry_orders_the_desk_models_parents_first():
    config = get_replica("supportdesk")
    names = [m.__name__ for m in config.world_models]
    assert names.index("User") < names.index("Ticket") < names.index("Comment")
    assert names.index("Organization") < names.index("User")
    assert "default" in config.variants and config.start_pages
