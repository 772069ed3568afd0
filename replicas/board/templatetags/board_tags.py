"""Icons and avatars of the issue board, as inline SVG (served by the page itself, no icon font), and its
rich text: comments with mentions, descriptions in the product's wiki markup."""

import re

from django import template
from django.template.defaultfilters import urlencode
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.text import slugify

from .. import workflow as W
from ..services import MENTION

register = template.Library()

# issue-type icons in the product's colours: 16 px rounded squares with a glyph
TYPE_ICONS = {
    "epic": ("#904EE2", '<path d="M9 3 5 9h3l-1 4 4-6H8z" fill="#fff"/>'),
    "story": ("#63BA3C", '<path d="M5 4h6v8l-3-2-3 2z" fill="#fff"/>'),
    "task": ("#4BADE8", '<path d="m5 8 2 2 4-4" stroke="#fff" stroke-width="1.8" fill="none" stroke-linecap="round"/>'),
    "bug": ("#E5493A", '<circle cx="8" cy="8" r="3" fill="#fff"/>'),
    "subtask": (
        "#4BADE8",
        '<rect x="4.5" y="4.5" width="4" height="4" rx=".5" stroke="#fff" fill="none"/><rect x="7.5" y="7.5" '
        'width="4" height="4" rx=".5" fill="#fff"/>',
    ),
}
PRIORITY_ICONS = {
    "Highest": ("#CD1317", '<path d="m3 9 5-4 5 4M3 13l5-4 5 4" stroke="#CD1317" stroke-width="1.8" fill="none"/>'),
    "High": ("#E9494A", '<path d="m3 11 5-4 5 4" stroke="#E9494A" stroke-width="1.8" fill="none"/>'),
    "Medium": ("#E97F33", '<path d="M3 6h10M3 10h10" stroke="#E97F33" stroke-width="1.8"/>'),
    "Low": ("#2D8738", '<path d="m3 5 5 4 5-4" stroke="#2D8738" stroke-width="1.8" fill="none"/>'),
    "Lowest": ("#57A55A", '<path d="m3 3 5 4 5-4M3 7l5 4 5-4" stroke="#57A55A" stroke-width="1.8" fill="none"/>'),
}
# navigation glyphs (16 px line icons in the design system's style), drawn in currentColor
NAV_ICONS = {
    "bell": '<path d="M4 11V7a4 4 0 0 1 8 0v4l1 1.5H3zM6.5 14h3" />',
    "help": '<circle cx="8" cy="8" r="6"/><path d="M6.3 6.3a1.8 1.8 0 1 1 2.4 1.7c-.5.2-.7.6-.7 1.1v.4M8 11.4v.1"/>',
    "settings": '<circle cx="8" cy="8" r="2"/><path d="M8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4'
    'M11.2 11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4"/>',
    "summary": '<rect x="2" y="2" width="12" height="12" rx="2"/><path d="M5 10V8M8 10V6M11 10V5"/>',
    "timeline": '<path d="M2 4h7M5 8h8M3 12h6"/>',
    "backlog": '<path d="M2 4h12M2 8h12M2 12h12"/>',
    "board": '<rect x="2" y="2" width="12" height="12" rx="2"/><path d="M6 2v12M10 2v12"/>',
    "list": '<path d="M5 4h9M5 8h9M5 12h9M2 4h.1M2 8h.1M2 12h.1"/>',
    "reports": '<path d="M2 14h12M4 11V7M8 11V3M12 11V6"/>',
    "page": '<path d="M4 2h5l3 3v9H4zM9 2v3h3"/>',
}
NAMES = {"epic": "Epic", "story": "Story", "task": "Task", "bug": "Bug", "subtask": "Sub-task"}


