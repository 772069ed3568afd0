"""Customers, organizations, the help center and search."""

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db.models import Count
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from .. import selectors
from ..models import Article, Organization, Ticket, User
from . import domain
from .common import agent_required, page


def _user_or_404(public_id):
    user = User.objects.select_related("organization").filter(public_id=public_id).first()
    if user is None:
        raise Http404("No such user")
    return user


@agent_required
def user_profile(request, public_id):
    user = _user_or_404(public_id)
    tickets = list(
        Ticket.objects.filter(requester=user, merged_into__isnull=True)
        .select_related("requester", "assignee", "group")
        .order_by("-updated_at", "-public_id")[:50]
    )
    context = {"person": user, "tickets": tickets, **_security_context(user)}
    return page(request, "supportdesk/user.html", context, section="customers")


def _security_context(user):
    return {
        "identities": list(user.identities.order_by("-primary", "kind", "value")),
        "account_events": list(user.account_events.select_related("agent").order_by("-created_at", "-public_id")[:10]),
        "verification": None if user.is_agent else selectors.identity_verification_current(user),
    }


SECURITY_ACTIONS = {
    "verify": "identity_verify",
    "password-reset": "password_reset",
    "unlock": "account_unlock",
    "2fa-reset": "twofactor_reset",
}


@agent_required
@require_POST
def user_security(request, public_id, action):
    """Security actions on a customer's account; all but 'verify' need a current identity verification."""
    user = _user_or_404(public_id)
    name = SECURITY_ACTIONS.get(action)
    fn = domain.security_action(name) if name else None
    if fn is None:
        raise Http404("No such action")
    error = None
    try:
        if action == "verify":
            method = request.POST.get("method", "")
            value = request.POST.get("value", "").strip()
            if method not in ("card_last4", "order_number") or not value:
                raise ValidationError("Choose a verification method and enter what the customer told you.")
            fn(agent=request.agent, customer=user, method=method, value=value)
        else:
            fn(agent=request.agent, customer=user)
    except ValidationError as exc:
        error = " ".join(exc.messages)
    if error is None:
        return redirect(f"/agent/users/{user.public_id}")
    tickets = list(
        Ticket.objects.filter(requester=user).select_related("requester", "assignee").order_by("-updated_at")[:50]
    )
    context = {
        "person": user,
        "tickets": tickets,
        "security_error": error,
        "security_action": action,
        **_security_context(user),
    }
    return page(request, "supportdesk/user.html", context, section="customers", status=400)


@agent_required
def customer_list(request):
    query = request.GET.get("q", "").strip()
    if query:
        users = selectors.customers_search(query)
    else:
        users = User.objects.filter(role=User.Role.END_USER).order_by("name", "public_id")
    users = users.select_related("organization")
    page_obj = Paginator(users, 50).get_page(request.GET.get("page"))
    return page(request, "supportdesk/customers.html", {"page": page_obj, "query": query}, section="customers")


@agent_required
def organization_list(request):
    orgs = Organization.objects.annotate(n_members=Count("members", distinct=True)).order_by("name")
    return page(request, "supportdesk/organizations.html", {"orgs": orgs}, section="organizations")


@agent_required
def organization_detail(request, public_id):
    org = Organization.objects.filter(public_id=public_id).first()
    if org is None:
        raise Http404("No such organization")
    members = list(org.members.order_by("name")[:100])
    tickets = list(
        Ticket.objects.filter(organization=org).select_related("requester", "assignee").order_by("-updated_at")[:50]
    )
    return page(
        request,
        "supportdesk/organization.html",
        {"org": org, "members": members, "tickets": tickets},
        section="organizations",
    )


def _articles(request, visibility: str, template: str, section: str):
    query = request.GET.get("q", "").strip()
    articles = selectors.articles_search(query) if query else Article.objects.filter(draft=False)
    articles = articles.filter(visibility=visibility).order_by("section", "title")
    return page(request, template, {"articles": articles, "query": query}, section=section)


@agent_required
def article_list(request):
    """The public help center: the articles customers can read too."""
    return _articles(request, Article.Visibility.EVERYONE, "supportdesk/articles.html", "helpcenter")


@agent_required
def knowledge_base(request):
    """The agents' internal knowledge base: limits by tier, escalation paths, SLA targets."""
    return _articles(request, Article.Visibility.AGENTS, "supportdesk/knowledge.html", "knowledge")


@agent_required
def article_detail(request, public_id):
    article = Article.objects.filter(public_id=public_id, draft=False).select_related("author").first()
    if article is None:
        raise Http404("No such article")
    internal = article.visibility == Article.Visibility.AGENTS
    return page(
        request,
        "supportdesk/article.html",
        {"article": article, "internal": internal},
        section="knowledge" if internal else "helpcenter",
    )


@agent_required
def search(request):
    """Global search: tickets by the product's filter syntax (status:open requester:… tags:…)."""
    query = request.GET.get("q", "").strip()
    error, tickets, users = None, [], []
    if query:
        try:
            results = selectors.tickets_search(query, agent=request.agent)
            tickets = Paginator(results, 50).get_page(request.GET.get("page"))
        except ValidationError as exc:
            error = " ".join(exc.messages)
        if ":" not in query and not error:
            users = list(selectors.customers_search(query).select_related("organization")[:10])
    context = {"query": query, "search_query": query, "tickets": tickets, "users": users, "error": error}
    return page(request, "supportdesk/search.html", context, section="search", status=400 if error else 200)


@agent_required
def admin_home(request):
    from .. import models

    context = {
        "groups": models.Group.objects.annotate(n=Count("memberships")).order_by("name"),
        "agents": User.objects.exclude(role=User.Role.END_USER).select_related("default_group").order_by("name"),
        "macros": models.Macro.objects.order_by("position", "title"),
    }
    return page(request, "supportdesk/admin.html", context, section="admin")
