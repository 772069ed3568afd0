"""The store's rules in one place: delivery speeds, fees and zones, sales tax, gift wrap, loyalty tiers,
currencies and their rounding, card checks, return windows, and the passwords the seed gives
its accounts."""

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
FREE_SHIPPING_OVER = Decimal("35.00")


@dataclass(frozen=True)
class Speed:
    code: str
    label: str
    days: int | None  # None: the product's own standard days
    fee: Decimal
    member_fee: Decimal


SPEEDS = {
    "standard": Speed("standard", "Standard Shipping", None, Decimal("5.99"), Decimal("0.00")),
    "fast": Speed("fast", "Two-Day Shipping", 2, Decimal("8.99"), Decimal("0.00")),
    "nextday": Speed("nextday", "One-Day Shipping", 1, Decimal("14.99"), Decimal("4.99")),
}

# Sales tax by ship-to state (a simplified table; states not listed charge none).
TAX_RATES = {
    "CA": Decimal("0.0725"),
    "NY": Decimal("0.04"),
    "TX": Decimal("0.0625"),
    "WA": Decimal("0.065"),
    "IL": Decimal("0.0625"),
    "FL": Decimal("0.06"),
    "MA": Decimal("0.0625"),
    "PA": Decimal("0.06"),
    "GA": Decimal("0.04"),
    "CO": Decimal("0.029"),
    "OH": Decimal("0.0575"),
    "NJ": Decimal("0.06625"),
}
STATES = sorted(TAX_RATES) + ["OR", "NH", "MT", "DE"]


def cents(value) -> Decimal:
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


def money(value) -> str:
    return f"${cents(value):,.2f}"


def tax_for(subtotal: Decimal, state: str) -> Decimal:
    return cents(subtotal * TAX_RATES.get(state, Decimal(0)))


def shipping_fee(*, speed: str, subtotal: Decimal, member: bool) -> Decimal:
    s = SPEEDS[speed]
    if member:
        return s.member_fee
    if speed == "standard" and subtotal >= FREE_SHIPPING_OVER:
        return Decimal("0.00")
    return s.fee


# Delivery zones by ship-to state, from the carriers' hubs (the tracking page's facilities): zone 1
# ships as quoted, a far zone adds days, and a remote one also loses the speeds its carrier cannot
# serve there. A state not listed (or an address without one) is quoted as zone 1.
@dataclass(frozen=True)
class Zone:
    number: int
    name: str
    extra_days: dict  # speed -> days added to that speed; a speed missing here is not served


ZONES = (
    Zone(1, "Local", {"standard": 0, "fast": 0, "nextday": 0}),
    Zone(2, "Far", {"standard": 2, "fast": 1, "nextday": 1}),
    Zone(3, "Remote", {"standard": 4, "fast": 2}),  # no One-Day Shipping there
)
ZONE_OF_STATE = {"CO": 2, "OR": 2, "NH": 2, "DE": 2, "MT": 3}  # every other state in STATES: zone 1


def zone_for(state: str) -> Zone:
    return ZONES[ZONE_OF_STATE.get(state or "", 1) - 1]


def speed_served(speed: str, state: str = "") -> bool:
    """Whether the carrier delivers at `speed` to `state` at all."""
    return speed in zone_for(state).extra_days


def delivery_date(*, speed: str, standard_days: int, today: date, state: str = "") -> date:
    """When an item shipped today at `speed` arrives in `state` (its zone's extra days added)."""
    days = (SPEEDS[speed].days or standard_days) + zone_for(state).extra_days.get(speed, 0)
    return today + timedelta(days=days)


def speed_label(code: str) -> str:
    return SPEEDS[code].label if code in SPEEDS else "Several delivery speeds"


def seasonal_price(price: Decimal, percent_off: int) -> Decimal:
    """A price during a seasonal sale: `percent_off` off, to the cent (never below one cent)."""
    return max(CENT, cents(Decimal(price) * (100 - percent_off) / 100))


GIFT_WRAP_FEE = Decimal("3.99")  # per unit wrapped
GIFT_MESSAGE_MAX = 240


@dataclass(frozen=True)
class Tier:
    name: str
    min_points: int
    discount_pct: int  # off the items, after promotion codes


# Highest first: an account is in the first tier whose minimum its points reach.
TIERS = (Tier("Gold", 3000, 5), Tier("Silver", 1500, 2), Tier("Blue", 0, 0))


def loyalty_tier(points: int) -> Tier:
    return next(t for t in TIERS if points >= t.min_points)


def next_tier(points: int) -> Tier | None:
    higher = [t for t in TIERS if t.min_points > points]
    return higher[-1] if higher else None


def loyalty_discount(amount: Decimal, pct: int) -> Decimal:
    return cents(amount * pct / 100) if pct else Decimal("0.00")


@dataclass(frozen=True)
class Currency:
    code: str
    symbol: str
    rate: Decimal  # units of this currency for one US dollar
    step: Decimal  # what amounts round to (half up): cents, whole yen, Swiss 5 centimes


CURRENCIES = {
    "USD": Currency("USD", "$", Decimal("1"), CENT),
    "EUR": Currency("EUR", "€", Decimal("0.9213"), CENT),
    "GBP": Currency("GBP", "£", Decimal("0.7861"), CENT),
    "CAD": Currency("CAD", "CA$", Decimal("1.3642"), CENT),
    "JPY": Currency("JPY", "¥", Decimal("151.37"), Decimal("1")),
    "CHF": Currency("CHF", "CHF ", Decimal("0.8834"), Decimal("0.05")),
}


def convert(amount: Decimal, currency: str) -> Decimal:
    """A dollar amount in `currency`, rounded the way that currency is: each amount converts on its
    own, so converted line items need not add up to the converted total."""
    c = CURRENCIES[currency]
    units = (Decimal(amount) * c.rate / c.step).quantize(Decimal("1"), rounding=ROUND_HALF_UP)
    return (units * c.step).quantize(c.step if c.step < 1 else Decimal("1"))


def money_in(amount: Decimal, currency: str) -> str:
    c = CURRENCIES[currency]
    value = convert(amount, currency)
    return f"{c.symbol}{value:,.0f}" if c.step >= 1 else f"{c.symbol}{value:,.2f}"


def luhn_ok(number: str) -> bool:
    digits = [int(c) for c in number]
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def card_brand(number: str) -> str:
    if number.startswith("4"):
        return "Visa"
    if number[:2] in {"51", "52", "53", "54", "55"} or number[:4].isdigit() and 2221 <= int(number[:4]) <= 2720:
        return "Mastercard"
    if number[:2] in {"34", "37"}:
        return "Amex"
    if number.startswith("6011") or number.startswith("65"):
        return "Discover"
    return ""


# Test numbers as payment providers publish them: this one always asks for 3-D Secure.
THREE_DS_NUMBERS = {"4000002760003184", "4000002500003155"}
DECLINED_NUMBERS = {"4000000000000002"}
THREE_DS_CODE = "123456"  # what the issuer's test challenge page accepts


def card_expired(*, exp_month: int, exp_year: int, today: date) -> bool:
    return (exp_year, exp_month) < (today.year, today.month)


def return_deadline(*, delivered_at: datetime, window_days: int) -> datetime:
    return delivered_at + timedelta(days=window_days)
