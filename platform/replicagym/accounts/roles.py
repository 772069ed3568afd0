"""Roles, in one place: what a request may do is decided here and nowhere else.

A superuser is the admin (everything); authors and annotators are Django groups of those
names; a request authenticated by an agent token acts only as an agent, whoever owns it.
Every platform view declares the roles it admits (`allowed_roles`): `role_required` for
Django views, `HasRole` (permissions.py) for API views; a view that declares nothing is refused.
"""

import enum
from functools import wraps

from django.contrib.auth.models import Group
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied

from .models import AgentToken


class Role(enum.StrEnum):
    ADMIN = "admin"
    AUTHOR = "author"
    ANNOTATOR = "annotator"
    AGENT = "agent"


GROUP_ROLES = (Role.AUTHOR, Role.ANNOTATOR)  # the roles kept as Django groups
# Marks a view anyone may open, signed in or not (sign-in page, health check).
PUBLIC = frozenset({"public"})


def user_roles(user) -> frozenset[Role]:
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    roles = {Role.ADMIN} if user.is_superuser else set()
    roles.update(Role(name) for name in user.groups.filter(name__in=GROUP_ROLES).values_list("name", flat=True))
    return frozenset(roles)


def request_roles(request) -> frozenset[Role]:
    if isinstance(getattr(request, "auth", None), AgentToken):
        return frozenset({Role.AGENT})
    return user_roles(getattr(request, "user", None))


def admits(roles: frozenset[Role], allowed: frozenset) -> bool:
    if allowed == PUBLIC:
        return True
    return Role.ADMIN in roles or bool(roles & allowed)


def describe(allowed: frozenset) -> str:
    return " or ".join(sorted({Role.ADMIN, *allowed}))


def role_grant(*, user, role: Role) -> None:
    role = Role(role)
    if role == Role.ADMIN:
        user.is_superuser = user.is_staff = True
        user.save(update_fields=["is_superuser", "is_staff"])
    elif role in GROUP_ROLES:
        group, _ = Group.objects.get_or_create(name=role.value)
        user.groups.add(group)
    else:
        raise ValueError(f"{role} is not a role a user holds: agents are tokens (manage.py token create)")


def role_required(*roles: Role):
    """A Django view for these roles (admins always): anonymous users go to sign in, others get 403."""
    allowed = frozenset(Role(r) for r in roles)

    def decorate(view):
        @wraps(view)
        def checked(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not admits(user_roles(request.user), allowed):
                raise PermissionDenied(f"this page is for the roles {describe(allowed)}")
            return view(request, *args, **kwargs)

        checked.allowed_roles = allowed
        return checked

    return decorate


def public(view):
    view.allowed_roles = PUBLIC
    return view
