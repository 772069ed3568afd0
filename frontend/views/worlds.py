"""Worlds: the live (non-template) worlds and the cached templates they are cloned from."""

from django.core.paginator import Paginator
from django.shortcuts import render
from replicagym.accounts.roles import Role, role_required

from replicas.worlds.models import World


@role_required(Role.AUTHOR)
def world_list(request):
    kind = request.GET.get("kind", "live")
    worlds = World.objects.filter(is_template=(kind == "templates"), pooled=False).order_by("-last_used_at")
    replica = request.GET.get("replica", "")
    if replica:
        worlds = worlds.filter(replica=replica)
    page = Paginator(worlds, 50).get_page(request.GET.get("page"))
    return render(request, "frontend/worlds.html", {"page": page, "kind": kind, "replica": replica})
