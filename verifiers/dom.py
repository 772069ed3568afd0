"""The final page's DOM (parsed by lxml.html) and the queries page assertions make of it.

Elements are found the way Playwright's locators find them: by ARIA role (implicit
roles of common tags, or an explicit `role`) and accessible name, by label, or by
text; visibility follows the `hidden` attribute, inline `display:none` /
`visibility:hidden`, `aria-hidden`, closed `<dialog>`/`<details>`, and
`data-rg-hidden` (the engine may stamp it where the computed style hides an element).
"""

import re
import weakref

import lxml.etree
import lxml.html

NEVER_RENDERED = {"head", "script", "style", "template", "noscript", "title", "meta", "link", "base"}
NAME_FROM_CONTENT = {
    "button",
    "link",
    "heading",
    "option",
    "cell",
    "columnheader",
    "rowheader",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "checkbox",
    "radio",
    "switch",
    "treeitem",
    "tooltip",
    "row",
    "listitem",
}
LANDMARK_SCOPES = {"article", "aside", "main", "nav", "section"}


Node = lxml.html.HtmlElement
EMPTY_DOCUMENT = "<html><body></body></html>"


def parse_html(html: str) -> Node:
    """The page's document (lxml.html, libxml2's HTML parser: implied and unclosed tags handled)."""
    if not (html or "").strip():
        html = EMPTY_DOCUMENT
    try:
        return lxml.html.document_fromstring(html)
    except lxml.etree.ParserError:  # a page of comments or a bare doctype holds no element
        return lxml.html.document_fromstring(EMPTY_DOCUMENT)


def elements(node: Node):
    """This element's descendant elements, in document order (comments and processing instructions left out)."""
    return (e for e in node.iterdescendants() if isinstance(e.tag, str))


def collapse(text: str) -> str:
    return " ".join(text.split())


def text_of(node: Node, *, rendered_only: bool = True) -> str:
    """Text content with whitespace collapsed; hidden parts left out when `rendered_only`."""
    parts = []

    def walk(element):
        parts.append(element.text or "")
        for child in element:
            if isinstance(child.tag, str) and child.tag not in NEVER_RENDERED and not (rendered_only and _hides(child)):
                if child.tag in ("br", "p", "div", "li", "tr", "td", "th"):
                    parts.append(" ")
                walk(child)
                if child.tag == "input" and child.get("type") in ("button", "submit", "reset"):
                    parts.append(child.get("value", ""))
            parts.append(child.tail or "")  # the text after a child is its parent's, shown or not

    walk(node)
    return collapse("".join(parts))


# --- visibility -------------------------------------------------------------------------------

_STYLE_HIDDEN = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)", re.I
)


def _hides(node: Node) -> bool:
    """Whether this element itself hides its subtree."""
    a = node.attrib
    if node.tag in NEVER_RENDERED or "hidden" in a:
        return True
    if a.get("aria-hidden", "").lower() == "true":
        return True
    if _STYLE_HIDDEN.search(a.get("style", "")):
        return True
    if node.tag == "input" and a.get("type", "").lower() == "hidden":
        return True
    if node.tag == "dialog" and "open" not in a:
        return True
    # stamped by the engine when the element's computed style hides it (stylesheet rules are not in the HTML)
    if "data-rg-hidden" in a:
        return True
    return False


def is_visible(node: Node) -> bool:
    if _hides(node):
        return False
    for ancestor in node.iterancestors():
        if _hides(ancestor):
            return False
        if ancestor.tag == "details" and "open" not in ancestor.attrib:
            # a closed <details> shows only its <summary>
            if not any(a.tag == "summary" and a.getparent() is ancestor for a in [node, *node.iterancestors()]):
                return False
    return True


# --- roles and names ---------------------------------------------------------------------------


def role_of(node: Node) -> str | None:
    explicit = node.get("role", "").split()
    if explicit:
        return explicit[0].lower()
    tag, a = node.tag, node.attrib
    if tag == "input":
        kind = a.get("type", "text").lower()
        if kind in ("button", "submit", "reset", "image"):
            return "button"
        if kind in ("checkbox", "radio"):
            return kind
        if kind == "range":
            return "slider"
        if kind == "number":
            return "spinbutton"
        if kind == "search":
            return "searchbox" if "list" not in a else "combobox"
        if kind in ("text", "email", "tel", "url", ""):
            return "combobox" if "list" in a else "textbox"
        return None
    if tag == "select":
        return "listbox" if "multiple" in a or int(a.get("size", "0") or 0) > 1 else "combobox"
    if tag in ("a", "area"):
        return "link" if "href" in a else None
    if re.fullmatch(r"h[1-6]", tag):
        return "heading"
    if tag == "img":
        return "presentation" if a.get("alt", None) == "" else "img"
    if tag in ("header", "footer"):
        if any(anc.tag in LANDMARK_SCOPES for anc in node.iterancestors()):
            return None
        return "banner" if tag == "header" else "contentinfo"
    if tag == "section":
        return "region" if accessible_name(node, role="region") else None
    if tag == "form":
        return "form" if accessible_name(node, role="form") else None
    if tag == "th":
        return "rowheader" if a.get("scope") == "row" else "columnheader"
    if tag == "td":
        table = next((anc for anc in node.iterancestors() if anc.tag == "table"), None)
        return "gridcell" if table is not None and table.get("role") == "grid" else "cell"
    return {
        "button": "button",
        "textarea": "textbox",
        "option": "option",
        "optgroup": "group",
        "ul": "list",
        "ol": "list",
        "menu": "list",
        "li": "listitem",
        "table": "table",
        "tr": "row",
        "thead": "rowgroup",
        "tbody": "rowgroup",
        "tfoot": "rowgroup",
        "nav": "navigation",
        "main": "main",
        "aside": "complementary",
        "article": "article",
        "dialog": "dialog",
        "fieldset": "group",
        "details": "group",
        "progress": "progressbar",
        "meter": "meter",
        "hr": "separator",
        "output": "status",
        "p": "paragraph",
        "blockquote": "blockquote",
        "dl": "list",
        "dt": "term",
        "dd": "definition",
        "summary": "button",
    }.get(tag)


