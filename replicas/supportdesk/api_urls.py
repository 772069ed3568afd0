"""Routes of the internal billing API on a support desk world's origin (included by urls.py)."""

from django.urls import path

from . import api

urlpatterns = [
    path("api/v2/billing/customers/<int:customer_id>", api.CustomerBilling.as_view(), name="billing-customer"),
    path("api/v2/billing/customers/<int:customer_id>/orders", api.CustomerOrders.as_view(), name="billing-orders"),
    path(
        "api/v2/billing/customers/<int:customer_id>/payments", api.CustomerPayments.as_view(), name="billing-payments"
    ),
    path("api/v2/billing/customers/<int:customer_id>/refunds", api.CustomerRefunds.as_view(), name="billing-refunds"),
    path("api/v2/billing/orders/<str:order_id>", api.OrderDetail.as_view(), name="billing-order"),
    path("api/v2/billing/payments/<str:payment_id>/quote", api.RefundQuote.as_view(), name="billing-quote"),
    path(
        "api/v2/billing/payments/<str:payment_id>/refunds", api.PaymentRefunds.as_view(), name="billing-payment-refunds"
    ),
]
