"""The platform's navigation, in one place: each section's link is shown to the roles its page admits.

The roles are read from the page's own view (`allowed_roles`, see replicagym.accounts.roles), so the
navigation cannot offer a section that would answer 403, and a section's roles are declared once.
"""

from django.urls import Resolver404, resolve
from replicagym.accounts.roles import admits, user_roles

# (label, the pages it may link to, best first): a section links to the first its user may open,
# so an author's Annotation goes to the review queue, which is theirs, not to the annotators' queue.
SECTIONS = (
    ("Dashboard", ("/",)),
    ("Tasks", ("/tasks/",)),
    ("Suites", ("/suites/",)),
    ("Runs", ("/runs/",)),
    ("Annotation", ("/annotate/", "/annotate/review/")),
    ("Worlds", ("/worlds/",)),
    ("People", ("/people/",)),
    ("Settings", ("/settings/",)),
)


def page_admits(path: str, user) -> bool:
    """Whether the platform page at `path` admits `user` (False for a path that is no page)."""
    try:
        view = resolve(path).func
    except Resolver404:
        return False
    allowed = getattr(view, "allowed_roles", None)
    return allowed is not None and admits(user_roles(user), allowed)


def sections_for(request) -> list[dict]:
    """The navigation of `request`'s user: label, href, and whether the current path is in that section."""
    path = getattr(request, "path", "") or ""
    user = getattr(request, "user", None)
    sections = []
    for label, pages in SECTIONS:
        href = next((page for page in pages if page_admits(page, user)), None)
        if href is not None:
            home = pages[0]
            current = path == "/" if home == "/" else path.startswith(home)
            sections.append({"label": label, "href": href, "current": current})
    return sections
