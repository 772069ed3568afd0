"""API views admit the roles they declare in `allowed_roles`; a view that declares none admits nobody."""

from rest_framework.permissions import BasePermission

from .roles import PUBLIC, admits, describe, request_roles


class HasRole(BasePermission):
    def has_permission(self, request, view):
        allowed = getattr(view, "allowed_roles", None)
        if allowed is None:
            self.message = "this endpoint declares no roles, so it admits nobody"
            return False
        if allowed == PUBLIC:
            return True
        if not request.user or not request.user.is_authenticated:
            return False
        if admits(request_roles(request), allowed):
            return True
        self.message = f"this needs the role {describe(allowed)}"
        return False
