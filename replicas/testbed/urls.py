"""URLs served on a testbed world's origin."""

from django.urls import path
from django.views.generic import RedirectView

from . import views

app_name = "testbed"

urlpatterns = [
    path("", RedirectView.as_view(url="/notes", permanent=False)),
    path("login", views.login, name="login"),
    path("notes", views.note_list, name="notes"),
    path("notes/<int:number>", views.note_detail, name="note"),
]
