"""People of the platform: making a user with a role, and the admin a fresh install starts with."""

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction

from .roles import Role, role_grant

FIRST_ADMIN = "admin"
PERSON_ROLES = (Role.ADMIN, Role.AUTHOR, Role.ANNOTATOR)  # agents are tokens, not people


class PersonError(ValueError):
    """A user that cannot be made as asked; the message says why."""


def person_create(*, username: str, role: str, password: str | None = None, email: str = "") -> tuple:
    """(user, password): a new user holding `role`; a password is generated when none is given."""
    User = get_user_model()
    username = (username or "").strip()
    try:
        User._meta.get_field("username").run_validators(username)
    except ValidationError as exc:
        raise PersonError(f"username {username!r}: {' '.join(exc.messages)}") from None
    if not username:
        raise PersonError("a username is required")
    if role not in PERSON_ROLES:
        raise PersonError(f"role must be one of {', '.join(PERSON_ROLES)}, not {role!r}")
    if User.objects.filter(username=username).exists():
        raise PersonError(f"a user named {username!r} exists already")
    password = password or secrets.token_urlsafe(12)
    candidate = User(username=username, email=email)
    try:
        validate_password(password, candidate)
    except ValidationError as exc:
        raise PersonError(f"password: {' '.join(exc.messages)}") from None
    with transaction.atomic():
        user = User.objects.create_user(username=username, email=email, password=password)
        role_grant(user=user, role=Role(role))
    return user, password


def first_admin_create() -> tuple | None:
    """(user, password) of the admin made now, or None when the platform has an admin already."""
    if get_user_model().objects.filter(is_superuser=True, is_active=True).exists():
        return None
    return person_create(username=FIRST_ADMIN, role=Role.ADMIN)
