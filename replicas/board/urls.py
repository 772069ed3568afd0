"""URLs served on an issue board world's origin, shaped like the product's."""
from django.urls import path

from . import views

app_name = "board"

urlpatterns = [
    path("", views.home),
    path("login", views.login, name="login"),
    path("logout", views.logout, name="logout"),
    path("projects/<str:key>/board", views.board, name="board"),
    path("projects/<str:key>/backlog", views.backlog, name="backlog"),
    path("projects/<str:key>/contributing", views.contributing, name="contributing"),
    path("projects/<str:key>/issues/new", views.issue_create, name="issue_create"),
    path("projects/<str:key>/sprints/<int:sprint_id>/start", views.sprint_start, name="sprint_start"),
    path("projects/<str:key>/sprints/<int:sprint_id>/complete", views.sprint_complete, name="sprint_complete"),
    path("browse/<str:key>", views.issue_view, name="issue"),
    path("browse/<str:key>/transition", views.issue_transition, name="transition"),
    path("browse/<str:key>/rank", views.issue_rank, name="rank"),
    path("browse/<str:key>/comment", views.issue_comment, name="comment"),
    path("browse/<str:key>/link", views.issue_link, name="link"),
    path("browse/<str:key>/watch", views.issue_watch, name="watch"),
    path("issues", views.search, name="search"),
    path("issues/bulk", views.bulk_change, name="bulk"),
]
