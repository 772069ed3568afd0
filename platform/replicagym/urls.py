"""URLs of the platform host. Worlds are served on their own hosts (see replicas.worlds.routing)."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import JsonResponse
from django.urls import include, path

from replicagym.accounts.roles import public


@public
def healthz(request):
    return JsonResponse({"ok": True})


urlpatterns = [
    path("", include("frontend.urls")),
    path("annotate/", include("replicagym.annotation.urls")),
    path("runs/", include("replicagym.reports.urls")),
    path("healthz", healthz, name="healthz"),
    path("accounts/login/", public(auth_views.LoginView.as_view(redirect_authenticated_user=True)), name="login"),
    path("accounts/logout/", public(auth_views.LogoutView.as_view(next_page="login")), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include("replicagym.api.urls")),
]

# The platform's own error pages (the API answers JSON); world hosts keep their replica's.
handler403 = "frontend.views.errors.forbidden"
handler404 = "frontend.views.errors.not_found"
handler500 = "frontend.views.errors.server_error"
