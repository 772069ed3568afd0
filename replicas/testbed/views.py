"""The testbed's pages: sign-in, the note list, a note's edit form. They work without JavaScript."""

from functools import wraps

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render

from replicas.worlds.signin import login_url, safe_next

from . import policies, services
from .models import Member, Note

LOGIN = "/login"


def signed_in_member(request) -> Member | None:
    """The member of this session, if it was signed in on this very world."""
    public_id = services.SIGNIN.signed_in_id(request)
    return None if public_id is None else Member.objects.filter(public_id=public_id).first()


def member_required(view):
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        member = signed_in_member(request)
        if member is None:
            return redirect(login_url(LOGIN, request.get_full_path()))
        request.member = member
        return view(request, *args, **kwargs)

    return wrapped


def login(request):
    next_url = safe_next(request, "/notes")
    error = ""
    if request.method == "POST":
        try:
            member = services.member_authenticate(
                email=request.POST.get("email", ""), password=request.POST.get("password", ""), seed=request.world.seed
            )
        except ValidationError as exc:
            error = " ".join(exc.messages)
        else:
            services.SIGNIN.sign_in(request.session, request.world, member.public_id)
            return redirect(next_url)
    return render(
        request,
        "testbed/login.html",
        {"next": next_url, "error": error, "email": request.POST.get("email", "")},
        status=400 if error else 200,
    )


@member_required
def note_list(request):
    notes = Note.objects.select_related("owner").order_by("public_id")
    return render(request, "testbed/notes.html", {"notes": notes, "member": request.member})


@member_required
def note_detail(request, number: int):
    note = Note.objects.select_related("owner").filter(public_id=number).first()
    if note is None:
        raise Http404("no such note")
    error, status = "", 200
    if request.method == "POST" and not policies.may_edit(request.member, note):
        error, status = "Only the team's owner or the note's owner can edit this note.", 403
    elif request.method == "POST":
        try:
            services.note_update(note=note, title=request.POST.get("title", ""), done=request.POST.get("done") == "on")
        except ValidationError as exc:
            error, status = " ".join(exc.messages), 400
        else:
            return redirect("/notes")
    return render(request, "testbed/note.html", {"note": note, "member": request.member, "error": error}, status=status)
