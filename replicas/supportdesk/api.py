"""The desk's internal billing API (/api/v2/billing/…), JSON on the world's origin.

The Orders & Billing app of the ticket page calls it over HTTP, so request faults
(slow, 500 on first try, timeouts) apply to it by route in the fault middleware;
there is no call site here. Callers are the signed-in agent of the page's own
session; writes need the CSRF token. Every refusal is a 4xx with
{"error": {"code", "message", "fields"}}, the same message the refund form shows.
"""

from decimal import Decimal

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import BaseAuthentication, CSRFCheck
from rest_framework.permissions import BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from . import policies, selectors, services
from .models import Order, Payment, Refund, Ticket, User
from .views.common import signed_in_agent


def _money(value) -> str | None:
    return None if value is None else str(Decimal(value).quantize(policies.CENT))


def _iso(value) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


# --- authentication: the page's session -----------------------------------------------------


class AgentSession(BaseAuthentication):
    """The agent signed in on this world's pages; writes must carry the session's CSRF token."""

    def authenticate(self, request):
        agent = signed_in_agent(request._request)
        if agent is None:
            return None
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            check = CSRFCheck(lambda r: None)
            check.process_request(request._request)
            reason = check.process_view(request._request, None, (), {})
            if reason:
                raise exceptions.PermissionDenied(f"CSRF check failed: {reason}. Reload the page and try again.")
        return agent, None

    def authenticate_header(self, request):
        return 'Session realm="agent workspace"'


class IsSignedInAgent(BasePermission):
    message = "Sign in as an agent to use the billing API."

    def has_permission(self, request, view):
        return isinstance(request.user, User) and request.user.is_agent


def _error(code: str, message: str, http_status: int, fields: dict | None = None) -> Response:
    return Response({"error": {"code": code, "message": message, "fields": fields or {}}}, status=http_status)


