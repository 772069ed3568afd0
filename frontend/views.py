"""The platform's home page: what runs here and how to reach it."""
from django.shortcuts import render

from replicas.worlds.registry import replicas


def home(request):
    return render(request, "frontend/home.html", {"replicas": sorted(replicas().values(), key=lambda r: r.label)})
