"""An anchor's PRD and policy documents (its `docs`, Markdown): read into the spec, served by the compiled replica as
its context pages under Policies, rendered with every piece of HTML in them escaped; a missing or untitled document
is refused with its path."""

import shutil
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from factory.anchor import AnchorError, anchor_errors, anchor_read
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
