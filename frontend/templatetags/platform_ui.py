"""Template helpers the platform's pages share: who is signed in, which section is open."""

from django import template
from replicagym.accounts.roles import user_roles

from ..editor.fields import slot_id
from ..navigation import sections_for

register = template.Library()


@register.simple_tag(takes_context=True)
def roles_of_user(context) -> str:
    """The signed-in user's roles for the header ("admin, author"), or "no role"."""
    request = context.get("request")
    roles = sorted(user_roles(getattr(request, "user", None)))
    return ", ".join(roles) or "no role"


@register.simple_tag(takes_context=True)
def platform_sections(context) -> list[dict]:
    """The navigation sections the signed-in user's roles may open."""
    return sections_for(context.get("request"))


@register.filter
def lookup(mapping, key):
    """mapping[key] in a template, or nothing."""
    return mapping.get(key, "") if hasattr(mapping, "get") else ""


@register.filter
def slotify(path: str) -> str:
    """The id of the element showing the errors at a JSON path."""
    return slot_id(path)


@register.filter
def split(text: str) -> list[str]:
    return text.split()
