"""Page assertions: the final URL, and elements found by role, label or text, visible or holding a value."""

import pytest

from verifiers import dom
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs

EMPTY = {"replica": "testbed", "tables": {}}
HTML = """<!doctype html><html><head><title>Ticket #8001</title><style>.x{}</style></head><body>
<header><nav aria-label="Main"><a href="/agent/filters/unsolved">Views</a></nav></header>
<main>
  <h1>Charged twice for order ORD-4419</h1>
  <form>
    <label for="status">Status</label>
    <select id="status" name="status"><option value="open">Open</option>
      <option value="solved" selected>Solved</option></select>
    <label>Refund amount <input name="amount" value="$49.99"></label>
    <input id="due" aria-label="Due date" value="03/05/2026">
    <textarea id="reply" aria-labelledby="reply-label">
Thanks, refunded!</textarea><span id="reply-label">Public reply</span>
    <input type="checkbox" id="notify" checked><label for="notify">Notify requester</label>
    <button type="submit">Submit as <b>Solved</b></button>
    <input type="submit" value="Save draft">
    <button hidden>Delete ticket</button>
    <div style="display: none"><button>Merge</button></div>
    <div aria-hidden="true"><a href="/x">Secret link</a></div>
    <div class="collapsed" data-rg-hidden><button>Escalate</button></div>
  </form>
  <dialog><button>Confirm refund</button></dialog>
  <div role="alert">Refund issued</div>
  <table><tr><th>Amount</th></tr><tr><td>$49.99</td></tr></table>
  <ul><li>one<li>two</ul>
  <img src="x.png" alt="Avatar of Jane">
</main></body></html>"""


def page(at="http://w-abc.localhost:8000/agent/tickets/8001", **assertion):
    spec = {"assertions": [{"name": "page", "kind": "page", **assertion}]}
    inputs = VerifierInputs(
        initial=EMPTY, final=EMPTY, replica="testbed", final_page={"url": at, "title": "Ticket #8001", "html": HTML}
    )
    return verify(spec, inputs).assertions[0]


def test_the_url_pattern_matches_the_whole_path():
    assert page(url=r"/agent/tickets/\d+")["passed"]
    assert not page(url=r"/agent/tickets")["passed"]
    assert page(at="http://w-abc.localhost:8000/agent/tickets/8001?x=1#top", url=r"/agent/tickets/8001")["passed"]


def test_the_title_is_searched_with_a_regex():
    assert page(title=r"#8001")["passed"]
    assert not page(title=r"#8002")["passed"]


@pytest.mark.parametrize(
    "element, passed",
    [
        ({"role": "button", "name": "Submit as Solved"}, True),
        ({"role": "button", "name": "submit as", "exact": False}, True),
        ({"role": "button", "name": "Submit as", "exact": True}, False),
        ({"role": "button", "name": "Save draft"}, True),
        ({"role": "heading", "name": "Charged twice"}, True),
        ({"role": "link", "name": "Views"}, True),
        ({"role": "navigation", "name": "Main"}, True),
        ({"role": "combobox", "name": "Status"}, True),
        ({"role": "textbox", "name": "Refund amount"}, True),
        ({"role": "textbox", "name": "Public reply"}, True),
        ({"role": "checkbox", "name": "Notify requester"}, True),
        ({"role": "alert", "name": "Refund issued"}, False),  # alerts take no name from content
        ({"role": "alert"}, True),
        ({"role": "cell", "name": "$49.99"}, True),
        ({"role": "listitem", "name": "two"}, True),
        ({"role": "img", "name": "Avatar of Jane"}, True),
        ({"label": "Due date"}, True),
        ({"label": "Refund amount"}, True),
        ({"text": "Refund issued"}, True),
        ({"text": "Nowhere on the page"}, False),
    ],
)
def test_elements_are_found_by_role_name_label_or_text(element, passed):
    assert page(element=element)["passed"] is passed


@pytest.mark.parametrize("name", ["Delete ticket", "Merge", "Confirm refund", "Escalate"])
def test_hidden_elements_are_not_visible_but_present(name):
    assert not page(element={"role": "button", "name": name})["passed"]
    assert page(element={"role": "button", "name": name}, state="hidden")["passed"]
    assert page(element={"role": "button", "name": name}, state="present")["passed"]
    assert not page(element={"role": "button", "name": name}, state="absent")["passed"]


def test_aria_hidden_content_is_hidden():
    assert page(element={"text": "Secret link"}, state="hidden")["passed"]


def test_absent_elements():
    assert page(element={"role": "button", "name": "Reopen"}, state="absent")["passed"]


def test_form_controls_hold_values_compared_by_type():
    assert page(element={"label": "Refund amount"}, value="$49.99")["passed"]
    assert page(element={"label": "Refund amount"}, value="49.99", **{"as": "money"})["passed"]
    assert not page(element={"label": "Refund amount"}, value="149.99", **{"as": "money"})["passed"]
    assert page(element={"label": "Due date"}, value="2026-03-05", **{"as": "date"})["passed"]
    assert page(element={"role": "combobox", "name": "Status"}, value="Solved")["passed"]
    assert page(element={"role": "textbox", "name": "Public reply"}, value={"matches": "refunded"})["passed"]
    assert page(element={"role": "checkbox", "name": "Notify"}, checked=True)["passed"]
    assert not page(element={"role": "checkbox", "name": "Notify"}, checked=False)["passed"]


def test_the_dom_reads_optional_end_tags_and_text_innermost():
    root = dom.parse_html("<ul><li>one<li>two</ul><p>a<p>b")
    assert [dom.text_of(n) for n in dom.elements(root) if n.tag == "li"] == ["one", "two"]
    assert [n.tag for n in dom.find(dom.parse_html("<div><span>Refund issued</span></div>"), text="Refund issued")] == [
        "span"
    ]
