"""A small DOM read from the final page's HTML, and the queries page assertions make of it.

Elements are found the way Playwright's locators find them: by ARIA role (implicit
roles of common tags, or an explicit `role`) and accessible name, by label, or by
text; visibility follows the `hidden` attribute, inline `display:none` /
`visibility:hidden`, `aria-hidden`, closed `<dialog>`/`<details>`, and
`data-rg-hidden` (the engine may stamp it where the computed style hides an element).
"""
import re
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
# closing these is optional in HTML: a new sibling of the same kind closes the open one
AUTO_CLOSE = {"li": {"li"}, "option": {"option"}, "tr": {"tr"}, "td": {"td", "th"}, "th": {"td", "th"}, "p": {"p"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"}}
NEVER_RENDERED = {"head", "script", "style", "template", "noscript", "title", "meta", "link", "base"}
NAME_FROM_CONTENT = {
    "button", "link", "heading", "option", "cell", "columnheader", "rowheader", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "checkbox", "radio", "switch", "treeitem", "tooltip", "row", "listitem",
}
LANDMARK_SCOPES = {"article", "aside", "main", "nav", "section"}


class Node:
    __slots__ = ("tag", "attrs", "children", "parent", "index")

    def __init__(self, tag: str, attrs: dict, parent=None):
        self.tag, self.attrs, self.children, self.parent = tag, attrs, [], parent
        self.index = None  # on the document node: lookups by id, built once

    def elements(self):
        """This element's descendant elements, in document order."""
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.elements()

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def raw_text(self) -> str:
        return "".join(c if isinstance(c, str) else c.raw_text() for c in self.children)

    def text(self, *, rendered_only: bool = True) -> str:
        """Text content with whitespace collapsed; hidden parts left out when `rendered_only`."""
        parts = []

        def walk(node):
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                elif child.tag not in NEVER_RENDERED and not (rendered_only and _hides(child)):
                    if child.tag in ("br", "p", "div", "li", "tr", "td", "th"):
                        parts.append(" ")
                    walk(child)
                    if child.tag in ("input",) and child.attrs.get("type") in ("button", "submit", "reset"):
                        parts.append(child.attrs.get("value", ""))

        walk(self)
        return collapse("".join(parts))

    def __repr__(self):
        return f"<{self.tag} {self.attrs}>"


def collapse(text: str) -> str:
    return " ".join(text.split())


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        closes = AUTO_CLOSE.get(tag)
        if closes and self.open[-1].tag in closes:
            self.open.pop()
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, self.open[-1])
        self.open[-1].children.append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_startendtag(self, tag, attrs):
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, self.open[-1])
        self.open[-1].children.append(node)

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, 0, -1):
            if self.open[i].tag == tag:
                del self.open[i:]
                return
        # an end tag with no open element of its kind is ignored, as browsers do

    def handle_data(self, data):
        self.open[-1].children.append(data)


def parse_html(html: str) -> Node:
    builder = _Builder()
    builder.feed(html or "")
    builder.close()
    return builder.root


# --- visibility -------------------------------------------------------------------------------

_STYLE_HIDDEN = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)", re.I)


def _hides(node: Node) -> bool:
    """Whether this element itself hides its subtree."""
    a = node.attrs
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
    for ancestor in node.ancestors():
        if _hides(ancestor):
            return False
        if ancestor.tag == "details" and "open" not in ancestor.attrs:
            # a closed <details> shows only its <summary>
            if not any(a.tag == "summary" and a.parent is ancestor for a in [node, *node.ancestors()]):
                return False
    return True


# --- roles and names ---------------------------------------------------------------------------


