"""The compiled procurement replica behaves as its anchor says: pages of the UI kit, REST endpoints under the roles
and policies (budget cap, delegated approver, segregation of duties, three-way match), every write audited."""

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from factory.build import anchor_spec
from factory.compiler import replica_files
from replicas.worlds.enterprise.variants import families_read
from replicas.worlds.enterprise.views import Views
from replicas.worlds.registry import get_replica, replicas
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.skipif("procurement" not in replicas(), reason="the procurement replica is not built")

FOLDER = Path(settings.BASE_DIR) / "replicas" / "procurement"


@pytest.fixture
def procurement(make_world):
    return make_world(replica="procurement", seed=7, variant="small")


def _models():
    from replicas.procurement import models  # noqa: PLC0415 - only when the replica is installed

    return models


def _api(client, world, person, method, path, body=None):
    from replicas.procurement.runtime import RUNTIME  # noqa: PLC0415

    person_password = RUNTIME.services.person_password

    token = base64.b64encode(f"{person.email}:{person_password(seed=world.seed, number=person.number)}".encode())
    kwargs = {"HTTP_AUTHORIZATION": f"Basic {token.decode()}", "HTTP_HOST": f"w-{world.token}.localhost:8000"}
    if method == "GET":
        return client.get(path, **kwargs)
    raw = body if isinstance(body, (bytes, str)) else json.dumps(body or {})
    return client.post(path, raw, content_type="application/json", **kwargs)


def test_every_page_of_the_kit_answers_signed_in(procurement, world_client):
    client = world_client(procurement)
    spec = json.loads((FOLDER / "spec.json").read_text())
    for page in ["/approvals", "/audit", "/search?q=PR-1001", *[f"/{e['slug']}" for e in spec["entities"]]]:
        assert client.get(page).status_code == 200, page
    assert client.get("/purchase-requests/1001").status_code == 200
    assert client.get("/purchase-requests/new").status_code == 200  # the default role, requester, may create
    assert client.get("/vendors/new").status_code == 403  # ... but not onboard a vendor


def test_the_list_filters_sorts_and_refuses_an_unknown_column(procurement, world_client):
    client = world_client(procurement)
    with bound_world(procurement):
        submitted = sorted(
            _models().PurchaseRequest.objects.filter(status="submitted").values_list("number", flat=True)
        )
    page = client.get("/purchase-requests?status=submitted&sort=-number").content.decode()
    shown = [int(n) for n in re.findall(r'href="/purchase-requests/(\d+)"', page)]
    assert shown == sorted(submitted, reverse=True) and shown
    assert client.get("/purchase-requests?sort=password").status_code == 400
    assert client.get("/purchase-requests?status=lost").status_code == 400


def _submitted_request(models, *, over_limit: bool):
    for request in models.PurchaseRequest.objects.filter(status="submitted").order_by("number"):
        approver = request.approver
        if approver.out_of_office or request.requested_by_id == approver.pk:
            continue
        if (request.total > approver.approval_limit) == over_limit:
            return request
    pytest.fail("the seed has no such request")


def test_the_assigned_approver_approves_within_the_cap_and_the_audit_log_says_so(procurement, client):
    models = _models()
    with bound_world(procurement):
        request = _submitted_request(models, over_limit=False)
        approver = request.approver
    answer = _api(client, procurement, approver, "POST", f"/api/purchase-requests/{request.number}/approve")
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "approved" and answer.json()["decided_by"] == approver.number
    with bound_world(procurement):
        entry = models.AuditEntry.objects.get(record=f"PR-{request.number}", action="approve")
        assert entry.actor_id == approver.pk


def test_the_budget_cap_blocks_an_approval_above_the_approvers_limit(procurement, client):
    models = _models()
    with bound_world(procurement):
        request = _submitted_request(models, over_limit=True)
    answer = _api(client, procurement, request.approver, "POST", f"/api/purchase-requests/{request.number}/approve")
    assert answer.status_code == 403 and "approval limit" in answer.json()["error"]
    with bound_world(procurement):
        assert models.PurchaseRequest.objects.get(number=request.number).status == "submitted"
        assert not models.AuditEntry.objects.filter(record=f"PR-{request.number}", action="approve").exists()


