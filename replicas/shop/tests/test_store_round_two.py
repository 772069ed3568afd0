"""Issue 29, round two, beyond the product page: sign-in in two steps (email and Continue, then the
password), the home page's rows, the help and policy pages, the All drawer and the Account & Lists
flyout."""

import pytest
from django.conf import settings

from replicas.shop import policies, selectors
from replicas.shop.models import Account, Product, Seller
from replicas.shop.signin import account_password, account_session
from replicas.shop.tasks.params import ready_cart
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db


def test_sign_in_asks_the_email_then_the_password(shop, world_client):
    with bound_world(shop):
        account = Account.objects.filter(role="customer").order_by("public_id").first()
    client = world_client(shop, signed_in=False)
    first = client.get("/ap/signin?next=/cart").content.decode()
    assert 'id="ap_email"' in first and 'id="ap_password"' not in first and ">Continue</button>" in first
    second = client.post("/ap/signin", {"email": f" {account.email.upper()} ", "next": "/cart"})
    html = second.content.decode()
    assert second.status_code == 200 and 'id="ap_password"' in html and ">Sign in</button>" in html
    assert f'<input type="hidden" name="email" value="{account.email.lower()}">' in html
    assert f"{account.email.lower()} <a" in html and ">Change</a>" in html
    # a wrong password stays on the password step, with the email
    wrong = client.post("/ap/signin", {"email": account.email, "password": "nope", "next": "/cart"})
    assert wrong.status_code == 400 and "Your email or password is incorrect." in wrong.content.decode()
    assert 'id="ap_password"' in wrong.content.decode()
    password = account_password(seed=shop.seed, public_id=account.public_id)
    done = client.post("/ap/signin", {"email": account.email, "password": password, "next": "/cart"})
    assert done.status_code == 302 and done["Location"] == "/cart"


def test_an_unknown_or_missing_email_stays_on_the_first_step_and_says_so(shop, world_client):
    client = world_client(shop, signed_in=False)
    unknown = client.post("/ap/signin", {"email": "nobody@example.test"})
    assert (
        unknown.status_code == 400 and "We cannot find an account with that email address." in unknown.content.decode()
    )
    assert 'id="ap_password"' not in unknown.content.decode()
    empty = client.post("/ap/signin", {"email": "  "})
    assert empty.status_code == 400 and "Enter your email or mobile phone number." in empty.content.decode()


def test_home_has_a_hero_department_cards_deals_and_what_was_viewed(shop, world_client):
    with bound_world(shop):
        viewed = list(Product.objects.order_by("-asin").values_list("asin", flat=True)[:2])
    client = world_client(shop)
    first = client.get("/")
    assert first.status_code == 200 and not first.context["rows"].keep_shopping
    html = first.content.decode()
    assert 'aria-roledescription="carousel"' in html and html.count('class="home-card"') >= 6
    rows = first.context["rows"]
    assert rows.deals and all(p.deal_live or p.sale for p in rows.deals)
    assert [p.off_pct for p in rows.deals] == sorted((p.off_pct for p in rows.deals), reverse=True)
    for code, _, items in rows.departments:
        assert 0 < len(items) <= 4 and {p.department for p in items} == {code}
    for asin in viewed:
        client.get(f"/dp/{asin}")
    again = client.get("/")
    assert [p.asin for p in again.context["rows"].keep_shopping] == viewed[::-1]
    assert "Keep shopping for" in again.content.decode()


def test_help_pages_state_the_zones_return_windows_and_approval_rules(shop, world_client):
    client = world_client(shop, signed_in=False)
    delivery = client.get("/help/delivery").content.decode()
    for zone in policies.ZONES:
        assert f"Zone {zone.number}: {zone.name}" in delivery
    assert "MT" in delivery and "One-Day Shipping" in delivery
    with bound_world(shop):
        seller = Seller.objects.order_by("public_id").first()
    returns = client.get("/help/returns").content.decode()
    assert f'<th scope="row">{seller.name}</th><td>{seller.return_window_days} days after delivery</td>' in returns
    assert "restocking fee" in client.get("/help/approval").content.decode()
    assert client.get("/help/nothing-here").status_code == 404


def test_the_header_has_the_all_drawer_and_an_account_flyout_with_sign_out(shop, world_client):
    html = world_client(shop).get("/s").content.decode()
    assert '<details class="nav-all">' in html and 'class="all-drawer"' in html
    flyout = html[
        html.index('id="nav-link-accountList"') : html.index("</details>", html.index('id="nav-link-accountList"'))
    ]
    assert 'action="/ap/signout"' in flyout and "Sign Out" in flyout and 'href="/hz/wishlist/ls"' in flyout
    visitor = world_client(shop, signed_in=False).get("/s").content.decode()
    assert "Sign Out" not in visitor and "Hello, sign in" in visitor


def test_the_payment_step_preselects_the_default_card_and_draws_brand_marks(shop, world_client):
    with bound_world(shop):
        key = ready_cart(shop)
        account = Account.objects.get(public_id=key["customer"])
        default = next(c for c in selectors.usable_cards(account) if c.is_default and not selectors.card_is_expired(c))
    client = world_client(shop, signed_in=False)
    with bound_world(shop):
        client.cookies[settings.SESSION_COOKIE_NAME] = account_session(shop, account)
    client.post("/checkout/address", {"address": key["address"]})
    client.post("/checkout/delivery", {"speed": "standard"})
    html = client.get("/checkout/payment").content.decode()
    assert f'id="card-{default.public_id}" value="{default.public_id}" checked>' in html
    assert html.count(" checked>") == 1 and 'class="card-mark"' in html
