"""End to end: the support desk task armed with api_timeout, played in Chromium by the engine.

The oracle retries the refund after the 504 and passes; the never-retry agent fails;
error_recovery tells them apart. Replaying the oracle gives the same trajectory and
the same final state.
"""

import shutil
from urllib.parse import urlsplit

import pytest

from catalogue.packs import pack_dir, task_current, task_sync
from episodes.driver import episode_play
from episodes.models import Step
from replicas.worlds.faults import recovery_outcomes
from tests.pictures import picture_difference

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TASK = pack_dir("supportdesk") / "refund-with-api-timeout.json"


def trajectory(episode, *, pages=False):
    return [
        (s.index, s.action, s.error, [(e["fault"], e["event"], e["route"], e["detail"]) for e in s.fault_events])
        + ((urlsplit(s.url)[2:4],) if pages else ())
        for s in Step.objects.filter(episode=episode).order_by("index")
    ]


def screenshots(episode) -> list[bytes]:
    return [
        s.screenshot.read() for s in Step.objects.filter(episode=episode).order_by("index").select_related("screenshot")
    ]


def test_the_oracle_recovers_from_the_api_timeout_and_a_never_retry_agent_does_not(tmp_path):
    shutil.copy(TASK, tmp_path / TASK.name)
    task_sync(replica="supportdesk", directory=tmp_path)
    task = task_current("supportdesk.refund-with-api-timeout")
    oracle = task.reference_solution
    [never_retry] = [ex["actions"] for ex in task.negative_examples if ex["name"].startswith("never retries")]

    first = episode_play(task_id=task.task_id, actions=oracle)
    again = episode_play(task_id=task.task_id, actions=oracle)
    careless = episode_play(task_id=task.task_id, actions=never_retry)

    assert first.rewards["task_completion"] == 1.0 and careless.rewards["task_completion"] == 0.0
    events = [e for _, _, _, evs in trajectory(first) for e in evs]
    assert [(fault, event) for fault, event, _, _ in events] == [("api_timeout", "fired"), ("api_timeout", "recovered")]
    assert [(fault, event) for _, _, _, evs in trajectory(careless) for fault, event, _, _ in evs] == [
        ("api_timeout", "fired")
    ]
    assert events[0][3]["processed"] is False  # the refund never reached the billing service
    judged = {
        name: recovery_outcomes([e for s in Step.objects.filter(episode=ep) for e in s.fault_events])[0]["recovered"]
        for name, ep in (("oracle", first), ("careless", careless))
    }
    assert judged == {"oracle": True, "careless": False}
    # same task, seed, faults and actions: the same trajectory, the same screens and the same final state
    assert trajectory(again, pages=True) == trajectory(first, pages=True)
    differences = {
        i: picture_difference(a, b) for i, (a, b) in enumerate(zip(screenshots(first), screenshots(again), strict=True))
    }
    assert not any(differences.values()), differences
    assert again.final_state.state_hash == first.final_state.state_hash

    # error_recovery tells them apart
    assert (first.rewards["error_recovery"], careless.rewards["error_recovery"]) == (1.0, 0.0)
