"""Test clients of the shop's tests."""

from replicas.shop.signin import account_password


def client_as(world_client, world, account):
    """A test client on `world`'s origin, signed in as `account` through the store's own sign-in form."""
    client = world_client(world, signed_in=False)
    client.post(
        "/ap/signin",
        {"email": account.email, "password": account_password(seed=world.seed, public_id=account.public_id)},
    )
    return client
