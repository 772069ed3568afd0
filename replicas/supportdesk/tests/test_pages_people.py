"""Customer profiles, organizations, the knowledge base, search and admin pages through the test client."""

import pytest
from django.utils.html import escape

from replicas.supportdesk.models import Article, Organization, Ticket, User
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db


def _customer(world, **filters):
    with bound_world(world):
        return (
            User.objects.filter(role=User.Role.END_USER, requested_tickets__isnull=False, **filters)
            .order_by("public_id")
            .first()
        )


def test_customer_profile_shows_details_tickets_and_security_actions(world, world_client):
    customer = _customer(world)
    html = world_client(world).get(f"/agent/users/{customer.public_id}").content.decode()
    assert escape(customer.name) in html and customer.email in html
    with bound_world(world):
        ticket = Ticket.objects.filter(requester=customer).first()
    assert f"/agent/tickets/{ticket.public_id}" in html
    for action in ["Verify identity", "Send password reset", "Unlock account", "Reset two-factor"]:
        assert action in html


def test_unknown_user_is_404(world, world_client):
    assert world_client(world).get("/agent/users/1").status_code == 404


def test_customers_list_and_search(world, world_client):
    customer = _customer(world)
    client = world_client(world)
    assert client.get("/agent/customers").status_code == 200
    found = client.get("/agent/customers", {"q": customer.email}).content.decode()
    assert f"/agent/users/{customer.public_id}" in found


def test_organizations_list_and_page(world, world_client):
    with bound_world(world):
        org = Organization.objects.order_by("public_id").first()
    client = world_client(world)
    assert escape(org.name) in client.get("/agent/organizations").content.decode()
    assert escape(org.name) in client.get(f"/agent/organizations/{org.public_id}").content.decode()
    assert client.get("/agent/organizations/1").status_code == 404


def test_knowledge_base_lists_and_shows_articles(world, world_client):
    with bound_world(world):
        article = Article.objects.filter(draft=False).order_by("public_id").first()
    client = world_client(world)
    assert escape(article.title) in client.get("/hc/en-us/articles").content.decode()
    page = client.get(f"/hc/en-us/articles/{article.public_id}")
    assert page.status_code == 200 and escape(article.title) in page.content.decode()
    assert client.get("/hc/en-us/articles/1").status_code == 404


def test_search_page_finds_tickets_by_subject_words(world, world_client):
    with bound_world(world):
        ticket = Ticket.objects.order_by("public_id").first()
    word = ticket.subject.split()[0]
    html = world_client(world).get("/agent/search", {"q": word}).content.decode()
    assert f"/agent/tickets/{ticket.public_id}" in html


def test_admin_page_lists_groups_and_agents(world, world_client):
    html = world_client(world).get("/agent/admin").content.decode()
    assert "Tier 2 Billing" in html and "Team members" in html