def _exception_handler(exc, context):
    if isinstance(exc, DjangoValidationError):
        return _error(
            getattr(exc, "code", None) or "refused", " ".join(exc.messages), status.HTTP_422_UNPROCESSABLE_ENTITY
        )
    if isinstance(exc, Http404):
        return _error("not_found", str(exc) or "Not found.", status.HTTP_404_NOT_FOUND)
    if isinstance(exc, exceptions.ValidationError):
        fields = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        flat = {k: [str(m) for m in (v if isinstance(v, list) else [v])] for k, v in fields.items()}
        message = "; ".join(f"{k}: {' '.join(v)}" for k, v in flat.items())
        return _error("invalid", message, status.HTTP_400_BAD_REQUEST, flat)
    if isinstance(exc, exceptions.NotAuthenticated):
        exc = exceptions.NotAuthenticated(IsSignedInAgent.message)
    if isinstance(exc, exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "error"
        response = _error(code, str(exc.detail), exc.status_code)
        if isinstance(exc, (exceptions.NotAuthenticated, exceptions.AuthenticationFailed)):
            response["WWW-Authenticate"] = 'Session realm="agent workspace"'
        return response
    return None


class BillingView(APIView):
    authentication_classes = [AgentSession]
    permission_classes = [IsSignedInAgent]
    renderer_classes = [JSONRenderer]

    def get_exception_handler(self):
        return _exception_handler


# --- output ---------------------------------------------------------------------------------


def order_json(order: Order) -> dict:
    return {
        "id": order.public_id,
        "status": order.status,
        "currency": order.currency,
        "subtotal": _money(order.subtotal),
        "shipping": _money(order.shipping),
        "tax": _money(order.tax),
        "total": _money(order.total),
        "placed_at": _iso(order.placed_at),
        "fulfilled_at": _iso(order.fulfilled_at),
        "cancelled_at": _iso(order.cancelled_at),
        "tracking_number": order.tracking_number,
        "ship_to": order.ship_to,
        "items": [
            {"line": i.line, "sku": i.sku, "name": i.name, "quantity": i.quantity, "unit_price": _money(i.unit_price)}
            for i in sorted(order.items.all(), key=lambda i: i.line)
        ],
    }


def payment_json(payment: Payment, refunds: list | None = None) -> dict:
    if refunds is None:
        refunds = list(
            Refund.objects.filter(payment=payment)
            .select_related("payment", "agent", "ticket")
            .order_by("created_at", "public_id")
        )
    refunded = sum((r.amount for r in refunds), Decimal(0))
    remaining = payment.amount - refunded if payment.status == Payment.Status.SUCCEEDED else Decimal(0)
    return {
        "id": payment.public_id,
        "order": payment.order.public_id if payment.order_id else None,
        "subscription": payment.subscription.public_id if payment.subscription_id else None,
        "amount": _money(payment.amount),
        "currency": payment.currency,
        "status": payment.status,
        "card_brand": payment.card_brand,
        "card_last4": payment.card_last4,
        "description": payment.description,
        "captured_at": _iso(payment.captured_at),
        "period_start": _iso(payment.period_start),
        "period_end": _iso(payment.period_end),
        "refunded": _money(refunded),
        "refundable": _money(remaining),
        "refunds": [refund_json(r) for r in refunds],
    }


def refund_json(refund: Refund) -> dict:
    return {
        "id": refund.public_id,
        "payment": refund.payment.public_id,
        "amount": _money(refund.amount),
        "currency": refund.currency,
        "kind": refund.kind,
        "reason": refund.reason,
        "note": refund.note,
        "agent": refund.agent.email if refund.agent_id else None,
        "ticket": refund.ticket.public_id if refund.ticket_id else None,
        "created_at": _iso(refund.created_at),
    }


def subscription_json(sub) -> dict:
    return {
        "id": sub.public_id,
        "plan": sub.plan,
        "interval": sub.interval,
        "price": _money(sub.price),
        "currency": sub.currency,
        "status": sub.status,
        "current_period_start": _iso(sub.current_period_start),
        "current_period_end": _iso(sub.current_period_end),
        "cancelled_at": _iso(sub.cancelled_at),
    }


def _customer(customer_id: int) -> User:
    customer = User.objects.filter(public_id=customer_id, role=User.Role.END_USER).first()
    if customer is None:
        raise Http404(f"No customer {customer_id}.")
    return customer


# --- reads ------------------------------------------------------------------------------------


def _billing(customer: User) -> dict:
    """Orders and subscriptions, each with its payments, each payment with its refunds."""
    data = selectors.customer_billing(customer)
    refunds_of: dict[int, list] = {}
    for r in sorted(data["refunds"], key=lambda r: (r.created_at, r.public_id)):
        refunds_of.setdefault(r.payment_id, []).append(r)
    payments_of: dict[tuple, list] = {}
    for p in sorted(data["payments"], key=lambda p: (p.captured_at, p.public_id)):
        key = ("order", p.order_id) if p.order_id else ("subscription", p.subscription_id)
        payments_of.setdefault(key, []).append(payment_json(p, refunds_of.get(p.id, [])))
    return {
        "customer": {
            "id": customer.public_id,
            "name": customer.name,
            "email": customer.email,
            "loyalty_tier": customer.loyalty_tier,
        },
        "orders": [{**order_json(o), "payments": payments_of.get(("order", o.id), [])} for o in data["orders"]],
        "subscriptions": [
            {**subscription_json(s), "payments": payments_of.get(("subscription", s.id), [])}
            for s in data["subscriptions"]
        ],
        "refunds": [refund_json(r) for r in data["refunds"]],
    }


class CustomerBilling(BillingView):
    """Everything the Orders & Billing app shows for one customer."""

    def get(self, request, customer_id: int):
        return Response(_billing(_customer(customer_id)))


class CustomerOrders(BillingView):
    """The customer's orders and subscriptions with their payments and refunds (what the app lists)."""

    def get(self, request, customer_id: int):
        data = _billing(_customer(customer_id))
        return Response({"orders": data["orders"], "subscriptions": data["subscriptions"]})


class CustomerPayments(BillingView):
    def get(self, request, customer_id: int):
        payments = (
            Payment.objects.filter(customer=_customer(customer_id))
            .select_related("order", "subscription")
            .order_by("-captured_at", "public_id")
        )
        return Response({"payments": [payment_json(p) for p in payments]})


class CustomerRefunds(BillingView):
    def get(self, request, customer_id: int):
        refunds = selectors.customer_billing(_customer(customer_id))["refunds"]
        return Response({"refunds": [refund_json(r) for r in refunds]})


class OrderDetail(BillingView):
    def get(self, request, order_id: str):
        order = Order.objects.filter(public_id=order_id.upper()).prefetch_related("items").first()
        if order is None:
            raise Http404(f"No order {order_id}.")
        payments = (
            Payment.objects.filter(order=order)
            .select_related("order", "subscription")
            .order_by("captured_at", "public_id")
        )
        return Response(
            {**order_json(order), "customer": order.customer.public_id, "payments": [payment_json(p) for p in payments]}
        )


class RefundQuote(BillingView):
    """What the refund form needs for one payment: refundable amount, the agent's limit, prorated amount."""

    def get(self, request, payment_id: str):
        payment = _payment(payment_id)
        q = selectors.refund_quote(payment=payment, agent=request.user)
        return Response({**{k: (_money(v) if isinstance(v, Decimal) else v) for k, v in q.items()}})


def _payment(payment_id: str) -> Payment:
    payment = Payment.objects.filter(public_id=payment_id).select_related("customer", "order", "subscription").first()
    if payment is None:
        raise Http404(f"No payment {payment_id}.")
    return payment


# --- writes -----------------------------------------------------------------------------------


class RefundInput(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Refund.Kind.values)
    reason = serializers.ChoiceField(choices=Refund.Reason.values)
    ticket = serializers.IntegerField(min_value=1, help_text="The ticket the refund is issued from")
    amount = serializers.CharField(
        max_length=20,
        required=False,
        allow_blank=True,
        help_text='Decimal text, e.g. "12.50". Optional for full (the remaining amount) and prorated (the '
        "unused part).",
    )
    currency = serializers.ChoiceField(
        choices=policies.CURRENCY_CODES, required=False, help_text="Defaults to the payment's"
    )
    note = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


class PaymentRefunds(BillingView):
    """A payment's refunds (GET) and issuing one (POST: 201 with the refund and the payment after it)."""

    def get(self, request, payment_id: str):
        payment = _payment(payment_id)
        return Response({"refunds": payment_json(payment)["refunds"]})

    def post(self, request, payment_id: str):
        if not isinstance(request.data, dict):
            raise exceptions.ValidationError({"non_field_errors": ["Send a JSON object."]})
        data = RefundInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        payment = _payment(payment_id)
        ticket = Ticket.objects.filter(public_id=v["ticket"]).select_related("requester").first()
        if ticket is None:
            raise Http404(f"No ticket #{v['ticket']}.")
        amount = (v.get("amount") or "").strip()
        if not amount:
            if v["kind"] == Refund.Kind.PARTIAL:
                raise exceptions.ValidationError({"amount": ["Enter the amount of a partial refund."]})
            quote = selectors.refund_quote(payment=payment, agent=request.user)
            amount = (
                quote["prorated"]
                if v["kind"] == Refund.Kind.PRORATED and quote["prorated"] is not None
                else quote["remaining"]
            )
        refund = services.refund_issue(
            agent=request.user,
            payment=payment,
            amount=amount,
            currency=v.get("currency", payment.currency),
            kind=v["kind"],
            reason=v["reason"],
            ticket=ticket,
            note=v["note"],
            via="api",
        )
        return Response(
            {**refund_json(refund), "payment_after": payment_json(_payment(payment.public_id))},
            status=status.HTTP_201_CREATED,
        )
