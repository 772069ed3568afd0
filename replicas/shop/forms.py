"""Forms of the storefront and the back office: every post is parsed here before a view calls a
service. The forms check the shape of the input (whole numbers, listed choices, lengths, which of
the shopper's own rows is meant); the store's rules (stock, return windows, zones, Luhn, the
issuer) stay in services, which raise ValidationError and change nothing."""

from decimal import Decimal, InvalidOperation

from django import forms

from . import policies, selectors
from .models import Order, Refund, Replacement, ReturnRequest
from .services import MAX_QUANTITY, MAX_STOCK


def form_messages(form: forms.Form) -> list[str]:
    """A refused form's messages, in field order, each once (the messages say which field)."""
    found = []
    for errors in form.errors.values():
        found.extend(m for m in errors if m not in found)
    return found


class WholeNumberField(forms.Field):
    """A non-negative whole number typed in ASCII digits: "²" and other Unicode digits pass
    str.isdigit() but int() refuses them, so they are refused here with the field's own message."""

    def __init__(self, *, min_value: int = 0, max_value: int = 10**11, message: str, **kwargs):
        kwargs.setdefault("error_messages", {"required": message})
        super().__init__(**kwargs)
        self.min_value, self.max_value, self.message = min_value, max_value, message

    def to_python(self, value):
        if value in self.empty_values:
            return None
        value = str(value).strip()
        if not (value.isascii() and value.isdigit() and len(value) < 12):
            raise forms.ValidationError(self.message, code="invalid")
        return int(value)

    def validate(self, value):
        super().validate(value)
        if value is not None and not self.min_value <= value <= self.max_value:
            raise forms.ValidationError(self.message, code="range")


class OwnRowField(forms.ModelChoiceField):
    """One of the shopper's own rows (an address, a card, an order line), posted by its public
    number; anything else, including another shopper's row, gets the field's one message."""

    def __init__(self, queryset, *, to_field_name="public_id", message: str, **kwargs):
        errors = {"required": message, "invalid_choice": message}
        super().__init__(queryset, to_field_name=to_field_name, error_messages=errors, **kwargs)


def _flag(name: str) -> forms.BooleanField:
    """A checkbox posted as "1" (absent when unticked)."""
    return forms.BooleanField(required=False, label=name)


# --- sign-in and header -------------------------------------------------------------------------------


class SignInForm(forms.Form):
    WRONG = "Your email or password is incorrect."

    email = forms.CharField(max_length=254, error_messages={"required": WRONG, "max_length": WRONG})
    password = forms.CharField(max_length=200, strip=False, error_messages={"required": WRONG, "max_length": WRONG})

    def clean_email(self):
        return self.cleaned_data["email"].strip().lower()


class SignInEmailForm(forms.Form):
    """Sign-in's first step: the email alone; the password is asked for on the next page."""

    UNKNOWN = "We cannot find an account with that email address."

    email = forms.CharField(
        max_length=254, error_messages={"required": "Enter your email or mobile phone number.", "max_length": UNKNOWN}
    )

    def clean_email(self):
        return self.cleaned_data["email"].strip().lower()


