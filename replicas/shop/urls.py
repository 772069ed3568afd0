"""URLs served on a shop world's origin, shaped like the storefront's."""
from django.urls import path

from . import views

app_name = "shop"

urlpatterns = [
    path("", views.home, name="home"),
    path("s", views.search, name="search"),
    path("s/suggest", views.suggest, name="suggest"),
    path("dp/<str:asin>", views.product, name="product"),
    path("images/<str:asin>-<int:view>.svg", views.product_image, name="image_view"),
    path("images/<str:asin>.svg", views.product_image, name="image"),
    path("ap/signin", views.signin, name="signin"),
    path("ap/signout", views.signout, name="signout"),
    path("cart", views.cart, name="cart"),
    path("cart/add", views.cart_add, name="cart_add"),
    path("cart/<str:sku>", views.cart_update, name="cart_update"),
    path("checkout", views.checkout, name="checkout"),
    path("checkout/address", views.checkout_address, name="checkout_address"),
    path("checkout/address/new", views.checkout_address_new, name="checkout_address_new"),
    path("checkout/delivery", views.checkout_delivery, name="checkout_delivery"),
    path("checkout/payment", views.checkout_payment, name="checkout_payment"),
    path("checkout/card/new", views.checkout_card_new, name="checkout_card_new"),
    path("checkout/promo", views.checkout_promo, name="checkout_promo"),
    path("checkout/review", views.checkout_review, name="checkout_review"),
    path("checkout/place-order", views.checkout_place, name="checkout_place"),
    path("checkout/3ds", views.checkout_3ds, name="checkout_3ds"),
    path("checkout/3ds/verify", views.checkout_3ds_verify, name="checkout_3ds_verify"),
    path("gp/buy/thankyou/<str:public_id>", views.thankyou, name="thankyou"),
    path("your-orders", views.orders, name="orders"),
    path("your-orders/<str:public_id>", views.order_detail, name="order"),
    path("your-orders/<str:public_id>/invoice", views.order_invoice, name="invoice"),
    path("your-orders/<str:public_id>/cancel", views.order_cancel, name="order_cancel"),
    path("your-orders/<str:public_id>/address", views.order_address, name="order_address"),
    path("your-orders/<str:public_id>/return/<int:line>", views.order_return, name="order_return"),
    path("account", views.account_home, name="account"),
    path("account/addresses", views.account_addresses, name="addresses"),
    path("account/payments", views.account_payments, name="payments"),
    path("backoffice/returns", views.backoffice_returns, name="bo_returns"),
    path("backoffice/returns/<str:public_id>", views.backoffice_return_decide, name="bo_return_decide"),
    path("backoffice/orders", views.backoffice_orders, name="bo_orders"),
    path("backoffice/orders/<str:public_id>", views.backoffice_order, name="bo_order"),
]
