"""The anchor format: the schema's errors name the path, the cross-references a schema cannot state are checked,
and compiling is pure (the same anchor, the same files) with the tool graph's weights as issue 33 sets them."""

import copy
import datetime
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from factory.anchor import AnchorError, anchor_errors, anchor_read
from factory.compiler import graph, replica_files, spec_compile
from replicas.worlds.enterprise.seeding import business_days

ANCHOR = Path(settings.BASE_DIR) / "anchors" / "procurement"


@pytest.fixture(scope="module")
def anchor():
    doc, _ = anchor_read(ANCHOR)
    return doc


def _entity(doc, name):
    return next(e for e in doc["entities"] if e["name"] == name)


def test_the_procurement_anchor_is_valid(anchor):
    assert anchor_errors(anchor) == []
    assert {e["name"] for e in anchor["entities"]} == {
        "vendor",
        "purchase_request",
        "purchase_order",
        "goods_receipt",
        "invoice",
    }


def test_a_schema_error_names_the_path_of_the_bad_value(anchor):
    bad = copy.deepcopy(anchor)
    bad["entities"][2]["count"] = "many"
    bad["roles"][0]["nickname"] = "x"
    del bad["brand"]["name"]
    errors = dict(anchor_errors(bad))
    assert errors["entities[2].count"] == "must be an integer, not 'many'"
    assert errors["roles[0].nickname"].startswith("unknown key 'nickname'")
    assert errors["brand.name"] == "required key is missing"


def test_cross_references_are_checked_with_their_path(anchor):
    bad = copy.deepcopy(anchor)
    request = _entity(bad, "purchase_request")
    request["fields"][1]["to"] = "supplier"
    request["machine"]["transitions"][1]["from"] = ["pending_review"]
    request["machine"]["transitions"][1]["guards"].append("four_eyes")
    bad["policies"][1]["field"] = "title"
    i = bad["entities"].index(request)
    assert set(anchor_errors(bad)) >= {
        (f"entities[{i}].fields[1].to", "'supplier' is not an entity declared before this one (known: person, vendor)"),
        (f"entities[{i}].machine.transitions[1].from[0]", "unknown state 'pending_review'"),
        (f"entities[{i}].machine.transitions[1].guards[3]", "unknown policy 'four_eyes'"),
        ("policies[1].field", "'title' is not a ref to a person"),
    }


def test_a_file_that_is_not_yaml_is_refused_by_name(tmp_path):
    (tmp_path / "anchor.yaml").write_text("domain: [unclosed\n")
    with pytest.raises(AnchorError, match="anchor.yaml is not valid YAML"):
        anchor_read(tmp_path)
    (tmp_path / "anchor.yaml").write_text(yaml.safe_dump({"domain": "x"}))
    with pytest.raises(AnchorError) as refused:
        anchor_read(tmp_path)
    assert (
        "domain",
        "must be a lowercase name of 3 to 31 letters and digits (it becomes the replica's app label and folder)",
    ) in refused.value.errors


def test_compiling_is_pure_and_follows_the_anchor(anchor):
    spec = spec_compile(anchor, "0" * 64)
    files = replica_files(spec, bench_task="")
    assert files == replica_files(spec_compile(copy.deepcopy(anchor), "0" * 64), bench_task="")
    assert "class PurchaseRequest(WorldModel):" in files["models.py"]
    changed = copy.deepcopy(anchor)
    changed["brand"]["color"] = "#123456"
    assert "#123456" in replica_files(spec_compile(changed, "0" * 64), bench_task="")["static/procurement/brand.css"]


def test_the_tool_graph_weighs_required_inputs_3_optional_ones_2(anchor):
    optional = copy.deepcopy(anchor)
    # a purchase order's request made optional: listing requests becomes a weak (2) input of creating an order
    next(f for f in _entity(optional, "purchase_order")["fields"] if f["name"] == "request")["required"] = False
    edges = {(e["from"], e["to"]): e["weight"] for e in graph(spec_compile(optional, "0" * 64))["edges"]}
    assert edges[("list_vendor", "create_purchase_order")] == 3
    assert edges[("list_purchase_request", "create_purchase_order")] == 2
    # submitting moves a request into the state approving starts from
    assert edges[("submit_purchase_request", "approve_purchase_request")] == 3
    assert ("approve_purchase_request", "submit_purchase_request") not in edges
    assert graph(spec_compile(anchor, "0" * 64))["default_weight"] == 1


def test_a_date_after_another_and_a_count_of_weekdays_name_earlier_date_fields(anchor):
    """The seed draws fields in order: a date `after` another, or a count of `business_days` between two, reads date
    fields drawn before it."""
    good = copy.deepcopy(anchor)
    request = _entity(good, "purchase_request")
    fields = {f["name"]: f for f in request["fields"]}
    fields["needed_by"]["seed"] = {"days": [1, 5], "business": True}
    request["fields"].append({"name": "due_by", "type": "date", "seed": {"after": "needed_by", "days": [0, 9]}})
    request["fields"].append({"name": "span", "type": "integer", "seed": {"business_days": ["needed_by", "due_by"]}})
    assert anchor_errors(good) == []
    bad = copy.deepcopy(good)
    request = _entity(bad, "purchase_request")
    fields = {f["name"]: f for f in request["fields"]}
    fields["needed_by"]["seed"]["after"] = "due_by"  # drawn later
    fields["quantity"]["seed"] = {"business": True}
    fields["span"]["seed"]["business_days"] = ["needed_by", "title"]
    i, at = bad["entities"].index(request), request["fields"].index
    where = {name: f"entities[{i}].fields[{at(fields[name])}].seed" for name in ("needed_by", "quantity", "span")}
    assert set(anchor_errors(bad)) >= {
        (f"{where['needed_by']}.after", "'due_by' is not a date field declared before 'needed_by'"),
        (f"{where['quantity']}.business", "only a field of type date has it"),
        (f"{where['span']}.business_days[1]", "'title' is not a date field declared before 'span'"),
    }


def test_business_days_count_the_weekdays_of_a_range_both_ends_included():
    monday = datetime.date(2026, 9, 7)
    assert business_days(monday, monday) == 1
    assert business_days(monday, monday + datetime.timedelta(days=6)) == 5  # to Sunday
    assert business_days(monday + datetime.timedelta(days=5), monday + datetime.timedelta(days=6)) == 0  # a weekend
    assert business_days(datetime.date(2026, 9, 2), datetime.date(2026, 9, 30)) == 21  # TO-1001's range, once 5 days
    assert business_days(monday, monday - datetime.timedelta(days=1)) == 0
