"""The small Markdown a replica's context pages are written in (the anchor's PRD and policy documents, issue 33),
as HTML: headings, paragraphs, bullet and numbered lists, **bold**, *italic*, `code` and [links](https://...). The
text is escaped before any markup is added, so HTML in a document shows as text and never reaches the page as
markup; a link goes only to an http(s) address or a path of the replica."""

import html
import re

HEADING = re.compile(r"^(#{1,4})\s+(.*)$")
BULLET = re.compile(r"^\s*[-*]\s+(.*)$")
NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
# on escaped text: the markers themselves are never escaped, and a link's parts are escaped already
INLINE = [
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(.+?)\*\*"), r"<strong>\1</strong>"),
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])"), r"<em>\1</em>"),
]
LINK = re.compile(r"\[([^\]]+)\]\(((?:https?://|/)[^\s()]*)\)")


def _inline(text: str) -> str:
    out = html.escape(text, quote=True)
    for pattern, replacement in INLINE:
        out = pattern.sub(replacement, out)
    return LINK.sub(r'<a href="\2">\1</a>', out)


def markdown_html(text: str) -> str:
    """The HTML of a Markdown document (the subset above); every other line is a paragraph's text."""
    blocks: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    list_tag = ""

    def close() -> None:
        nonlocal list_tag
        if paragraph:
            blocks.append(f"<p>{_inline(' '.join(paragraph))}</p>")
            paragraph.clear()
        if items:
            blocks.append(f"<{list_tag}>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + f"</{list_tag}>")
            items.clear()
            list_tag = ""

    for line in text.splitlines():
        heading, bullet, numbered = HEADING.match(line), BULLET.match(line), NUMBERED.match(line)
        if not line.strip() or heading:
            close()
            if heading:
                level = len(heading.group(1))
                blocks.append(f"<h{level}>{_inline(heading.group(2).strip())}</h{level}>")
        elif bullet or numbered:
            tag = "ul" if bullet else "ol"
            if paragraph or (items and tag != list_tag):
                close()
            list_tag = tag
            items.append((bullet or numbered).group(1))
        elif items:
            items[-1] += " " + line.strip()  # a list item's continued line
        else:
            paragraph.append(line.strip())
    close()
    return "\n".join(blocks)
