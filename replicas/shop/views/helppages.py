"""Help and policy pages: the store's rules stated once, as the real store states them (delivery
zones and speeds, return windows per seller, how returns are approved and refunded, sign-in help,
conditions of use), instead of beside every control. Their numbers come from policies and the
world's sellers, so a page never disagrees with what checkout or the back office does."""

from django.http import Http404
from django.shortcuts import render

from .. import policies, selectors
from ..models import ReturnRequest, Seller
from .common import page_context

TOPICS = {
    "delivery": "Delivery zones, speeds and fees",
    "returns": "Returns and refunds",
    "approval": "Return approval rules",
    "sign-in": "Sign-in help",
    "conditions": "Conditions of Use",
    "privacy": "Privacy Notice",
}


def help_page(request, topic="delivery"):
    if topic not in TOPICS:
        raise Http404
    zones = [
        {
            "zone": zone,
            "states": [s for s in policies.STATES if policies.zone_for(s) == zone],
            "speeds": [
                (policies.SPEEDS[code].label, days) for code, days in zone.extra_days.items() if code in policies.SPEEDS
            ],
            "missing": [s.label for code, s in policies.SPEEDS.items() if code not in zone.extra_days],
        }
        for zone in policies.ZONES
    ]
    reasons = dict(ReturnRequest.Reason.choices)
    return render(
        request,
        "shop/help.html",
        page_context(
            request,
            topic=topic,
            title=TOPICS[topic],
            topics=TOPICS,
            zones=zones,
            speeds=policies.SPEEDS.values(),
            free_over=policies.FREE_SHIPPING_OVER,
            sellers=Seller.objects.order_by("name") if topic in ("returns", "approval") else [],
            full_reasons=[reasons[r] for r in selectors.FULL_REFUND_REASONS],
            fee_reasons=[label for code, label in reasons.items() if code not in selectors.FULL_REFUND_REASONS],
        ),
    )