@register.simple_tag
def type_icon(issue_type: str):
    colour, glyph = TYPE_ICONS[issue_type]
    return mark_safe(  # noqa: S308 - constant markup from this module
        '<svg class="type-icon" width="16" height="16" viewBox="0 0 16 16" role="img" '
        f'aria-label="{NAMES[issue_type]}">'
        f'<title>{NAMES[issue_type]}</title><rect width="16" height="16" rx="3" fill="{colour}"/>{glyph}</svg>'
    )


@register.simple_tag
def priority_icon(priority: str):
    _, glyph = PRIORITY_ICONS[priority]
    return mark_safe(  # noqa: S308 - constant markup from this module
        '<svg class="prio-icon" width="16" height="16" viewBox="0 0 16 16" role="img" aria-label="Priority: '
        f'{priority}">'
        f"<title>{priority}</title>{glyph}</svg>"
    )


@register.simple_tag
def avatar(person, size: int = 24):
    if person is None:
        return format_html(
            '<span class="avatar avatar--none" style="width:{0}px;height:{0}px" title="Unassigned" '
            'role="img" aria-label="Unassigned"></span>',
            size,
        )
    # an f-string with escape(): format_html costs three times as much, and a board shows a hundred of these
    name, size = escape(person.name), int(size)
    return mark_safe(  # noqa: S308 - every piece of text is escaped
        f'<span class="avatar" style="width:{size}px;height:{size}px;background:{escape(person.avatar_color)};'
        f'font-size:{max(9, size * 2 // 5)}px" title="{name}" role="img" aria-label="{name}">'
        f"{escape(person.initials)}</span>"
    )


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
def mention_names(body: str, names: dict) -> str:
    """A draft's [~username] mentions as the comment box shows them, @Name; the box's script turns a
    picked @Name back into the mention when the comment is saved."""
    return MENTION.sub(lambda m: f"@{names[m.group(1)]}" if m.group(1) in names else m.group(0), body)


@register.filter
def field_label(field: str) -> str:
    return W.field_label(field)


@register.filter
def file_kind(name: str) -> str:
    """The short type label shown on an attachment's icon: its extension."""
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    return ext[:4].upper() or "FILE"


# --- rich text: the product's wiki markup for descriptions --------------------------------------------
# Block level: h1. .. h6. headings, "* " / "- " bullets, "# " numbered items, bq. quotes, {code} blocks,
# paragraphs split by blank lines. Inline: *bold*, _italic_, {{monospace}}, [text|https://link],
# [https://link], [~username] mentions. Text is escaped before any markup is added, and links go
# only to http(s) addresses or paths of this site.
HEADING = re.compile(r"h([1-6])\.\s+(.*)")
BULLET = re.compile(r"[*-]\s+(.*)")
NUMBERED = re.compile(r"#\s+(.*)")
INLINE = re.compile(
    r"\{\{(?P<code>.+?)\}\}"
    r"|(?<![\w*])\*(?P<bold>[^*\s](?:[^*]*[^*\s])?)\*(?![\w*])"
    r"|(?<![\w_])_(?P<em>[^_\s](?:[^_]*[^_\s])?)_(?![\w_])"
    r"|\[~(?P<mention>[A-Za-z0-9._-]{1,40})\]"
    r"|\[(?:(?P<label>[^\[\]|]+)\|)?(?P<href>(?:https?://|/)[^\s\[\]|]+)\]"
)


def _inline(text: str, names: dict) -> str:
    """One line of escaped rich text with its inline markup."""
    out, pos = [], 0
    for m in INLINE.finditer(text):
        out.append(escape(text[pos : m.start()]))
        pos = m.end()
        if m["code"] is not None:
            out.append(f"<code>{escape(m['code'])}</code>")
        elif m["bold"] is not None:
            out.append(f"<strong>{_inline(m['bold'], names)}</strong>")
        elif m["em"] is not None:
            out.append(f"<em>{_inline(m['em'], names)}</em>")
        elif m["mention"] is not None:
            name = names.get(m["mention"])
            out.append(
                f'<span class="mention" data-username="{m["mention"]}">@{escape(name)}</span>'
                if name
                else escape(f"@{m['mention']}")
            )
        else:
            href = m["href"]
            if href.startswith(("//", "/\\")):  # a path must stay on this site (browsers read /\host as //host)
                out.append(escape(m.group(0)))
                continue
            out.append(f'<a href="{escape(href)}" rel="nofollow noopener">{escape(m["label"] or href)}</a>')
    out.append(escape(text[pos:]))
    return "".join(out)


