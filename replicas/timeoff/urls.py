"""URLs served on a world's origin: the pages, then the REST endpoints under /api/."""

from django.urls import path
from django.views.generic import RedirectView

from . import api, views

urlpatterns = [
    path("", RedirectView.as_view(url="/approvals", permanent=False)),
    path("login", views.login, name="login"),
    path("logout", views.logout, name="logout"),
    path("approvals", views.approvals, name="approvals"),
    path("audit", views.audit_log, name="audit"),
    path("search", views.search, name="search"),
    path("api/<slug:slug>", api.collection),
    path("api/<slug:slug>/<int:number>", api.item),
    path("api/<slug:slug>/<int:number>/<slug:move>", api.transition),
    path("<slug:slug>", views.entity_list, name="list"),
    path("<slug:slug>/new", views.record_new, name="new"),
    path("<slug:slug>/<int:number>", views.record_detail, name="record"),
    path("<slug:slug>/<int:number>/edit", views.record_edit, name="edit"),
    path("<slug:slug>/<int:number>/do/<slug:move>", views.record_transition, name="transition"),
]
