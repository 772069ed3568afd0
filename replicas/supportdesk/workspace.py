"""The support desk in a workspace (ReplicaConfig.workspace_offer / workspace_adopt).

It offers its agents (employees), the customers whose tickets cite an order, its busiest
product and that product's tickets; it adopts the shared people, mirrors the shop's orders
of each shared customer (same numbers, dates and totals, cited by their tickets), takes the
shop's damaged item as a new ticket from its customer, and notes on each ticket paired with a
board work item that engineering tracks it there.
"""

from decimal import Decimal

from django.db.models import Count, Max

from . import services
from .models import Comment, Group, Identity, Order, Payment, Ticket, User

# tickets offered for pairing with work items: as many as a workspace shares people
PAIRED_TICKETS = 3
FRONT_LINE = "Support"


def _employees():
    return User.objects.filter(role__in=[User.Role.ADMIN, User.Role.AGENT], suspended=False).order_by("public_id")


def _customers():
    citing = Ticket.objects.exclude(order_number="").values("requester")
    return User.objects.filter(role=User.Role.END_USER, pk__in=citing).order_by("public_id")


def _product() -> str:
    """The product most tickets are about (the subscription is a service, not a product a board builds)."""
    top = (
        Ticket.objects.exclude(product__in=["", Ticket.Product.SUBSCRIPTION])
        .values("product")
        .annotate(n=Count("id"))
        .order_by("-n", "product")
        .first()
    )
    return top["product"] if top else ""


def offer(world) -> dict:
    product = _product()
    tickets = Ticket.objects.filter(product=product).order_by("public_id")[:PAIRED_TICKETS] if product else []
    return {
        "people": {
            "employee": [{"name": u.name, "email": u.email} for u in _employees()[:5]],
            "customer": [{"name": u.name, "email": u.email} for u in _customers()[:5]],
        },
        "references": {
            "product": [{"code": product, "name": Ticket.Product(product).label}] if product else [],
            "ticket": [{"number": t.public_id, "subject": t.subject, "product": product} for t in tickets],
        },
    }


def _take_identity(user: User, person: dict) -> None:
    """`user` becomes `person`: its name, its email, and the email identity that held the old address."""
    email = person["email"]
    if User.objects.exclude(pk=user.pk).filter(email__iexact=email).exists():
        raise ValueError(f"supportdesk: {email} is already another user's address")
    Identity.objects.filter(user=user, kind=Identity.Kind.EMAIL, value__iexact=user.email).update(value=email)
    user.name, user.email = person["name"], email
    user.save(update_fields=["name", "email"])


def _mirror_orders(customer: User, orders: list[dict]) -> None:
    """The customer's desk orders become the shop's: the first ones renumbered, the rest created.

    Tickets, their comments and payments follow the renumbering, so a ticket's cited order is
    one the shop has. Desk orders beyond the shop's count keep their numbers (older orders).
    """
    mine = list(Order.objects.filter(customer=customer).order_by("placed_at", "public_id"))
    taken = set(Order.objects.values_list("public_id", flat=True))
    for index, shop in enumerate(orders):
        if shop["number"] in taken:
            raise ValueError(f"supportdesk: order {shop['number']} already exists in the desk")
        total = Decimal(shop["total"])
        currency = shop.get("currency") or "USD"
        if index < len(mine):
            order = mine[index]
            old = order.public_id
            Ticket.objects.filter(requester=customer, order_number=old).update(order_number=shop["number"])
            for comment in Comment.objects.filter(ticket__requester=customer, body__contains=old):
                comment.body = comment.body.replace(old, shop["number"])
                comment.save(update_fields=["body"])
            for ticket in Ticket.objects.filter(requester=customer, subject__contains=old):
                ticket.subject = ticket.subject.replace(old, shop["number"])
                ticket.save(update_fields=["subject"])
            Payment.objects.filter(order=order).update(amount=total, currency=currency)
        else:
            order = Order(customer=customer, status=Order.Status.FULFILLED)
        order.public_id, order.placed_at, order.currency = shop["number"], shop["placed_at"], currency
        extras = (order.shipping or 0) + (order.tax or 0)
        if extras > total:
            order.shipping = order.tax = Decimal(0)
            extras = Decimal(0)
        order.total, order.subtotal = total, total - extras
        order.save()
        taken.add(shop["number"])


def _note_work_item(ticket: Ticket, item: dict, author: User) -> None:
    """An internal note saying where engineering tracks the ticket, as an agent writes after escalating."""
    top = Comment.objects.aggregate(top=Max("public_id"))["top"] or 0
    Comment.objects.create(
        public_id=top + 1,
        ticket=ticket,
        author=author,
        body=f"Escalated to engineering: tracked as {item['key']} ({item['title']}) on the {item['project']} board.",
        public=False,
        channel=Ticket.Channel.WEB,
        created_at=ticket.updated_at,
    )


def _report_damage(customer: User, damaged: dict) -> None:
    """The customer writes in (by email, triggers run) that an item of their order arrived broken and asks for a
    new one, citing the order as customers do: the ticket a replacement answers."""
    order = damaged["order"]
    services.ticket_create(
        requester=customer,
        subject=f"Damaged item in order {order}",
        body=f"Hello, the {damaged['title']} from my order {order} arrived damaged: the box was crushed and it "
        "does not work. The rest of the order is fine. Could you send me a new one?",
        channel=Ticket.Channel.EMAIL,
        fields={
            "order_number": order,
            "type": Ticket.Type.INCIDENT,
            "add_tags": ["damaged_item"],
            "group": Group.objects.filter(name=FRONT_LINE).first(),  # where a new customer ticket lands
        },
    )


def adopt(world, *, people: dict, references: dict) -> dict:
    sign_ins = {}
    employees = list(_employees()[: len(people.get("employee", []))])
    for user, person in zip(employees, people.get("employee", []), strict=True):
        _take_identity(user, person)
        sign_ins[person["key"]] = user.public_id
    customers = list(_customers()[: len(people.get("customer", []))])
    shop_orders = [r for r in references.get("order", []) if r["replica"] != world.replica]
    for user, person in zip(customers, people.get("customer", []), strict=True):
        _take_identity(user, person)
        _mirror_orders(user, [o for o in shop_orders if o.get("person") == person["key"]])
        for damaged in references.get("damaged_item", []):
            if damaged["replica"] != world.replica and damaged["person"] == person["key"]:
                _report_damage(user, damaged)
    tickets = [t for t in references.get("ticket", []) if t["replica"] == world.replica]
    items = references.get("work_item", [])
    if employees:
        for ticket, item in zip(tickets, items, strict=False):
            _note_work_item(Ticket.objects.get(public_id=ticket["number"]), item, employees[0])
    return sign_ins
