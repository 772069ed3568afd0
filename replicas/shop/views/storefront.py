"""The storefront's front door: home, search with its filters and htmx suggestions, and the
header's "Deliver to" location."""

from urllib.parse import quote as urlquote

from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static

from replicas.worlds import clock
from replicas.worlds.signin import safe_next

from .. import policies, selectors
from ..forms import DeliverToForm, form_messages
from ..models import Account, Product
from .common import DELIVER_TO, VIEWED, deliver_to_of, page_context, signed_in


def home(request):
    """The front page: a hero carousel, department cards, "Keep shopping for" (the product pages
    last opened), Buy Again for a customer, and today's deals."""
    account = signed_in(request)
    viewed = request.session.get(VIEWED, [])
    rows = selectors.home_rows([a for a in viewed if isinstance(a, str)] if isinstance(viewed, list) else [])
    customer = account is not None and account.role == Account.Role.CUSTOMER
    return render(
        request,
        "shop/home.html",
        page_context(
            request,
            account=account,
            rows=rows,
            buy_again=selectors.bought_before(account, limit=6) if customer else [],
        ),
    )


def search(request):
    q = selectors.SearchQuery.from_params(request.GET)
    results = selectors.search(q)
    params = request.GET.copy()
    params.pop("page", None)

    def link(**changes):
        p = params.copy()
        for k, v in changes.items():
            if v in (None, ""):
                p.pop(k, None)
            else:
                p[k] = v
        return "/s?" + p.urlencode()

    filters = {
        "departments": [(code, name, link(i=code, brand=None)) for code, name in Product.Department.choices],
        "ratings": [(n, link(rating=None if q.min_rating == n else str(n))) for n in (4, 3, 2, 1)],
        "brands": [(b, link(brand=None if q.brand == b else b)) for b in results.brands],
        "fast": link(fast=None if q.fast else "1"),
        "deals": link(deals=None if q.deals else "1"),
        "clear": "/s?" + (f"k={urlquote(q.text)}" if q.text else ""),
    }
    pages = [(n, link(page=str(n))) for n in range(1, results.pages + 1)]
    account = signed_in(request)
    deliver = deliver_to_of(request, account)
    zone = policies.zone_for(deliver[1])
    return render(
        request,
        "shop/search.html",
        page_context(
            request,
            account=account,
            deliver=deliver,
            q=q,
            results=results,
            filters=filters,
            pages=pages,
            sorts=selectors.SORTS,
            prev_link=link(page=str(q.page - 1)) if q.page > 1 else "",
            next_link=link(page=str(q.page + 1)) if q.page < results.pages else "",
            speeds=policies.SPEEDS,
            standard_extra=zone.extra_days["standard"],
            fast_by=policies.delivery_date(speed="fast", standard_days=0, today=clock.now().date(), state=deliver[1]),
        ),
    )


def suggest(request):
    """Suggestions as one types: the listbox under the search box for htmx, JSON for other clients."""
    found = selectors.suggestions(request.GET.get("k", "")[:100])
    if request.htmx:
        return render(request, "shop/_suggestions.html", {"suggestions": found})
    return JsonResponse({"suggestions": found})


def deliver_to(request):
    """ "Choose your location": one of the shopper's saved addresses, or (for a visitor) a state.
    Dates on product, cart and checkout pages follow it (policies.ZONES)."""
    account = signed_in(request)
    customer = account is not None and account.role == Account.Role.CUSTOMER
    error = ""
    if request.method == "POST":
        form = DeliverToForm(request.POST, addresses=account.addresses.all() if customer else None)
        if form.is_valid():
            request.session[DELIVER_TO] = form.cleaned_data["choice"]
            return redirect(safe_next(request, "/"))
        error = " ".join(form_messages(form))
    addresses = selectors.usable_addresses(account) if customer else []
    if request.htmx and request.method == "GET":
        # the header's popover: just the choices, posting back here like the full page
        return render(
            request,
            "shop/_deliver_to_panel.html",
            page_context(
                request,
                account=account,
                addresses=addresses,
                states=policies.STATES,
                next=safe_next(request, "/"),
                popover=True,
            ),
        )
    return render(
        request,
        "shop/deliver_to.html",
        page_context(
            request,
            addresses=addresses,
            states=policies.STATES,
            zones=policies.ZONES,
            error=error,
            next=safe_next(request, "/"),
        ),
        status=400 if error else 200,
    )


def favicon(request):
    """Browsers ask the origin for /favicon.ico whatever the page links: the store's mark."""
    return redirect(static("shop/favicon.svg"), permanent=True)
