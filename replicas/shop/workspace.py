"""The shop in a workspace (ReplicaConfig.workspace_offer / workspace_adopt).

It offers its back-office staff (employees), the customers who have ordered and their
orders (the records a support desk cites), and one delivered item of a shared customer's order
that a desk ticket reports damaged; it adopts the shared people: staff and customers
take the workspace's names and emails and sign in with its one password.
"""

from .models import Account, Address, Order, OrderItem


def _staff():
    return Account.objects.filter(role=Account.Role.STAFF).order_by("public_id")


def _customers():
    return (
        Account.objects.filter(role=Account.Role.CUSTOMER, pk__in=Order.objects.values("account"))
        .order_by("public_id")
        .distinct()
    )


def offer(world) -> dict:
    customers = list(_customers()[:5])
    orders = []
    for index, account in enumerate(customers):
        # every order: the desk shows a shared customer's whole history, the shop's
        for order in account.orders.order_by("placed_at", "public_id"):
            orders.append(
                {
                    "number": order.public_id,
                    "person": ["customer", index],
                    "placed_at": order.placed_at.isoformat(),
                    "total": str(order.total),
                    "currency": account.currency,
                }
            )
    damaged = _damaged_item(customers)
    return {
        "people": {
            "employee": [{"name": a.name, "email": a.email} for a in _staff()[:5]],
            "customer": [{"name": a.name, "email": a.email} for a in customers],
        },
        "references": {"order": orders, "damaged_item": [damaged] if damaged else []},
    }


def _replaceable(item: OrderItem) -> bool:
    """Delivered, kept whole (no return, refund or replacement yet) and in stock to be sent again."""
    return (
        item.status == OrderItem.Status.ACTIVE
        and item.delivered_at is not None
        and not item.returns.exists()
        and not item.refunds.exists()
        and not item.replacements.exists()
        and item.variant.stock >= item.quantity
    )


def _damaged_item(customers: list[Account]) -> dict | None:
    """The last line of the first order (customers in offer order) with two replaceable lines or more: the
    ticket reports one line of several, so replacing the whole order or another line is a wrong answer."""
    for index, account in enumerate(customers):
        for order in account.orders.order_by("placed_at", "public_id"):
            lines = [i for i in order.items.select_related("variant").order_by("line") if _replaceable(i)]
            if len(lines) >= 2:
                item = lines[-1]
                return {"order": order.public_id, "line": item.line, "title": item.title, "person": ["customer", index]}
    return None


def _take_identity(account: Account, person: dict) -> None:
    """`account` becomes `person`; its addresses and orders shipped under the old name follow."""
    email = person["email"]
    if Account.objects.exclude(pk=account.pk).filter(email__iexact=email).exists():
        raise ValueError(f"shop: {email} is already another account's address")
    Address.objects.filter(account=account, full_name=account.name).update(full_name=person["name"])
    Order.objects.filter(account=account, ship_name=account.name).update(ship_name=person["name"])
    account.name, account.email = person["name"], email
    account.save(update_fields=["name", "email"])


def adopt(world, *, people: dict, references: dict) -> dict:
    sign_ins = {}
    for candidates, kind in ((_staff(), "employee"), (_customers(), "customer")):
        shared = people.get(kind, [])
        for account, person in zip(list(candidates[: len(shared)]), shared, strict=True):
            _take_identity(account, person)
            sign_ins[person["key"]] = account.public_id
    return sign_ins
