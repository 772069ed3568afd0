"""The observation space: what an agent sees after each step, and how it is collected.

Elements carry BrowserGym-style `bid` attributes stamped into the DOM (numbers in
document order; new elements get the next numbers, existing ones keep theirs), so
the same actions on the same world give the same bids. The accessibility tree is
Chromium's own (CDP `Accessibility.getFullAXTree`), flattened to text lines such as
`[12] button 'Submit as Solved', focused`, with each node's bid.
"""

import ast
import base64
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ENGINE_JS = (Path(__file__).parent / "js" / "engine.js").read_text()

# Run in the page: install the helper if this document lacks it (about:blank, error
# pages), then stamp bids and report the focused element.
STAMP_JS = f"() => {{ {ENGINE_JS}\n return window.__replicagym.stamp(); }}"
# Settled: the tabs the page opened plus one (a number, so the handle's preview carries it); false if not yet.
SETTLED_JS = (
    f"(quietMs) => {{ {ENGINE_JS}\n const s = window.__replicagym.settled(quietMs); return s && s.popups + 1; }}"
)
HTML_JS = f"() => {{ {ENGINE_JS}\n return window.__replicagym.html(); }}"

# Roles that say nothing by themselves: shown only through their children.
_TRANSPARENT_ROLES = {"generic", "none", "presentation", "LineBreak", "InlineTextBox"}
# AX properties worth an agent's attention, in this order.
_PROPERTIES = (
    "focused",
    "disabled",
    "required",
    "readonly",
    "invalid",
    "checked",
    "pressed",
    "selected",
    "expanded",
    "level",
    "multiselectable",
    "haspopup",
    "valuemin",
    "valuemax",
    "valuetext",
    "autocomplete",
)
_VALUE_ROLES = {"textbox", "searchbox", "combobox", "spinbutton", "slider", "ListBox", "listbox"}


@dataclass
class Observation:
    url: str
    title: str
    screenshot: bytes
    axtree: str
    focused_bid: str | None
    tabs: list[dict]
    active_tab: int
    instruction: str
    chat: list[dict]
    step: int
    elapsed_ms: float
    last_action: str = ""
    last_action_error: str = ""
    html: str | None = None
    viewport: tuple[int, int] = (1280, 800)
    extra: dict = field(default_factory=dict)
    origin: str = ""  # the world's origin, which render_observation shows as DISPLAY_ORIGIN

    def to_dict(self, *, screenshot: bool = True) -> dict:
        """JSON-able form (the screenshot as base64 PNG) for HTTP agents and storage."""
        return {
            "url": self.url,
            "title": self.title,
            "screenshot": base64.b64encode(self.screenshot).decode("ascii") if screenshot else None,
            "axtree": self.axtree,
            "focused_bid": self.focused_bid,
            "tabs": self.tabs,
            "active_tab": self.active_tab,
            "instruction": self.instruction,
            "chat": self.chat,
            "step": self.step,
            "elapsed_ms": round(self.elapsed_ms, 1),
            "last_action": self.last_action,
            "last_action_error": self.last_action_error,
            "html": self.html,
            "viewport": list(self.viewport),
        }


def bid_map(dom_root: dict) -> dict[int, str]:
    """backendNodeId -> bid for every stamped element of a CDP `DOM.getDocument` tree."""
    out: dict[int, str] = {}
    stack = [dom_root]
    while stack:
        node = stack.pop()
        attrs = node.get("attributes")
        if attrs:
            for i in range(0, len(attrs) - 1, 2):
                if attrs[i] == "bid":
                    out[node["backendNodeId"]] = attrs[i + 1]
                    break
        stack.extend(node.get("children", ()))
        stack.extend(node.get("shadowRoots", ()))
        if "contentDocument" in node:
            stack.append(node["contentDocument"])
    return out


def _quote(text: str) -> str:
    return repr(" ".join(str(text).split()))


