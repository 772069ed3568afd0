"""URLs served on an issue board world's origin, shaped like the product's."""

from django.urls import path

from . import views

app_name = "board"

urlpatterns = [
    path("", views.home),
    path("login", views.login, name="login"),
    path("logout", views.logout, name="logout"),
    path("projects/<str:key>/board", views.board, name="board"),
    path("projects/<str:key>/board/group", views.board_group_by, name="board_group_by"),
    path("projects/<str:key>/backlog", views.backlog, name="backlog"),
    path("projects/<str:key>/reports/burndown", views.report_burndown, name="report_burndown"),
    path("projects/<str:key>/reports/velocity", views.report_velocity, name="report_velocity"),
    path("projects/<str:key>/contributing", views.contributing, name="contributing"),
    path("projects/<str:key>/issues/new", views.issue_create, name="issue_create"),
    path("projects/<str:key>/sprints/<int:sprint_id>/start", views.sprint_start, name="sprint_start"),
    path("projects/<str:key>/sprints/<int:sprint_id>/complete", views.sprint_complete, name="sprint_complete"),
    path("browse/<str:key>", views.issue_view, name="issue"),
    path("browse/<str:key>/field", views.issue_field, name="field"),
    path("browse/<str:key>/transition", views.issue_transition, name="transition"),
    path("browse/<str:key>/rank", views.issue_rank, name="rank"),
    path("browse/<str:key>/comment", views.issue_comment, name="comment"),
    path("browse/<str:key>/link", views.issue_link, name="link"),
    path("browse/<str:key>/watch", views.issue_watch, name="watch"),
    path("browse/<str:key>/watchers", views.issue_watcher_add, name="watcher_add"),
    path("browse/<str:key>/lane", views.issue_lane, name="lane"),
    path("browse/<str:key>/assign-to-me", views.issue_assign_to_me, name="assign_to_me"),
    path("browse/<str:key>/subtasks", views.issue_subtask_create, name="subtask_create"),
    path("browse/<str:key>/attach", views.issue_attach, name="attach"),
    path(
        "browse/<str:key>/attachments/<int:attachment_id>/delete",
        views.issue_attachment_delete,
        name="attachment_delete",
    ),
    path("issues", views.search, name="search"),
    path("issues/bulk", views.bulk_change, name="bulk"),
    path("filters", views.filters, name="filters"),
    path("filters/new", views.filter_create, name="filter_create"),
    path("filters/<int:filter_id>", views.filter_edit, name="filter_edit"),
    path("filters/<int:filter_id>/delete", views.filter_delete, name="filter_delete"),
]
