"""Search: the top bar's quick search, the navigator with JQL and paging, saved filters, bulk change."""

import re
from functools import lru_cache
from types import SimpleNamespace
from urllib.parse import urlencode

from django.http import Http404, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from .. import jql, selectors, services
from ..forms import BulkForm, FilterForm
from ..models import Filter
from ..search import PAGE_SIZE, issues_search, page_clamp, page_count, world_statuses
from .common import flash, page, person_required

DEFAULT_JQL = "project = AGENT AND resolution = Unresolved ORDER BY priority DESC, updated DESC"
WORK_ITEM_KEY = re.compile(r"[A-Za-z][A-Za-z0-9]*-\d+")
HOME_PROJECT = "AGENT"  # the project the search and filter pages are shown under


def _filter_or_404(public_id, person=None) -> Filter:
    saved = selectors.filter_by_id(public_id)
    if saved is None or (person is not None and saved.owner_id != person.id):
        raise Http404("The filter does not exist or you do not have permission to see it.")
    return saved


BASIC_FIELDS = ("project", "type", "status", "assignee")
UNQUOTED = {"currentUser()", "EMPTY"}  # functions and keywords the JQL writes bare


def _jql_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _basic_query(params, choices: dict) -> tuple[str, dict, str]:
    """Basic mode: its pickers and words as the JQL they stand for, the values picked, and an error
    naming a value that is not one of the pickers' (the query is then not run)."""
    picked = {name: params.get(name, "") for name in BASIC_FIELDS}
    clauses = []
    for name, value in picked.items():
        if value and value not in choices[name]:
            return "", picked, f"{value} is not one of the {name} values you can pick."
        if value == "EMPTY":
            clauses.append(f"{name} is EMPTY")
        elif value:
            clauses.append(f"{name} = {value if value in UNQUOTED else _jql_string(value)}")
    picked["text"] = " ".join(params.get("text", "").split())
    if picked["text"]:
        clauses.append(f"text ~ {_jql_string(picked['text'])}")
    return " AND ".join(clauses) + (" " if clauses else "") + "ORDER BY updated DESC", picked, ""


def _quick_search(words: str):
    """The top bar's search box: a work item's key opens it; anything else is a text search (never JQL,
    so what a person types can't be a syntax error), shown in the navigator as the JQL it ran."""
    words = " ".join(words.split())
    if WORK_ITEM_KEY.fullmatch(words) and selectors.key_exists(words):
        return redirect(f"/browse/{words.upper()}")
    if not words:
        return redirect("/issues")
    return redirect("/issues?" + urlencode({"jql": f"text ~ {_jql_string(words)} ORDER BY updated DESC"}))


def _page_number(raw: str) -> int:
    """?page= as a whole number of at least 1; anything else is the first page, as the product does."""
    return int(raw) if raw.isdigit() and 0 < int(raw) < 100000 else 1


def _page_window(number: int, pages: int) -> list[tuple[int, int]]:
    """The pager's numbers, as the product shows them: the first, the last and two either side of the
    current page, each with the number before it (so the template marks a gap)."""
    shown = sorted({1, pages} | {n for n in range(number - 2, number + 3) if 1 <= n <= pages})
    return list(zip([0, *shown], shown, strict=False))


def _paging(base: dict, number: int, pages: int, first: int, count: int) -> dict:
    return {
        "number": number,
        "pages": pages,
        "first": first,
        "last": first + count - 1,
        "links": [
            {"number": n, "href": "/issues?" + urlencode({**base, "page": n}), "gap": n - seen > 1}
            for seen, n in _page_window(number, pages)
        ],
        "previous": "/issues?" + urlencode({**base, "page": number - 1}) if number > 1 else "",
        "next": "/issues?" + urlencode({**base, "page": number + 1}) if number < pages else "",
    }


@lru_cache(maxsize=64)
def _bulk_fields(people: tuple[tuple[str, str], ...], statuses: tuple[str, ...]) -> dict[str, str]:
    """The bulk change fieldset's fields as HTML, by name. They follow from the active people
    (username, name) and the world's statuses alone, so each such pair is rendered once: Django's
    widget templates were a fifth of the navigator's render."""
    form = BulkForm(people=[SimpleNamespace(username=u, name=n) for u, n in people], statuses=statuses)
    return {name: str(form[name]) for name in form.fields if name != "keys"}


