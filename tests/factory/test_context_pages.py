"""An anchor's PRD and policy documents (its `docs`, Markdown): read into the spec, served by the compiled replica as
its context pages under Policies, rendered with every piece of HTML in them escaped; a missing or untitled document
is refused with its path."""

import json
import shutil
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from factory.anchor import AnchorError, anchor_errors, anchor_read
from factory.synth import policy_pages
from replicas.worlds.enterprise.markdown import markdown_html
from replicas.worlds.registry import replicas

ANCHOR = Path(settings.BASE_DIR) / "anchors" / "timeoff"
HOSTILE = '# Rules <img src=x onerror="alert(1)">\n\nSee [this](javascript:alert(2)) and <script>alert(3)</script>.\n'


def test_markdown_is_rendered_and_its_html_escaped():
    page = markdown_html("# Leave\n\nAsk **early**, *politely*.\n\n- one\n- two\n\n1. first\n")
    assert page == (
        "<h1>Leave</h1>\n<p>Ask <strong>early</strong>, <em>politely</em>.</p>\n"
        "<ul><li>one</li><li>two</li></ul>\n<ol><li>first</li></ol>"
    )
    hostile = markdown_html(HOSTILE)
    assert "<script" not in hostile and "<img" not in hostile and "javascript:alert(2)</a>" not in hostile
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in hostile and 'href="javascript' not in hostile
    assert markdown_html("[ok](https://x.example/?a=1&b=2)") == '<p><a href="https://x.example/?a=1&amp;b=2">ok</a></p>'


def test_the_anchor_docs_become_the_specs_context_pages():
    doc, _ = anchor_read(ANCHOR)
    (page,) = doc["pages"]
    assert (page["slug"], page["title"]) == ("leave-policy", "Leave policy")
    assert page["markdown"] == (ANCHOR / "docs" / "leave-policy.md").read_text()


def _anchor(tmp_path, docs, files):
    folder = tmp_path / "anchor"
    shutil.copytree(ANCHOR, folder)
    doc = yaml.safe_load((folder / "anchor.yaml").read_text())
    doc["docs"] = docs
    for policy in doc["policies"]:  # they cite the page these documents replace
        del policy["doc"]
    (folder / "anchor.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize(
    ("docs", "files", "words"),
    [
        (["docs/missing.md"], {}, "does not exist"),
        (["docs/untitled.md"], {"docs/untitled.md": "No title line\n"}, "must start with its title"),
        (["../hris.yml"], {}, "must be a file docs/<name>.md"),
    ],
)
def test_a_document_the_replica_cannot_serve_is_refused_with_its_path(tmp_path, docs, files, words):
    with pytest.raises(AnchorError) as caught:
        anchor_read(_anchor(tmp_path, docs, files))
    assert any(path == "docs[0]" and words in message for path, message in caught.value.errors), caught.value.errors


@pytest.mark.skipif("timeoff" not in replicas(), reason="the timeoff replica is not built")
def test_a_world_serves_its_policies_escaped(make_world, world_client, monkeypatch):
    from replicas.timeoff.runtime import RUNTIME  # noqa: PLC0415 - only when the replica is installed

    client = world_client(make_world(replica="timeoff", seed=7, variant="small"))
    assert '<a href="/docs">Policies</a>' in client.get("/approvals").content.decode()
    index = client.get("/docs").content.decode()
    assert '<a href="/docs/leave-policy">Leave policy</a>' in index
    page = client.get("/docs/leave-policy").content.decode()
    assert "<h2>Deciding a request</h2>" in page and "<strong>assigned manager</strong>" in page
    assert client.get("/docs/no-such-page").status_code == 404
    hostile = {"slug": "rules", "title": "Rules", "markdown": HOSTILE}
    monkeypatch.setitem(RUNTIME.domain.spec, "docs", [hostile])
    served = client.get("/docs/rules").content.decode()
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in served and "<script>alert(3)" not in served
    assert "<img" not in served
    anonymous = world_client(make_world(replica="timeoff", seed=7, variant="small"), signed_in=False)
    assert anonymous.get("/docs/leave-policy").status_code == 302  # people sign in first, as on every page


def test_an_entity_whose_pages_would_shadow_the_policies_is_refused():
    doc, _ = anchor_read(ANCHOR)
    doc["entities"][0]["plural"] = "Docs"
    assert ("entities[0].plural", "its pages would be at /docs, a page every replica has: name it otherwise") in (
        anchor_errors(doc)
    )
    doc["entities"][0]["plural"] = "Documents"
    assert anchor_errors(doc) == []


def test_a_policy_may_cite_only_a_page_the_anchor_ships():
    doc, _ = anchor_read(ANCHOR)
    assert [p.get("doc") for p in doc["policies"]] == ["leave-policy", "leave-policy"]
    doc["policies"][1]["doc"] = "handbook"
    assert anchor_errors(doc) == [("policies[1].doc", "'handbook' is not one of the anchor's docs (leave-policy)")]


def test_a_policys_page_is_cited_once_by_its_title_and_only_when_the_policy_names_it():
    spec = {"docs": [{"slug": "leave-policy", "title": "Leave policy", "markdown": "# Leave policy\n"}]}
    cited = [{"name": "approver_assigned", "doc": "leave-policy"}, {"name": "separate_duties", "doc": "leave-policy"}]
    assert policy_pages(spec, cited) == ["Leave policy"]
    assert policy_pages(spec, [{"name": "budget_cap"}]) == []


def _moves(task: dict) -> set[tuple[str, str]]:
    """(entity, move) of each move a task makes: its audit entries' assertions (factory.synth._verifier)."""
    return {
        (a["expect"]["fields"]["entity"], a["where"]["action"])
        for a in task["verifier"]["assertions"]
        if a["kind"] == "state" and a["table"].endswith(".auditentry") and "action" in a["where"]
    }


@pytest.mark.parametrize("domain", ["procurement", "timeoff"])
def test_the_tasks_a_policy_governs_point_to_its_page_instead_of_stating_the_rule(domain):
    """The compiled tasks: a move guarded by a policy the anchor's page states sends the agent to that page by its
    title; no task says whom the actor stands in for (the page says a delegate decides); every other task is worded
    as before."""
    folder = Path(settings.BASE_DIR) / "replicas" / domain
    spec = json.loads((folder / "spec.json").read_text())
    guards = {
        (entity["name"], move["name"]): move["guards"]
        for entity in spec["entities"]
        for move in (entity["machine"] or {}).get("transitions", [])
    }
    policies = {p["name"]: p for p in spec["policies"]}
    governed = 0
    for path in sorted(folder.glob("tasks/*.json")):
        task = json.loads(path.read_text())
        titles = policy_pages(spec, [policies[g] for move in _moves(task) for g in guards.get(move, [])])
        cites = [f'This is governed by the "{title}" page (Policies): read it and act by it.' for title in titles]
        assert all(sentence in task["instruction"] for sentence in cites), task["slug"]
        assert ("page (Policies)" in task["instruction"]) == bool(titles), task["slug"]
        assert "standing in for" not in task["instruction"], task["slug"]
        governed += bool(titles)
    assert governed == {"procurement": 15, "timeoff": 6}[domain]
