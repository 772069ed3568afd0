"""Template helpers of the agent workspace: inline icons, status badges, avatars, sort links."""

import hashlib

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()

# 16x16 stroke icons drawn for this replica (no product artwork).
_PATHS = {
    "home": '<path d="M2.5 7.5 8 3l5.5 4.5V13a.5.5 0 0 1-.5.5H10V10H6v3.5H3a.5.5 0 0 1-.5-.5z"/>',
    "views": '<path d="M2.5 3.5h11M2.5 8h11M2.5 12.5h11"/><circle cx="2.5" cy="3.5" r=".5"/>',
    "customers": '<circle cx="8" cy="5.5" r="2.5"/><path d="M3 13.5c.6-2.6 2.6-4 5-4s4.4 1.4 5 4"/>',
    "organizations": '<path d="M2.5 13.5v-10h7v10M9.5 6.5h4v7M1.5 13.5h13M4.5 5.5h1M6.5 5.5h1M4.5 8h1M6.5 '
    '8h1M4.5 10.5h1M6.5 10.5h1"/>',
    "knowledge": '<path d="M3 2.5h7.5a1.5 1.5 0 0 1 1.5 1.5v9.5H4.5A1.5 1.5 0 0 1 3 12zM3 12a1.5 1.5 0 0 1 '
    '1.5-1.5H12"/>',
    "reporting": '<path d="M2.5 13.5h11M4.5 11V8M8 11V4.5M11.5 11V6.5"/>',
    "admin": '<circle cx="8" cy="8" r="2"/><path d="M8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4M11.2 '
    '11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4"/>',
    "search": '<circle cx="7" cy="7" r="4.5"/><path d="m10.5 10.5 3 3"/>',
    "plus": '<path d="M8 3v10M3 8h10"/>',
    "close": '<path d="m4 4 8 8M12 4l-8 8"/>',
    "ticket": '<path d="M2.5 4.5h11v2a1.5 1.5 0 0 0 0 3v2h-11v-2a1.5 1.5 0 0 0 0-3z"/>',
    "email": '<rect x="2" y="3.5" width="12" height="9" rx="1"/><path d="m2.5 4.5 5.5 4 5.5-4"/>',
    "web": '<circle cx="8" cy="8" r="5.5"/><path d="M2.5 8h11M8 2.5c1.8 2 1.8 9 0 11M8 2.5c-1.8 2-1.8 9 0 11"/>',
    "chat": '<path d="M2.5 3.5h11v7H7l-3 2.5v-2.5H2.5z"/>',
    "phone": '<path d="M4 2.5h2l1 3-1.5 1a7 7 0 0 0 4 4l1-1.5 3 1v2a1 1 0 0 1-1 1A10.5 10.5 0 0 1 3 3.5a1 1 0 '
    '0 1 1-1z"/>',
    "social": '<circle cx="4" cy="8" r="1.5"/><circle cx="12" cy="4" r="1.5"/><circle cx="12" cy="12" '
    'r="1.5"/><path d="m5.3 7.3 5.4-2.6M5.3 8.7l5.4 2.6"/>',
    "note": '<path d="M3 2.5h10v8l-3 3H3zM10 13.5v-3h3"/>',
    "chevron-down": '<path d="m4 6 4 4 4-4"/>',
    "chevron-left": '<path d="m10 4-4 4 4 4"/>',
    "chevron-right": '<path d="m6 4 4 4-4 4"/>',
    "billing": '<rect x="1.5" y="3.5" width="13" height="9" rx="1"/><path d="M1.5 6.5h13M4 10h3"/>',
    "apps": '<rect x="2.5" y="2.5" width="4" height="4"/><rect x="9.5" y="2.5" width="4" height="4"/><rect '
    'x="2.5" y="9.5" width="4" height="4"/><rect x="9.5" y="9.5" width="4" height="4"/>',
    "help": '<circle cx="8" cy="8" r="5.5"/><path d="M6.5 6.5a1.5 1.5 0 1 1 2 1.4c-.4.2-.5.5-.5.9V9.5M8 11.5v.01"/>',
    "bell": '<path d="M4 11V7a4 4 0 0 1 8 0v4l1 1.5H3zM6.5 13.5a1.5 1.5 0 0 0 3 0"/>',
    "merge": '<path d="M4 2.5v3a3 3 0 0 0 3 3h5M4 13.5v-3a3 3 0 0 1 3-3M10 6.5l2 2-2 2"/>',
    "lock": '<rect x="3.5" y="7" width="9" height="6.5" rx="1"/><path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2"/>',
    "shield": '<path d="M8 1.5 13 3.5v4c0 3-2.2 5.4-5 6.5-2.8-1.1-5-3.5-5-6.5v-4z"/>',
    "key": '<circle cx="5" cy="8" r="2.5"/><path d="M7.5 8h6M11.5 8v2M13.5 8v1.5"/>',
    "events": '<circle cx="8" cy="8" r="5.5"/><path d="M8 5v3l2 1.5"/>',
    "user": '<circle cx="8" cy="5.5" r="2.5"/><path d="M3 13.5c.6-2.6 2.6-4 5-4s4.4 1.4 5 4"/>',
    "keyboard": '<rect x="1.5" y="4" width="13" height="8" rx="1"/><path d="M4 6.5h.01M6.5 6.5h.01M9 '
    '6.5h.01M11.5 6.5h.01M5 9.5h6"/>',
    "sort-asc": '<path d="m5 7 3-3 3 3"/>',
    "sort-desc": '<path d="m5 9 3 3 3-3"/>',
}


