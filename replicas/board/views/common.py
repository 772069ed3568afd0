"""What every board page shares: the signed-in person, the sign-in redirect that keeps a comment's
draft, the one-shot flash message, the page frame, JSON or redirect answers, 404 lookups."""

from functools import wraps

from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render

from replicas.worlds.clock import now
from replicas.worlds.signin import login_url, safe_next

from .. import selectors
from ..models import Issue, Project, Sprint
from ..signin import signed_in_person

LOGIN = "/login"
FLASH = "board_flash"
DRAFTS = "board_drafts"


def wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def flash(request, message: str, kind: str = "error"):
    request.session[FLASH] = {"message": message, "kind": kind}


def draft_keep(request, key: str, body: str):
    drafts = request.session.get(DRAFTS, {})
    drafts[key.upper()] = body
    request.session[DRAFTS] = drafts


def person_required(view):
    """Only for a signed-in team member. A comment typed before the session expired is kept as a
    draft and put back in the box after signing in again, as the product does."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        person = signed_in_person(request)
        if person is None:
            back = (
                request.get_full_path()
                if request.method == "GET"
                else request.POST.get("next") or request.headers.get("Referer", "/")
            )
            if request.method == "POST" and request.POST.get("body", "").strip() and "key" in kwargs:
                draft_keep(request, kwargs["key"], request.POST["body"])
                back = safe_next(request, f"/browse/{kwargs['key']}")
            if not back.startswith("/"):
                back = "/" + back.split("/", 3)[-1] if back.count("/") >= 3 else "/"
            target = login_url(LOGIN, back)
            if wants_json(request):
                return JsonResponse(
                    {"error": "Your session has expired. Sign in again to continue.", "login": target}, status=401
                )
            return redirect(target)
        request.person = person
        return view(request, *args, **kwargs)

    return wrapper


def page(
    request, template: str, context: dict, *, project: Project | None = None, section: str = "", status: int = 200
):
    return render(
        request,
        template,
        {
            "me": request.person,
            "project": project,
            "project_pages": selectors.project_pages(project) if project is not None else [],
            "projects": selectors.projects,  # read only by the pages that show the Create dialog
            "notification_count": selectors.mention_count(request.person),  # the menu's items come later
            "section": section,
            "flash": request.session.pop(FLASH, None),
            "today": now(),
            **context,
        },
        status=status,
    )


def dialog(request, template: str, context: dict, *, project: Project, title: str, title_id: str, status: int = 200):
    """A dialog (Create, Start sprint, Complete sprint): for an htmx request its content alone, which
    board.js shows over the page; otherwise a page with the dialog open, so it works without JavaScript."""
    if request.htmx:
        context = {
            **context,
            "dialog": True,
            "me": request.person,
            "project": project,
            "projects": selectors.projects(),
        }
        return render(request, template, context, status=status)
    context = {**context, "dialog_template": template, "dialog_title": title, "dialog_title_id": title_id}
    return page(request, "board/modal.html", context, project=project, status=status)


def answer(request, next_url, *, error: str = "", status: int = 200, conflict: bool = False):
    """JSON for board.js, a redirect with a flag otherwise."""
    if error and (conflict or not wants_json(request)):
        flash(request, error)
    if wants_json(request):
        return JsonResponse({"ok": not error, "error": error, "reload": conflict}, status=status if error else 200)
    return redirect(next_url)


def project_or_404(key: str) -> Project:
    project = selectors.project_by_key(key)
    if project is None:
        raise Http404(f"Project {key} does not exist.")
    return project


def issue_or_404(key: str) -> Issue:
    issue = selectors.issue_by_key(key)
    if issue is None:
        raise Http404(f"Work item {key} does not exist or you do not have permission to see it.")
    return issue


def sprint_or_404(project: Project, sprint_id) -> Sprint:
    sprint = selectors.sprint_by_id(project, sprint_id)
    if sprint is None:
        raise Http404("No such sprint.")
    return sprint
