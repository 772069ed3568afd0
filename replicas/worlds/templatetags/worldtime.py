"""Template filters that tell time by the world clock, never the wall clock."""

from django import template
from django.utils.timesince import timesince

from replicas.worlds import clock

register = template.Library()


@register.filter
def ago(value):
    """'3 days ago' measured from the world's now."""
    if not value:
        return ""
    span = timesince(value, clock.now()).split(",")[0]
    return "just now" if span.startswith("0\xa0") else f"{span} ago"