class DeliverToForm(forms.Form):
    """ "Choose your location": one of a customer's saved addresses (with a state, so dates can be
    given), or a state typed or picked by anyone. Cleaned to the session's {"address"} or {"state"}."""

    address = forms.CharField(required=False, max_length=20)
    state = forms.CharField(required=False, max_length=40)

    def __init__(self, *args, addresses=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.addresses = addresses  # None: a visitor, who has no saved addresses

    def clean(self):
        data = super().clean()
        pid, state = data.get("address", ""), data.get("state", "").strip().upper()
        if pid and self.addresses is None:
            raise forms.ValidationError("Sign in to deliver to one of your saved addresses.")
        if pid:
            number = int(pid) if pid.isascii() and pid.isdigit() and len(pid) < 12 else None
            address = self.addresses.filter(public_id=number).first() if number is not None else None
            if address is None:
                raise forms.ValidationError("Please choose one of your addresses.")
            if not address.state:
                raise forms.ValidationError(
                    "This address has no state, so no delivery date can be given for it. Add it again with its state."
                )
            data["choice"] = {"address": address.public_id}
        elif state:
            if state not in policies.STATES:
                raise forms.ValidationError(
                    f'We do not deliver to "{state[:10]}". Please choose a state from the list.'
                )
            data["choice"] = {"state": state}
        else:
            raise forms.ValidationError("Please choose an address or a state.")
        return data


class QuestionForm(forms.Form):
    # the length rules are the service's; this only bounds what is read
    question = forms.CharField(required=False, max_length=5000, strip=False)


class ReviewForm(forms.Form):
    # the rules (1 to 5 stars, headline and text lengths) are the service's; this only bounds what is read
    rating = WholeNumberField(required=False, message="Please choose an overall rating from 1 to 5 stars.")
    title = forms.CharField(required=False, max_length=1000)
    body = forms.CharField(required=False, max_length=20000)


# --- cart ------------------------------------------------------------------------------------------------


class CartAddForm(forms.Form):
    sku = forms.CharField(max_length=24)
    quantity = WholeNumberField(
        required=False, min_value=1, max_value=MAX_QUANTITY, message=f"Quantity must be between 1 and {MAX_QUANTITY}."
    )

    def clean_quantity(self):
        # the product page always posts a quantity; a bare "Add to Cart" button adds one
        quantity = self.cleaned_data["quantity"]
        return 1 if quantity is None else quantity


class CartBundleForm(forms.Form):
    """ "Add all to Cart": this item and up to four bought with it, as repeated `sku` inputs."""

    MAX_ITEMS = 5

    def __init__(self, data, **kwargs):
        super().__init__(data, **kwargs)
        self.skus = list(dict.fromkeys(s.strip()[:24] for s in data.getlist("sku") if s.strip()))

    def clean(self):
        if not self.skus:
            raise forms.ValidationError("Choose the items to add.")
        if len(self.skus) > self.MAX_ITEMS:
            raise forms.ValidationError(f"At most {self.MAX_ITEMS} items can be added together.")
        return super().clean()


class CartUpdateForm(forms.Form):
    action = forms.ChoiceField(
        required=False,
        choices=[(a, a) for a in ("update", "delete", "save", "move", "gift")],
        error_messages={"invalid_choice": "Choose update, delete, save for later, move to cart or gift options."},
    )
    quantity = WholeNumberField(
        required=False, max_value=MAX_QUANTITY, message=f"Quantity must be between 0 and {MAX_QUANTITY}."
    )
    gift = _flag("This is a gift")
    gift_wrap = _flag("Gift wrap")
    gift_message = forms.CharField(required=False, max_length=1000, strip=False)

    def clean(self):
        data = super().clean()
        data["action"] = data.get("action") or "update"
        if data["action"] == "update" and "quantity" in data and data["quantity"] is None:
            self.add_error("quantity", f"Quantity must be between 0 and {MAX_QUANTITY}.")
        return data


# --- checkout and addresses -----------------------------------------------------------------------------


class AddressChoiceForm(forms.Form):
    """One of the shopper's saved addresses; `message` says what to do when none was chosen."""

    def __init__(self, *args, addresses, message: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["address"] = OwnRowField(addresses, message=message)


class AddressForm(forms.Form):
    """A new address as typed; the address validation service (services.address_add) checks it."""

    full_name = forms.CharField(required=False, max_length=200, strip=False)
    line1 = forms.CharField(required=False, max_length=200, strip=False)
    line2 = forms.CharField(required=False, max_length=200, strip=False)
    city = forms.CharField(required=False, max_length=200, strip=False)
    state = forms.CharField(required=False, max_length=200, strip=False)
    zip_code = forms.CharField(required=False, max_length=200, strip=False)
    phone = forms.CharField(required=False, max_length=200, strip=False)

    def typed(self) -> dict:
        """What was typed, cut to the fields' lengths, to show again in a refused form."""
        return {name: self.data.get(name, "")[:200] for name in self.fields}


class AddressBookForm(forms.Form):
    action = forms.ChoiceField(
        choices=[("add", "add"), ("default", "default"), ("remove", "remove")],
        error_messages={
            "required": "Choose add, set as default or remove.",
            "invalid_choice": "Choose add, set as default or remove.",
        },
    )


class DeliveryForm(forms.Form):
    """The order's delivery speed and any line's own speed (`speed-<sku>`, "" = the order's), each
    one the destination's zone serves and that line can ship at."""

    speed = forms.CharField(required=False, max_length=20)

    def __init__(self, *args, lines, dest: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.lines, self.dest = lines, dest
        for ln in lines:
            self.fields[f"speed-{ln.variant.sku}"] = forms.CharField(required=False, max_length=20)

    def clean(self):
        data = super().clean()
        speed, dest = data.get("speed", ""), self.dest
        own = {ln.variant.sku: data.get(f"speed-{ln.variant.sku}", "") for ln in self.lines}
        own = {sku: sp for sku, sp in own.items() if sp}
        by_sku = {ln.variant.sku: ln for ln in self.lines}
        unserved = sorted(
            {sp for sp in [speed, *own.values()] if sp in policies.SPEEDS and not policies.speed_served(sp, dest)}
        )
        if unserved:
            raise forms.ValidationError(
                f"{policies.speed_label(unserved[0])} is not available to {dest} "
                f"({policies.zone_for(dest).name} delivery zone). Please choose another delivery option."
            )
        if speed not in policies.SPEEDS or not selectors.speed_allowed(
            speed, [by_sku[s] for s in by_sku if s not in own], dest
        ):
            raise forms.ValidationError("Please choose a delivery option.")
        if any(
            sp not in policies.SPEEDS or not selectors.speed_allowed(sp, [by_sku[sku]], dest) for sku, sp in own.items()
        ):
            raise forms.ValidationError("One of the items cannot ship at the speed chosen for it.")
        data["speeds"] = {sku: sp for sku, sp in own.items() if sp != speed}
        return data


class PaymentForm(forms.Form):
    use_gift = _flag("Use your gift card balance")

    def __init__(self, *args, cards, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["card"] = OwnRowField(cards, message="Please choose a payment method.")

    def clean_card(self):
        card = self.cleaned_data["card"]
        if selectors.card_is_expired(card):
            raise forms.ValidationError(f"Your {card.label()} has expired. Please choose another payment method.")
        return card


class CardForm(forms.Form):
    """A new card as typed; the number, expiry and issuer are checked by services.card_add."""

    number = forms.CharField(required=False, max_length=40, strip=False)
    exp_month = forms.CharField(required=False, max_length=40, strip=False)
    exp_year = forms.CharField(required=False, max_length=40, strip=False)
    holder = forms.CharField(required=False, max_length=40, strip=False)

    def typed(self) -> dict:
        """What was typed, to show again; a card number is never echoed back."""
        return {**{name: self.data.get(name, "")[:40] for name in self.fields}, "number": ""}


class PromoForm(forms.Form):
    code = forms.CharField(required=False, max_length=40)
    remove = forms.CharField(required=False, max_length=40)


class ThreeDSForm(forms.Form):
    WRONG = "The code you entered is incorrect. Please try again."

    code = forms.CharField(max_length=20, error_messages={"required": WRONG, "max_length": WRONG})

    def clean_code(self):
        if self.cleaned_data["code"] != policies.THREE_DS_CODE:
            raise forms.ValidationError(self.WRONG)
        return self.cleaned_data["code"]


# --- orders ----------------------------------------------------------------------------------------------


class CancelForm(forms.Form):
    """The order lines to cancel, as repeated `line` inputs, and the reason; which lines may be cancelled
    and whether the reason is one of the store's is the service's rule."""

    def __init__(self, data, **kwargs):
        super().__init__(data, **kwargs)
        # none selected (or no reason) is the service's refusal, after it has checked the order has not shipped
        self.lines = sorted({int(n) for n in data.getlist("line") if n.isascii() and n.isdigit() and len(n) < 6})
        self.reason = data.get("reason", "")


class ReturnForm(forms.Form):
    reason = forms.ChoiceField(
        choices=ReturnRequest.Reason.choices,
        error_messages={
            "required": "Please choose a reason for the return.",
            "invalid_choice": "Please choose a reason for the return.",
        },
    )
    comment = forms.CharField(required=False, max_length=1000)
    refund_method = forms.ChoiceField(
        required=False,
        choices=Refund.Method.choices,
        error_messages={"invalid_choice": "Please choose where the refund should go."},
    )

    resolution = forms.ChoiceField(
        required=False,
        choices=ReturnRequest.Resolution.choices,
        error_messages={"invalid_choice": "Please choose a refund or a replacement."},
    )
    quantity = WholeNumberField(
        required=False, min_value=1, max_value=MAX_QUANTITY, message="Choose how many to return."
    )
    drop_off = forms.ChoiceField(
        required=False,
        choices=ReturnRequest.DropOff.choices,
        error_messages={"invalid_choice": "Please choose how you will send the item back."},
    )

    def clean_refund_method(self):
        return self.cleaned_data["refund_method"] or Refund.Method.CARD

    def clean_resolution(self):
        return self.cleaned_data["resolution"] or ReturnRequest.Resolution.REFUND

    def clean_drop_off(self):
        return self.cleaned_data["drop_off"] or ReturnRequest.DropOff.COUNTER


# --- account ---------------------------------------------------------------------------------------------


class MembershipForm(forms.Form):
    action = forms.ChoiceField(
        choices=[("join", "join"), ("cancel", "cancel")],
        error_messages={
            "required": "Choose to join or to end the membership.",
            "invalid_choice": "Choose to join or to end the membership.",
        },
    )


class CurrencyForm(forms.Form):
    currency = forms.ChoiceField(
        choices=[(code, code) for code in policies.CURRENCIES],
        error_messages={
            "required": "Please choose one of the listed currencies.",
            "invalid_choice": "Please choose one of the listed currencies.",
        },
    )


# --- back office -----------------------------------------------------------------------------------------


class ReturnDecisionForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("approve", "approve"), ("reject", "reject")],
        error_messages={"required": "Choose approve or reject.", "invalid_choice": "Choose approve or reject."},
    )


class RefundForm(forms.Form):
    """A refund on one line of an order; the method, reason and the most that may go back are the
    service's rules."""

    amount = forms.CharField(required=False, max_length=20)
    reason = forms.CharField(required=False, max_length=500)
    method = forms.CharField(required=False, max_length=20)

    def __init__(self, *args, items, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["line"] = OwnRowField(items, to_field_name="line", message="Choose the item to refund.")
        self.order_fields(["line", "amount", "reason", "method"])

    def clean_amount(self):
        # typed as staff type it: "$1,234.50"
        text = self.cleaned_data["amount"].replace("$", "").replace(",", "").strip()
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise forms.ValidationError("The amount must be a positive amount in dollars and cents.") from None
        if not amount.is_finite():
            raise forms.ValidationError("The amount must be a positive amount in dollars and cents.")
        return amount


class ReplacementForm(forms.Form):
    """The lines of an order to send again (ticked), the units of each (`qty-<line>`) and why; which lines
    may be replaced and how many units is the service's rule."""

    reason = forms.ChoiceField(
        choices=Replacement.Reason.choices, error_messages={"required": "Please choose why the items are replaced."}
    )
    reason.error_messages["invalid_choice"] = reason.error_messages["required"]

    def __init__(self, *args, items, **kwargs):
        super().__init__(*args, **kwargs)
        pick = "Please select the items to replace."
        self.fields["lines"] = forms.TypedMultipleChoiceField(
            choices=[(str(i.line), i.title) for i in items],
            coerce=int,
            error_messages={"required": pick, "invalid_choice": pick},
        )
        for item in items:
            message = f"Line {item.line}: enter the units to replace as a whole number."
            self.fields[f"qty-{item.line}"] = WholeNumberField(required=False, message=message)
        self.order_fields(["lines", "reason"])

    def clean(self):
        """`quantities`: each ticked line's units (the page fills in all it bought)."""
        data = super().clean()
        for n in data.get("lines", []):
            if data.get(f"qty-{n}") is None and f"qty-{n}" not in self.errors:
                self.add_error(f"qty-{n}", self.fields[f"qty-{n}"].message)
        if not self.errors:
            data["quantities"] = {n: data[f"qty-{n}"] for n in data["lines"]}
        return data


class OrderSearchForm(forms.Form):
    """The back office's order search: words of a customer's name or email or an order number, a
    status, and the first and last day the order was placed (all optional)."""

    q = forms.CharField(required=False, max_length=60)
    status = forms.ChoiceField(required=False, choices=[("", "Any status"), *Order.Status.choices])
    since = forms.DateField(required=False, error_messages={"invalid": "Enter the first day as YYYY-MM-DD."})
    until = forms.DateField(required=False, error_messages={"invalid": "Enter the last day as YYYY-MM-DD."})

    def clean(self):
        data = super().clean()
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise forms.ValidationError("The first day must not be after the last day.")
        return data


class StockForm(forms.Form):
    # whole number and range are the service's rule; an overlong entry gets the same message
    stock = forms.CharField(
        required=False,
        max_length=12,
        error_messages={"max_length": f"Enter the units on hand as a whole number from 0 to {MAX_STOCK}."},
    )

    def __init__(self, *args, variants, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["sku"] = OwnRowField(variants, to_field_name="sku", message="Choose a variant from the list.")
        self.order_fields(["sku", "stock"])
