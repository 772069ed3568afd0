"""The support desk fault suite: eight tasks, each armed with a different fault of the library;
the ambiguous_field fault relabels the refund-type options of its ticket; and in a run report
error_recovery tells an agent that recovers (the oracle) from one that does not."""

import json

import pytest
from replicagym.reports.report import run_report

from catalogue.packs import pack_dir, task_current, task_sync
from episodes.driver import episode_play
from episodes.queue.local_workers import run_one
from episodes.runs import run_create, run_episodes_create
from episodes.trajectory import FORMAT, VERSION
from replicas.supportdesk.models import Ticket
from replicas.worlds.faults import LIBRARY, world_data_fault
from replicas.worlds.scoping import bound_world

SUITE = "supportdesk-faults"
REQUIRED = {
    "session_expiry",
    "interstitial",
    "server_error",
    "layout_shift",
    "slow_response",
    "data_conflict",
    "stale_record",
    "ambiguous_field",
}


def fault_tasks() -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(pack_dir("supportdesk").glob("fault-*.json"))}


def test_eight_tasks_each_arm_a_different_fault_of_the_library_and_the_suite_holds_them():
    tasks = fault_tasks()
    armed = {slug: [f["name"] for f in spec["faults"]] for slug, spec in tasks.items()}
    assert all(len(names) == 1 for names in armed.values()), armed
    names = [n for [n] in armed.values()]
    assert len(names) == len(set(names)) >= 8 and set(names) >= REQUIRED and set(names) <= set(LIBRARY)
    suites = json.loads((pack_dir("supportdesk") / "suites.json").read_text())
    assert set(tasks) <= set(suites[SUITE]["tasks"])
    for spec in tasks.values():
        assert spec["reference_solution"] and len(spec["negative_examples"]) >= 2


@pytest.mark.django_db
def test_the_ambiguous_field_shows_bare_labels_on_its_ticket_only(make_world, world_client):
    plain = make_world(replica="supportdesk")
    with bound_world(plain):
        first, other = Ticket.objects.filter(status__in=("new", "open"), refund_type="").order_by("public_id")[:2]
    world = make_world(
        replica="supportdesk", faults=[{"name": "ambiguous_field", "params": {"record": first.public_id}}]
    )
    assert world_data_fault(world, "ambiguous_field")["record"] == first.public_id
    client = world_client(world)
    page = client.get(f"/agent/tickets/{first.public_id}").content.decode()
    assert '<option value="partial">Partial</option>' in page and '<option value="prorated">Prorated</option>' in page
    elsewhere = client.get(f"/agent/tickets/{other.public_id}").content.decode()
    assert '<option value="partial">Partial refund</option>' in elsewhere
    unfaulted = world_client(plain).get(f"/agent/tickets/{first.public_id}").content.decode()
    assert '<option value="prorated">Prorated refund</option>' in unfaulted


def replay_file(tmp_path, name: str, actions: list[str]) -> str:
    path = tmp_path / f"{name}.jsonl"
    lines = [{"format": FORMAT, "version": VERSION}] + [{"index": i, "action": a} for i, a in enumerate(actions)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return str(path)


def run_and_report(*, agent: str, task_filter: str) -> dict:
    run = run_create(suite=SUITE, task_filter=task_filter, agent=agent)
    for episode in run_episodes_create(run_id=run.pk, enqueue=False):
        run_one(episode.pk)
    return run_report(run=run)["tasks"]


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_error_recovery_in_a_run_report_tells_the_oracle_from_agents_that_do_not_recover(tmp_path):
    task_sync(replica="supportdesk")
    session, server = "supportdesk.fault-session-expiry-escalate", "supportdesk.fault-server-error-take-ticket"
    oracle = run_and_report(agent="oracle", task_filter="supportdesk.fault-se*")
    assert set(oracle) == {session, server}
    careless = {}
    for task_id, negative in ((session, "never signs in again"), (server, "never retries")):
        task = task_current(task_id)
        [actions] = [n["actions"] for n in task.negative_examples if n["name"].startswith(negative)]
        careless |= run_and_report(agent=f"replay:{replay_file(tmp_path, task_id, actions)}", task_filter=task_id)
    for task_id in (session, server):
        assert oracle[task_id]["passes"] == 1 and oracle[task_id]["rewards"]["error_recovery"] == 1.0
        assert careless[task_id]["passes"] == 0 and careless[task_id]["rewards"]["error_recovery"] == 0.0

    # a modal that is never dismissed: clicks under it never land, the task fails, nothing recovered
    task = task_current("supportdesk.fault-interstitial-add-tag")
    dismissed = episode_play(task_id=task.task_id, actions=task.reference_solution)
    [ignored_actions] = [n["actions"] for n in task.negative_examples if n["name"].startswith("works under the survey")]
    ignored = episode_play(task_id=task.task_id, actions=ignored_actions)
    assert (dismissed.rewards["error_recovery"], ignored.rewards["error_recovery"]) == (1.0, 0.0)
    assert any(e["event"] == "recovered" for s in dismissed.steps.all() for e in s.fault_events)
