"""Your Account: membership, rewards tier, display currency, sellers' messages, the address book
and saved cards."""

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render

from replicas.worlds import clock

from .. import policies, selectors, services
from ..forms import (
    AddressBookForm,
    AddressChoiceForm,
    AddressForm,
    CardForm,
    CurrencyForm,
    MembershipForm,
    form_messages,
)
from ..models import SellerMessage
from .common import (
    checkout_state,
    checkout_state_save,
    customer_required,
    error_messages,
    field_messages,
    page_context,
    whole_number,
)


@customer_required
def account_home(request):
    return render(
        request,
        "shop/account.html",
        page_context(
            request,
            tier=policies.loyalty_tier(request.account.loyalty_points),
            message_count=request.account.messages.count(),
        ),
    )


@customer_required
def account_membership(request):
    error = ""
    if request.method == "POST":
        form = MembershipForm(request.POST)
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            services.membership_set(account=request.account, member=form.cleaned_data["action"] == "join")
        except ValidationError as e:
            error = " ".join(error_messages(e))
        else:
            return redirect("/account/membership")
    return render(
        request,
        "shop/membership.html",
        page_context(request, error=error, speeds=policies.SPEEDS, threshold=policies.FREE_SHIPPING_OVER),
        status=400 if error else 200,
    )


@customer_required
def account_rewards(request):
    points = request.account.loyalty_points
    tier, up = policies.loyalty_tier(points), policies.next_tier(points)
    return render(
        request,
        "shop/rewards.html",
        page_context(
            request, tier=tier, next_tier=up, to_next=up.min_points - points if up else 0, tiers=policies.TIERS
        ),
    )


@customer_required
def account_currency(request):
    error = ""
    if request.method == "POST":
        form = CurrencyForm(request.POST)
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            services.currency_set(account=request.account, currency=form.cleaned_data["currency"])
        except ValidationError as e:
            error = " ".join(error_messages(e))
        else:
            return redirect("/account/currency")
    return render(
        request,
        "shop/currency.html",
        page_context(request, error=error, currencies=policies.CURRENCIES.values()),
        status=400 if error else 200,
    )


@customer_required
def account_messages(request):
    found = list(request.account.messages.select_related("seller", "order").order_by("-sent_at", "-public_id"))
    return render(request, "shop/messages.html", page_context(request, found=found))


@customer_required
def account_message(request, public_id):
    message = get_object_or_404(
        SellerMessage.objects.select_related("seller", "order"), account=request.account, public_id=public_id
    )
    return render(request, "shop/message.html", page_context(request, message=message))


def _address_book_change(request, action: str):
    """Add, set as default or remove an address; a refusal raises ValidationError."""
    if action == "add":
        form = AddressForm(request.POST)
        if not form.is_valid():
            raise ValidationError({name: errors for name, errors in form.errors.items()})
        services.address_add(account=request.account, **form.cleaned_data)
        return
    form = AddressChoiceForm(
        request.POST, addresses=request.account.addresses.all(), message="Please choose one of your addresses."
    )
    if not form.is_valid():
        raise ValidationError(form_messages(form))
    address = form.cleaned_data["address"]
    if action == "default":
        services.address_set_default(address=address)
    else:
        services.address_remove(address=address)
        # a checkout under way must not ship to the address that took its slot later
        state = checkout_state(request)
        if state.pop("address", None) == address.public_id:
            checkout_state_save(request, state)


@customer_required
def account_addresses(request):
    """The address book: add an address (validated as at checkout), make one the default, remove one."""
    errors, typed = [], {}
    if request.method == "POST":
        form = AddressBookForm(request.POST)
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            _address_book_change(request, form.cleaned_data["action"])
        except ValidationError as e:
            errors = field_messages(e)
            if form.is_valid() and form.cleaned_data["action"] == "add":
                typed = AddressForm(request.POST).typed()  # what was typed stays in the form
        else:
            return redirect("/account/addresses")
    return render(
        request,
        "shop/addresses.html",
        page_context(
            request,
            addresses=selectors.usable_addresses(request.account),
            errors=errors,
            form=typed,
            adding=bool(typed),
            states=policies.STATES,
        ),
        status=400 if errors else 200,
    )


@customer_required
def account_payments(request):
    """Saved cards: remove one, or add one (Luhn, expiry and the issuer's check, as at checkout)."""
    errors, card_form = [], {}
    if request.method == "POST":
        if "remove" in request.POST:
            pid = whole_number(request.POST.get("remove"))
            card = request.account.cards.filter(public_id=pid, removed=False).first() if pid is not None else None
            if card is None:
                raise Http404
            services.card_remove(card=card)
            return redirect("/account/payments")
        form = CardForm(request.POST)
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            services.card_add(account=request.account, **form.cleaned_data)
        except ValidationError as e:
            errors = field_messages(e, labels=False)
            card_form = form.typed()
        else:
            return redirect("/account/payments")
    cards = [(c, selectors.card_is_expired(c)) for c in selectors.usable_cards(request.account)]
    year = clock.now().year
    return render(
        request,
        "shop/payments.html",
        page_context(
            request, cards=cards, errors=errors, card_form=card_form, months=range(1, 13), years=range(year, year + 11)
        ),
        status=400 if errors else 200,
    )
