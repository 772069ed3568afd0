"""Security actions on a customer's profile (identity verification first) through the test client."""

import pytest

from replicas.supportdesk.models import User
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _customer(world, **filters):
    with bound_world(world):
        return (
            User.objects.filter(role=User.Role.END_USER, requested_tickets__isnull=False, **filters)
            .order_by("public_id")
            .first()
        )


def test_password_reset_without_identity_verification_is_refused_and_changes_nothing(world, world_client):
    customer = _customer(world)
    before = state_hash(snapshot(world))
    response = world_client(world).post(f"/agent/users/{customer.public_id}/security/password-reset")
    assert response.status_code == 400
    assert b'role="alert"' in response.content
    assert state_hash(snapshot(world)) == before


def test_verify_identity_needs_a_method_and_a_value(world, world_client):
    customer = _customer(world)
    before = state_hash(snapshot(world))
    response = world_client(world).post(
        f"/agent/users/{customer.public_id}/security/verify", {"method": "card_last4", "value": ""}
    )
    assert response.status_code == 400
    assert b"Choose a verification method" in response.content
    assert state_hash(snapshot(world)) == before


def test_unknown_security_action_is_404(world, world_client):
    customer = _customer(world)
    assert world_client(world).post(f"/agent/users/{customer.public_id}/security/delete-everything").status_code == 404