def flatten_axtree(nodes: list[dict], bids: dict[int, str]) -> str:
    """Chromium AX nodes -> indented text lines, one per meaningful node, with bids."""
    if not nodes:
        return ""
    by_id = {n["nodeId"]: n for n in nodes}
    lines: list[str] = []

    def visit(node: dict, depth: int, parent_name: str):
        role = (node.get("role") or {}).get("value", "")
        name = str((node.get("name") or {}).get("value", "") or "").strip()
        children = [by_id[c] for c in node.get("childIds", ()) if c in by_id]
        shown = not node.get("ignored") and not (role in _TRANSPARENT_ROLES and not name)
        if role == "InlineTextBox":
            return
        if role == "StaticText" and (not name or name == parent_name):
            shown = False
        if shown:
            bid = bids.get(node.get("backendDOMNodeId"))
            parts = [f"[{bid}] " if bid is not None else "", role]
            if name:
                parts.append(" " + _quote(name))
            props = []
            value = (node.get("value") or {}).get("value")
            if role in _VALUE_ROLES and value not in (None, ""):
                props.append(f"value={_quote(value)}")
            found = {p["name"]: (p.get("value") or {}).get("value") for p in node.get("properties", ())}
            for key in _PROPERTIES:
                if key not in found:
                    continue
                v = found[key]
                if v is True:
                    props.append(key)
                elif v in (False, None, "", "false") and key not in ("checked", "pressed", "expanded"):
                    continue
                else:
                    props.append(f"{key}={v!r}" if isinstance(v, str) else f"{key}={v}")
            line = "".join(parts) + (", " + ", ".join(props) if props else "")
            lines.append("\t" * depth + line)
        for child in children:
            visit(child, depth + 1 if shown else depth, name if shown else parent_name)

    visit(nodes[0], 0, "")
    return "\n".join(lines)


# --- observation modes ----------------------------------------------------------------------
# What an agent is given as text each step (render_observation), chosen per episode in its
# agent settings: {"observation": {"mode": "text", "screenshots": false, "full_every": 5}}.

OBSERVATION_MODES = ("full", "text", "diff")
OBSERVATION_SETTING = "observation"  # the key of an episode's agent settings that holds its mode
FULL_EVERY_MAX = 100
_OBSERVATION_KEYS = {"mode": str, "screenshots": bool, "full_every": int}

# Worlds are served on an origin with a random token (w-<token>.localhost:<port>), so the
# URLs an agent reads differ between two episodes of one task: a GRPO group's prompts would
# differ by it alone. Agents are shown this fixed origin instead, and the engine maps it back
# (`real_url`). `.test` is reserved (RFC 2606): no real host can ever have this name.
DISPLAY_ORIGIN = "http://world.test"


@dataclass(frozen=True)
class ObservationSettings:
    mode: str = "full"
    screenshots: bool = True
    full_every: int = 5


def observation_settings(agent_settings: dict | None) -> ObservationSettings:
    """The observation settings held in an episode's agent settings (defaults when none).

    Raises ValueError, naming what is wrong, for an unknown mode or key or a value of the wrong type.
    """
    if agent_settings is not None and not isinstance(agent_settings, dict):
        raise ValueError("agent settings must be a JSON object")
    value = (agent_settings or {}).get(OBSERVATION_SETTING)
    if value is None:
        return ObservationSettings()
    if not isinstance(value, dict):
        raise ValueError('observation settings must be a JSON object, as in {"mode": "text", "screenshots": false}')
    for key, given in value.items():
        if key not in _OBSERVATION_KEYS:
            raise ValueError(f"unknown observation setting {key!r} (settings: {', '.join(_OBSERVATION_KEYS)})")
        wanted = _OBSERVATION_KEYS[key]
        # bool is an int to Python: neither may pass for the other
        if not isinstance(given, wanted) or (wanted is int and isinstance(given, bool)):
            raise ValueError(f"observation setting {key!r} must be {_KIND_NAMES[wanted]}, not {given!r}")
    found = ObservationSettings(**value)
    if found.mode not in OBSERVATION_MODES:
        raise ValueError(f"unknown observation mode {found.mode!r} (modes: {', '.join(OBSERVATION_MODES)})")
    if not 1 <= found.full_every <= FULL_EVERY_MAX:
        raise ValueError(f"observation setting 'full_every' must be from 1 to {FULL_EVERY_MAX}, not {found.full_every}")
    return found


