"""Filters of the storefront's templates: money and dates the way the store prints them."""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

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


# Card brand marks, drawn for this store (no network's artwork): a coloured card with the brand's
# initials or shapes, enough to tell the brands apart at a glance.
CARD_MARKS = {
    "Visa": '<rect width="38" height="24" rx="3" fill="#1a1f71"/><text x="19" y="16.5" font-size="10" '
    'font-weight="700" font-style="italic" fill="#fff" text-anchor="middle" font-family="Liberation Sans,Arial">'
    "VISA</text>",
    "Mastercard": '<rect width="38" height="24" rx="3" fill="#252525"/><circle cx="15" cy="12" r="7" fill="#eb001b"/>'
    '<circle cx="23" cy="12" r="7" fill="#f79e1b" fill-opacity=".9"/>',
    "Amex": '<rect width="38" height="24" rx="3" fill="#2e77bb"/><text x="19" y="15.5" font-size="8" font-weight="700" '
    'fill="#fff" text-anchor="middle" font-family="Liberation Sans,Arial">AMEX</text>',
    "Discover": '<rect width="38" height="24" rx="3" fill="#fff" stroke="#c9c9c9"/><circle cx="24" cy="12" r="5" '
    'fill="#f58220"/><text x="4" y="15" font-size="6.5" font-weight="700" fill="#222" '
    'font-family="Liberation Sans,Arial">DISC</text>',
}
CARD_MARK_OTHER = (
    '<rect width="38" height="24" rx="3" fill="#d5d9d9"/><rect x="5" y="8" width="28" height="3" fill="#888"/>'
)


@register.filter
def card_mark(brand):
    """The card's brand mark as an inline SVG, hidden from readers (the brand's name is written beside it)."""
    return format_html(
        '<svg class="card-mark" viewBox="0 0 38 24" width="38" height="24" aria-hidden="true">{}</svg>',
        mark_safe(CARD_MARKS.get(brand, CARD_MARK_OTHER)),  # noqa: S308 - constant markup of this module
    )
