"""The seed generator: deterministic, coherent stories, every messy layer in its variant."""

from collections import Counter
from datetime import timedelta

import pytest

from replicas.supportdesk import conditions, selectors
from replicas.supportdesk.apps import ALL_LAYERS
from replicas.supportdesk.models import (
    AccountEvent,
    Article,
    Identity,
    IdentityVerification,
    Order,
    Payment,
    Refund,
    Ticket,
    User,
)
from replicas.supportdesk.seed import LAYERS
from replicas.worlds import clock
from replicas.worlds.registry import get_replica
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import world_generate
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.django_db


def layer_markers() -> dict[str, bool]:
    """Whether each messy layer shows in the bound world's data."""
    dup_orders = 0
    for order in Order.objects.all():
        amounts = Counter(p.amount for p in order.payments.filter(status="succeeded"))
        dup_orders += any(n > 1 for n in amounts.values())
    dup_tickets = Ticket.objects.filter(tags__icontains='"duplicate_charge"').count()
    names = Counter(User.objects.filter(role="end-user").values_list("name", flat=True))
    return {
        "duplicate_charges": dup_orders > dup_tickets,
        "cancelled_fulfilled": Order.objects.filter(status="cancelled", fulfilled_at__isnull=False).exists(),
        "legacy_dates": Ticket.objects.exclude(imported_date="").exists(),
        "stale_customers": User.objects.filter(
            profile_updated_at__lt=clock.now() - timedelta(days=365), identities__verified=False
        ).exists(),
        "conflicting_policies": Article.objects.filter(
            labels__icontains='"refund-policy"', body__icontains="Agents may refund up to"
        ).count()
        > 1,
        "near_duplicate_customers": any(n > 1 for n in names.values()),
    }


def test_the_apps_layer_list_is_the_generators():
    assert tuple(ALL_LAYERS) == LAYERS


def test_same_seed_and_variant_generate_the_same_state_twice():
    a = world_generate(replica="supportdesk", seed=5, variant="small-messy")
    b = world_generate(replica="supportdesk", seed=5, variant="small-messy")
    assert state_hash(snapshot(a)) == state_hash(snapshot(b))


def test_every_messy_layer_shows_in_the_messy_variant_and_none_in_the_clean_one():
    messy = world_generate(replica="supportdesk", seed=7, variant="small-messy")
    clean = world_generate(replica="supportdesk", seed=7, variant="small")
    with bound_world(messy):
        assert layer_markers() == dict.fromkeys(LAYERS, True)
    with bound_world(clean):
        assert layer_markers() == dict.fromkeys(LAYERS, False)


def test_legacy_dates_are_in_the_old_desks_text_format_and_created_at_is_the_import():
    world = world_generate(replica="supportdesk", seed=7, variant="small-messy")
    with bound_world(world):
        imported = list(Ticket.objects.exclude(imported_date=""))
        assert len({t.created_at for t in imported}) == 1
        for t in imported:
            assert "imported" in t.tags
            month, day, rest = t.imported_date.split("/")
            assert len(month) == 2 and len(day) == 2 and rest[2] == " " and rest.endswith(("AM", "PM"))


def test_the_default_variant_is_hundreds_of_tickets_over_all_channels_states_and_currencies():
    world = world_generate(replica="supportdesk", seed=7, variant="default")
    assert world.rows >= 1000
    with bound_world(world):
        assert Ticket.objects.count() == 300
        assert set(Ticket.objects.values_list("channel", flat=True)) == set(Ticket.Channel.values)
        assert set(Ticket.objects.values_list("status", flat=True)) == set(Ticket.Status.values)
        assert set(Order.objects.values_list("currency", flat=True)) == {"USD", "EUR", "GBP", "CAD"}
        assert {"fulfilled", "cancelled", "refunded", "partially_refunded"} <= set(
            Order.objects.values_list("status", flat=True)
        )
        assert set(User.objects.filter(role="end-user").values_list("loyalty_tier", flat=True)) == set(User.Tier.values)
        for order in Order.objects.all()[:50]:
            assert order.total == order.subtotal + order.shipping + order.tax
            assert sum(i.unit_price * i.quantity for i in order.items.all()) == order.subtotal
        for refund in Refund.objects.select_related("payment"):
            assert refund.currency == refund.payment.currency and refund.created_at <= clock.now()
        for payment in Payment.objects.all():
            assert selectors.payment_remaining(payment) >= 0