_KIND_NAMES = {str: "a string", bool: "true or false", int: "a whole number"}


def origin_key(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of a URL, the default port filled in; None for a malformed port."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        return None
    return scheme, (parts.hostname or "").lower(), port


def _swap_origin(url: str, old: str, new: str) -> str:
    """`url` on origin `new` if it is on origin `old`; any other URL unchanged."""
    if not old or origin_key(url) != origin_key(old):
        return url
    parts = urlsplit(url)
    return new + urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))


def display_url(url: str, origin: str) -> str:
    """`url` as agents are shown it: on DISPLAY_ORIGIN if it is a page of the world at `origin`.

    Any other URL (about:blank, another site) is shown as it is; `real_url` undoes this.
    """
    return _swap_origin(url, origin, DISPLAY_ORIGIN)


def real_url(url: str, origin: str) -> str:
    """The world's own URL for a URL an agent typed in display form; any other URL unchanged
    (so one off the world is still refused by whoever checks the origin)."""
    return _swap_origin(url, DISPLAY_ORIGIN, origin)


def render_observation(obs, mode: str, previous: str | None = None, *, step: int = 0, full_every: int = 5) -> str:
    """The text an agent in `mode` is given for observation `obs` (an Observation or its dict form).

    - full: the page's whole accessibility tree, as the engine flattens it;
    - text: the pruned tree (`prune_axtree`), without the title when the page's first heading says it,
      after a blank line (it is always the whole page: no label needed);
    - diff: the pruned tree's lines that changed since `previous` (the last observation's
      `axtree`, as the engine gave it), and the whole pruned tree at steps 0, N, 2N...
      (N = `full_every`), when there is no previous one, or when the change is no shorter; the whole
      page is labelled 'Page:', the change 'Page changes since the last step ...'.

    A header gives the URL and tab URLs in display form (`display_url`), the title, the focused
    element, the last action's error and what the page said (dialogs): none of it names the
    world's own origin, so two episodes on equal pages give equal text.
    """
    if mode not in OBSERVATION_MODES:
        raise ValueError(f"unknown observation mode {mode!r} (modes: {', '.join(OBSERVATION_MODES)})")
    if isinstance(full_every, bool) or not isinstance(full_every, int) or full_every < 1:
        raise ValueError(f"full_every must be a whole number of steps, at least 1, not {full_every!r}")
    get = obs.get if isinstance(obs, dict) else (lambda name, default=None: getattr(obs, name, default))
    origin = get("origin") or ""
    axtree = get("axtree") or ""

    def shown(text: str) -> str:
        return text.replace(origin, DISPLAY_ORIGIN) if origin else text

    title = get("title") or ""
    pruned = prune_axtree(axtree) if mode != "full" else ""
    lines = [f"URL: {display_url(get('url') or '', origin)}"]
    if mode == "full" or not _title_repeats_heading(title, pruned):
        lines.append(f"Title: {title}")
    tabs = get("tabs") or []
    if len(tabs) > 1:
        lines.append("Tabs:")
        for tab in tabs:
            mark = " (active)" if tab.get("active") else ""
            lines.append(f"\t{tab.get('index')}: {display_url(tab.get('url') or '', origin)}{mark}")
    focused = get("focused_bid")
    # the pruned tree marks the focused element on its own line; the full tree is not always so plain
    if focused and (mode == "full" or f"[{focused}] " not in pruned):
        lines.append(f"Focused: [{focused}]")
    if get("last_action_error"):
        lines.append(f"Last action error: {shown(get('last_action_error'))}")
    # the first chat message is the instruction, which the agent's prompt gives once
    said = [m for m in (get("chat") or [])[1:] if m.get("role") == "info"]
    for message in said:
        lines.append(f"Page said: {shown(message.get('message', ''))}")
    if mode == "full":
        lines += ["Page:", axtree]
        return "\n".join(lines)
    if mode == "diff" and previous is not None and step % full_every:
        changes = tree_changes(prune_axtree(previous), pruned)
        body = "\n".join(changes) if changes else "(nothing changed)"
        if len(body) < len(pruned):
            lines += [
                f"Page changes since the last step (- gone, + new; the whole page every {full_every} steps):",
                body,
            ]
            return "\n".join(lines)
    # text mode is always the whole page: a blank line ends the header; diff mode says which it gives
    lines += ["Page:" if mode == "diff" else "", pruned]
    return "\n".join(lines)


