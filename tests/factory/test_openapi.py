"""Importing an OpenAPI document into an anchor (factory/openapi.py): the time-off anchor's entities, fields,
relations, states and operations come from the Apideck HRIS document; a malformed document or a wrong reference to
it is refused with the path of the problem, and a refused build writes nothing."""

import shutil
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from factory.anchor import AnchorError, anchor_read
from factory.build import factory_build
from factory.compiler import graph, replica_files, spec_compile

ANCHOR = Path(settings.BASE_DIR) / "anchors" / "timeoff"
DOCUMENT = "hris.yml"


@pytest.fixture(scope="module")
def imported():
    return anchor_read(ANCHOR)


def _entity(doc, name):
    return next(e for e in doc["entities"] if e["name"] == name)


def _fields(entity):
    return {f["name"]: f for f in entity["fields"]}


def test_the_schemas_become_entities_with_typed_fields_and_relations(imported):
    doc, _ = imported
    assert [e["name"] for e in doc["entities"]] == ["department", "employee", "time_off_request"]
    employee, request = _fields(_entity(doc, "employee")), _fields(_entity(doc, "time_off_request"))
    # department_id and employee_id name imported schemas: relations, named without _id
    assert (employee["department"]["type"], employee["department"]["to"]) == ("ref", "department")
    assert (request["employee"]["type"], request["employee"]["to"]) == ("ref", "employee")
    # an enum is a choice with the document's values; a date by its pattern; the title as the label
    assert request["request_type"]["choices"] == [
        "vacation",
        "sick",
        "personal",
        "jury_duty",
        "volunteer",
        "bereavement",
        "other",
    ]
    assert request["start_date"]["type"] == "date"
    assert (employee["works_remote"]["type"], employee["works_remote"]["label"]) == ("boolean", "Remote")
    assert employee["title"]["label"] == "Job title"  # from the $ref'd Title schema
    # the anchor's own settings win over the document's (amount is a number of days, not money)
    assert request["amount"]["type"] == "integer"
    # fields the document does not carry are the anchor's, after the imported ones
    assert list(request)[-2:] == ["requested_by", "approver"]


def test_the_status_enum_gives_the_machine_its_states(imported):
    doc, _ = imported
    assert _entity(doc, "time_off_request")["machine"]["states"] == ["requested", "approved", "declined", "cancelled"]
    employee = _entity(doc, "employee")
    assert employee["machine"]["field"] == "employment_status"
    assert "employment_status" not in _fields(employee)


def test_the_operations_become_tools_named_by_their_operation_id(imported):
    doc, sha = imported
    ops = _entity(doc, "time_off_request")["operations"]
    assert {kind: op["id"] for kind, op in ops.items()} == {
        "list": "timeOffRequestsAll",
        "get": "timeOffRequestsOne",
        "create": "timeOffRequestsAdd",
        "edit": "timeOffRequestsUpdate",
        "delete": "timeOffRequestsDelete",
    }
    assert ops["edit"] == {
        "id": "timeOffRequestsUpdate",
        "method": "PATCH",
        "path": "/hris/time-off-requests/employees/{employee_id}/time-off-requests/{id}",
    }
    tools = {t["name"]: t for t in graph(spec_compile(doc, sha))["tools"]}
    assert tools["create_employee"]["operation"] == "employeesAdd"
    assert tools["list_department"]["operation"] == "departmentsAll"
    # a status change is the document's update of the record
    assert tools["approve_time_off_request"]["operation"] == "timeOffRequestsUpdate"


def test_the_document_is_part_of_the_anchors_hash(tmp_path, imported):
    _, sha = imported
    folder = _copy(tmp_path)
    with open(folder / DOCUMENT, "a") as out:
        out.write("\n# a comment changes the bytes\n")
    assert anchor_read(folder)[1] != sha


def test_compiling_is_deterministic(imported):
    doc, sha = imported
    again, again_sha = anchor_read(ANCHOR)
    assert again_sha == sha
    assert replica_files(spec_compile(doc, sha), "") == replica_files(spec_compile(again, again_sha), "")


def _copy(tmp_path) -> Path:
    folder = tmp_path / "timeoff"
    shutil.copytree(ANCHOR, folder)
    return folder


