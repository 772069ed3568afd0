"""The shop task pack: it loads and validates, its answer keys agree with the seeded world, doing
nothing and every answer-only negative fail without a browser, and in real browser episodes every
reference solution that writes earns task_completion 1.0 (recovering from its armed fault where it
has one); answer-only references are judged on the untouched world with their message.
The negatives that act in the browser are played by `verify_tasks shop`."""

import json
import re
from decimal import Decimal

import pytest
from replicagym.catalogue.packs import load_pack, pack_dir

from episodes.driver import episode_play
from replicas.shop import policies, selectors
from replicas.shop.models import Account, Coupon, Order, OrderItem, Product, Refund
from replicas.shop.tasks import params as P
from replicas.worlds import clock
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import snapshot
from tests.pack_episodes import fault_fired, fires_in_episode, shares, sync_tasks, why
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.spec import fill_params

PACK = pack_dir("shop")
SEND = re.compile(r'^send_msg_to_user\("(.*)"\)$')


@pytest.fixture(scope="module")
def pack(django_db_setup, django_db_blocker):
    """The loaded pack, once per module: loading computes every task's answer key on its world template."""
    with django_db_blocker.unblock():
        return load_pack("shop")


def _inputs(t, messages=()):
    template = template_get_or_build(replica="shop", seed=t.spec["seed"], variant=t.spec["variant"])
    state = snapshot(template)
    return VerifierInputs(
        initial=state,
        final=state,
        final_page={"url": t.spec["start_page"], "title": "", "html": ""},
        params=t.params,
        messages=list(messages),
        clock=template.clock.isoformat().replace("+00:00", "Z"),
        replica="shop",
    )


def _message(text: str, params: dict) -> str:
    return fill_params({"message": text}, params)["message"]


@pytest.mark.django_db
def test_pack_loads_validates_and_covers_the_issue_s_tasks(pack):
    slugs = {t.spec["slug"] for t in pack}
    assert len(pack) >= 25
    assert {
        "buy-cheapest-rated-fast",
        "buy-specific-variant",
        "apply-best-coupon",
        "gift-card-and-card",
        "change-order-address",
        "cancel-one-item",
        "return-damaged-item",
        "refuse-return-after-window",
        "recover-declined-payment",
        "report-order-total",
        "approve-return-in-window",
        "refund-damaged-line",
    } <= slugs
    assert {t.spec["difficulty"] for t in pack} == {"easy", "medium", "hard"}
    faults = {f["name"] for t in pack for f in t.spec["faults"]}
    assert {"server_error", "api_timeout", "stale_record"} <= faults
    for t in pack:
        assert t.spec["reference_solution"] and t.spec["negative_examples"], t.task_id
        assert any(a["kind"] == "diff" and a.get("only_allowed") for a in t.spec["verifier"]["assertions"]), t.task_id
    suites = json.loads((PACK / "suites.json").read_text())
    assert set().union(*(s["tasks"] for s in suites.values())) == slugs


@pytest.mark.django_db
def test_doing_nothing_and_wrong_answers_fail_without_a_browser(pack):
    """An untouched world with no answer fails every task; an answer-only negative (its last action a
    message, nothing written before it) is judged on the same untouched world with its message."""
    for t in pack:
        assert not verify(t.spec["verifier"], _inputs(t)).passed, t.task_id
        if not any(a["kind"] == "answer" for a in t.spec["verifier"]["assertions"]):
            continue
        for example in t.spec["negative_examples"]:
            sent = SEND.match(example["actions"][-1])
            assert sent, (t.task_id, example["name"])
            wrong = verify(t.spec["verifier"], _inputs(t, [_message(sent.group(1), t.params)]))
            assert not wrong.passed, (t.task_id, example["name"])
        right = SEND.match(t.spec["reference_solution"][-1]).group(1)
        assert verify(t.spec["verifier"], _inputs(t, [_message(right, t.params)])).passed, t.task_id


@pytest.fixture
def small(db):
    world = template_get_or_build(replica="shop", seed=7, variant="small")
    with bound_world(world):
        yield world


def test_cheapest_key_is_the_unique_cheapest_four_star_two_day_item(small):
    key = P.cheapest_rated_fast(small)
    product = Product.objects.get(asin=key["asin"])
    rivals = [
        p
        for p in Product.objects.filter(department=key["department"], rating__gte=4, fast_eligible=True)
        if p != product
    ]
    assert product.rating >= 4 and product.fast_eligible
    assert all(selectors.product_price(p) > selectors.product_price(product) for p in rivals)


def test_best_coupon_key_saves_more_than_the_other_valid_code_and_the_third_has_expired(small):
    key = P.best_coupon(small)
    lines = selectors.cart_lines(Account.objects.get(public_id=key["customer"]))
    best, worse = Coupon.objects.get(code=key["best"]), Coupon.objects.get(code=key["worse"])
    assert selectors.coupon_discount(best, lines) > selectors.coupon_discount(worse, lines)
    assert Coupon.objects.get(code="SPRING25").expires_at < clock.now()


def test_order_keys_come_from_the_world(small):
    total = P.order_total(small)
    order = Order.objects.get(public_id=total["order"])
    assert Decimal(total["total"]) == order.total == order.subtotal + order.shipping + order.tax
    late = P.return_outside_window(small)
    item = OrderItem.objects.get(order__public_id=late["order"], line=late["line"])
    assert selectors.return_blocker(item).startswith("The return window for this item closed")
    assert selectors.return_deadline(item).date().isoformat() == late["deadline"]
    refund = P.refund_amount(small)
    assert Refund.objects.filter(item__order__public_id=refund["order"], amount=Decimal(refund["amount"])).exists()
    moved = P.change_address(small)
    order = Order.objects.get(public_id=moved["order"])  # tax is owed on what is left after discounts
    assert Decimal(moved["tax"]) == policies.tax_for(
        order.subtotal - order.discount - order.loyalty_discount, moved["state"]
    )


def test_a_world_without_candidates_fails_loudly(small):
    Order.objects.filter(status=Order.Status.SHIPPED).update(status=Order.Status.DELIVERED)
    with pytest.raises(P.NoCandidate):
        P.delivery_date(small)


# --- episodes in a real browser ------------------------------------------------------------------------


def _played_in_browser(spec: dict) -> bool:
    """Every task but the answer-only ones, whose message is judged on the untouched world above."""
    return bool(spec["verifier"]["allowed_changes"]) or not SEND.match(spec["reference_solution"][-1])


# browser tests, each playing a share of the pack of about equal cost; on PostgreSQL, a sample that holds
# every assertion kind of the pack (see tests/pack_episodes.py)
SHARES = shares("shop", negatives=False, plays=_played_in_browser)


@pytest.mark.browser
@pytest.mark.parametrize("index", range(len(SHARES)))
def test_every_reference_solution_passes_in_a_real_browser(transactional_db, tmp_path, index):
    failures = []
    for task in sync_tasks("shop", SHARES[index], tmp_path / "tasks"):
        done = episode_play(task_id=task.task_id, actions=task.reference_solution)
        ok = done.rewards and done.rewards["task_completion"] == 1.0 and done.rewards["collateral"] == 1.0
        if ok and fires_in_episode(task):  # the oracle meets the armed fault and recovers from it
            ok = fault_fired(done) and done.rewards["error_recovery"] == 1.0
        if not ok:
            failures.append(f"{task.task_id}: {why(done)}")
    assert not failures, "\n".join(failures)
