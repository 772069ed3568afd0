"""URLs of the REST API (mounted at /api/) and its OpenAPI schema."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView

# imported for its side effect, the token scheme's OpenAPI description registered with drf-spectacular: here,
# where the schema is served, rather than at every process's start (drf-spectacular costs 0.4 s to import)
from replicagym.accounts import schema as _token_scheme  # noqa: F401
from replicagym.accounts.permissions import HasRole
from replicagym.accounts.roles import Role

from . import errors, rollouts, runs, views

app_name = "api"


class SchemaApi(SpectacularAPIView):
    # drf-spectacular serves the schema to anyone by default; here, to the API's users
    permission_classes = [HasRole]
    allowed_roles = frozenset({Role.AGENT, Role.AUTHOR, Role.ANNOTATOR})


urlpatterns = [
    path("schema/", SchemaApi.as_view(), name="schema"),
    path("tasks", views.TaskListApi.as_view(), name="task-list"),
    path("episodes", views.EpisodeListCreateApi.as_view(), name="episode-list"),
    path("episodes/<int:episode_id>", views.EpisodeDetailApi.as_view(), name="episode-detail"),
    path("episodes/<int:episode_id>/finish", views.EpisodeFinishApi.as_view(), name="episode-finish"),
    path("episodes/<int:episode_id>/steps", rollouts.EpisodeStepsApi.as_view(), name="episode-steps"),
    path("groups", rollouts.GroupCreateApi.as_view(), name="group-list"),
    path("groups/<int:group_id>", rollouts.GroupDetailApi.as_view(), name="group-detail"),
    path("groups/<int:group_id>/finish", rollouts.GroupFinishApi.as_view(), name="group-finish"),
    path("runs", runs.RunListCreateApi.as_view(), name="run-list"),
    path("runs/<int:run_id>", runs.RunDetailApi.as_view(), name="run-detail"),
    path("runs/<int:run_id>/cancel", runs.RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<int:run_id>/report", runs.RunReportApi.as_view(), name="run-report"),
    # last: whatever no operation above serves is a JSON 404, not Django's list of URL patterns (DEBUG on)
    re_path(r"^(?P<rest>.*)$", errors.api_not_found, name="not-found"),
]