def render_rich_text(text: str, names: dict) -> str:
    blocks, para, items, code = [], [], None, None  # items: (tag, [html])

    def close():
        nonlocal para, items
        if para:
            blocks.append("<p>" + "<br>".join(para) + "</p>")
            para = []
        if items:
            tag, rows = items
            blocks.append(f"<{tag}>" + "".join(f"<li>{r}</li>" for r in rows) + f"</{tag}>")
            items = None

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        if code is not None:
            if line == "{code}":
                blocks.append("<pre><code>" + escape("\n".join(code)) + "</code></pre>")
                code = None
            else:
                code.append(raw)
            continue
        if line == "{code}":
            close()
            code = []
            continue
        if not line:
            close()
            continue
        heading, bullet, numbered = HEADING.fullmatch(line), BULLET.fullmatch(line), NUMBERED.fullmatch(line)
        if heading:
            close()
            level = min(6, int(heading[1]) + 2)  # below the page's own h1 and section h2s
            blocks.append(f"<h{level}>{_inline(heading[2], names)}</h{level}>")
        elif bullet or numbered:
            tag = "ul" if bullet else "ol"
            if para or (items and items[0] != tag):
                close()
            if items is None:
                items = (tag, [])
            items[1].append(_inline((bullet or numbered)[1], names))
        elif line.startswith("bq. "):
            close()
            blocks.append(f"<blockquote>{_inline(line[4:], names)}</blockquote>")
        else:
            if items:
                close()
            para.append(_inline(line, names))
    if code is not None:  # an unclosed {code} keeps its text as code
        blocks.append("<pre><code>" + escape("\n".join(code)) + "</code></pre>")
    close()
    return "".join(blocks)


@register.simple_tag
def rich_text(text: str, names: dict):
    """A description as the product renders it (see render_rich_text)."""
    return mark_safe(render_rich_text(text or "", names))  # noqa: S308 - every piece of text is escaped above


@register.simple_tag
def icon(name: str):
    return mark_safe(  # noqa: S308 - constant markup from this module
        '<svg class="navicon" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" '
        f'stroke-width="1.5" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">{NAV_ICONS[name]}</svg>'
    )


# --- the board's cards ---------------------------------------------------------------------------------
# A board holds up to a few hundred cards, each with its menu of moves: rendered here in one pass, not
# node by node by the template engine, which was most of the board page's render time. Same markup as
# the card's template had; every piece of text is escaped.


def _card_frame(context) -> dict:
    """What every card of one board render shares, worked out once per render."""
    frame = context.render_context.get("board_card")
    if frame is None:
        base_query = context.get("base_query") or ""
        project = context.get("project")
        frame = context.render_context["board_card"] = {
            "csrf": _csrf_input(context),
            "full_path": escape(context.get("full_path") or ""),
            "path": escape(urlencode(context["request"].path)),
            "statuses": list(context.get("statuses") or ()),
            "href": f"?{escape(base_query)}&amp;selectedIssue=" if base_query else "?selectedIssue=",
            "selected": context.get("selected_key") if context.get("panel") else None,
            "epic_lanes": project is not None and project.swimlanes == "epic",
        }
    return frame


