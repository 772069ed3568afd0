"""URLs served on a support desk world's origin, shaped like the product's."""
from django.urls import path
from django.views.generic import RedirectView

from . import views

app_name = "supportdesk"

urlpatterns = [
    path("", RedirectView.as_view(url="/agent/filters/unsolved", permanent=False)),
    path("agent/dashboard", RedirectView.as_view(url="/agent/filters/unsolved", permanent=False), name="dashboard"),
    path("agent/filters/<slug:view>", views.ticket_list, name="view"),
    path("agent/tickets/<int:number>", views.ticket_detail, name="ticket"),
]
