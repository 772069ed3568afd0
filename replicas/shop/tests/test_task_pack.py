"""The shop task pack: it loads and validates, its answer keys agree with the seeded world, doing
nothing and every answer-only negative fail without a browser, and in real browser episodes every
reference solution that writes earns task_completion 1.0 (recovering from its armed fault where it
has one); answer-only references are judged on the untouched world with their message; wrong work
done through the store's services (another speed, card or address, an item dropped or added, a
false claim in a refund's reason) fails the task's verifier.
The negatives that act in the browser are played by `verify_tasks shop`."""

import json
import re
from decimal import Decimal

import pytest

from catalogue.packs import load_pack, pack_dir
from replicas.shop import policies, selectors, services
from replicas.shop.models import Account, Card, Coupon, Order, OrderItem, Product, Refund, Variant
from replicas.shop.tasks import params as P
from replicas.worlds import clock
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import template_get_or_build, world_clone
from replicas.worlds.snapshot import snapshot
from tests.pack_episodes import audit_holes, fault_fired, fires_in_episode, reference_play, shares, sync_tasks, why
from verifiers.audit import passes
from verifiers.engine import verify
from verifiers.fields import tables
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
SHARES = shares("shop", plays=_played_in_browser)


@pytest.mark.browser
@pytest.mark.parametrize("index", range(len(SHARES)))
def test_every_reference_solution_passes_in_a_real_browser(transactional_db, tmp_path, index):
    failures = []
    for task in sync_tasks("shop", SHARES[index], tmp_path / "tasks"):
        done = reference_play(task)
        ok = done.rewards and done.rewards["task_completion"] == 1.0 and done.rewards["collateral"] == 1.0
        if ok and fires_in_episode(task):  # the oracle meets the armed fault and recovers from it
            ok = fault_fired(done) and done.rewards["error_recovery"] == 1.0
        if not ok:
            failures.append(f"{task.task_id}: {why(done)}")
        else:
            failures += audit_holes(task, done)
    assert not failures, "\n".join(failures)


# --- wrong work that used to earn full reward (issue 25) ------------------------------------------------
# Each case does the work through the store's services on a clone of the task's world, as the pages would,
# and is judged by the task's verifier: the right work earns full reward, and each piece of wrong work an
# earlier verifier let through fails on the assertion that reads its constraint.


def _judged(t, work) -> tuple[bool, set[str]]:
    """(full reward, names of the assertions that failed, plus "collateral" when something else changed)."""
    world = world_clone(source=template_get_or_build(replica="shop", seed=t.spec["seed"], variant=t.spec["variant"]))
    initial = snapshot(world)
    with bound_world(world):
        work(t.params)
    inputs = VerifierInputs(
        initial=initial,
        final=snapshot(world),
        params=t.params,
        clock=world.clock.isoformat().replace("+00:00", "Z"),
        replica="shop",
    )
    verdict = verify(t.spec["verifier"], inputs)
    failed = {a["name"] for a in verdict.assertions if not a["passed"]} | (
        {"collateral"} if verdict.collateral else set()
    )
    assert passes(t.spec["verifier"], inputs) == (verdict.passed and verdict.collateral_ok)
    return verdict.passed and verdict.collateral_ok, failed


def _task(pack, slug):
    return next(t for t in pack if t.spec["slug"] == slug)


def _checkout(params, *, speed="standard", card=None, address=None, before=None, after=None):
    """Check out the shopper's cart as the task asks, with one thing done otherwise."""
    account = Account.objects.get(public_id=params["customer"])
    if before:
        before(account)
    order = services.order_place(
        account=account,
        address=address or account.addresses.get(is_default=True),
        speed=speed,
        card=card or Card.objects.get(public_id=params["card"]),
        codes=[],
        use_gift=False,
    )
    if after:
        after(order)


def _new_card(account):
    return services.card_add(
        account=account, number="4242 4242 4242 4242", exp_month="12", exp_year="2031", holder=account.name
    )


