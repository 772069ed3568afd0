"""Workspaces: a support desk, a board and a shop made together from one seed share people (one
sign-in each), cite each other's records, move on one clock and hash as one state."""

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.utils import timezone as djtz

from replicas.board.models import Issue, Project
from replicas.shop.models import Order as ShopOrder
from replicas.supportdesk.models import Comment, Ticket, User
from replicas.supportdesk.models import Order as DeskOrder
from replicas.worlds.models import Workspace, World
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import InvalidWorldRequest, template_get_or_build, world_gc
from replicas.worlds.signin import WorldSignIn
from replicas.worlds.workspaces import (
    InvalidWorkspaceOffer,
    _checked_offer,
    workspace_clock_advance,
    workspace_create,
    workspace_diff,
    workspace_gc,
    workspace_sign_ins,
    workspace_snapshot,
    workspace_state_hash,
    workspace_world,
    workspace_worlds,
)

APPS = ["supportdesk", "board", "shop"]
pytestmark = pytest.mark.django_db


def _client_on(client, world):
    client.defaults["HTTP_HOST"] = f"w-{world.token}.localhost:8000"
    client.cookies.pop(settings.SESSION_COOKIE_NAME, None)
    return client


def _sign_in(client, world, email, password):
    """Posts each replica's own sign-in form; the session's signed-in id (None when refused)."""
    config = get_replica(world.replica)
    response = _client_on(client, world).post(config.login_path, {"email": email, "password": password})
    who = {"supportdesk": "agent", "board": "person", "shop": "account"}[world.replica]
    return response, client.session.get(f"{world.replica}_{who}")


def test_a_three_app_workspace_shares_people_references_and_one_clock(client, monkeypatch):
    workspace = workspace_create(replicas=APPS, seed=7, variant="small")
    desk, board, shop = (workspace_world(workspace, r) for r in APPS)
    assert [w.replica for w in workspace_worlds(workspace)] == ["board", "shop", "supportdesk"]

    # one employee, one sign-in, three apps: each replica's own form accepts the workspace password
    employee = next(s for s in workspace_sign_ins(workspace) if s["person"] == "employee-1")
    assert employee["apps"] == ["board", "shop", "supportdesk"]
    for world in (desk, board, shop):
        expected = next(k for k, v in workspace.sign_ins[world.replica].items() if v == "employee-1")
        response, signed_in = _sign_in(client, world, employee["email"].upper(), employee["password"])
        assert response.status_code == 302, world.replica
        assert str(signed_in) == expected
        page = client.get(response["Location"], follow=True)
        # every app greets the person by the shared name (the shop by the first name only)
        assert page.status_code == 200 and employee["name"].split()[0] in page.content.decode(), world.replica
        # the replica's own password for that user no longer opens it, nor another shared person's
        own = WorldSignIn(replica=world.replica, who="x").password(seed=7, user_id=expected)
        other = next(s for s in workspace_sign_ins(workspace) if s["person"] == "employee-2")["password"]
        for wrong in (own, other):
            assert _sign_in(client, world, employee["email"], wrong)[1] is None, world.replica

    # the same customer in the desk and the shop, with the same orders; the desk's tickets cite them
    customer = workspace.people["customer"][0]
    with bound_world(desk):
        requester = User.objects.get(email=customer["email"])
        assert requester.name == customer["name"]
        cited = list(Ticket.objects.filter(requester=requester).exclude(order_number="").values_list("order_number"))
        desk_orders = {o.public_id: o.total for o in DeskOrder.objects.filter(customer=requester)}
        escalated = Comment.objects.filter(public=False, body__startswith="Escalated to engineering").select_related(
            "ticket"
        )
        mentions = {c.body.split("tracked as ")[1].split(" ")[0]: c.ticket.public_id for c in escalated}
        product = Ticket.Product(Ticket.objects.get(public_id=next(iter(mentions.values()))).product).label
    assert cited and mentions
    with bound_world(shop):
        shop_orders = {o.public_id: o for o in ShopOrder.objects.filter(account__email=customer["email"])}
        assert {number for (number,) in cited} <= set(shop_orders)
        assert {n: o.total for n, o in shop_orders.items()} == {n: desk_orders[n] for n in shop_orders}
    # the board has a project for the desk's product, and the work items the tickets mention
    with bound_world(board):
        for key, ticket in mentions.items():
            issue = Issue.objects.select_related("project").get(key=key)
            assert f"support ticket #{ticket}" in issue.description
            assert issue.project.name == product
        assert Project.objects.filter(name=product).count() == 1

    # one clock: an advance moves every member the same, running each replica's automations
    ran = []
    for name in APPS:
        config = get_replica(name)
        monkeypatch.setattr(type(config), "on_clock_advance", lambda self, world: ran.append((self.label, world.token)))
    before = {w.replica: w.clock for w in workspace_worlds(workspace)}
    assert len(set(before.values())) == 1
    now = workspace_clock_advance(workspace=workspace, seconds=3600)
    after = {w.replica: w.clock for w in workspace_worlds(workspace)}
    assert set(after.values()) == {now} and now - before["shop"] == timedelta(hours=1)
    assert sorted(ran) == sorted((w.replica, w.token) for w in (desk, board, shop))