def role_of(node: Node) -> str | None:
    explicit = node.attrs.get("role", "").split()
    if explicit:
        return explicit[0].lower()
    tag, a = node.tag, node.attrs
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
        if any(anc.tag in LANDMARK_SCOPES for anc in node.ancestors()):
            return None
        return "banner" if tag == "header" else "contentinfo"
    if tag == "section":
        return "region" if accessible_name(node, role="region") else None
    if tag == "form":
        return "form" if accessible_name(node, role="form") else None
    if tag == "th":
        return "rowheader" if a.get("scope") == "row" else "columnheader"
    if tag == "td":
        table = next((anc for anc in node.ancestors() if anc.tag == "table"), None)
        return "gridcell" if table is not None and table.attrs.get("role") == "grid" else "cell"
    return {
        "button": "button", "textarea": "textbox", "option": "option", "optgroup": "group", "ul": "list",
        "ol": "list", "menu": "list", "li": "listitem", "table": "table", "tr": "row", "thead": "rowgroup",
        "tbody": "rowgroup", "tfoot": "rowgroup", "nav": "navigation", "main": "main", "aside": "complementary",
        "article": "article", "dialog": "dialog", "fieldset": "group", "details": "group", "progress": "progressbar",
        "meter": "meter", "hr": "separator", "output": "status", "p": "paragraph", "blockquote": "blockquote",
        "dl": "list", "dt": "term", "dd": "definition", "summary": "button",
    }.get(tag)


def _index(root: Node) -> dict:
    """{"ids": id -> element, "labels": id -> [<label for=id>]} of a document, built on first use."""
    if root.index is None:
        ids, labels = {}, {}
        for n in root.elements():
            if "id" in n.attrs:
                ids.setdefault(n.attrs["id"], n)
            if n.tag == "label" and n.attrs.get("for"):
                labels.setdefault(n.attrs["for"], []).append(n)
        root.index = {"ids": ids, "labels": labels}
    return root.index


def _by_id(root: Node, ident: str) -> Node | None:
    return _index(root)["ids"].get(ident)


def _root(node: Node) -> Node:
    while node.parent is not None:
        node = node.parent
    return node


def labels_of(node: Node) -> list[str]:
    """Texts of the <label>s of a form control: label[for=id] and a wrapping label."""
    found = []
    ident = node.attrs.get("id")
    if ident:
        found += [label.text() for label in _index(_root(node))["labels"].get(ident, [])]
    for ancestor in node.ancestors():
        if ancestor.tag == "label" and not ancestor.attrs.get("for"):
            found.append(ancestor.text())
            break
    return [t for t in found if t]


def accessible_name(node: Node, *, role: str | None = None) -> str:
    a = node.attrs
    if a.get("aria-labelledby"):
        root = _root(node)
        parts = [(_by_id(root, i) or Node("x", {})).text(rendered_only=False) for i in a["aria-labelledby"].split()]
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
        legend = next((c for c in node.children if isinstance(c, Node) and c.tag == "legend"), None)
        if legend is not None:
            return legend.text()
    if node.tag == "table":
        caption = next((c for c in node.children if isinstance(c, Node) and c.tag == "caption"), None)
        if caption is not None:
            return caption.text()
    if (role or role_of(node)) in NAME_FROM_CONTENT:
        text = node.text()
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
    for node in root.elements():
        if node.tag in NEVER_RENDERED:
            continue
        if role is not None:
            if role_of(node) != role:
                continue
            if name is not None and not _text_matches(accessible_name(node, role=role), name, exact):
                continue
        if label is not None:
            names = labels_of(node) + [node.attrs.get("aria-label", "")]
            if node.attrs.get("aria-labelledby"):
                names.append(accessible_name(node))
            if not any(n and _text_matches(n, label, exact) for n in names):
                continue
        if text is not None and not _text_matches(node.text(rendered_only=False), text, exact):
            continue
        found.append(node)
    if text is not None:
        # innermost only: drop elements one of whose descendants matched too
        matched = set(map(id, found))
        found = [n for n in found if not any(id(d) in matched for d in n.elements())]
    return found


def value_of(node: Node):
    """What a form control holds (its serialised value); other elements give their text."""
    a = node.attrs
    if node.tag == "input":
        if a.get("type", "").lower() in ("checkbox", "radio"):
            return a.get("value", "on") if "checked" in a else ""
        return a.get("value", "")
    if node.tag == "textarea":
        return node.raw_text().lstrip("\n")
    if node.tag == "select":
        options = [o for o in node.elements() if o.tag == "option"]
        chosen = [o for o in options if "selected" in o.attrs]
        if not chosen and options and "multiple" not in a:
            chosen = options[:1]
        return ", ".join(o.text() for o in chosen)
    return node.text()


def is_checked(node: Node) -> bool:
    if node.attrs.get("aria-checked") is not None:
        return node.attrs["aria-checked"].lower() == "true"
    return "checked" in node.attrs
