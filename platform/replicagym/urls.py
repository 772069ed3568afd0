"""URLs of the platform host. Worlds are served on their own hosts (see replicas.worlds.routing)."""
from django.contrib import admin
from django.http import JsonResponse
from django.urls import include, path

from frontend import views as frontend_views


def healthz(request):
    return JsonResponse({"ok": True})


urlpatterns = [
    path("", frontend_views.home, name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/", include("replicagym.api.urls")),
]
