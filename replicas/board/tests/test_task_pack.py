"""The issue board's task pack: it loads and validates, its answer keys agree with the seeded world,
doing nothing (and giving a wrong answer) fails every task without a browser, and in real browser
episodes every reference solution earns task_completion 1.0. `manage.py verify_tasks board` also
plays every negative example in the browser."""

import json
import re

import pytest

from catalogue.packs import load_pack, pack_dir
from replicas.board import workflow as W
from replicas.board.models import Component, Issue, Person, Sprint
from replicas.board.search import issues_search
from replicas.board.signin import person_authenticate
from replicas.board.tasks import params as P
from replicas.worlds.scoping import bound_world
from replicas.worlds.services import template_get_or_build
from replicas.worlds.snapshot import snapshot
from tests.pack_episodes import audit_holes, fault_fired, fires_in_episode, reference_play, shares, sync_tasks, why
from verifiers.engine import verify
from verifiers.inputs import VerifierInputs
from verifiers.placeholders import fill

PACK = pack_dir("board")
THEMES = {
    "triage",
    "workflow",
    "sprints",
    "planning",
    "duplicates",
    "jql",
    "bulk",
    "labels",
    "people",
    "drag-and-drop",
    "faults",
    "create",
    "reports",
}


@pytest.fixture(scope="module")
def pack(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        return load_pack("board")


def _inputs(task, messages=()):
    template = template_get_or_build(replica="board", seed=task.spec["seed"], variant=task.spec["variant"])
    state = snapshot(template)
    return VerifierInputs(
        initial=state,
        final=state,
        final_page={"url": task.spec["start_page"], "title": "", "html": ""},
        params=task.params,
        messages=list(messages),
        clock=template.clock.isoformat().replace("+00:00", "Z"),
        replica="board",
    )


@pytest.mark.django_db
def test_pack_covers_the_issues_themes_with_references_and_negatives(pack):
    assert len(pack) >= 25
    assert {t.spec["difficulty"] for t in pack} == {"easy", "medium", "hard"}
    assert THEMES <= {tag for t in pack for tag in t.spec["tags"]}
    for t in pack:
        assert t.spec["reference_solution"] and t.spec["negative_examples"], t.task_id
        assert any(a["kind"] == "diff" and a.get("only_allowed") for a in t.spec["verifier"]["assertions"]), t.task_id
    dragging = [t for t in pack if any(a.startswith("drag_and_drop(") for a in t.spec["reference_solution"])]
    assert len(dragging) >= 3
    assert {f["name"] for t in pack for f in t.spec["faults"]} == {
        "stale_record",
        "server_error",
        "session_expiry",
        "slow_response",
        "data_conflict",
    }
    suites = json.loads((PACK / "suites.json").read_text())
    assert {s for suite in suites.values() for s in suite["tasks"]} == {t.spec["slug"] for t in pack}


@pytest.mark.django_db
def test_every_task_signs_in_with_the_credentials_its_instruction_gives(pack):
    for t in pack:
        template = template_get_or_build(replica="board", seed=t.spec["seed"], variant=t.spec["variant"])
        with bound_world(template):
            assert (
                person_authenticate(world=template, email=t.params["email"], password=t.params["password"]) is not None
            ), t.task_id
        assert "{email}" in t.spec["instruction"] and "{password}" in t.spec["instruction"]


@pytest.mark.django_db
def test_doing_nothing_and_wrong_answers_fail_every_task(pack):
    """Judged without a browser: an untouched world, and the answers of the negative examples that only answer."""
    for t in pack:
        assert not verify(t.spec["verifier"], _inputs(t)).passed, t.task_id
        for example in t.spec["negative_examples"]:
            own = example["actions"][3:]  # after signing in
            if own and all(a.startswith("send_msg_to_user(") for a in own):
                said = [re.fullmatch(r'send_msg_to_user\("(.*)"\)', fill(a, t.params)).group(1) for a in own]
                assert not verify(t.spec["verifier"], _inputs(t, said)).passed, (t.task_id, example["name"])
        if any(a["kind"] == "answer" for a in t.spec["verifier"]["assertions"]):
            right = str(t.params["count"])
            assert verify(t.spec["verifier"], _inputs(t, [right])).passed, t.task_id


@pytest.fixture
def small(db):
    world = template_get_or_build(replica="board", seed=7, variant="small")
    with bound_world(world):
        yield world


def test_triage_keys_follow_the_contributing_page(small):
    for fn in (P.triage_crash_bug, P.triage_customer_bug):
        key = fn(small)
        bug = Issue.objects.get(key=key["key"])
        page = bug.project.contributing
        lead = Component.objects.get(project=bug.project, name=key["component"]).lead
        assert f"- {key['component']}: {lead.name}" in page and key["lead"] == lead.username
        assert bug.summary.startswith(f"[{key['component']}]") and "needs-triage" in bug.labels
        assert "needs-triage" not in key["labels_after"] and key["project_lead"] != key["lead"]
    assert P.triage_customer_bug(small)["priority"] == "High"


def test_capacity_key_skips_what_does_not_fit_and_keeps_going(small):
    key = P.plan_to_capacity(small)
    sprint = Sprint.objects.get(public_id=key["sprint"])
    added = [Issue.objects.get(key=k) for k in key["added"]]
    skipped = Issue.objects.get(key=key["skipped"])
    assert key["points_before"] == sum(i.story_points or 0 for i in sprint.issues.all())
    assert key["points_before"] + sum(i.story_points for i in added) == key["total"] <= key["capacity"]
    assert key["total"] + skipped.story_points > key["capacity"] and added[0].rank < skipped.rank < added[1].rank


def test_bulk_keys_name_exactly_the_drifted_and_departed_issues(small):
    labels = P.drifted_labels(small)
    drifted = {i.key for i in Issue.objects.filter(project__key="AGENT") if set(i.labels) & {"Frontend", "front-end"}}
    assert set(labels["keys"]) == drifted
    assert all("frontend" in v and not set(v) & {"Frontend", "front-end"} for v in labels["expected"].values())
    gone = P.departed_assignee(small)
    person = Person.objects.get(username=gone["gone"])
    assert not person.active and gone["elsewhere"] > 0
    assert set(gone["keys"]) == set(
        Issue.objects.filter(project__key="AGENT", assignee=person).exclude(status=W.DONE).values_list("key", flat=True)
    )


def test_the_blockers_answer_counts_blocks_links_not_priority(small):
    key = P.open_blockers_in_sprint(small)
    sprint = Sprint.objects.get(project__key="AGENT", state="active")
    assert sprint.name == key["sprint_name"] and key["count"] == len(key["keys"]) > 0
    for issue in Issue.objects.filter(key__in=key["keys"]):
        assert (
            issue.sprint_id == sprint.id
            and issue.status != W.DONE
            and issue.outward_links.filter(kind="blocks").exists()
        )
    admin = Person.objects.filter(active=True, is_admin=True).order_by("public_id").first()
    found, total = issues_search(
        query=f'sprint = "{sprint.name}" AND issueLinkType = blocks AND status != Done', person=admin
    )
    assert total == key["count"] and sorted(i.key for i in found) == key["keys"]
    assert key["count"] not in (key["by_priority"], key["any_side"])


def test_the_lost_steps_key_names_a_bug_whose_steps_the_fault_moves_into_a_comment(small):
    key = P.bug_with_lost_steps(small)
    bug = Issue.objects.get(key=key["key"])
    assert bug.issue_type == "bug" and bug.status == W.TODO and re.search(key["fragment"], bug.steps_to_reproduce)
    assert re.search(key["fragment"], key["steps_line"]) and not re.search(key["fragment"], key["own_steps"])


def test_a_world_without_candidates_fails_loudly(small):
    Issue.objects.filter(labels__icontains="needs-triage").update(labels=[])
    with pytest.raises(P.NoCandidate):
        P.triage_customer_bug(small)


# browser tests, each playing a share of the pack of about equal cost; on PostgreSQL, a sample that holds
# every assertion kind of the pack (see tests/pack_episodes.py)
SHARES = shares("board")


@pytest.mark.browser
@pytest.mark.parametrize("index", range(len(SHARES)))
def test_every_reference_solution_passes_in_a_real_browser(transactional_db, tmp_path, index):
    failures = []
    for task in sync_tasks("board", SHARES[index], tmp_path / "tasks"):
        done = reference_play(task)
        rewards = done.rewards or {}
        if rewards.get("task_completion") != 1.0 or rewards.get("collateral") != 1.0:
            failures.append(f"{task.task_id}: {why(done)}")
        elif fires_in_episode(task) and not fault_fired(done):
            failures.append(f"{task.task_id}: the armed fault never fired")
        else:
            failures += audit_holes(task, done)
    assert not failures, "\n".join(failures)
