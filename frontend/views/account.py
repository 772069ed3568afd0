"""Settings: the signed-in user's account, roles and agent tokens (tokens are made with `manage.py token create`)."""

from django.shortcuts import render
from replicagym.accounts.roles import Role, role_required, user_roles


@role_required(Role.AUTHOR, Role.ANNOTATOR)
def settings_page(request):
    return render(
        request,
        "frontend/settings.html",
        {
            "roles": sorted(user_roles(request.user)),
            "tokens": request.user.agent_tokens.all()[:50],
        },
    )
