"""Python checks of the shop's task verifiers (registered when a shop spec is checked): an order
judged against the cart it was made from and the address book entry it ships to, which the JSON
kinds cannot relate row by row."""

from collections import Counter

from verifiers.checks import register_check

# An order's copy of the shipping address, field by field of the address book entry it came from.
SHIP_FIELDS = {
    "ship_name": "full_name",
    "ship_line1": "line1",
    "ship_line2": "line2",
    "ship_city": "city",
    "ship_state": "state",
    "ship_zip": "zip_code",
}
LINE_FIELDS = ("variant", "quantity", "gift", "gift_wrap", "gift_message")
_ID = {"type": ["integer", "string"], "minLength": 1}


def _new_order(inputs, customer) -> tuple[str | None, str]:
    """The one order `customer` placed in the episode, or None and why not."""
    added = inputs.diff["tables"].get("shop.order", {}).get("added", {})
    keys = sorted(k for k, row in added.items() if str(row.get("account")) == str(customer))
    if len(keys) != 1:
        return None, f"{len(keys)} order(s) placed by customer {customer}, expected 1"
    return keys[0], ""


def _lines(rows) -> Counter:
    return Counter(tuple(row.get(f) for f in LINE_FIELDS) for row in rows)


def _describe(lines: Counter) -> str:
    return ", ".join(
        f"{n} x {line[0]} (qty {line[1]}{', gift' if line[2] else ''})" for line, n in sorted(lines.items())
    )


_CART_ARGS = {
    "type": "object",
    "properties": {
        "customer": _ID,
        "keep": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "gift": {
            "type": "object",
            "properties": {"sku": {"type": "string", "minLength": 1}, "message": {"type": "string"}},
            "required": ["sku", "message"],
            "additionalProperties": False,
        },
    },
    "required": ["customer"],
    "additionalProperties": False,
}


@register_check("shop_cart_ordered", args_schema=_CART_ARGS)
def cart_ordered(inputs, *, customer, keep=(), gift=None):
    """The one order `customer` placed holds their cart as it was at the start, line for line:
    every line not saved for later, except the SKUs in `keep`, in its quantity and with its gift
    options (`gift`: that SKU's line wrapped as a gift with that message instead), and nothing
    else; and those lines have left the cart. So an item dropped or added, a quantity changed or
    a line left behind fails, whatever the order's totals say."""
    order, why = _new_order(inputs, customer)
    if order is None:
        return False, why
    cart = {
        key: row
        for key, row in inputs.initial["tables"].get("shop.cartitem", {}).items()
        if str(row.get("account")) == str(customer)
        and not row.get("saved_for_later")
        and row.get("variant") not in keep
    }
    wanted = []
    for row in cart.values():
        if gift and row.get("variant") == gift["sku"]:
            row = {**row, "gift": True, "gift_wrap": True, "gift_message": gift["message"]}
        wanted.append(row)
    added = inputs.diff["tables"].get("shop.orderitem", {}).get("added", {}).values()
    expected, got = _lines(wanted), _lines(row for row in added if row.get("order") == order)
    if got != expected:
        missing, extra = expected - got, got - expected
        return False, f"{order} lacks [{_describe(missing)}] and holds [{_describe(extra)}] beyond the cart"
    left = sorted(k for k in cart if k in inputs.final["tables"].get("shop.cartitem", {}))
    if left:
        return False, f"{len(left)} ordered line(s) are still in the cart: {', '.join(left)}"
    return True, f"{order} holds the cart's {sum(expected.values())} line(s), nothing else"


_SHIP_ARGS = {
    "type": "object",
    "properties": {"address": _ID, "order": {"type": "string", "minLength": 1}, "customer": _ID},
    "required": ["address"],
    "oneOf": [{"required": ["order"]}, {"required": ["customer"]}],
    "additionalProperties": False,
}


def _default_address(inputs, customer) -> str | None:
    """The key of the customer's default address at the start (what checkout offers first)."""
    rows = inputs.initial["tables"].get("shop.address", {})
    found = [k for k, row in rows.items() if str(row.get("account")) == str(customer) and row.get("is_default")]
    return found[0] if len(found) == 1 else None


@register_check("shop_ships_to", args_schema=_SHIP_ARGS)
def ships_to(inputs, *, address, order=None, customer=None):
    """The order (`order`, or the one `customer` placed in the episode) ships to address-book
    entry `address` (`"default"`: the customer's default address at the start) as it reads at
    the end: name, both lines, city, state and ZIP, not only the street another entry may share."""
    if order is None:
        order, why = _new_order(inputs, customer)
        if order is None:
            return False, why
    row = inputs.final["tables"].get("shop.order", {}).get(str(order))
    if row is None:
        return False, f"no order {order}"
    if address == "default":
        address = _default_address(inputs, row.get("account"))
    entry = inputs.final["tables"].get("shop.address", {}).get(str(address))
    if entry is None:
        return False, f"no address {address}"
    wrong = [
        f"{f} {row.get(f)!r}, expected {entry.get(a)!r}" for f, a in SHIP_FIELDS.items() if row.get(f) != entry.get(a)
    ]
    return not wrong, "; ".join(wrong) or f"{order} ships to address {address}"