def _title_repeats_heading(title: str, pruned: str) -> bool:
    """Whether a page's title says what its first heading does, with at most the site's name ('Sign in –
    Testbed Notes' over heading 'Sign in'): text mode does not write it again."""
    heading = _FIRST_HEADING.search(pruned)
    if heading is None:
        return False
    said, titled = _words(heading["name"]), _words(title)
    # the heading's words all in the title ('Sign in' in 'Bazaaro Sign-In'), or the title's all in the
    # heading ('Log in - Tracklane' under 'Log in to Tracklane')
    return bool(said) and (said <= titled or titled <= said)


_FIRST_HEADING = re.compile(r"^\t*\[[^\]]+\] heading (?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", re.M)


def tree_changes(old: str, new: str) -> list[str]:
    """The lines of a flattened tree that went (-) and came (+) from `old` to `new`, in tree order."""
    return [
        line
        for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


# Roles an agent acts on: kept, with their bids, whatever else the pruning drops.
INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "checkbox",
        "combobox",
        "link",
        "listbox",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "radio",
        "searchbox",
        "slider",
        "spinbutton",
        "switch",
        "tab",
        "textbox",
        "treeitem",
        "DisclosureTriangle",
    }
)
# One flattened line: indent, optional [bid], role, optional quoted name, then ", props".
_AX_LINE = re.compile(
    r"^(?P<indent>\t*)(?:\[(?P<bid>[^\]]+)\] )?(?P<role>\S+)"
    r"(?: (?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?(?P<props>, .*)?$"
)


