"""People: the admin adds authors, annotators and other admins from the platform (no Django admin, no shell)."""

from django.contrib.auth import get_user_model
from django.shortcuts import render
from replicagym.accounts.people import PERSON_ROLES, PersonError, person_create
from replicagym.accounts.roles import Role, role_required, user_roles


@role_required()  # the admin only: a person made here may be given any role, admin included
def people_page(request):
    made, error, status = None, "", 200
    form = {"username": "", "role": Role.AUTHOR.value, "email": ""}
    if request.method == "POST":
        form = {k: request.POST.get(k, "").strip() for k in ("username", "role", "email")}
        try:
            user, password = person_create(
                username=form["username"],
                role=form["role"],
                password=request.POST.get("password") or None,
                email=form["email"],
            )
        except PersonError as exc:
            error, status = str(exc), 400
        else:
            # a generated password is shown once, here, as `manage.py user create` prints it once
            made = {"username": user.username, "role": form["role"], "password": password}
            form = {"username": "", "role": form["role"], "email": ""}
    people = [
        {"user": u, "roles": sorted(user_roles(u))}
        for u in get_user_model().objects.filter(is_active=True).prefetch_related("groups").order_by("username")[:500]
    ]
    return render(
        request,
        "frontend/people.html",
        {"people": people, "roles": PERSON_ROLES, "form": form, "made": made, "error": error},
        status=status,
    )