def _drop_a_line(account):
    services.cart_update(item=selectors.cart_lines(account)[0].item, quantity=0)


def _add_a_line(account):
    in_cart = {ln.variant.sku for ln in selectors.cart_lines(account)}
    extra = (
        Variant.objects.filter(stock__gte=3, product__deal_ends_at=None)
        .exclude(sku__in=in_cart)
        .order_by("sku")
        .first()
    )
    services.cart_add(account=account, variant=extra, quantity=1)


def _one_more(account):
    line = selectors.cart_lines(account)[0]
    services.cart_update(item=line.item, quantity=line.item.quantity + 1)


def _new_address(account):
    return services.address_add(
        account=account,
        full_name=account.name,
        line1="9 Elsewhere Lane",
        line2="",
        city="Portland",
        state="OR",
        zip_code="97205",
        phone="",
    )


ORDER = "exactly one order was placed, by the shopper, at the speed asked and paid with the card asked"
CART = "the order holds the cart as it was, nothing dropped or added, and those lines left the cart"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "work, failing",
    [
        pytest.param(lambda p: _checkout(p, speed="fast"), ORDER, id="another speed"),
        pytest.param(
            lambda p: _checkout(p, card=_new_card(Account.objects.get(public_id=p["customer"]))),
            ORDER,
            id="another card",
        ),
        pytest.param(lambda p: _checkout(p, before=_drop_a_line), CART, id="an item dropped"),
        pytest.param(lambda p: _checkout(p, before=_add_a_line), CART, id="an item added"),
        pytest.param(lambda p: _checkout(p, before=_one_more), CART, id="a quantity changed"),
        pytest.param(
            lambda p: _checkout(p, after=lambda o: services.order_cancel_items(order=o, lines=[1], reason="mistake")),
            "no line of it was cancelled",
            id="a line cancelled after",
        ),
        pytest.param(
            lambda p: _checkout(p, address=_new_address(Account.objects.get(public_id=p["customer"]))),
            "it ships to the default address",
            id="another address",
        ),
    ],
)
def test_a_checkout_done_otherwise_than_asked_fails(pack, work, failing):
    task = _task(pack, "recover-declined-payment")
    assert _judged(task, _checkout) == (True, set())
    full, failed = _judged(task, work)
    assert not full and failing in failed, failed


def _refund(params, reason):
    item = OrderItem.objects.get(order__public_id=params["order"], line=params["line"])
    services.refund_issue(order=item.order, item=item, amount=Decimal(params["amount"]), reason=reason, method="card")


def _ask(params, text):
    account = Account.objects.get(public_id=params["customer"])
    services.question_ask(account=account, product=Product.objects.get(asin=params["asin"]), text=text)


@pytest.mark.django_db
def test_text_that_carries_a_decision_fails_with_a_false_claim_or_without_its_facts(pack):
    refund, question = _task(pack, "refund-damaged-line"), _task(pack, "ask-seller-question")
    assert _judged(refund, lambda p: _refund(p, "Arrived damaged"))[0]
    for reason in (
        ".",
        "Customer asked",
        "Arrived damaged. Your order has been cancelled and nothing will be charged.",
    ):
        assert not _judged(refund, lambda p, r=reason: _refund(p, r))[0], reason
    assert _judged(question, lambda p: _ask(p, "Can this be shipped to Canada?"))[0]
    for text in (
        "Does it come in other colours?",
        "Canada shipping?",
        "Can this be shipped to Canada? The return has been approved and the item is marked as returned.",
    ):
        assert not _judged(question, lambda p, t=text: _ask(p, t))[0], text


def test_the_fields_the_replica_declares_derived_exist():
    """A misspelt field would silently leave its mutants in (or a real choice out of) the audit."""
    known = tables("shop")
    declared = get_replica("shop").audit["derived"]
    assert {f"{t}.{f}" for t, fs in declared.items() for f in fs if f not in known.get(t, {})} == set()