def prune_axtree(axtree: str) -> str:
    """The flattened AX tree cut down to what an agent reads and acts on.

    Kept: every interactive node (`INTERACTIVE_ROLES`) outside the page's footer with its bid and
    state, list items, rows and articles (cards are dragged by them; one of leaves is written on one
    line, `_handles_on_one_line`), every other node with a name or a state, and text, written bare as
    its quoted string (a run of pieces at one level on one line). Dropped: unnamed wrappers (lists,
    sections, paragraphs, forms: their children move up a level), the page root (the title is in the
    header), the footer (contentinfo: the same on every page), the site's name (as the title ends with
    it) as the banner's text (a wordmark, the same on every page), text that repeats an enclosing node's
    name or value, or the name of the control just before it, or whose words are all in the name of
    the control it is in, a label (text or term) just before the control it names, bids of landmarks
    and text roles (`_BIDLESS_ROLES`), and states that are the default (checked='false', pressed='false').
    A native select's options go on its line (`options=...`; `options=as [12]` for the same list
    again): select_option takes them by label, and they cannot be clicked themselves. Nodes the
    browser hides (display: none, visibility: hidden, aria-hidden) were never in the tree.
    """
    lines: list[list] = []  # [indent, text, name of a node or None for text, its select options]
    kept: list[
        tuple[int, str, list, str]
    ] = []  # (depth in the full tree, name and value, line, role) of kept ancestors
    popup = None  # (depth, the select's line) while inside a native select's option list
    footer: int | None = None  # depth of the page's footer (contentinfo) while inside it
    banner: int | None = None  # depth of the page's banner while inside it
    site = ""  # the site's name, as the page's title ends with it ('Sign in – Testbed Notes')
    skip_below: int | None = None  # depth of a dropped node whose whole inside goes with it
    quiet: list[tuple[int, str]] = []  # (depth, name) of cells written as text: their inside need not repeat it
    control: tuple[str, str] | None = None  # (indent, name) of the control just kept: its label text may follow
    block = False  # a list item, row or paragraph began since the last line: its text starts a new one
    for raw in axtree.splitlines():
        m = _AX_LINE.match(raw)
        if m is None:  # not a line flatten_axtree writes: keep it rather than lose what it says
            lines.append(["", raw, None, None])
            continue
        depth, role, quoted, props = len(m["indent"]), m["role"], m["name"] or "", m["props"] or ""
        while kept and kept[-1][0] >= depth:
            kept.pop()
        while quiet and quiet[-1][0] >= depth:
            quiet.pop()
        if skip_below is not None:
            if depth > skip_below:
                continue
            skip_below = None
        if popup is not None and depth <= popup[0]:
            popup = None
        if role == "row":  # a row's name is its cells' text run together: the cells say it, apart
            quoted = ""
        name = quoted[1:-1]
        if role == "RootWebArea" and not lines and quoted:
            site = _site_name(_unquoted(quoted))
        if footer is not None and depth <= footer:
            footer = None
        if banner is not None and depth <= banner:
            banner = None
        if role == "banner":
            banner = depth
        elif banner is not None and site and role == "StaticText" and name:
            # The site's name as the banner's text (a wordmark): the same on every page of the site, and
            # nothing an agent acts on. Text that only begins with it keeps the rest: 'Testbed Notes ·
            # Brandi Smith' is 'Brandi Smith'. A control's name is never cut (a logo link keeps its own).
            rest = _after_site_name(_unquoted(quoted), site)
            if rest == "":
                continue
            if rest is not None:  # quoted as flatten_axtree quotes names
                quoted = repr(rest)
                name = quoted[1:-1]
        if role == "contentinfo":
            footer = depth
        elif footer is not None:
            # the page's footer, the same on every page of a site: fine print and links to its help and
            # account pages (which its menus reach too); it was a fifth of a store page's text
            continue
        if role == "MenuListPopup" and kept:
            popup = (depth, kept[-1][2])
            continue
        if popup is not None and role == "option":
            popup[1][3] = [*(popup[1][3] or []), quoted]
            continue
        if role in ("RootWebArea", "ListMarker") or (kept and kept[-1][3] in _OPAQUE_ROLES):
            continue
        indent = "\t" * len(kept)
        last = lines[-1] if lines else None
        if role in _TEXT_ROLES and not props:  # a term, a label, bold text: what it says is all that counts
            role = "StaticText"
        said = [s for _, s, _, _ in kept] + [s for _, s in quiet]
        if role == "StaticText" and m["role"] != "StaticText" and name:
            quiet.append((depth, name))  # a term's or a label's inside need not say it again
        if role in _OPAQUE_ROLES and name and any(name in s for s in said):
            skip_below = depth  # an icon that repeats its cell's or its parent's name says nothing
            continue
        if role == "generic" and not props and name and any(name in s for s in said):
            continue  # a labelled span that repeats its parent's name (a review heading's stars): its inside moves up
        piece = quoted  # what a piece of text adds to its run
        if role in ("image", "img") and name and not props:
            # An icon's or avatar's name, read in its run of text as the words it stands for (a card's
            # 'Story' 'AGENT-4' 'Priority: High' 'Ann Lee'): nothing acts on an image
            skip_below, role = depth, "StaticText"
        elif role in _CELL_ROLES and not props:
            # A cell is its text: written as text (a run with its row's other cells), with no bid
            # (nothing acts on a cell, its controls keep theirs); its inside need not repeat it.
            # An empty cell is written '' so the cells after it stay under their column headers.
            if name and any(name in s for s in said):
                continue
            quiet.append((depth, name))
            role, piece = "StaticText", _ECHO.sub(r"\1", quoted) if quoted else "''"
        if role == "StaticText":
            if name and not _said_already(name, said, kept, control, indent):
                pass
            elif piece != "''":
                continue
            if last is not None and last[2] is None and last[0] == indent and not block:
                last[1] += " " + piece  # a run of text pieces at one level reads as one line
            else:
                lines.append([indent, piece, None, None])
            control, block = None, False
            continue
        if role in INTERACTIVE_ROLES:
            props = _DEFAULT_STATES.sub("", props).replace("='true'", "")
        else:
            props = _LEVEL.sub("", props)
        if role not in INTERACTIVE_ROLES and not name and not props and not (m["bid"] and role in _HANDLE_ROLES):
            block = block or role in _BLOCK_ROLES  # a paragraph's text is not run on with the last one's
            continue
        if name and last is not None and last[0] == indent:  # the label just before this control
            if last[2] is None and last[1].endswith(quoted):
                last[1] = last[1][: -len(quoted)].rstrip()
            elif last[2] == name and last[1].startswith(_LABEL_PREFIXES) and not last[3]:
                last[1] = ""
            if not last[1]:
                lines.pop()
        if role in _CLOSED_BY_DEFAULT:
            # a select's expanded state is its popup's, which nobody sees; a disclosure's role says it opens
            props = props.replace(", expanded=False", "")
        bid = f"[{m['bid']}] " if m["bid"] and role not in _BIDLESS_ROLES else ""
        line = [indent, f"{bid}{role}{' ' + quoted if quoted else ''}{props}", name, None]
        lines.append(line)
        control, block = (indent, name) if role in INTERACTIVE_ROLES else None, False
        kept.append((depth, name + "\n" + props, line, role))
    out, seen, hinted = [], {}, False
    lines = _without_repeated_landmarks(_without_echoed_parents(lines))
    for indent, text, name, options in lines:
        if name is None:  # a run of text: empty cells at its end keep no column apart
            text = _TRAILING_EMPTY.sub("", text) or "''"
        if options:
            bid = text.partition("]")[0] + "]"
            first = seen.setdefault(tuple(options), bid)
            if first != bid:
                text += f", options=as {first}"
            else:
                # the first list not shown says how to see it; the others on the page only how long they are
                text += _options(options, whole=", focused" in text, hint=not hinted)
                hinted = hinted or "options=" not in text
        out.append((indent, text, bool(options)))
    return "\n".join(_handles_on_one_line(out))