def test_the_same_seed_gives_the_same_group_hash_and_another_seed_another():
    first = workspace_create(replicas=APPS, seed=7, variant="small")
    out = StringIO()
    call_command(
        "workspace", "create", "--replicas", "shop,supportdesk,board", "--seed", "7", "--variant", "small", stdout=out
    )
    printed = json.loads(out.getvalue())
    snap = workspace_snapshot(first)
    assert printed["state_hash"] == workspace_state_hash(snap)
    assert [w["replica"] for w in printed["worlds"]] == ["board", "shop", "supportdesk"]
    assert all(w["origin"].startswith(f"http://w-{w['world']}.") for w in printed["worlds"])
    assert {s["person"] for s in printed["sign_ins"]} >= {"employee-1", "customer-1"}
    # the clones' hashes are those their template recorded
    assert all(w.state_hash == workspace_state_hash(snap["worlds"][w.replica]) for w in workspace_worlds(first))

    other = workspace_snapshot(workspace_create(replicas=APPS, seed=8, variant="small"))
    assert workspace_state_hash(other) != workspace_state_hash(snap)
    changed = workspace_diff(snap, other)
    assert changed["before"] != changed["after"] and set(changed["worlds"]) == set(APPS)


def test_a_change_in_one_member_shows_in_the_group_diff_of_that_member_only():
    workspace = workspace_create(replicas=["board", "shop"], seed=7, variant="small")
    before = workspace_snapshot(workspace)
    with bound_world(workspace_world(workspace, "shop")):
        order = ShopOrder.objects.order_by("public_id").first()
        order.status = "cancelled" if order.status != "cancelled" else "delivered"
        order.save(update_fields=["status"])
    changed = workspace_diff(before, workspace_snapshot(workspace))
    assert changed["totals"] == {"added": 0, "removed": 0, "changed": 1}
    assert changed["worlds"]["board"]["totals"]["changed"] == 0
    assert list(changed["worlds"]["shop"]["tables"]["shop.order"]["changed"]) == [order.public_id]


def test_members_are_neither_their_replicas_templates_nor_collected_one_by_one():
    workspace = workspace_create(replicas=["board", "shop"], seed=7, variant="small")
    member = workspace_world(workspace, "shop")
    # the replica's own template is its own: the workspace's adopted copy is never handed out for a plain world
    template = template_get_or_build(replica="shop", seed=7, variant="small")
    assert template.workspace_id is None and template.state_hash != member.state_hash
    World.objects.filter(workspace=workspace).update(last_used_at=djtz.now() - timedelta(days=3))
    assert world_gc(older_than=timedelta(hours=1))["worlds"] == 0
    assert World.objects.filter(workspace=workspace).count() == 2
    assert workspace_gc(older_than=timedelta(hours=1)) == {"workspaces": 1, "templates": 0}
    assert not World.objects.filter(workspace=workspace).exists()
    assert not Workspace.objects.filter(pk=workspace.pk).exists()
    assert Workspace.objects.filter(is_template=True, replicas="board,shop").count() == 1


@pytest.mark.parametrize(
    "replicas, error",
    [(["shop"], "at least two"), (["shop", "shop"], "each replica once"), (["shop", "nope"], "unknown replica")],
)
def test_bad_workspace_requests_are_refused(replicas, error):
    with pytest.raises((InvalidWorldRequest, LookupError), match=error):
        workspace_create(replicas=replicas, seed=7, variant="small")


@pytest.mark.parametrize(
    "offer, error",
    [
        ([], "dict of 'people'"),
        ({"people": {"employee": [{"name": "A"}]}}, "name and an email"),
        ({"references": {"order": [{"person": ["customer", 0]}]}}, r"\[kind, index\]"),
        ({"people": {"customer": []}, "references": {"order": [{"person": ["customer", -1]}]}}, r"\[kind, index\]"),
        ({"references": {"order": "ORD-1"}}, "to a list"),
    ],
)
def test_an_offer_outside_the_contract_is_named(offer, error):
    with pytest.raises(InvalidWorkspaceOffer, match=error):
        _checked_offer("somereplica", offer)


def test_the_schedulers_tick_collects_a_workspace_left_unused():
    from episodes.queue.workers import scheduler_tick

    kept = workspace_create(replicas=["board", "shop"], seed=7, variant="small")
    left = workspace_create(replicas=["board", "shop"], seed=7, variant="small")
    World.objects.filter(workspace=left).update(last_used_at=djtz.now() - timedelta(days=3))
    assert scheduler_tick(gc_after=timedelta(hours=1))["workspaces_collected"] == 1
    assert not Workspace.objects.filter(pk=left.pk).exists() and not World.objects.filter(workspace=left).exists()
    assert World.objects.filter(workspace=kept).count() == 2
