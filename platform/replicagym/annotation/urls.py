"""The annotation pages, under /annotate/."""

from django.urls import path

from . import views

app_name = "annotation"
urlpatterns = [
    path("", views.queue, name="queue"),
    path("items/<int:pk>/claim", views.claim, name="claim"),
    path("items/<int:pk>/skip", views.skip, name="skip"),
    path("items/<int:pk>/record", views.record, name="record"),
    path("recordings/<int:pk>/", views.recording_detail, name="recording"),
    path("review/", views.review_queue, name="review_queue"),
    path("review/<int:pk>/", views.review, name="review"),
    path("screenshots/<str:sha>.png", views.screenshot, name="screenshot"),
    path("assign/", views.assign, name="assign"),
    path("stats/", views.stats, name="stats"),
    path("exports/", views.exports, name="exports"),
    path("exports/<int:pk>/<str:name>", views.export_file, name="export_file"),
]
