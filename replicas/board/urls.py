"""URLs served on an issue board world's origin, shaped like the product's."""

from django.urls import path

from .views import auth, backlog, board, issue, navigation, reports, search

app_name = "board"

urlpatterns = [
    path("", auth.home),
    path("login", auth.login, name="login"),
    path("logout", auth.logout, name="logout"),
    path("your-work", navigation.your_work, name="your_work"),
    path("notifications", navigation.notifications, name="notifications"),
    path("projects", navigation.projects, name="projects"),
    path("dashboards", navigation.dashboards, name="dashboards"),
    path("projects/<str:key>", navigation.project_home, name="project"),
    path("projects/<str:key>/summary", navigation.project_summary, name="summary"),
    path("projects/<str:key>/timeline", navigation.project_timeline, name="timeline"),
    path("projects/<str:key>/settings", navigation.project_settings, name="project_settings"),
    path("projects/<str:key>/board", board.board, name="board"),
    path("projects/<str:key>/board/group", board.board_group_by, name="board_group_by"),
    path("projects/<str:key>/backlog", backlog.backlog, name="backlog"),
    path("projects/<str:key>/reports/burndown", reports.report_burndown, name="report_burndown"),
    path("projects/<str:key>/reports/velocity", reports.report_velocity, name="report_velocity"),
    path("projects/<str:key>/contributing", issue.contributing, name="contributing"),
    path("projects/<str:key>/pages/<slug:slug>", navigation.project_page, name="project_page"),
    path("projects/<str:key>/issues/new", issue.issue_create, name="issue_create"),
    path("projects/<str:key>/sprints/new", backlog.sprint_create, name="sprint_create"),
    path("projects/<str:key>/sprints/<int:sprint_id>/start", backlog.sprint_start, name="sprint_start"),
    path("projects/<str:key>/sprints/<int:sprint_id>/complete", backlog.sprint_complete, name="sprint_complete"),
    path("browse/<str:key>", issue.issue_view, name="issue"),
    path("browse/<str:key>/field", issue.issue_field, name="field"),
    path("browse/<str:key>/transition", issue.issue_transition, name="transition"),
    path("browse/<str:key>/rank", issue.issue_rank, name="rank"),
    path("browse/<str:key>/comment", issue.issue_comment, name="comment"),
    path("browse/<str:key>/link", issue.issue_link, name="link"),
    path("browse/<str:key>/watch", issue.issue_watch, name="watch"),
    path("browse/<str:key>/watchers", issue.issue_watcher_add, name="watcher_add"),
    path("browse/<str:key>/lane", board.issue_lane, name="lane"),
    path("browse/<str:key>/assign-to-me", issue.issue_assign_to_me, name="assign_to_me"),
    path("browse/<str:key>/subtasks", issue.issue_subtask_create, name="subtask_create"),
    path("browse/<str:key>/attach", issue.issue_attach, name="attach"),
    path(
        "browse/<str:key>/attachments/<int:attachment_id>/delete",
        issue.issue_attachment_delete,
        name="attachment_delete",
    ),
    path("issues", search.search, name="search"),
    path("issues/bulk", search.bulk_change, name="bulk"),
    path("issues/autocomplete", search.jql_vocabulary, name="jql_vocabulary"),
    path("filters", search.filters, name="filters"),
    path("filters/new", search.filter_create, name="filter_create"),
    path("filters/<int:filter_id>", search.filter_edit, name="filter_edit"),
    path("filters/<int:filter_id>/delete", search.filter_delete, name="filter_delete"),
]
