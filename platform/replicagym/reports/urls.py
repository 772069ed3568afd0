"""The run pages, under /runs/."""

from django.urls import path

from . import diagnosis_views, gate_views, viewer, views

app_name = "reports"
urlpatterns = [
    path("", views.run_list, name="runs"),
    path("new", views.run_new, name="run-new"),
    path("compare", views.run_compare, name="compare"),
    path("diagnose", diagnosis_views.diagnosis_page, name="diagnose"),
    path("gates/", gate_views.gate_list, name="gates"),
    path("gates/<int:gate_id>/", gate_views.gate_detail, name="gate"),
    path("<int:run_id>/", views.run_detail, name="run"),
    path("<int:run_id>/cancel", views.run_cancel_view, name="run-cancel"),
    path("<int:run_id>/report", views.run_report_page, name="report"),
    path("<int:run_id>/report.json", views.run_report_json, name="report-json"),
    path("<int:run_id>/report.html", views.run_report_html, name="report-html"),
    path("episodes/<int:episode_id>/", viewer.episode_view, name="episode"),
    path("episodes/<int:episode_id>/trajectory.jsonl", viewer.episode_trajectory, name="episode-trajectory"),
    path("episodes/<int:episode_id>/trace.zip", viewer.episode_trace, name="episode-trace"),
    path("screenshots/<str:sha256>.png", viewer.screenshot, name="screenshot"),
]