def test_ticket_stories_are_backed_by_the_data(in_world):
    for ticket in Ticket.objects.filter(tags__icontains='"duplicate_charge"').exclude(order_number=""):
        order = Order.objects.get(public_id=ticket.order_number)
        assert order.customer_id == ticket.requester_id
        amounts = Counter(order.payments.filter(status="succeeded").values_list("amount", flat=True))
        assert max(amounts.values()) == 2
    for refund in Refund.objects.exclude(ticket=None).select_related("ticket", "payment"):
        assert refund.payment.customer_id == refund.ticket.requester_id and refund.ticket.status in ("solved", "closed")
    for event in AccountEvent.objects.all():
        assert IdentityVerification.objects.filter(customer=event.customer, created_at__lt=event.created_at).exists()
    for user in User.objects.filter(role="end-user"):
        assert Identity.objects.filter(user=user, kind="email", value=user.email, primary=True).exists()


def test_each_view_lists_exactly_the_tickets_its_conditions_match(in_world):
    admin = User.objects.filter(role="admin").get()
    views = selectors.views_for(admin)
    assert [v.slug for v in views[:6]] == [
        "your-unsolved",
        "unassigned",
        "unsolved",
        "recently-updated",
        "pending",
        "recently-solved",
    ]
    ctx = conditions.Context(agent=admin, now=clock.now())
    tickets = list(
        Ticket.objects.filter(merged_into__isnull=True).select_related("requester", "assignee", "group", "organization")
    )
    for view in views:
        listed = set(selectors.view_tickets(view).values_list("public_id", flat=True))
        assert listed == {t.public_id for t in tickets if conditions.matches(t, view.conditions, ctx)}, view.slug


def test_variant_policy_knobs_reach_the_help_center_article():
    world = world_generate(replica="supportdesk", seed=7, variant="small")
    knobs = get_replica("supportdesk").knobs("strict-refunds")
    assert knobs["refund_limits"]["USD"] == "100.00"
    with bound_world(world):
        assert "$200.00" in Article.objects.get(title="Refund policy").body


def test_seeded_rules_are_valid_condition_sets(in_world):
    from replicas.supportdesk.models import Automation, SlaPolicy, Trigger, View

    for model in (View, Trigger, Automation, SlaPolicy):
        for rule in model.objects.all():
            conditions.validate(rule.conditions)
    with pytest.raises(Exception, match="unknown field or operator"):
        conditions.validate({"all": [{"field": "colour", "operator": "is", "value": "red"}]})


def test_each_single_layer_variant_switches_on_exactly_its_layer():
    variants = get_replica("supportdesk").variants
    by_layer = {v["layers"][0]: name for name, v in variants.items() if len(v.get("layers", [])) == 1}
    assert set(by_layer) == set(LAYERS)
    for name in ("10k", "100k", "messy", "small-messy"):
        assert set(variants[name]["layers"]) == set(LAYERS)
    for name in ("default", "small", "strict-refunds"):
        assert not variants[name].get("layers")


@pytest.mark.parametrize("seed", [1, 7, 11])
def test_every_customer_address_is_one_the_desks_own_forms_accept(seed):
    """Names with a title ("Dr. Holly Clark") made "dr..holly.clark15@…": every save of their tickets was refused."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    world = world_generate(replica="supportdesk", seed=seed, variant="small-messy")
    with bound_world(world):
        addresses = list(User.objects.values_list("name", "email"))
    bad = []
    for name, email in addresses:
        try:
            validate_email(email)
        except ValidationError:
            bad.append((name, email))
    assert bad == []
    assert len(addresses) >= 20


def test_an_address_keeps_the_persons_names_and_drops_titles():
    from replicas.supportdesk.seed import email_handle

    assert email_handle("Dr. Holly Clark") == "holly.clark"
    assert email_handle("Thomas O'Neil Jr.") == "thomas.oneil"
    assert email_handle("Anna Lee-Park PhD") == "anna.lee.park"
