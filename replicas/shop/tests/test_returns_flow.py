"""Issue 29, round two: returns as the store runs them. The shopper picks how many units, a reason,
a refund or a replacement and a drop-off method; the started return shows its drop-off QR code
(drawn by qr.py); the back office sends a replacement from stock instead of refunding."""

from decimal import Decimal

import pytest

from replicas.shop import qr, selectors
from replicas.shop.models import Account, OrderItem, Refund, ReturnRequest
from replicas.shop.signin import account_session
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db


def _returnable(world, *, several=False, stocked=True) -> OrderItem:
    with bound_world(world):
        for item in OrderItem.objects.filter(delivered_at__isnull=False).select_related("order__account", "variant"):
            if selectors.return_blocker(item) or (several and item.quantity < 2):
                continue
            if stocked and item.variant.stock < item.quantity:
                continue
            return item
    raise AssertionError("the seed has a returnable item")


def _as_owner(world, client, settings, item):
    with bound_world(world):
        client.cookies[settings.SESSION_COOKIE_NAME] = account_session(world, item.order.account)
    return client


def test_a_partial_return_to_a_locker_starts_with_its_drop_off_code(shop, world_client, settings):
    item = _returnable(shop, several=True)
    client = _as_owner(shop, world_client(shop, signed_in=False), settings, item)
    url = f"/your-orders/{item.order.public_id}/return/{item.line}"
    # a page a step: items, reason, refund or replacement, drop-off, then the review to confirm
    assert 'id="return-quantity"' in client.get(url).content.decode()
    answers = {"quantity": "1"}
    for went, shows, answer in (
        ("items", 'id="return-reason"', {"reason": "not_needed"}),
        ("reason", 'id="resolution-replacement"', {"resolution": "refund"}),
        ("resolution", 'id="drop-locker"', {"drop_off": "locker"}),
        ("drop_off", "Confirm your return", {}),
    ):
        page = client.post(url, {**answers, "step": went}).content.decode()
        assert shows in page and 'aria-current="step"' in page
        answers |= answer
    with bound_world(shop):
        assert not ReturnRequest.objects.filter(item=item).exists()  # nothing starts before the confirmation
    went = client.post(url, {"reason": "not_needed", "quantity": "1", "drop_off": "locker", "resolution": "refund"})
    with bound_world(shop):
        ret = ReturnRequest.objects.get(item=item)
        assert (ret.quantity, ret.drop_off, ret.resolution, ret.units) == (1, "locker", "refund", 1)
        fee = Decimal(100 - item.seller.restocking_fee_pct) / 100
        assert selectors.refund_for_return(ret) == (item.unit_price * fee).quantize(Decimal("0.01"))
    assert went["Location"] == f"/your-orders/{item.order.public_id}/returns/{ret.public_id}"
    page = client.get(went["Location"]).content.decode()
    assert f'aria-label="Drop-off code for {ret.public_id}"' in page and "Bazaaro Locker" in page
    assert qr.qr_svg(ret.public_id, label=f"Drop-off code for {ret.public_id}") in page


def test_a_whole_line_return_keeps_quantity_blank_and_refunds_the_line(shop, world_client, settings):
    item = _returnable(shop)
    client = _as_owner(shop, world_client(shop, signed_in=False), settings, item)
    client.post(
        f"/your-orders/{item.order.public_id}/return/{item.line}", {"reason": "damaged", "quantity": item.quantity}
    )
    with bound_world(shop):
        ret = ReturnRequest.objects.get(item=item)
        assert ret.quantity is None and ret.drop_off == "counter" and selectors.refund_for_return(ret) == item.amount


@pytest.mark.parametrize(
    "data, message",
    [
        ({"reason": "not_needed", "resolution": "replacement"}, "damaged, defective or wrong; choose a refund"),
        ({"reason": "damaged", "quantity": "99"}, "Choose how many to return."),
        ({"reason": "damaged", "drop_off": "drone"}, "Please choose how you will send the item back."),
        ({"reason": "damaged", "resolution": "swap"}, "Please choose a refund or a replacement."),
    ],
)
def test_a_refused_return_says_why_and_starts_nothing(shop, world_client, settings, data, message):
    item = _returnable(shop)
    client = _as_owner(shop, world_client(shop, signed_in=False), settings, item)
    refused = client.post(f"/your-orders/{item.order.public_id}/return/{item.line}", data)
    assert refused.status_code == 400 and message in refused.content.decode()
    with bound_world(shop):
        assert not ReturnRequest.objects.filter(item=item).exists()


def test_approving_a_replacement_sends_it_from_stock_and_refunds_nothing(shop, world_client, settings):
    item = _returnable(shop)
    client = _as_owner(shop, world_client(shop, signed_in=False), settings, item)
    client.post(
        f"/your-orders/{item.order.public_id}/return/{item.line}", {"reason": "defective", "resolution": "replacement"}
    )
    with bound_world(shop):
        ret = ReturnRequest.objects.get(item=item)
        stock = item.variant.stock
        staff = Account.objects.filter(role="staff").order_by("public_id").first()
        client.cookies[settings.SESSION_COOKIE_NAME] = account_session(shop, staff)
    assert "Replacement" in client.get("/backoffice/returns").content.decode()
    client.post(f"/backoffice/returns/{ret.public_id}", {"decision": "approve"})
    with bound_world(shop):
        ret.refresh_from_db()
        item.variant.refresh_from_db()
        assert ret.status == "replaced" and item.variant.stock == stock - item.quantity
        assert not Refund.objects.filter(return_request=ret).exists()


def test_the_drop_off_code_is_the_same_for_a_return_and_differs_between_returns():
    one, again, other = qr.modules("RMA-1001"), qr.modules("RMA-1001"), qr.modules("RMA-1002")
    assert one == again and one != other and len(one) == qr.SIZE and all(len(r) == qr.SIZE for r in one)
    # the three finder squares: dark corners, a light ring inside
    for x, y in ((0, 0), (qr.SIZE - 7, 0), (0, qr.SIZE - 7)):
        assert one[y][x] and one[y + 3][x + 3] and not one[y + 1][x + 1]


def test_each_return_step_checks_its_own_answers_and_keeps_the_others(shop, world_client, settings):
    item = _returnable(shop)
    client = _as_owner(shop, world_client(shop, signed_in=False), settings, item)
    url = f"/your-orders/{item.order.public_id}/return/{item.line}"
    # the reason is not asked on the first step, so its absence is no error there
    assert client.post(url, {"step": "items", "quantity": "1"}).status_code == 200
    missing = client.post(url, {"step": "reason", "quantity": "1", "reason": ""})
    assert missing.status_code == 400 and "Please choose a reason for the return." in missing.content.decode()
    assert 'id="return-reason"' in missing.content.decode()  # the same step again
    # a replacement for an item no longer needed is refused at its own step
    refused = client.post(url, {"step": "resolution", "reason": "not_needed", "resolution": "replacement"})
    assert refused.status_code == 400 and "choose a refund" in refused.content.decode()
    # Change on the review goes back to that step with every answer kept as hidden fields
    back = client.post(url, {"change": "reason", "reason": "damaged", "drop_off": "carrier", "comment": "<b>x</b>"})
    page = back.content.decode()
    assert 'id="return-reason"' in page and '<option value="damaged" selected>' in page
    assert '<input type="hidden" name="drop_off" value="carrier">' in page and "<b>x</b>" not in page
    with bound_world(shop):
        assert not ReturnRequest.objects.filter(item=item).exists()