def test_only_the_delegate_of_an_away_approver_may_decide_for_them(procurement, client):
    models = _models()
    with bound_world(procurement):
        away = models.Person.objects.filter(out_of_office=True, role="approver").first()
        request = models.PurchaseRequest.objects.filter(status="submitted", approver=away).first()
        if request is None:  # the seed gave the away approver nothing: hand them one, as a requester would
            request = models.PurchaseRequest.objects.filter(status="submitted").first()
            request.approver = away
            request.save()
        outsider = models.Person.objects.filter(role="approver").exclude(pk__in=[away.pk, away.delegate_id]).first()
        delegate = away.delegate
    refused = _api(
        client, procurement, outsider, "POST", f"/api/purchase-requests/{request.number}/reject", {"comment": "no"}
    )
    assert refused.status_code == 403 and "delegated" in refused.json()["error"]
    done = _api(
        client,
        procurement,
        delegate,
        "POST",
        f"/api/purchase-requests/{request.number}/reject",
        {"comment": "Over budget for Q3."},
    )
    assert done.status_code == 200 and done.json()["status"] == "rejected"


def test_nobody_decides_a_request_they_raised(procurement, client):
    models = _models()
    with bound_world(procurement):
        request = models.PurchaseRequest.objects.filter(status="submitted").order_by("number").first()
        request.requested_by = request.approver  # an approver who raised the request themselves
        request.save()
    answer = _api(
        client,
        procurement,
        request.approver,
        "POST",
        f"/api/purchase-requests/{request.number}/reject",
        {"comment": "x"},
    )
    assert answer.status_code == 403 and "raised yourself" in answer.json()["error"]


def test_an_invoice_that_does_not_match_its_order_and_receipt_cannot_be_matched(procurement, client):
    models = _models()
    with bound_world(procurement):
        invoice = models.Invoice.objects.filter(status="received").order_by("number").first()
        invoice.amount = invoice.order.total * 2
        invoice.save()
        clerk = models.Person.objects.filter(role="ap_clerk").first()
    answer = _api(client, procurement, clerk, "POST", f"/api/invoices/{invoice.number}/match")
    assert answer.status_code == 403 and "does not match" in answer.json()["error"]
    with bound_world(procurement):
        invoice.amount, invoice.quantity = invoice.order.total, invoice.receipt.quantity_received
        invoice.save()
    assert (
        _api(client, procurement, clerk, "POST", f"/api/invoices/{invoice.number}/match").json()["status"] == "matched"
    )


def test_the_api_refuses_bad_input_with_a_clear_error(procurement, client):
    models = _models()
    with bound_world(procurement):
        requester = models.Person.objects.filter(role="requester").first()
        buyer = models.Person.objects.filter(role="buyer").first()
    broken = _api(client, procurement, requester, "POST", "/api/purchase-requests", b"{not json")
    assert broken.status_code == 400 and broken.json()["error"].startswith("$: invalid JSON")
    invalid = _api(
        client,
        procurement,
        requester,
        "POST",
        "/api/purchase-requests",
        {"title": "Chairs", "vendor": "V-1001", "quantity": "lots", "unit_price": "10.005", "colour": "red"},
    )
    assert invalid.status_code == 400
    fields = invalid.json()["fields"]
    assert fields["quantity"] == ["Enter a number."] and fields["unit_price"] == ["At most two decimal places."]
    assert fields["__all__"] == ["Unknown field 'colour'."] and "requested_by" in fields
    assert _api(client, procurement, buyer, "POST", "/api/purchase-requests", {}).status_code == 403
    assert client.get("/api/vendors", HTTP_HOST=f"w-{procurement.token}.localhost:8000").status_code == 401