def _edit(path: Path, change) -> None:
    doc = yaml.safe_load(path.read_text())
    change(doc)
    path.write_text(yaml.safe_dump(doc, sort_keys=False))


def _errors(folder) -> dict:
    with pytest.raises(AnchorError) as caught:
        anchor_read(folder)
    return dict(caught.value.errors)


def test_a_malformed_document_is_refused_with_the_json_path(tmp_path):
    folder = _copy(tmp_path)

    def break_it(doc):
        doc["openapi"] = "2.0"
        schemas = doc["components"]["schemas"]
        schemas["TimeOffRequest"]["properties"]["employee_id"] = {"$ref": "#/components/schemas/Nobody"}
        doc["paths"]["/hris/employees"]["get"].pop("operationId")

    _edit(folder / DOCUMENT, break_it)
    errors = _errors(folder)
    assert errors == {"hris.yml#/openapi": "must be an OpenAPI 3 version such as 3.0.3"}
    _edit(folder / DOCUMENT, lambda doc: doc.update(openapi="3.0.0"))
    errors = _errors(folder)
    assert errors == {
        "hris.yml#/paths/~1hris~1employees/get": "an operation needs an operationId",
        "hris.yml#/components/schemas/TimeOffRequest/properties/employee_id/$ref": (
            "unresolved reference '#/components/schemas/Nobody'"
        ),
    }


def test_a_document_that_is_not_yaml_or_is_missing_is_refused(tmp_path):
    folder = _copy(tmp_path)
    (folder / DOCUMENT).write_text("openapi: [3.0\n")
    assert list(_errors(folder)) == ["hris.yml"]
    (folder / DOCUMENT).unlink()
    assert _errors(folder) == {"hris.yml": f"{folder / DOCUMENT} does not exist"}
    _edit(folder / "anchor.yaml", lambda doc: doc.update(openapi="../procurement/anchor.yaml"))
    assert _errors(folder) == {"openapi": "must name a file in the anchor's folder, such as openapi.yaml"}


def test_the_anchors_references_into_the_document_are_checked_with_their_path(tmp_path):
    folder = _copy(tmp_path)

    def break_it(doc):
        doc["entities"][0]["schema"] = "Payroll"
        doc["entities"][1]["properties"]["shoe_size"] = {}
        doc["entities"][1]["properties"]["emails"] = {}
        doc["entities"][2]["machine"]["states"].append("on_hold")

    _edit(folder / "anchor.yaml", break_it)
    errors = _errors(folder)
    assert list(errors) == ["entities[0].schema"] and errors["entities[0].schema"].startswith(
        "'Payroll' is not a schema of hris.yml ("
    )
    _edit(folder / "anchor.yaml", lambda doc: doc["entities"][0].update(schema="Department"))
    errors = _errors(folder)
    assert errors == {
        "entities[1].properties.shoe_size": (
            "Employee has no property 'shoe_size' (hris.yml#/components/schemas/Employee)"
        ),
        "hris.yml#/components/schemas/Employee/properties/emails": (
            "type 'array' has no field type in the anchor (string, number, boolean, a ref)"
        ),
        "entities[2].machine.states[4]": "'on_hold' is not in the enum of status",
    }


def test_an_anchor_asking_for_an_operation_the_document_lacks_is_refused(tmp_path):
    folder = _copy(tmp_path)

    def drop_create(doc):
        del doc["paths"]["/hris/time-off-requests"]["post"]

    _edit(folder / DOCUMENT, drop_create)
    assert _errors(folder) == {"entities[2].create": "the document has no create operation on TimeOffRequest"}


def test_a_refused_build_writes_nothing(tmp_path):
    folder = _copy(tmp_path / "anchors")
    _edit(folder / DOCUMENT, lambda doc: doc["components"].pop("schemas"))
    root = tmp_path / "root"
    root.mkdir()
    with pytest.raises(AnchorError) as caught:
        factory_build(anchor_dir=folder, root=root)
    assert caught.value.errors == [("hris.yml#/components/schemas", "required mapping is missing or empty")]
    assert list(root.iterdir()) == []
