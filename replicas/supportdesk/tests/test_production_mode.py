"""A world's 404 page is the world's own and names none of its routes, with DEBUG on or off."""

import pytest

pytestmark = pytest.mark.django_db

# text of Django's debug 404 page, and of routes it would list
ROUTE_LEAKS = [b"URLconf", b"agent/tickets/", b"api/v2/billing", b"auth/login", b"tried these URL patterns"]


def test_a_worlds_404_page_lists_no_routes_with_debug_on_or_off(world, world_client, settings):
    client = world_client(world)
    for debug in (True, False):
        settings.DEBUG = debug
        # no route; a route whose view finds nothing; the platform's own paths
        for path in ("/agent/no-such-page", "/agent/tickets/99999999", "/admin/", "/api/tasks"):
            response = client.get(path)
            assert response.status_code == 404, (debug, path)
            assert b"Page not found" in response.content, (debug, path)
            assert not [leak for leak in ROUTE_LEAKS if leak in response.content], (debug, path)
        # the billing API keeps its own JSON answer
        response = client.get("/api/v2/billing/payments/ch_nope/quote")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
