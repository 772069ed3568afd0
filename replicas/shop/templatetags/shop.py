"""Filters of the storefront's templates: money and dates the way the store prints them."""

from django import template
from django.utils.html import format_html

from .. import policies

register = template.Library()


@register.filter
def money(value):
    return policies.money(value) if value is not None else ""


@register.filter
def price_tag(value):
    """A headline price as the store draws it, "$" and cents raised ($1,234⁹⁹); the plain amount
    is what screen readers and text read, the drawn one is hidden from them."""
    if value is None:
        return ""
    text = policies.money(value)
    whole, cents = text[1:].split(".")
    return format_html(
        '<span class="visually-hidden">{}</span><span class="price-sup" aria-hidden="true">'
        '<span class="price-sym">$</span>{}<span class="price-cents">{}</span></span>',
        text,
        whole,
        cents,
    )


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


# The seeded colour names as the swatch draws them (seed.COLOURS); an unknown name is a neutral grey.
SWATCH_HEX = {
    "Black": "#1b1b1b",
    "White": "#f7f7f7",
    "Navy": "#1f2f5c",
    "Sage": "#9caf88",
    "Charcoal": "#45484d",
    "Coral": "#f2735b",
    "Sand": "#d8c3a0",
}


@register.filter
def swatch_hex(colour):
    return SWATCH_HEX.get(colour, "#9aa0a6")