def _labels_by_target(root: Node) -> dict:
    """id -> [<label for=id>] of a document, built once per document (a page has many controls)."""
    found = _LABELS.get(root)
    if found is None:
        found = {}
        for label in root.iterfind(".//label[@for]"):
            found.setdefault(label.get("for"), []).append(label)
        _LABELS[root] = found
    return found


_LABELS: "weakref.WeakKeyDictionary[Node, dict]" = weakref.WeakKeyDictionary()


def _by_id(root: Node, ident: str) -> Node | None:
    return root.get_element_by_id(ident, None)


def labels_of(node: Node) -> list[str]:
    """Texts of the <label>s of a form control: label[for=id] and a wrapping label."""
    found = []
    ident = node.get("id")
    if ident:
        found += [text_of(label) for label in _labels_by_target(node.getroottree().getroot()).get(ident, [])]
    for ancestor in node.iterancestors():
        if ancestor.tag == "label" and not ancestor.get("for"):
            found.append(text_of(ancestor))
            break
    return [t for t in found if t]


def accessible_name(node: Node, *, role: str | None = None) -> str:
    a = node.attrib
    if a.get("aria-labelledby"):
        root = node.getroottree().getroot()
        named = [_by_id(root, i) for i in a["aria-labelledby"].split()]
        parts = [text_of(n, rendered_only=False) for n in named if n is not None]
        name = collapse(" ".join(parts))
        if name:
            return name
    if a.get("aria-label", "").strip():
        return collapse(a["aria-label"])
    if node.tag in ("input", "select", "textarea", "meter", "progress", "output"):
        kind = a.get("type", "text").lower()
        if node.tag == "input" and kind in ("button", "submit", "reset"):
            return collapse(a.get("value") or {"submit": "Submit", "reset": "Reset"}.get(kind, ""))
        if node.tag == "input" and kind == "image":
            return collapse(a.get("alt", ""))
        labels = labels_of(node)
        if labels:
            return collapse(" ".join(labels))
    if node.tag == "img" and a.get("alt"):
        return collapse(a["alt"])
    if node.tag in ("fieldset",):
        legend = node.find("legend")
        if legend is not None:
            return text_of(legend)
    if node.tag == "table":
        caption = node.find("caption")
        if caption is not None:
            return text_of(caption)
    if (role or role_of(node)) in NAME_FROM_CONTENT:
        text = text_of(node)
        if text:
            return text
    return collapse(a.get("title", "") or a.get("placeholder", ""))


def _text_matches(candidate: str, wanted: str, exact: bool) -> bool:
    candidate, wanted = collapse(candidate), collapse(wanted)
    if exact:
        return candidate == wanted
    return wanted.casefold() in candidate.casefold()


def find(root: Node, *, role=None, name=None, label=None, text=None, exact=False) -> list[Node]:
    """Elements matching every given criterion, hidden ones included (callers check visibility).

    As in Playwright, names and texts match case-insensitively as substrings unless
    `exact`; `text` picks the innermost elements holding the text.
    """
    found = []
    for node in elements(root):
        if node.tag in NEVER_RENDERED:
            continue
        if role is not None:
            if role_of(node) != role:
                continue
            if name is not None and not _text_matches(accessible_name(node, role=role), name, exact):
                continue
        if label is not None:
            names = labels_of(node) + [node.get("aria-label", "")]
            if node.get("aria-labelledby"):
                names.append(accessible_name(node))
            if not any(n and _text_matches(n, label, exact) for n in names):
                continue
        if text is not None and not _text_matches(text_of(node, rendered_only=False), text, exact):
            continue
        found.append(node)
    if text is not None:
        # innermost only: drop elements one of whose descendants matched too
        matched = set(map(id, found))
        found = [n for n in found if not any(id(d) in matched for d in elements(n))]
    return found


def value_of(node: Node):
    """What a form control holds (its serialised value); other elements give their text."""
    a = node.attrib
    if node.tag == "input":
        if a.get("type", "").lower() in ("checkbox", "radio"):
            return a.get("value", "on") if "checked" in a else ""
        return a.get("value", "")
    if node.tag == "textarea":
        return node.text_content().removeprefix("\n")  # as browsers do, the first newline is not content
    if node.tag == "select":
        options = list(node.iter("option"))
        chosen = [o for o in options if "selected" in o.attrib]
        if not chosen and options and "multiple" not in a:
            chosen = options[:1]
        return ", ".join(text_of(o) for o in chosen)
    return text_of(node)


def is_checked(node: Node) -> bool:
    if node.get("aria-checked") is not None:
        return node.get("aria-checked").lower() == "true"
    return "checked" in node.attrib