def _unquoted(quoted: str) -> str:
    """The string a name quoted as flatten_axtree quotes it (Python's repr) stands for; a tree that came
    from elsewhere (an observation's dict form) may hold a malformed one: its inside as it is."""
    try:
        text = ast.literal_eval(quoted)
    except (ValueError, SyntaxError):
        return quoted[1:-1]
    return text if isinstance(text, str) else quoted[1:-1]


def _site_name(title: str) -> str:
    """The site's name a page's title ends with after a separator ('Testbed Notes' in 'Sign in – Testbed
    Notes', 'Tracklane' in 'Search issues - Tracklane'); empty for a title without one."""
    parts = _TITLE_SEPARATOR.split(title)
    return parts[-1].strip() if len(parts) > 1 else ""


def _after_site_name(text: str, site: str) -> str | None:
    """`text` without the site's name it starts with and the separator after it ('' if it is only the
    name); None if it does not start with the name."""
    if text == site:
        return ""
    if text.startswith(site):
        rest = _LEADING_SEPARATOR.match(text[len(site) :])
        if rest is not None and rest["rest"]:
            return rest["rest"]
    return None


def _handles_on_one_line(lines: list[tuple[str, str, bool]]) -> list[str]:
    """The lines, with a list item, row or article whose children are all leaves (no select's options
    among them) written on its own line, if that line stays within HANDLE_CHARS: a table's row, a
    step of a list, a card read as one line, each control in it with its bid. A bare list item around
    one control is that control (a card, dragged by its item, holds more than one)."""
    out, i = [], 0
    while i < len(lines):
        indent, text, _options_listed = lines[i]
        end = i + 1
        while end < len(lines) and len(lines[end][0]) > len(indent):
            end += 1
        children = lines[i + 1 : end]
        if _BARE_ITEM.match(text) and len(children) == 1 and _role_of(children[0][1]) in INTERACTIVE_ROLES:
            # an item that is one control (a menu's link, a filter's checkbox): the control says it all
            out.append(indent + children[0][1])
            i = end
            continue
        if (
            _role_of(text) in _HANDLE_ROLES
            and children
            and all(len(c[0]) == len(indent) + 1 and not c[2] for c in children)
            and len(text) + sum(len(c[1]) + 1 for c in children) <= HANDLE_CHARS
        ):
            out.append(indent + " ".join([text, *(c[1] for c in children)]))
            i = end
            continue
        out.append(indent + text)
        i += 1
    return out


