"""URLs served on a support desk world's origin, shaped like the product's."""

from django.urls import include, path
from django.views.generic import RedirectView

from .views import auth, people, ticket, tickets

app_name = "supportdesk"

urlpatterns = [
    path("", RedirectView.as_view(url="/agent/filters/your-unsolved", permanent=False)),
    path("auth/login", auth.login, name="login"),
    path("auth/logout", auth.logout, name="logout"),
    path("agent", RedirectView.as_view(url="/agent/dashboard", permanent=False)),
    path(
        "agent/dashboard", RedirectView.as_view(url="/agent/filters/your-unsolved", permanent=False), name="dashboard"
    ),
    path("agent/filters/<slug:view>", tickets.ticket_list, name="view"),
    path("agent/tickets/bulk", tickets.bulk_update, name="bulk_update"),
    path("agent/tickets/new", ticket.ticket_new, name="ticket_new"),
    path("agent/tickets/<int:number>", ticket.ticket_detail, name="ticket"),
    path("agent/tickets/<int:number>/events", ticket.ticket_events, name="ticket_events"),
    path("agent/tickets/<int:number>/merge", ticket.ticket_merge, name="ticket_merge"),
    path("agent/tickets/<int:number>/take", ticket.ticket_take, name="ticket_take"),
    path("agent/tabs/<int:number>/close", tickets.tab_close_view, name="tab_close"),
    path("agent/search", people.search, name="search"),
    path("agent/customers", people.customer_list, name="customers"),
    path("agent/users/<int:public_id>", people.user_profile, name="user"),
    path("agent/users/<int:public_id>/security/<slug:action>", people.user_security, name="user_security"),
    path("agent/organizations", people.organization_list, name="organizations"),
    path("agent/organizations/<int:public_id>", people.organization_detail, name="organization"),
    path("agent/admin", people.admin_home, name="admin"),
    path("agent/knowledge", people.knowledge_base, name="knowledge"),
    path("hc/en-us", RedirectView.as_view(url="/hc/en-us/articles", permanent=False)),
    path("hc/en-us/articles", people.article_list, name="articles"),
    path("hc/en-us/articles/<int:public_id>", people.article_detail, name="article"),
    path("", include("replicas.supportdesk.api_urls")),  # the internal billing API
]