@register.simple_tag(takes_context=True)
def board_card(context, issue):
    """One card of the board with its menu (Move to a status, Top or Bottom of column)."""
    f = _card_frame(context)
    key, status = escape(issue.key), escape(issue.status)
    out = [
        f'<li class="card{" card--selected" if issue.key == f["selected"] else ""}" data-key="{key}" '
        f'data-status="{status}" data-resolution="{escape(issue.resolution)}" tabindex="0" data-nav-item>\n'
        f'          <a class="card__summary" href="{f["href"]}{key}" draggable="false" data-panel-link>'
        f"{escape(issue.summary)}</a>\n          "
    ]
    if issue.parent:
        out.append(f'<div class="card__parent">{escape(issue.parent.key)}</div>')
    out.append("\n          ")
    if issue.epic and not f["epic_lanes"]:
        out.append(f'<div class="card__epic">{escape(issue.epic.summary)}</div>')
    out.append("\n          ")
    if issue.labels:
        out.append('<div class="card__labels">')
        out += [f'<span class="label">{escape(label)}</span>' for label in issue.labels]
        out.append("</div>")
    out.append(
        '\n          <div class="card__foot">\n            '
        f'{type_icon(issue.issue_type)}<span class="card__key{" card__key--done" if issue.status == "Done" else ""}">'
        f"{key}</span>\n            {priority_icon(issue.priority)}\n            "
    )
    if issue.story_points is not None:
        out.append(f'<span class="points" title="Story points">{issue.story_points}</span>')
    out.append(
        f'\n            <span class="card__spacer"></span>{avatar(issue.assignee, 24)}\n          </div>\n          '
        '<details class="card__menu">\n'
        f'  <summary aria-label="Actions for {key}" title="Actions">&middot;&middot;&middot;</summary>\n'
        f'  <div class="menu menu--right" role="menu" aria-label="Move {key}">\n    \n'
        f'    <form method="post" action="/browse/{key}/transition">{f["csrf"]}<input type="hidden" name="seen" '
        f'value="{status}"><input type="hidden" name="next" value="{f["full_path"]}">'
    )
    for s in f["statuses"]:
        if s == issue.status:
            continue
        if s == "Done":
            out.append(
                f'<a class="menu__item" role="menuitem" href="/browse/{key}/transition?status=Done&amp;'
                f'next={f["path"]}">Move to Done</a>'
            )
        else:
            out.append(
                f'<button class="menu__item" role="menuitem" type="submit" name="status" value="{escape(s)}">'
                f"Move to {escape(s)}</button>"
            )
    out.append(
        "</form>\n    \n"
        f'    <form method="post" action="/browse/{key}/rank">{f["csrf"]}<input type="hidden" name="scope" '
        f'value="column"><input type="hidden" name="next" value="{f["full_path"]}"><button class="menu__item" '
        'role="menuitem" type="submit" name="position" value="top">Top of column</button><button '
        'class="menu__item" role="menuitem" type="submit" name="position" value="bottom">Bottom of column</button>'
        "</form>\n  </div>\n</details>\n\n        </li>"
    )
    return mark_safe("".join(out))  # noqa: S308 - every piece of text is escaped above


@register.simple_tag
def result_row(issue):
    """One row of the search navigator's results (up to PAGE_SIZE a page), rendered in one pass like a card."""
    key = escape(issue.key)
    assignee = escape(issue.assignee.name) if issue.assignee else '<span class="muted">Unassigned</span>'
    return mark_safe(  # noqa: S308 - every piece of text is escaped
        f'<tr data-nav-item data-key="{key}">\n'
        f'      <td><input type="checkbox" name="keys" value="{key}" aria-label="Select {key}"></td>\n'
        f'      <td>{type_icon(issue.issue_type)}</td><td><a href="/browse/{key}">{key}</a></td>'
        f"<td>{escape(issue.summary)}</td>\n"
        f"      <td>{assignee}</td>\n"
        f"      <td>{priority_icon(issue.priority)} {escape(issue.priority)}</td><td><span "
        f'class="status status--{slugify(issue.status)}">{escape(issue.status)}</span></td>\n'
        f"      <td>{', '.join(escape(label) for label in issue.labels)}</td>"
        f"<td>{escape(issue.sprint.name) if issue.sprint else ''}</td></tr>"
    )


