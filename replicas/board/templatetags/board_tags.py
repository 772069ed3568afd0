"""Icons and avatars of the issue board, as inline SVG (served by the page itself, no icon font)."""
from django import template
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from ..services import MENTION

register = template.Library()

# issue-type icons in the product's colours: 16 px rounded squares with a glyph
TYPE_ICONS = {
    "epic": ("#904EE2", '<path d="M9 3 5 9h3l-1 4 4-6H8z" fill="#fff"/>'),
    "story": ("#63BA3C", '<path d="M5 4h6v8l-3-2-3 2z" fill="#fff"/>'),
    "task": ("#4BADE8", '<path d="m5 8 2 2 4-4" stroke="#fff" stroke-width="1.8" fill="none" stroke-linecap="round"/>'),
    "bug": ("#E5493A", '<circle cx="8" cy="8" r="3" fill="#fff"/>'),
    "subtask": ("#4BADE8", '<rect x="4.5" y="4.5" width="4" height="4" rx=".5" stroke="#fff" fill="none"/><rect x="7.5" y="7.5" width="4" height="4" rx=".5" fill="#fff"/>'),
}
PRIORITY_ICONS = {
    "Highest": ("#CD1317", '<path d="m3 9 5-4 5 4M3 13l5-4 5 4" stroke="#CD1317" stroke-width="1.8" fill="none"/>'),
    "High": ("#E9494A", '<path d="m3 11 5-4 5 4" stroke="#E9494A" stroke-width="1.8" fill="none"/>'),
    "Medium": ("#E97F33", '<path d="M3 6h10M3 10h10" stroke="#E97F33" stroke-width="1.8"/>'),
    "Low": ("#2D8738", '<path d="m3 5 5 4 5-4" stroke="#2D8738" stroke-width="1.8" fill="none"/>'),
    "Lowest": ("#57A55A", '<path d="m3 3 5 4 5-4M3 7l5 4 5-4" stroke="#57A55A" stroke-width="1.8" fill="none"/>'),
}
NAMES = {"epic": "Epic", "story": "Story", "task": "Task", "bug": "Bug", "subtask": "Sub-task"}


@register.simple_tag
def type_icon(issue_type: str):
    colour, glyph = TYPE_ICONS[issue_type]
    return mark_safe(  # noqa: S308 - constant markup from this module
        f'<svg class="type-icon" width="16" height="16" viewBox="0 0 16 16" role="img" aria-label="{NAMES[issue_type]}">'
        f'<title>{NAMES[issue_type]}</title><rect width="16" height="16" rx="3" fill="{colour}"/>{glyph}</svg>'
    )


@register.simple_tag
def priority_icon(priority: str):
    _, glyph = PRIORITY_ICONS[priority]
    return mark_safe(  # noqa: S308 - constant markup from this module
        f'<svg class="prio-icon" width="16" height="16" viewBox="0 0 16 16" role="img" aria-label="Priority: {priority}">'
        f'<title>{priority}</title>{glyph}</svg>'
    )


@register.simple_tag
def avatar(person, size: int = 24):
    if person is None:
        return format_html('<span class="avatar avatar--none" style="width:{0}px;height:{0}px" title="Unassigned" '
                           'role="img" aria-label="Unassigned"></span>', size)
    return format_html('<span class="avatar" style="width:{0}px;height:{0}px;background:{1};font-size:{2}px" title="{3}" '
                       'role="img" aria-label="{3}">{4}</span>', size, person.avatar_color, max(9, size * 2 // 5), person.name,
                       person.initials)


@register.simple_tag
def mentions(body: str, names: dict):
    """A comment's text with its [~username] mentions shown as the product shows them: @Name."""
    def chip(match):
        username = match.group(1)
        name = names.get(username)
        return f'<span class="mention" data-username="{username}">@{escape(name)}</span>' if name else f"@{username}"

    # escaped first; a username holds only [A-Za-z0-9._-], which escaping leaves alone
    return mark_safe(MENTION.sub(chip, escape(body)).replace("\n", "<br>"))  # noqa: S308


@register.filter
def file_kind(name: str) -> str:
    """The short type label shown on an attachment's icon: its extension."""
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    return ext[:4].upper() or "FILE"
