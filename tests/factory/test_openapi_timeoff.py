"""The time-off replica compiled from the Apideck HRIS document and anchors/timeoff: its pages, the REST endpoints of
the imported operations under the anchor's roles and policies, and a committed folder that is what the anchor and
the document compile to."""

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from factory.build import anchor_spec
from factory.compiler import replica_files
from replicas.worlds.enterprise.variants import families_read
from replicas.worlds.registry import replicas
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.skipif("timeoff" not in replicas(), reason="the timeoff replica is not built")

FOLDER = Path(settings.BASE_DIR) / "replicas" / "timeoff"


@pytest.fixture
def timeoff(make_world):
    return make_world(replica="timeoff", seed=7, variant="small")


def _models():
    from replicas.timeoff import models  # noqa: PLC0415 - only when the replica is installed

    return models


def _api(client, world, person, method, path, body=None):
    from replicas.timeoff.runtime import RUNTIME  # noqa: PLC0415

    person_password = RUNTIME.services.person_password

    token = base64.b64encode(f"{person.email}:{person_password(seed=world.seed, number=person.number)}".encode())
    kwargs = {"HTTP_AUTHORIZATION": f"Basic {token.decode()}", "HTTP_HOST": f"w-{world.token}.localhost:8000"}
    if method == "GET":
        return client.get(path, **kwargs)
    return client.post(path, json.dumps(body or {}), content_type="application/json", **kwargs)


def test_every_page_answers_signed_in(timeoff, world_client):
    client = world_client(timeoff)
    for page in ["/approvals", "/audit", "/search?q=TO-1001", "/departments", "/employees", "/time-off-requests"]:
        assert client.get(page).status_code == 200, page
    assert client.get("/time-off-requests/1001").status_code == 200
    assert client.get("/employees/1001").status_code == 200
    assert client.get("/time-off-requests/new").status_code == 200  # the default role, employee, may ask
    assert client.get("/departments/new").status_code == 403  # ... but not open a department


def _open_request(models):
    for request in models.TimeOffRequest.objects.filter(status="requested").order_by("number"):
        if not request.approver.out_of_office and request.requested_by_id != request.approver_id:
            return request
    pytest.fail("the seed has no open request with a present approver")


def test_the_assigned_manager_approves_and_the_audit_log_says_so(timeoff, client):
    models = _models()
    with bound_world(timeoff):
        request = _open_request(models)
        manager = request.approver
        other = models.Person.objects.filter(role="manager", out_of_office=False).exclude(pk=manager.pk).first()
    refused = _api(client, timeoff, other, "POST", f"/api/time-off-requests/{request.number}/approve")
    assert refused.status_code == 403 and "assigned manager" in refused.json()["error"]
    answer = _api(client, timeoff, manager, "POST", f"/api/time-off-requests/{request.number}/approve")
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "approved" and answer.json()["decided_by"] == manager.number
    with bound_world(timeoff):
        assert models.AuditEntry.objects.get(record=f"TO-{request.number}", action="approve").actor_id == manager.pk


def test_an_employee_may_not_decide_and_a_decline_needs_a_comment(timeoff, client):
    models = _models()
    with bound_world(timeoff):
        request = _open_request(models)
        employee = models.Person.objects.filter(role="employee").first()
    path = f"/api/time-off-requests/{request.number}/decline"
    assert _api(client, timeoff, employee, "POST", path, {"comment": "no"}).status_code == 403
    assert _api(client, timeoff, request.approver, "POST", path).status_code == 400
    with bound_world(timeoff):
        assert models.TimeOffRequest.objects.get(number=request.number).status == "requested"


def test_the_api_creates_a_request_with_the_imported_fields_and_refuses_an_unknown_type(timeoff, client):
    models = _models()
    with bound_world(timeoff):
        employee = models.Person.objects.filter(role="employee").first()
        manager = models.Person.objects.filter(role="manager").first()
        last = models.TimeOffRequest.objects.order_by("-number").first().number
    body = {
        "employee": "E-1001",
        "request_type": "vacation",
        "description": "Island week",
        "start_date": "2031-03-02",
        "end_date": "2031-03-08",
        "amount": 5,
        "requested_by": employee.number,
        "approver": manager.number,
    }
    wrong = _api(client, timeoff, employee, "POST", "/api/time-off-requests", {**body, "request_type": "sabbatical"})
    assert wrong.status_code == 400 and "request_type" in wrong.json()["fields"]
    made = _api(client, timeoff, employee, "POST", "/api/time-off-requests", body)
    assert made.status_code in (200, 201), made.content
    with bound_world(timeoff):
        created = models.TimeOffRequest.objects.get(number=last + 1)
        assert (created.status, created.request_type, created.employee.number) == ("requested", "vacation", 1001)


def test_the_committed_folder_is_what_the_anchor_and_the_document_compile_to(tmp_path):
    """Nothing in replicas/timeoff/ was edited by hand, and the compiler still writes it byte for byte."""
    anchor = Path(settings.BASE_DIR) / "anchors" / "timeoff"
    spec, _sha = anchor_spec(anchor)
    files = replica_files(spec, bench_task="", families=families_read(anchor))
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    subprocess.run([str(Path(sys.executable).with_name("ruff")), "format", "--quiet", str(tmp_path)], check=True)
    for relative in files:
        assert (tmp_path / relative).read_bytes() == (FOLDER / relative).read_bytes(), relative
