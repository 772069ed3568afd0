"""Fault specs: normalised with defaults, refused with an error naming the entry and the problem."""

import pytest

from replicas.worlds.faults import FaultSpecError, faults_for_world, validate_faults
from replicas.worlds.models import FaultProgress, World


def test_defaults_are_filled_in_and_request_triggers_count_on_the_fault_route():
    [spec] = validate_faults([{"name": "api_timeout", "params": {"route": "^/api/v2/billing/"}}])
    assert spec == {
        "name": "api_timeout",
        "params": {"route": "^/api/v2/billing/", "delay_ms": 1000, "status": 504, "times": 1, "processed": False},
        "trigger": {"requests": 1, "route": "^/api/v2/billing/"},
    }


def test_data_faults_applied_at_creation_have_no_trigger():
    [spec] = validate_faults([{"name": "legacy_format"}])
    assert spec == {"name": "legacy_format", "params": {"format": "us_short", "count": 5}, "trigger": None}


@pytest.mark.parametrize(
    "specs, message",
    [
        ({"name": "api_timeout"}, "faults: must be a list"),
        ([{"name": "api_timeot"}], "faults[0].name: unknown fault 'api_timeot' (known: ambiguous_field, api_timeout,"),
        (
            [{"name": "interstitial"}, {"name": "api_timeout", "params": {"delay_ms": 9000}}],
            "faults[1].params.delay_ms: 9000 is above the maximum 5000",
        ),
        (
            [{"name": "api_timeout", "params": {"delay": 10}}],
            "faults[0].params.delay: unknown parameter of api_timeout (allowed: delay_ms, processed, route, "
            "status, times)",
        ),
        ([{"name": "api_timeout", "params": {"status": 500}}], "faults[0].params.status: 500 is not one of 408, 504"),
        (
            [{"name": "server_error", "params": {"route": "(unclosed"}}],
            "faults[0].params.route: '(unclosed' is not a valid regular expression",
        ),
        ([{"name": "server_error", "params": {"times": "2"}}], "faults[0].params.times: must be an integer, not '2'"),
        (
            [{"name": "api_timeout", "params": {"processed": 1}}],
            "faults[0].params.processed: must be true or false, not 1",
        ),
        (
            [{"name": "server_error", "trigger": {"requests": 0}}],
            "faults[0].trigger.requests: 0 is below the minimum 1",
        ),
        (
            [{"name": "server_error", "trigger": {"step": 2, "requests": 1}}],
            "faults[0].trigger: give exactly one of requests, step, clock",
        ),
        (
            [{"name": "server_error", "trigger": {"step": 2, "route": "^/"}}],
            "faults[0].trigger.route: a route belongs to a requests trigger only",
        ),
        (
            [{"name": "session_expiry", "trigger": {"clock": "tomorrow"}}],
            "faults[0].trigger.clock: 'tomorrow' is neither an ISO time nor an offset",
        ),
        (
            [{"name": "session_expiry", "trigger": {"clock": "+900d"}}],
            "faults[0].trigger.clock: '+900d' is more than a year ahead",
        ),
        ([{"name": "session_expiry", "trigger": "step 3"}], "faults[0].trigger: must be an object"),
        (
            [{"name": "data_conflict", "trigger": {"step": 1}}],
            "faults[0].trigger: data_conflict is applied at world creation and takes no trigger",
        ),
        ([{"name": "layout_shift", "params": {"selector": "main; background:url(x)"}}], "faults[0].params.selector:"),
        ([{"name": "interstitial", "when": 3}], "faults[0].when: unknown key 'when' (allowed: name, params, trigger)"),
        ([["interstitial"]], "faults[0]: must be an object with a name"),
        ([{"name": "interstitial"}] * 21, "faults: at most 20 faults per world"),
    ],
)
def test_bad_specs_are_refused_with_the_entry_and_the_problem(specs, message):
    with pytest.raises(FaultSpecError) as caught:
        validate_faults(specs)
    assert str(caught.value).startswith(message)


def test_clock_triggers_take_iso_times_and_offsets():
    specs = validate_faults(
        [
            {"name": "interstitial", "trigger": {"clock": "2026-05-01T10:00:00+00:00"}},
            {"name": "interstitial", "trigger": {"clock": "+10m"}},
        ]
    )
    assert [s["trigger"] for s in specs] == [{"clock": "2026-05-01T10:00:00+00:00"}, {"clock": "+10m"}]


@pytest.mark.django_db
def test_a_bad_spec_creates_no_world(make_world):
    before = World.objects.count()
    with pytest.raises(FaultSpecError, match=r"faults\[0\]\.params\.times: 50 is above the maximum 20"):
        make_world(faults=[{"name": "server_error", "params": {"times": 50}}])
    assert World.objects.count() == before


@pytest.mark.django_db
def test_a_data_fault_naming_a_missing_record_creates_no_world(make_world):
    make_world()  # the template exists: only the clone could be left behind
    before = World.objects.count()
    with pytest.raises(FaultSpecError, match=r"faults\[0\]\.params: record: no suitable open note 999 in this world"):
        make_world(faults=[{"name": "stale_record", "params": {"record": 999}, "trigger": {"step": 1}}])
    assert World.objects.count() == before
    assert not FaultProgress.objects.exists()


def test_variant_faults_come_first_then_the_task_faults(monkeypatch):
    from replicas.worlds.registry import get_replica

    config = get_replica("testbed")
    monkeypatch.setitem(config.variants, "flaky", {"notes": 6, "faults": [{"name": "server_error"}]})
    armed = faults_for_world(replica="testbed", variant="flaky", faults=[{"name": "interstitial"}])
    assert [f["name"] for f in armed] == ["server_error", "interstitial"]
    with pytest.raises(FaultSpecError, match=r"^faults\[0\]\.name: unknown fault"):
        faults_for_world(replica="testbed", variant="flaky", faults=[{"name": "nope"}])
