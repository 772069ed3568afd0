"""The domain functions the pages call (the replica's services and selectors), in one place.

Views import them from here so that tests and the screenshot command exercise the
same writes as the JSON API and the episode engine.
"""

from ..services import (
    account_unlock,
    agent_sign_in,
    identity_verify,
    macro_apply,
    password_reset,
    ticket_create,
    ticket_merge,
    ticket_update,
    tickets_bulk_update,
    twofactor_reset,
)

_SECURITY = {
    "identity_verify": identity_verify,
    "password_reset": password_reset,
    "account_unlock": account_unlock,
    "twofactor_reset": twofactor_reset,
}


def security_action(name: str):
    """identity_verify / password_reset / account_unlock / twofactor_reset, or None for any other name."""
    return _SECURITY.get(name)


__all__ = [
    "agent_sign_in",
    "macro_apply",
    "security_action",
    "ticket_create",
    "ticket_merge",
    "ticket_update",
    "tickets_bulk_update",
]