def _csrf_input(context) -> str:
    token = context.get("csrf_token")
    if not token or token == "NOTPROVIDED":
        return ""
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(token)}">'


@register.simple_tag(takes_context=True)
def backlog_row(context, issue):
    """One row of the backlog (a few hundred on a page) with its menu: Move to a sprint or the backlog,
    Top or Bottom of its section; rendered in one pass like a card."""
    frame = context.render_context.get("backlog_row")
    if frame is None:
        frame = context.render_context["backlog_row"] = {
            "csrf": _csrf_input(context),
            "next": escape(context["request"].get_full_path()),
            "sprints": [(s.id, escape(s.public_id), escape(s.name)) for s in context.get("sprints") or ()],
        }
    key, csrf, next_url = escape(issue.key), frame["csrf"], frame["next"]
    section = "sprint" if issue.sprint_id else "backlog"
    points = "-" if issue.story_points is None else issue.story_points
    out = [
        f'<li class="brow" data-key="{key}" tabindex="0" data-nav-item>\n'
        f'  {type_icon(issue.issue_type)}<a class="brow__key" href="/browse/{key}" draggable="false">{key}</a>\n'
        f'  <span class="brow__summary">{escape(issue.summary)}</span>\n  '
    ]
    if issue.epic_id:
        out.append(f'<span class="epictag">{escape(issue.epic.summary)}</span>')
    out.append("\n  ")
    out += [f'<span class="label">{escape(label)}</span>' for label in issue.labels]
    out.append(
        f'\n  <span class="status status--{slugify(issue.status)}">{escape(issue.status)}</span>\n'
        f"  {priority_icon(issue.priority)}\n"
        f'  <span class="points{" points--none" if issue.story_points is None else ""}" title="Story points">'
        f"{points}</span>\n"
        f"  {avatar(issue.assignee, 24)}\n  \n"
        '  <details class="card__menu brow__rank">\n'
        f'    <summary aria-label="Actions for {key}" title="More actions">&middot;&middot;&middot;</summary>\n'
        f'    <div class="menu menu--right" role="menu" aria-label="{key} actions">\n'
        f'      <form method="post" action="/browse/{key}/rank">{csrf}<input type="hidden" name="next" '
        f'value="{next_url}">\n'
        '        <div class="menu__group" aria-hidden="true">Move to</div>\n        '
    )
    out += [
        f'<button class="menu__item" role="menuitem" type="submit" name="sprint" value="{public_id}" '
        f'id="move-{key}-{public_id}" aria-label="Move to {name}">{name}</button>'
        for sprint_id, public_id, name in frame["sprints"]
        if sprint_id != issue.sprint_id
    ]
    out.append("\n        ")
    if issue.sprint_id:
        out.append(
            f'<button class="menu__item" role="menuitem" type="submit" name="sprint" value="backlog" '
            f'id="move-{key}-backlog" aria-label="Move to Backlog">Backlog</button>'
        )
    out.append(
        "\n      </form>\n"
        '      <div class="menu__sep" role="separator"></div>\n'
        f'      <form method="post" action="/browse/{key}/rank">{csrf}<input type="hidden" name="scope" '
        f'value="backlog"><input type="hidden" name="next" value="{next_url}">\n'
        '        <button class="menu__item" role="menuitem" type="submit" name="position" value="top">'
        f"Top of {section}</button>\n"
        '        <button class="menu__item" role="menuitem" type="submit" name="position" value="bottom">'
        f"Bottom of {section}</button>\n"
        "      </form>\n    </div>\n  </details>\n</li>\n"
    )
    return mark_safe("".join(out))  # noqa: S308 - every piece of text is escaped above