def _options(quoted: list[str], *, whole: bool, hint: bool = True) -> str:
    """A native select's options as its line ends with: their labels joined by '|' (quoted, as names
    are, if a label holds a '|', a backslash or spaces at its ends); a list longer than OPTIONS_CHARS
    only while the select has the focus (`whole`: the agent asked to see them), else how many there are."""
    labels = [q[1:-1] for q in quoted]
    if any("|" in label or "\\" in label or label != label.strip() for label in labels):
        labels = quoted
    listed = "|".join(labels)
    if len(listed) > OPTIONS_CHARS and not whole:
        return f", {len(labels)} options" + (" (focus to list)" if hint else "")
    return f", options={listed}"


def _said_already(name: str, said: list[str], kept: list, control: tuple | None, indent: str) -> bool:
    """Whether a piece of text says nothing new: an enclosing node's name or value says it, it only
    separates ('/'), it labels the control just kept, or it is a glyph drawn in a named control
    ('···', '?', '▾': the control's name says what it is)."""
    if name in _SEPARATORS or any(name in s for s in said):
        return True
    # a logo's or a badge's word inside the control it labels: 'bazaaro' in link 'Bazaaro home', or its
    # visible words where the name is longer: 'Save for later' in button 'Save Lantern Mug for later'
    if kept and kept[-1][3] in INTERACTIVE_ROLES:
        words, control_name = _words(name), kept[-1][1].partition("\n")[0]
        if name.casefold() in kept[-1][1].casefold() or (words and control_name and words <= _words(control_name)):
            return True
    if control and control[0] == indent and name in control[1]:
        return True
    return bool(kept and kept[-1][3] in INTERACTIVE_ROLES and kept[-1][1][:1] != "\n" and not _WORDY.search(name))


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def _without_echoed_parents(lines: list[list]) -> list[list]:
    """The lines without a node whose only child, a node with no children, has the same name (a labelled
    wrapper around its one control, a group around its one field): the child says it all. Controls stay,
    and so do handles (`_HANDLE_ROLES`): their bids are what a card or a row is dragged by."""
    out, skip = [], set()
    for i, line in enumerate(lines):
        if i in skip:
            continue
        child, after = lines[i + 1] if i + 1 < len(lines) else None, lines[i + 2] if i + 2 < len(lines) else None
        if (
            line[2]
            and child is not None
            and child[2] == line[2]
            and len(child[0]) == len(line[0]) + 1
            and (after is None or len(after[0]) <= len(line[0]))
            and _role_of(line[1]) not in _HANDLE_ROLES | INTERACTIVE_ROLES
        ):
            out.append([line[0], *child[1:]])
            skip.add(i + 1)
            continue
        out.append(line)
    return out


def _role_of(text: str) -> str:
    """The role a kept line names (after its bid, if any)."""
    return text.partition("] ")[2].split(" ", 1)[0] if text.startswith("[") else text.split(" ", 1)[0]