@register.simple_tag
def icon(name, size=16, label=""):
    """An inline SVG icon; decorative unless `label` is given."""
    paths = _PATHS[name]
    aria = format_html('role="img" aria-label="{}"', label) if label else mark_safe('aria-hidden="true"')
    return format_html(
        '<svg class="icon icon--{}" width="{}" height="{}" viewBox="0 0 16 16" fill="none" stroke="currentColor" '
        'stroke-width="1.3" stroke-linecap="round" stroke-linejoin="round" focusable="false" {}>{}</svg>',
        name,
        size,
        size,
        aria,
        mark_safe(paths),  # noqa: S308 - constant markup from _PATHS
    )


STATUS_LABELS = {
    "new": "New",
    "open": "Open",
    "pending": "Pending",
    "hold": "On-hold",
    "solved": "Solved",
    "closed": "Closed",
}


@register.simple_tag
def status_badge(status, short=False):
    label = STATUS_LABELS.get(status, status)
    return format_html(
        '<span class="status status--{}" title="{}">{}</span>', status, label, label[0] if short else label
    )


_AVATAR_COLOURS = ["#1f73b7", "#038153", "#c72a1c", "#ad5918", "#6a27b8", "#037f52", "#0b3b29", "#d42054", "#2f3941"]


@register.simple_tag
def avatar(user, size="sm"):
    """Initials on a colour derived from the user's public id (stable across runs and machines)."""
    if user is None:
        return format_html('<span class="avatar avatar--{} avatar--empty" aria-hidden="true"></span>', size)
    words = [w for w in user.name.replace("-", " ").split() if w[:1].isalpha()]
    initials = (words[0][0] + (words[-1][0] if len(words) > 1 else "")).upper() if words else "?"
    digest = hashlib.sha256(str(user.public_id).encode()).digest()
    colour = _AVATAR_COLOURS[digest[0] % len(_AVATAR_COLOURS)]
    shape = " avatar--agent" if getattr(user, "is_agent", False) else ""
    return format_html(
        '<span class="avatar avatar--{}{}" style="background:{}" aria-hidden="true">{}</span>',
        size,
        shape,
        colour,
        initials,
    )


@register.simple_tag(takes_context=True)
def sort_link(context, column, label):
    """A column header link that sorts by `column`, flipping direction when it is already the sort."""
    current = context.get("sort", "")
    descending = current == f"-{column}"
    target = column if descending else f"-{column}" if current == column else column
    arrow = ""
    if current.lstrip("-") == column:
        arrow = icon("sort-desc" if current.startswith("-") else "sort-asc", 12)
    query = context["request"].GET.copy()
    query["sort"] = target
    query.pop("page", None)
    return format_html(
        '<a class="sort{}" href="?{}" hx-get="?{}" hx-push-url="true">{}{}</a>',
        " is-sorted" if arrow else "",
        query.urlencode(),
        query.urlencode(),
        label,
        arrow,
    )
