"""Filters of the storefront's templates: money and dates the way the store prints them."""

from django import template

from .. import policies

register = template.Library()


@register.filter
def money(value):
    return policies.money(value) if value is not None else ""


@register.filter
def local(value, currency):
    """The amount in the shopper's currency, rounded that currency's way ("" when it is dollars)."""
    if value is None or currency in ("", "USD") or currency not in policies.CURRENCIES:
        return ""
    return policies.money_in(value, currency)


@register.filter
def speed_label(code):
    return policies.speed_label(code)


@register.filter
def longdate(value):
    """Tuesday, March 10 (the storefront's delivery dates)."""
    return f"{value:%A}, {value:%B} {value.day}" if value else ""


@register.filter
def fulldate(value):
    """March 10, 2026."""
    return f"{value:%B} {value.day}, {value.year}" if value else ""


@register.filter
def stars(value):
    """Percent width of a star bar for a rating out of 5."""
    return int(float(value) * 20)
