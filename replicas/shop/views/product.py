"""The product page (variants, delivery dates, reviews, questions and answers, frequently bought
together), its drawn images, asking the seller a question, and writing a review of a product bought."""

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from replicas.worlds import clock

from .. import copytext, images, policies, selectors, services
from ..forms import QuestionForm, ReviewForm, form_messages
from ..models import Product
from .common import (
    customer_required,
    deliver_to_of,
    error_messages,
    field_messages,
    page_context,
    signed_in,
    viewed_note,
    whole_number,
)

QA_ERROR = "shop_qa_error"
DP_NOTICE = "shop_dp_notice"  # {"error": bool, "text": …}: Buy Now refused, or added to the list; shown once
REVIEWS_PAGE = 3  # reviews shown at first, and how many more each "See more reviews" shows


def product(request, asin):
    product = get_object_or_404(Product.objects.select_related("seller"), asin=asin)
    variants = list(product.variants.order_by("sku"))
    if not variants:
        raise Http404
    chosen = next((v for v in variants if v.sku == request.GET.get("sku")), None) or next(
        (v for v in variants if v.stock), variants[0]
    )
    viewed_note(request, product.asin)
    now = clock.now()
    account = signed_in(request)
    member = bool(account and account.member)
    sales = selectors.seasonal_sales(now)
    price = selectors.variant_price(chosen, now, sales)
    sale = sales.get(product.department)
    today = now.date()
    deliver = deliver_to_of(request, account)
    deliver_state = deliver[1]
    dates = selectors.delivery_options(product, deliver_state, today)
    reviews = list(product.reviews.order_by("-created_at", "public_id"))
    star = request.GET.get("stars", "")
    if star in {"1", "2", "3", "4", "5"}:
        reviews = [r for r in reviews if r.rating == int(star)]
    # "See more reviews": ?reviews=N shows N pages of them (anything else, or out of range, the first)
    review_pages = min(max(whole_number(request.GET.get("reviews")) or 1, 1), 1 + len(reviews) // REVIEWS_PAGE)
    shown = REVIEWS_PAGE * review_pages
    together = _bundle(product, now, sales)
    qa_text = request.GET.get("qa", "").strip()[:100]
    view = request.GET.get("view", "0")
    view = int(view) if view in {"0", "1", "2"} else 0  # the gallery's three views; anything else shows the first
    return render(
        request,
        "shop/product.html",
        page_context(
            request,
            account=account,
            deliver=deliver,
            product=product,
            variants=variants,
            chosen=chosen,
            price=price,
            view=view,
            views=range(3),
            deal=selectors.deal_active(product, now),
            histogram=selectors.histogram(product),
            reviews=reviews[:shown],
            more_reviews=review_pages + 1 if len(reviews) > shown else None,
            star=star,
            standard_date=dates["standard"],
            fast_date=dates.get("fast"),
            no_nextday=bool(deliver_state) and not policies.speed_served("nextday", deliver_state),
            sale=sale
            if sale is not None and price == policies.seasonal_price(chosen.price, sale.percent_off)
            else None,
            standard_free=member or price >= policies.FREE_SHIPPING_OVER,
            colours=_colour_swatches(variants, chosen),
            sizes=[v for v in variants if v.colour == chosen.colour and v.size],
            copy=copytext.product_copy(product, variants),
            notice=request.session.pop(DP_NOTICE, None),
            together=together,
            bundle_total=sum((t.price_now for t in together), Decimal(0)),
            bundle_ready=all(t.bundle_variant is not None for t in together),
            quantities=range(1, min(services.MAX_QUANTITY, max(chosen.stock, 1)) + 1),
            savings=product.list_price - price if product.list_price > price else None,
            speeds=policies.SPEEDS,
            questions=selectors.questions(product, qa_text),
            qa_text=qa_text,
            qa_error=request.session.pop(QA_ERROR, ""),
        ),
    )


def _colour_swatches(variants, chosen) -> list[tuple[str, object, bool]]:
    """One swatch per colour: (colour, the variant it opens, whether any size of it is in stock). A
    swatch keeps the chosen size when that colour has it, else opens the colour's first in stock."""
    swatches = []
    for colour in dict.fromkeys(v.colour for v in variants if v.colour):
        of_colour = [v for v in variants if v.colour == colour]
        target = next((v for v in of_colour if v.size == chosen.size), None) or next(
            (v for v in of_colour if v.stock), of_colour[0]
        )
        swatches.append((colour, target, any(v.stock for v in of_colour)))
    return swatches


def _bundle(product, now, sales) -> list[Product]:
    """This item and the ones bought with it, each with the variant "Add all to Cart" would add."""
    if not product.bought_together:
        return []
    # the product again, with the others: one query for all their variants (prices read them all)
    found = {
        p.asin: p
        for p in Product.objects.filter(asin__in=[product.asin, *product.bought_together]).prefetch_related("variants")
    }
    items = [found[a] for a in [product.asin, *product.bought_together] if a in found]
    for p in items:
        variants = sorted(p.variants.all(), key=lambda v: v.sku)
        p.bundle_variant = next((v for v in variants if v.stock), None)
        p.price_now = selectors.variant_price(p.bundle_variant or variants[0], now, sales) if variants else p.list_price
    return items if len(items) > 1 else []


@require_POST
@customer_required
def question_ask(request, asin):
    product = get_object_or_404(Product, asin=asin)
    form = QuestionForm(request.POST)
    try:
        if not form.is_valid():
            raise ValidationError("Questions can be at most 300 characters.")
        services.question_ask(account=request.account, product=product, text=form.cleaned_data["question"])
    except ValidationError as e:
        request.session[QA_ERROR] = " ".join(error_messages(e))
    return redirect(f"/dp/{product.asin}#questions")


@customer_required
def review_write(request, asin):
    """ "Write a product review" from Your Orders: overall rating, headline and text; once posted, the
    product page with a thank-you."""
    product = get_object_or_404(Product, asin=asin)
    errors, typed = [], {}
    if request.method == "POST":
        form = ReviewForm(request.POST)
        typed = {k: request.POST.get(k, "")[:5000] for k in ("rating", "title", "body")}
        try:
            if not form.is_valid():
                raise ValidationError(form_messages(form))
            data = form.cleaned_data
            services.review_write(
                account=request.account,
                product=product,
                rating=data["rating"] or 0,
                title=data["title"],
                body=data["body"],
            )
        except ValidationError as e:
            errors = field_messages(e, labels=False)
        else:
            request.session[DP_NOTICE] = {"error": False, "text": "Thank you: your review was submitted"}
            return redirect(f"/dp/{product.asin}#reviews")
    return render(
        request,
        "shop/review_write.html",
        page_context(request, product=product, errors=errors, typed=typed, stars=range(5, 0, -1)),
        status=400 if errors else 200,
    )


def product_image(request, asin, view=0):
    product = get_object_or_404(Product, asin=asin)
    # ?colour= paints it in a variant's colour (one of the seed's; anything else, the product's own)
    colour = request.GET.get("colour", "")[:20]
    colour = colour if colour.lower() in images.COLOURS else ""
    response = HttpResponse(images.product_svg(product, view=view, colour=colour), content_type="image/svg+xml")
    response["Cache-Control"] = "max-age=86400"
    return response