def test_a_request_created_through_the_form_gets_the_next_number_and_its_total(procurement, world_client):
    models = _models()
    client = world_client(procurement)
    with bound_world(procurement):
        me = models.Person.objects.filter(role="requester").order_by("out_of_office", "number").first()
        approver = models.Person.objects.filter(role="approver").first()
        last = models.PurchaseRequest.objects.order_by("-number").first().number
    form = {
        "title": "Standing desks",
        "vendor": "1001",
        "requested_by": str(me.number),
        "approver": str(approver.number),
        "quantity": "3",
        "unit_price": "450.50",
        "needed_by": "2031-02-01",
        "justification": "",
        "currency": "USD",
    }
    assert client.post("/purchase-requests/new", {**form, "quantity": "0"}).status_code == 400
    answer = client.post("/purchase-requests/new", form)
    assert answer.status_code == 302 and answer["Location"] == f"/purchase-requests/{last + 1}"
    with bound_world(procurement):
        created = models.PurchaseRequest.objects.get(number=last + 1)
        assert (str(created.total), created.status) == ("1351.50", "draft")


def test_the_screenshot_tour_finds_its_rows_in_a_fresh_world(procurement):
    with bound_world(procurement):
        assert callable(get_replica("procurement").screenshot_tour(procurement))


def test_the_committed_folder_is_what_the_anchor_compiles_to(tmp_path):
    """Nothing in replicas/procurement/ was edited by hand, and the compiler still writes it byte for byte."""
    anchor = Path(settings.BASE_DIR) / "anchors" / "procurement"
    spec, _sha = anchor_spec(anchor)
    files = replica_files(spec, bench_task="", families=families_read(anchor))
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    subprocess.run([str(Path(sys.executable).with_name("ruff")), "format", "--quiet", str(tmp_path)], check=True)
    for relative in files:
        assert (tmp_path / relative).read_bytes() == (FOLDER / relative).read_bytes(), relative


def test_a_seed_gives_one_world_and_the_sizes_differ(make_world):
    first, again = make_world(replica="procurement", seed=3), make_world(replica="procurement", seed=3)
    bigger = make_world(replica="procurement", seed=3, variant="default")
    assert state_hash(snapshot(first)) == state_hash(snapshot(again)) != state_hash(snapshot(bigger))
    tables = snapshot(bigger)["tables"]
    # three times the small world's 14 requests; the layers: a duplicated vendor name, foreign currencies
    assert len(tables["procurement.purchaserequest"]) == 42
    names = [row["name"] for row in tables["procurement.vendor"].values()]
    assert len(names) > len(set(names))
    assert {row["currency"] for row in tables["procurement.purchaserequest"].values()} > {"USD"}


def test_the_folder_holds_its_domain_and_binds_the_shared_runtime():
    """The pages, REST endpoints, writes and seed generator live once, in the worlds layer: the compiled folder has
    its spec, models, graph and tasks, and modules of a few lines that bind the shared runtime to them."""
    from replicas.procurement.runtime import RUNTIME  # noqa: PLC0415 - only when the replica is installed

    code = sorted(p.relative_to(FOLDER).as_posix() for p in FOLDER.rglob("*.py") if "__pycache__" not in p.parts)
    runtime = [p for p in code if not p.startswith(("migrations/", "tests/")) and p not in ("models.py", "apps.py")]
    assert runtime == ["__init__.py", "runtime.py", "seed.py", "tasks/__init__.py", "tasks/params.py", "urls.py"]
    assert all(len((FOLDER / p).read_text().splitlines()) <= 12 for p in runtime)
    assert not (FOLDER / "templates").exists()
    assert isinstance(RUNTIME.views, Views) and RUNTIME.domain.label == "procurement"
    assert get_replica("procurement").generator().generate == RUNTIME.seeder.generate


def test_a_synthesised_task_is_played_only_in_the_world_it_was_grounded_in(procurement):
    """A task names a record, its state and its actor in the seed's world: its picker refuses any other world, so an
    episode whose variation draws another seed plays the task's own (episodes.variation falls back)."""
    from replicas.procurement.runtime import RUNTIME  # noqa: PLC0415 - only when the replica is installed

    for path in sorted((FOLDER / "tasks").glob("*.json")):
        task = json.loads(path.read_text())
        assert task["params"][0]["args"]["grounded"] == task["seed"], path.name
    with bound_world(procurement):
        mine = RUNTIME.person_picker(procurement, procurement.seed, number=1, grounded=procurement.seed)
        assert mine["email"].endswith("@northwind.example") and mine["password"]
        with pytest.raises(LookupError, match="grounded in the world of seed 7"):
            RUNTIME.person_picker(procurement, procurement.seed + 1, number=1, grounded=procurement.seed)