def _without_repeated_landmarks(lines: list[list]) -> list[list]:
    """The lines without a landmark or group whose first child is a heading of the same name (a region
    labelled by its heading): its children move up a level."""
    out, dedent = [], []  # dedent: indents of the dropped lines whose children are still being moved
    for i, line in enumerate(lines):
        while dedent and len(line[0]) <= dedent[-1]:
            dedent.pop()
        following = lines[i + 1] if i + 1 < len(lines) else None
        if (
            line[1].startswith(_LANDMARK_PREFIXES)
            and following is not None
            and len(following[0]) > len(line[0])
            and (following[2] or "").lower() == (line[2] or "").lower()
            and " heading " in f" {following[1]}"
        ):
            dedent.append(len(line[0]))
            continue
        out.append([line[0][len(dedent) :], *line[1:]])
    return out


# A page title's separator before the site's name, and one at the start of the text after that name.
_TITLE_SEPARATOR = re.compile(r"\s+[–—|·-]\s+")
_LEADING_SEPARATOR = re.compile(r"^\s*[–—|·:-]\s*(?P<rest>\S.*)$")
# A list item, row or article of leaves is written on one line up to this many characters (a board's card
# or a search result's row fits; a longer one reads better a line a piece).
HANDLE_CHARS = 300
_BARE_ITEM = re.compile(r"^\[[^\]]+\] listitem$")
# A native select lists its options if they take at most this many characters, and all of them while
# it has the focus (people, macros, queues: lists on every page of a form were most of its text);
# select_option takes any option by its label anyway.
OPTIONS_CHARS = 40
# States an interactive node shows only when they are not the default.
_DEFAULT_STATES = re.compile(r", (?:checked|pressed|selected)='false'")
# Text that only separates the pieces around it (breadcrumbs, menus).
_SEPARATORS = frozenset({"/", "|", "·", "•", "›", "»", ">", "—", "–", "(", ")"})
_WORDY = re.compile(r"\w")
_WORD = re.compile(r"\w+")
# Controls whose closed state goes without saying (it is shown when they are open).
_CLOSED_BY_DEFAULT = frozenset({"combobox", "DisclosureTriangle"})
# A cell's name that ends with its last words twice (an icon's name, then the same words as text:
# 'Priority: High High'), and empty cells at the end of a row's text.
_ECHO = re.compile(r"(?<=: )([\w ]{1,40}) \1(?=')")
_TRAILING_EMPTY = re.compile(r"(?: '')+$")
# Table cells and headers: written as their text (a sortable header's link keeps its bid).
_CELL_ROLES = frozenset({"cell", "gridcell", "columnheader", "rowheader"})
_BLOCK_ROLES = frozenset({"paragraph", "blockquote", "Pre"})
# Items an agent may drag, open or select by their bid (a board's cards, a table's rows): kept unnamed.
_HANDLE_ROLES = frozenset({"listitem", "row", "article"})
# Roles that only carry text: written as text, so a term and its definition read as one line.
_TEXT_ROLES = frozenset({"term", "definition", "strong", "emphasis", "time", "LabelText", "Legend", "mark"})
# Roles whose inside is drawn by the browser: an image's letters, a date field's month/day/year parts
# (the field takes a whole date by its bid).
_OPAQUE_ROLES = frozenset({"image", "img", "Date", "DateTime", "InputTime"})
_LANDMARK_PREFIXES = ("region ", "complementary ", "navigation ", "group ", "list ", "main ", "search ", "form ")
# Lines that only label the control after them when they carry its name.
_LABEL_PREFIXES = ("term ", "LabelText ")
# A list item's nesting level, which says nothing an agent must know (a heading's level is kept).
_LEVEL = re.compile(r", level=\d+\b")
# Landmarks, groups and text roles: nothing an agent clicks, types into or drags to, so their bids
# go (headings and list items keep theirs: boards drag cards onto column headings).
_BIDLESS_ROLES = frozenset(
    {
        "navigation",
        "region",
        "complementary",
        "banner",
        "main",
        "contentinfo",
        "search",
        "form",
        "group",
        "radiogroup",
        "list",
        "tablist",
        "term",
        "definition",
        "image",
        "img",
        "strong",
        "emphasis",
        "time",
        "paragraph",
        "LabelText",
        "DescriptionList",
        "separator",
        "sectionheader",
        "sectionfooter",
    }
)