@person_required
def search(request):
    if "q" in request.GET:
        return _quick_search(request.GET["q"])
    saved = _filter_or_404(request.GET["filter"]) if "filter" in request.GET else None
    basic = request.GET.get("mode") == "basic" and saved is None
    error, issues, total, picked, choices = "", [], 0, {}, {}
    if basic:
        choices = selectors.basic_choices()
        query, picked, error = _basic_query(request.GET, choices)
        base = {"mode": "basic", **{k: v for k, v in picked.items() if v}}
    else:
        query = request.GET.get("jql", saved.jql if saved else DEFAULT_JQL)
        base = {"jql": query, **({"filter": saved.public_id} if saved else {})}
    number = _page_number(request.GET.get("page", ""))
    if not error:
        try:
            issues, total = issues_search(query=query, person=request.person, page=number)
        except jql.JQLError as exc:
            error = str(exc)
    number = page_clamp(number, total)
    paging = _paging(base, number, page_count(total), (number - 1) * PAGE_SIZE + 1, len(issues))
    people = tuple((p.username, p.name) for p in selectors.active_people())
    bulk = _bulk_fields(people, tuple(world_statuses()))
    return page(
        request,
        "board/search.html",
        {
            "jql": query,
            "error": error,
            "issues": issues,
            "total": total,
            "bulk": bulk,
            "paging": paging,
            "query_string": urlencode({"jql": query}),
            "saved": saved,
            "modified": saved is not None and " ".join(query.split()) != saved.jql,
            "mine": saved is not None and saved.owner_id == request.person.id,
            "basic": basic,
            "picked": picked,
            "pickers": [
                {"name": name, "options": [(v, label, picked.get(name) == v) for v, label in options.items()]}
                for name, options in choices.items()
            ],
        },
        project=selectors.project_by_key(HOME_PROJECT),
        section="issues",
        status=400 if error else 200,
    )


@person_required
def jql_vocabulary(request):
    """The JQL box's autocomplete: fetched once when the box is first used, so the search page itself
    stays as fast as before."""
    return JsonResponse(selectors.jql_vocabulary())


# --- saved filters ----------------------------------------------------------------------------------


def _filters_page(request, form: FilterForm, *, status: int = 200):
    return page(
        request,
        "board/filters.html",
        {"filters": selectors.filters_of(request.person), "form": form},
        project=selectors.project_by_key(HOME_PROJECT),
        section="filters",
        status=status,
    )


@person_required
def filters(request):
    return _filters_page(request, FilterForm())


@require_POST
@person_required
def filter_create(request):
    form = FilterForm(request.POST)
    if form.is_valid():
        try:
            saved = services.filter_create(
                owner=request.person,
                name=form.cleaned_data["name"],
                query=form.cleaned_data["jql"],
                description=form.cleaned_data["description"],
                starred=form.cleaned_data["starred"],
            )
        except (services.BoardError, jql.JQLError) as exc:
            form.add_error(None, str(exc))
        else:
            flash(request, f"Filter '{saved.name}' saved.", "success")
            return redirect(f"/issues?filter={saved.public_id}")
    return _filters_page(request, form, status=400)


@person_required
def filter_edit(request, filter_id):
    saved = _filter_or_404(filter_id, request.person)
    initial = {"name": saved.name, "jql": saved.jql, "description": saved.description, "starred": saved.starred}
    form = FilterForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            changed = services.filter_update(saved=saved, actor=request.person, **form.cleaned_data)
        except (services.BoardError, jql.JQLError) as exc:
            form.add_error(None, str(exc))
        else:
            flash(request, f"Filter '{saved.name}' updated." if changed else "Nothing to save.", "success")
            return redirect(f"/issues?filter={saved.public_id}")
    return page(
        request,
        "board/filter_edit.html",
        {"saved": saved, "form": form},
        project=selectors.project_by_key(HOME_PROJECT),
        section="filters",
        status=400 if request.method == "POST" else 200,
    )


@require_POST
@person_required
def filter_delete(request, filter_id):
    saved = _filter_or_404(filter_id, request.person)
    services.filter_delete(saved=saved, actor=request.person)
    flash(request, f"Filter '{saved.name}' deleted.", "success")
    return redirect("/filters")


@require_POST
@person_required
def bulk_change(request):
    query = request.POST.get("jql", DEFAULT_JQL)
    back = "/issues?" + urlencode({"jql": query})
    form = BulkForm(people=selectors.active_people(), statuses=world_statuses(), data=request.POST)
    if not form.is_valid():
        flash(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect(back)
    issues = selectors.issues_by_keys(form.cleaned_data["keys"])
    if len(issues) != len(set(form.cleaned_data["keys"])):
        flash(request, "Some of the selected work items no longer exist.")
        return redirect(back)
    try:
        changed = services.bulk_change(issues=issues, actor=request.person, **form.changes())
    except services.BoardError as exc:
        flash(request, str(exc))
        return redirect(back)
    flash(
        request,
        f"Bulk change complete: {changed} of {len(issues)} work item{'s' if len(issues) != 1 else ''} changed.",
        "success",
    )
    return redirect(back)
