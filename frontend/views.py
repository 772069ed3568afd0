"""The platform's home page: what runs here and how to reach it."""
from django.shortcuts import render
from replicagym.accounts.roles import Role, role_required, user_roles

from replicas.worlds.registry import replicas


@role_required(Role.AUTHOR, Role.ANNOTATOR)
def home(request):
    return render(request, "frontend/home.html", {
        "replicas": sorted(replicas().values(), key=lambda r: r.label),
        "roles": sorted(user_roles(request.user)),
    })
