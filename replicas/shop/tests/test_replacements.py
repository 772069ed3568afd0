"""The back office's "Create replacement": a new order, free of charge, to the original's address, linked to
the lines it replaces, shown on both orders and in the customer's Your Orders; refused input changes nothing."""

from decimal import Decimal

import pytest

from replicas.shop.models import Account, Order, OrderItem, Replacement, Variant
from replicas.shop.tests.clients import client_as
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def _staff(world_client, world):
    with bound_world(world):
        staff = Account.objects.filter(role="staff").order_by("public_id").first()
    return client_as(world_client, world, staff)


def _delivered_order(lines: int = 2) -> Order:
    """An order with at least `lines` delivered, active lines whose variants are in stock."""
    for order in Order.objects.order_by("public_id"):
        items = [
            i
            for i in order.items.select_related("variant")
            if i.status == "active" and i.delivered_at and i.variant.stock >= i.quantity
        ]
        if len(items) >= lines and len(items) == order.items.count():
            return order
    raise AssertionError("the seed has no such order")


def _post(staff, order, lines, reason="damaged", **quantities):
    data = {"lines": [str(n) for n in lines], "reason": reason}
    data.update({f"qty-{n}": str(q) for n, q in quantities.items()})
    return staff.post(f"/backoffice/orders/{order.public_id}/replace", data)


def test_a_replacement_is_a_free_order_to_the_same_address_linked_both_ways(shop, world_client):
    staff = _staff(world_client, shop)
    with bound_world(shop):
        order = _delivered_order()
        item = order.items.select_related("variant").order_by("line").last()
        stock = item.variant.stock
        expected = f"ORD-{max(int(o[4:]) for o in Order.objects.values_list('public_id', flat=True)) + 1}"
    done = _post(staff, order, [item.line], **{str(item.line): item.quantity})
    assert done.status_code == 302 and done["Location"] == f"/backoffice/orders/{order.public_id}"
    page = staff.get(done["Location"]).content.decode()
    assert f"Replacement order {expected} created, at no charge." in page
    assert f'replaced ×{item.quantity} by <a href="/backoffice/orders/{expected}">{expected}</a>' in page
    with bound_world(shop):
        new = Order.objects.get(public_id=expected)
        assert (new.account_id, new.status, new.total, new.subtotal, new.card_id) == (
            order.account_id,
            "placed",
            Decimal("0.00"),
            Decimal("0.00"),
            None,
        )
        address = ("ship_name", "ship_line1", "ship_line2", "ship_city", "ship_state", "ship_zip")
        assert [getattr(new, f) for f in address] == [getattr(order, f) for f in address]
        (line,) = new.items.all()
        assert (line.variant_id, line.quantity, line.unit_price) == (item.variant_id, item.quantity, Decimal("0.00"))
        link = Replacement.objects.get()
        assert (link.item_id, link.order_id, link.quantity, link.reason) == (item.id, new.id, item.quantity, "damaged")
        assert Variant.objects.get(pk=item.variant_id).stock == stock - item.quantity
        assert OrderItem.objects.get(pk=item.pk).status == "active"  # the damaged line is kept, not returned
    theirs = staff.get(f"/backoffice/orders/{expected}").content.decode()
    assert f'Replacement order for <a href="/backoffice/orders/{order.public_id}">{order.public_id}</a>' in theirs
    with bound_world(shop):
        customer = client_as(world_client, shop, order.account)
    orders = customer.get("/your-orders", {"timeFilter": "all"}).content.decode()
    assert f'replacement sent: order <a href="/your-orders/{expected}">{expected}</a>' in orders
    assert f'Replacement for order <a href="/your-orders/{order.public_id}">{order.public_id}</a>' in orders
    detail = customer.get(f"/your-orders/{expected}").content.decode()
    assert "This is a replacement for order" in detail and order.public_id in detail


def test_replacements_are_refused_for_undelivered_lines_bad_quantities_and_twice(shop, world_client):
    staff = _staff(world_client, shop)
    with bound_world(shop):
        order = _delivered_order()
        first, second = order.items.order_by("line")[:2]
        placed = Order.objects.filter(status="placed").order_by("public_id").first()
        before = state_hash(snapshot(shop))
    refused = {
        "Please select the items to replace.": _post(staff, order, []),
        "Please choose why the items are replaced.": _post(staff, order, [first.line], reason="late"),
        f"Line {first.line}: you can replace from 1 to {first.quantity} of this item.": _post(
            staff, order, [first.line], **{str(first.line): first.quantity + 1}
        ),
        f"Line {first.line}: enter the units to replace as a whole number.": _post(
            staff, order, [first.line], **{str(first.line): "-1"}
        ),
        "only delivered items can be replaced.": _post(staff, placed, [1], **{"1": 1}),
    }
    for message, page in refused.items():
        assert page.status_code == 400 and message in page.content.decode(), message
    with bound_world(shop):
        assert state_hash(snapshot(shop)) == before
    assert _post(staff, order, [first.line], **{str(first.line): 1}).status_code == 302
    again = _post(staff, order, [first.line, second.line], **{str(first.line): 1, str(second.line): 1})
    with bound_world(shop):
        done = Replacement.objects.get().order.public_id
    assert again.status_code == 400
    assert f"Line {first.line} has already been replaced by order {done}." in again.content.decode()
    with bound_world(shop):
        assert Replacement.objects.count() == 1  # the second line was not replaced either: all or nothing
    assert world_client(shop).post(f"/backoffice/orders/{order.public_id}/replace", {}).status_code == 403
