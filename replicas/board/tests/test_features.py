"""The board's kanban board, swimlanes, issue side panel, @mentions, attachments, watchers, custom
fields (in the issue view and in JQL), saved filters and "assign to me", through Django's test client."""

import re
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape

from replicas.board import jql
from replicas.board import workflow as W
from replicas.board.models import (
    Attachment,
    Change,
    Comment,
    CustomField,
    FieldValue,
    Filter,
    Issue,
    Mention,
    Person,
    Project,
    Sprint,
)
from replicas.board.search import issues_search
from replicas.board.seed import LEGACY_OPTIONS
from replicas.board.signin import person_password
from replicas.board.templatetags.board_tags import render_rich_text
from replicas.worlds import clock
from replicas.worlds.faults.data import apply_data_fault
from replicas.worlds.scoping import bound_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def board_world(make_world):
    return make_world(replica="board", seed=7, variant="small")


@pytest.fixture
def client_in(board_world, world_client):
    client = world_client(board_world)
    with bound_world(board_world):
        client.me = Person.objects.filter(active=True, is_admin=True).order_by("public_id").first()
    return client


def _get(world, model, **filters):
    with bound_world(world):
        return model.objects.filter(**filters).order_by("pk").first()


# --- kanban and swimlanes -------------------------------------------------------------------------


def test_kanban_board_shows_open_work_and_recent_done_with_wip_limits(client_in, board_world):
    page = client_in.get("/projects/OPS/board").content.decode()
    with bound_world(board_world):
        ops = Project.objects.get(key="OPS")
        assert ops.board_type == "kanban" and not Sprint.objects.filter(project=ops).exists()
        since = clock.now() - timedelta(days=14)
        issues = Issue.objects.filter(project=ops).exclude(issue_type="epic")
        shown = [i.key for i in issues if i.status != W.DONE or i.resolved_at >= since]
        hidden = [i.key for i in issues if i.status == W.DONE and i.resolved_at < since]
        in_progress = issues.filter(status=W.IN_PROGRESS).count()
    assert "Kanban" in page and "Complete sprint" not in page and "Backlog</a>" not in page
    assert (
        hidden and all(f'data-key="{k}"' in page for k in shown) and not any(f'data-key="{k}"' in page for k in hidden)
    )
    assert in_progress == 4 and "Max 4" in page and "column--over" not in page
    # one more card in progress puts the column over its limit: shown, not refused (as the product does)
    todo = _get(board_world, Issue, project__key="OPS", status=W.TODO, issue_type="task")
    assert client_in.post(f"/browse/{todo.key}/transition", {"status": W.IN_PROGRESS}).status_code == 302
    assert "column--over" in client_in.get("/projects/OPS/board").content.decode()


def test_the_kanban_board_follows_the_operations_workflow(client_in, board_world, world_client):
    """OPS has Waiting for support and no In Review: its columns, its "Move to..." menus and its
    transitions follow its own workflow, while AGENT's keep In Review."""
    page = client_in.get("/projects/OPS/board").content.decode()
    assert 'data-drop-status="Waiting for support"' in page and 'data-drop-status="In Review"' not in page
    assert "Move to Waiting for support" in page and "Move to In Review" not in page
    agent = client_in.get("/projects/AGENT/board").content.decode()
    assert "Move to In Review" in agent and "Waiting for support" not in agent
    with bound_world(board_world):
        card = (
            Issue.objects.filter(project__key="OPS", status=W.IN_PROGRESS)
            .exclude(issue_type="epic")
            .order_by("number")
            .first()
        )
    view = client_in.get(f"/browse/{card.key}").content.decode()
    assert ">Waiting for support</button>" in view and ">In Review</button>" not in view
    refused = client_in.post(
        f"/browse/{card.key}/transition", {"status": W.IN_REVIEW, "seen": card.status}, HTTP_ACCEPT="application/json"
    )
    assert refused.status_code == 400 and "'In Review' is not a status of this workflow" in refused.json()["error"]
    assert client_in.get(f"/browse/{card.key}/transition?status=In%20Review").status_code == 404
    if card.assignee_id != client_in.me.id:  # the condition: only the assignee hands an issue to support
        held = client_in.post(
            f"/browse/{card.key}/transition", {"status": W.WAITING, "seen": card.status}, HTTP_ACCEPT="application/json"
        )
        assert held.status_code == 400 and "only the assignee" in held.json()["error"]
    with bound_world(board_world):
        assert Issue.objects.get(key=card.key).status == W.IN_PROGRESS
        owner = card.assignee
    assignee = world_client(board_world, signed_in=False)
    signed_in = assignee.post(
        "/login", {"email": owner.email, "password": person_password(seed=board_world.seed, username=owner.username)}
    )
    assert signed_in.status_code == 302
    ok = assignee.post(
        f"/browse/{card.key}/transition", {"status": W.WAITING, "seen": card.status}, HTTP_ACCEPT="application/json"
    )
    assert ok.status_code == 200 and ok.json()["ok"]
    with bound_world(board_world):
        assert Issue.objects.get(key=card.key).status == W.WAITING


def test_bulk_change_transitions_each_issue_through_its_own_projects_workflow(client_in, board_world):
    with bound_world(board_world):
        agent = (
            Issue.objects.filter(project__key="AGENT", status=W.TODO, issue_type__in=("story", "task"))
            .order_by("number")
            .first()
        )
        ops = Issue.objects.filter(project__key="OPS", status=W.TODO, issue_type="task").order_by("number").first()
    search = client_in.get("/issues?jql=project%20%3D%20OPS").content.decode()
    assert 'id="id_status"' in search and '<option value="Waiting for support">' in search
    keys = [agent.key, ops.key]

    def bulk(**values):
        answer = client_in.post("/issues/bulk", {"keys": keys, "jql": "project = AGENT", **values})
        assert answer.status_code == 302
        return client_in.get(answer["Location"]).content.decode()

    def statuses():
        with bound_world(board_world):
            return [Issue.objects.get(key=k).status for k in keys]

    # AGENT's software workflow has no Waiting for support: the whole change is refused, nothing moves
    page = bulk(status=W.WAITING)
    assert (
        escape(
            f"{agent.key} (Software workflow): 'Waiting for support' is not a status of this workflow. No "
            "issue was changed."
        )
        in page
    )
    assert statuses() == [W.TODO, W.TODO]
    page = bulk(status=W.DONE)
    assert "without a resolution" in page and statuses() == [W.TODO, W.TODO]
    assert "Bulk change complete: 2 of 2 work items changed." in bulk(status=W.IN_PROGRESS)
    assert statuses() == [W.IN_PROGRESS, W.IN_PROGRESS]
    assert "Bulk change complete: 2 of 2 work items changed." in bulk(status=W.DONE, resolution="Won't Do")
    with bound_world(board_world):
        assert [(i.status, i.resolution) for i in Issue.objects.filter(key__in=keys)] == [(W.DONE, "Won't Do")] * 2
        assert Change.objects.filter(issue__key=ops.key, field="status", to_value=W.DONE).exists()


def test_the_data_conflict_fault_makes_the_validator_refuse_until_the_steps_are_back(client_in, board_world):
    with bound_world(board_world):
        bug = (
            Issue.objects.filter(project__key="AGENT", issue_type="bug", status=W.TODO, parent__isnull=True)
            .exclude(steps_to_reproduce="")
            .order_by("number")
            .first()
        )
        steps = bug.steps_to_reproduce
        detail = apply_data_fault(board_world, 0, {"name": "data_conflict", "params": {"record": bug.key}})
        assert detail["changed"] == {"steps_to_reproduce": [steps, ""]}
        assert Issue.objects.get(key=bug.key).steps_to_reproduce == ""
        assert steps in Comment.objects.get(public_id=detail["comment"]).body
    page = client_in.get(f"/browse/{bug.key}").content.decode()
    assert escape(steps.splitlines()[1]) in page
    refused = client_in.post(
        f"/browse/{bug.key}/transition", {"status": W.IN_PROGRESS, "seen": W.TODO}, HTTP_ACCEPT="application/json"
    )
    assert refused.status_code == 400 and "needs Steps to reproduce" in refused.json()["error"]
    with bound_world(board_world):
        Issue.objects.filter(key=bug.key).update(steps_to_reproduce=steps)
    ok = client_in.post(
        f"/browse/{bug.key}/transition", {"status": W.IN_PROGRESS, "seen": W.TODO}, HTTP_ACCEPT="application/json"
    )
    assert ok.status_code == 200
    with bound_world(board_world):
        assert Issue.objects.get(key=bug.key).status == W.IN_PROGRESS


def test_group_by_is_kept_with_the_board_and_lanes_follow_it(client_in, board_world):
    with bound_world(board_world):
        sprint = Sprint.objects.get(project__key="AGENT", state="active")
        cards = list(sprint.issues.exclude(issue_type="epic").select_related("epic", "assignee"))
    assert client_in.post("/projects/AGENT/board/group", {"swimlanes": "epic"}).status_code == 302
    page = client_in.get("/projects/AGENT/board").content.decode()
    assert _get(board_world, Project, key="AGENT").swimlanes == "epic"
    for epic in {c.epic.key for c in cards if c.epic_id}:
        assert f'data-lane="{epic}"' in page
    assert ("Issues without epic" in page) == any(not c.epic_id for c in cards)
    client_in.post("/projects/AGENT/board/group", {"swimlanes": "assignee"})
    page = client_in.get("/projects/AGENT/board").content.decode()
    assert all(f'data-lane="{c.assignee.username}"' in page for c in cards if c.assignee)
    bad = client_in.post("/projects/AGENT/board/group", {"swimlanes": "sprint"})
    assert bad.status_code == 302 and _get(board_world, Project, key="AGENT").swimlanes == "assignee"
    assert "Swimlanes can be grouped by" in client_in.get("/projects/AGENT/board").content.decode()


def test_dropping_a_card_into_another_lane_changes_its_epic_or_assignee(client_in, board_world):
    with bound_world(board_world):
        card = (
            Issue.objects.filter(sprint__state="active", project__key="AGENT", epic__isnull=False)
            .order_by("number")
            .first()
        )
        other = (
            Issue.objects.filter(project__key="AGENT", issue_type="epic")
            .exclude(pk=card.epic_id)
            .order_by("number")
            .first()
        )
        member = Person.objects.filter(active=True).exclude(pk=card.assignee_id).order_by("public_id").first()
        gone = Person.objects.filter(active=False).first()
    ok = client_in.post(f"/browse/{card.key}/lane", {"by": "epic", "value": other.key}, HTTP_ACCEPT="application/json")
    assert ok.json()["ok"]
    client_in.post(
        f"/browse/{card.key}/lane", {"by": "assignee", "value": member.username}, HTTP_ACCEPT="application/json"
    )
    for bad in (
        {"by": "epic", "value": card.key},
        {"by": "assignee", "value": gone.username},
        {"by": "sprint", "value": "1"},
    ):
        answer = client_in.post(f"/browse/{card.key}/lane", bad, HTTP_ACCEPT="application/json")
        assert answer.status_code == 400 and answer.json()["error"]
    moved = _get(board_world, Issue, key=card.key)
    assert moved.epic_id == other.id and moved.assignee_id == member.id and moved.status == card.status
    with bound_world(board_world):
        assert {"epic", "assignee"} <= set(
            Change.objects.filter(issue=moved, created_at__gte=moved.updated_at).values_list("field", flat=True)
        )


def test_toolbar_filters_by_assignee_avatar_epic_and_type_and_keeps_the_others(client_in, board_world):
    with bound_world(board_world):
        sprint = Sprint.objects.get(project__key="AGENT", state="active")
        cards = list(sprint.issues.exclude(issue_type="epic").select_related("assignee", "epic"))
    person = min((i.assignee for i in cards if i.assignee_id), key=lambda p: p.name)  # the first avatar shown
    epic = next(i.epic for i in cards if i.epic_id)
    bugs = {i.key for i in cards if i.issue_type == "bug"}

    def keys(query):
        page = client_in.get(f"/projects/AGENT/board?{query}").content.decode()
        return set(re.findall(r'<li class="card[^"]*" data-key="([A-Z]+-\d+)"', page)), page

    shown, page = keys(f"assignee={person.username}")
    assert shown == {i.key for i in cards if i.assignee_id == person.id}
    assert f'aria-pressed="true" aria-label="Only {person.name}\'s work items"' in page
    shown, page = keys(f"assignee={person.username}&type=bug")
    assert shown == {i.key for i in cards if i.assignee_id == person.id and i.issue_type == "bug"}
    # each entry toggles itself and keeps the rest; the search box carries the others as hidden fields
    assert f'href="?assignee={person.username}"' in page and 'href="?type=bug"' in page
    assert f'<input type="hidden" name="assignee" value="{person.username}">' in page
    shown, page = keys(f"epic={epic.key}&type=bug&type=story")
    assert shown == {i.key for i in cards if i.epic_id == epic.id and i.issue_type in ("bug", "story")}
    assert '<span class="badge">2</span>' in page and bugs
    # values the board does not hold are ignored, as a stale address is
    assert keys("assignee=nobody&epic=AGENT-99999&type=saga")[0] == {i.key for i in cards}


def test_quick_filters_keep_each_other(client_in, board_world):
    page = client_in.get("/projects/AGENT/board?filter=mine").content.decode()
    assert 'href="?filter=mine&amp;recent=1"' in page and 'href="?"' in page
    with bound_world(board_world):
        sprint = Sprint.objects.get(project__key="AGENT", state="active")
        fresh = [
            i.key for i in sprint.issues.exclude(issue_type="epic") if i.updated_at >= clock.now() - timedelta(hours=24)
        ]
        old = [i.key for i in sprint.issues.exclude(issue_type="epic") if i.key not in fresh]
    page = client_in.get("/projects/AGENT/board?recent=1").content.decode()
    assert old and all(f'data-key="{k}"' not in page for k in old) and all(f'data-key="{k}"' in page for k in fresh)


# --- the issue side panel ----------------------------------------------------------------------------


def test_a_card_opens_the_issue_in_a_side_panel_whose_forms_return_to_the_board(client_in, board_world):
    with bound_world(board_world):
        card = (
            Issue.objects.filter(sprint__state="active", project__key="AGENT", issue_type="story")
            .order_by("number")
            .first()
        )
    board = client_in.get(f"/projects/AGENT/board?text={card.key}").content.decode()
    assert f'href="?text={card.key}&amp;selectedIssue={card.key}"' in board
    page = client_in.get(f"/projects/AGENT/board?text={card.key}&selectedIssue={card.key}").content.decode()
    assert (
        f'aria-label="Work item {card.key}"' in page
        and 'id="id_summary"' in page
        and f'href="/browse/{card.key}"' in page
    )
    back = f"/projects/AGENT/board?text={card.key}&amp;selectedIssue={card.key}"
    assert f'name="next" value="{back}"' in page
    saved = client_in.post(
        f"/browse/{card.key}/comment", {"body": "From the panel", "next": back.replace("&amp;", "&")}
    )
    assert saved["Location"] == f"/projects/AGENT/board?text={card.key}&selectedIssue={card.key}#comments"
    missing = client_in.get("/projects/AGENT/board?selectedIssue=AGENT-9999")
    assert missing.status_code == 200 and "Work item AGENT-9999 does not exist" in missing.content.decode()
    assert client_in.get(f"/browse/{card.key}").status_code == 200  # the full page still exists


# --- ranking without a drag: the "Move to" menus -----------------------------------------------------------


def _column(world, sprint_state="active", project="AGENT", status=W.TODO):
    with bound_world(world):
        return list(
            Issue.objects.filter(project__key=project, sprint__state=sprint_state, status=status)
            .exclude(issue_type="epic")
            .order_by("rank", "key")
        )


def test_top_and_bottom_of_column_rank_a_card_without_dragging_it(client_in, board_world):
    cards = _column(board_world)
    assert len(cards) >= 3
    last, first = cards[-1], cards[0]
    page = client_in.get("/projects/AGENT/board").content.decode()
    assert page.count(">Top of column</button>") == page.count('class="card"') + page.count('class="card ') > 0
    moved = client_in.post(
        f"/browse/{last.key}/rank", {"position": "top", "scope": "column", "next": "/projects/AGENT/board"}
    )
    assert moved.status_code == 302 and moved["Location"] == "/projects/AGENT/board"
    assert [c.key for c in _column(board_world)] == [last.key] + [c.key for c in cards[:-1]]
    with bound_world(board_world):
        assert Change.objects.filter(issue__key=last.key, field="Rank", to_value="Ranked higher").exists()
    down = client_in.post(
        f"/browse/{first.key}/rank", {"position": "bottom", "scope": "column"}, HTTP_ACCEPT="application/json"
    )
    assert down.json() == {"ok": True, "error": "", "reload": False}
    assert _column(board_world)[-1].key == first.key
    # the other columns are left as they were
    assert all(c.status == W.TODO for c in _column(board_world))
    # a kanban board has no sprints: its column is all the project's cards of that status
    with bound_world(board_world):
        kanban = list(
            Issue.objects.filter(project__key="OPS", status=W.TODO).exclude(issue_type="epic").order_by("rank", "key")
        )
    assert client_in.post(f"/browse/{kanban[-1].key}/rank", {"position": "top", "scope": "column"}).status_code == 302
    with bound_world(board_world):
        assert (
            Issue.objects.filter(project__key="OPS", status=W.TODO)
            .exclude(issue_type="epic")
            .order_by("rank", "key")[0]
            .key
            == kanban[-1].key
        )


def test_the_rank_menu_refuses_what_it_cannot_do_with_a_message(client_in, board_world):
    cards = _column(board_world)
    again = client_in.post(
        f"/browse/{cards[0].key}/rank", {"position": "top", "scope": "column"}, HTTP_ACCEPT="application/json"
    )
    assert (
        again.status_code == 400
        and again.json()["error"] == f"{cards[0].key} is already at the top of the To Do column."
    )
    bad = client_in.post(
        f"/browse/{cards[1].key}/rank", {"position": "middle", "scope": "column"}, HTTP_ACCEPT="application/json"
    )
    assert bad.status_code == 400 and "top or to the bottom" in bad.json()["error"]
    where = client_in.post(
        f"/browse/{cards[1].key}/rank", {"position": "top", "scope": "sprint"}, HTTP_ACCEPT="application/json"
    )
    assert where.status_code == 400 and "board column or a backlog section" in where.json()["error"]
    with bound_world(board_world):
        off_board = (
            Issue.objects.filter(project__key="AGENT", sprint__isnull=True)
            .exclude(issue_type__in=("epic", "subtask"))
            .first()
        )
        epic = Issue.objects.filter(project__key="AGENT", issue_type="epic").first()
        subtask = Issue.objects.filter(project__key="AGENT", parent__isnull=False).select_related("parent").first()
    refused = client_in.post(
        f"/browse/{off_board.key}/rank", {"position": "top", "scope": "column", "next": "/projects/AGENT/board"}
    )
    assert refused.status_code == 302
    assert f"{off_board.key} is not on the AGENT board" in client_in.get("/projects/AGENT/board").content.decode()
    answer = client_in.post(
        f"/browse/{epic.key}/rank", {"position": "top", "scope": "backlog"}, HTTP_ACCEPT="application/json"
    )
    assert answer.status_code == 400 and answer.json()["error"] == "Epics are not ranked on the board or the backlog."
    answer = client_in.post(
        f"/browse/{subtask.key}/rank", {"position": "top", "scope": "backlog"}, HTTP_ACCEPT="application/json"
    )
    assert (
        answer.status_code == 400
        and answer.json()["error"] == f"{subtask.key} is a sub-task: it moves with {subtask.parent.key} in the backlog."
    )
    assert [c.key for c in _column(board_world)] == [c.key for c in cards]


def test_top_and_bottom_of_backlog_and_sprint_rank_rows_within_their_section(client_in, board_world):
    def section(**where):
        with bound_world(board_world):
            return list(
                Issue.objects.filter(project__key="AGENT", **where)
                .exclude(issue_type__in=("epic", "subtask"))
                .order_by("rank", "key")
            )

    backlog = [i for i in section(sprint__isnull=True) if i.status != W.DONE]
    page = client_in.get("/projects/AGENT/backlog").content.decode()
    assert (
        f'aria-label="Actions for {backlog[-1].key}"' in page
        and ">Top of backlog</button>" in page
        and ">Top of sprint</button>" in page
    )
    assert client_in.post(f"/browse/{backlog[-1].key}/rank", {"position": "top", "scope": "backlog"}).status_code == 302
    assert [i for i in section(sprint__isnull=True) if i.status != W.DONE][0].key == backlog[-1].key
    sprint_rows = section(sprint__state="active")
    answer = client_in.post(
        f"/browse/{sprint_rows[0].key}/rank", {"position": "bottom", "scope": "backlog"}, HTTP_ACCEPT="application/json"
    )
    assert answer.json()["ok"]
    after = section(sprint__state="active")
    assert after[-1].key == sprint_rows[0].key and after[-1].sprint_id == sprint_rows[0].sprint_id
    with bound_world(board_world):
        closed = (
            Issue.objects.filter(project__key="AGENT", sprint__state="closed")
            .exclude(issue_type__in=("epic", "subtask"))
            .first()
        )
    shut = client_in.post(
        f"/browse/{closed.key}/rank", {"position": "top", "scope": "backlog"}, HTTP_ACCEPT="application/json"
    )
    assert shut.status_code == 400 and "is closed: its work items can't be ranked" in shut.json()["error"]


def test_the_create_screen_sets_the_products_fields_and_checks_each_one(client_in, board_world):
    with bound_world(board_world):
        project = Project.objects.get(key="AGENT")
        sprint = Sprint.objects.filter(project=project, state="future").order_by("number").first()
        closed = Sprint.objects.filter(project=project, state="closed").first()
        epic = Issue.objects.filter(project=project, issue_type="epic").order_by("number").first()
        story = Issue.objects.filter(project=project, issue_type="story").order_by("number").first()
        member = Person.objects.filter(active=True).exclude(pk=client_in.me.pk).order_by("public_id").first()
        gone = Person.objects.filter(active=False).first()
        components = sorted(project.components.values_list("name", flat=True))[:2]
        version = project.versions.order_by("name").first().name
        top = Issue.objects.filter(project=project).order_by("-number").first().number
    page = client_in.get("/projects/AGENT/issues/new").content.decode()
    for field in ("id_assignee", "id_story_points", "id_sprint", "id_due_date", "id_epic", "id_steps_to_reproduce"):
        assert f'id="{field}"' in page
    assert '<legend class="field__label">Components</legend>' in page
    good = {
        "issue_type": "bug",
        "summary": "Card flickers on drop",
        "description": "h3. Seen\r\n* on *Chrome*",
        "priority": "High",
        "steps_to_reproduce": "1. Drag\r\n2. Drop",
        "assignee": member.username,
        "labels": "frontend ux",
        "components": components[::-1],
        "fix_versions": [version],
        "story_points": "3",
        "sprint": str(sprint.public_id),
        "due_date": "2031-01-15",
        "epic": epic.key.lower(),
    }
    bad_cases = [
        ({"summary": ""}, "This field is required."),
        ({"assignee": gone.username}, "Choose someone on the team"),
        ({"sprint": str(closed.public_id)}, "Choose an open sprint of this project"),
        ({"epic": story.key}, f"{story.key} is not an epic of AGENT."),
        ({"epic": "WEB-1"}, "WEB-1 is not an epic of AGENT."),
        ({"story_points": "101"}, "Ensure this value is less than or equal to 100."),
        ({"due_date": "15/01/2031x"}, "Enter a valid date."),
        ({"components": ["Nope"]}, "Select a valid choice."),
        ({"labels": "a" * 51}, "is not a valid label"),
        ({"issue_type": "epic", "steps_to_reproduce": ""}, "An epic can't belong to another epic."),
        ({"issue_type": "task"}, "Only a bug has steps to reproduce."),
    ]
    for change, message in bad_cases:
        answer = client_in.post("/projects/AGENT/issues/new", {**good, **change})
        assert answer.status_code == 400 and escape(message) in answer.content.decode(), message
    epic_in_sprint = client_in.post(
        "/projects/AGENT/issues/new", {**good, "issue_type": "epic", "epic": "", "steps_to_reproduce": ""}
    )
    assert epic_in_sprint.status_code == 400 and "Epics are not planned into sprints" in epic_in_sprint.content.decode()
    assert _get(board_world, Issue, project__key="AGENT", number=top + 1) is None
    made = client_in.post("/projects/AGENT/issues/new", good)
    key = f"AGENT-{top + 1}"
    assert made.status_code == 302 and made["Location"] == f"/browse/{key}"
    with bound_world(board_world):
        issue = Issue.objects.select_related("assignee", "sprint", "epic", "reporter").get(key=key)
        assert (issue.issue_type, issue.summary, issue.priority, issue.status, issue.assignee, issue.reporter_id) == (
            "bug",
            "Card flickers on drop",
            "High",
            W.TODO,
            member,
            client_in.me.id,
        )
        assert (issue.labels, issue.components, issue.fix_versions, issue.story_points) == (
            ["frontend", "ux"],
            components,
            [version],
            3,
        )
        assert (issue.sprint, issue.epic, issue.due_date.isoformat()) == (sprint, epic, "2031-01-15")
        assert (issue.description, issue.steps_to_reproduce) == ("h3. Seen\n* on *Chrome*", "1. Drag\n2. Drop")
    # a kanban project has no sprints to pick
    assert 'id="id_sprint"' not in client_in.get("/projects/OPS/issues/new").content.decode()


def test_the_create_dialog_without_javascript_switches_space_and_creates_another(client_in, board_world):
    page = client_in.get("/projects/AGENT/issues/new?issue_type=bug").content.decode()
    # required fields carry the asterisk; a bug shows its steps, a story does not
    assert 'for="id_summary">Summary <span class="req"' in page and 'for="id_description">Description</label>' in page
    assert '<div class="create__field" data-types="bug">' in page
    story = client_in.get("/projects/AGENT/issues/new").content.decode()
    assert '<div class="create__field" data-types="bug" hidden>' in story
    switched = client_in.get("/projects/AGENT/issues/new?space=ops&issue_type=task")
    assert switched.status_code == 302 and switched["Location"] == "/projects/OPS/issues/new?issue_type=task"
    assert client_in.get("/projects/AGENT/issues/new?space=NOPE").status_code == 404
    fragment = client_in.get("/projects/OPS/issues/new", headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment and "data-create-form" in fragment
    with bound_world(board_world):
        top = Issue.objects.filter(project__key="OPS").order_by("-number").first().number
    made = client_in.post(
        "/projects/OPS/issues/new",
        {"issue_type": "task", "summary": "Pager", "priority": "Low", "create_another": "on"},
    )
    assert made.status_code == 302 and made["Location"] == "/projects/OPS/issues/new?issue_type=task&another=1"
    again = client_in.get(made["Location"]).content.decode()
    assert (
        f"OPS-{top + 1} has been created." in again and 'name="create_another" id="id_create_another" checked' in again
    )
    inline = client_in.post(
        "/projects/OPS/issues/new",
        {"issue_type": "task", "summary": "Pager 2", "priority": "Low", "create_another": "on"},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert (
        f'<a href="/browse/OPS-{top + 2}">OPS-{top + 2}</a> has been created.' in inline
        and 'value="Pager 2"' not in inline
    )
    done = client_in.post(
        "/projects/OPS/issues/new",
        {"issue_type": "task", "summary": "Pager 3", "priority": "Low"},
        headers={"HX-Request": "true"},
    )
    assert done.status_code == 200 and done["HX-Redirect"] == f"/browse/OPS-{top + 3}"


def test_a_sub_task_is_created_from_its_parents_view_in_the_parents_sprint(client_in, board_world):
    with bound_world(board_world):
        parent = (
            Issue.objects.filter(project__key="AGENT", sprint__state="active", issue_type="story")
            .order_by("number")
            .first()
        )
        member = Person.objects.filter(active=True).exclude(pk=client_in.me.pk).order_by("public_id").first()
        top = Issue.objects.filter(project__key="AGENT").order_by("-number").first().number
    page = client_in.get(f"/browse/{parent.key}").content.decode()
    assert 'id="subtask-summary"' in page and 'action="/browse/' + parent.key + '/subtasks"' in page
    made = client_in.post(
        f"/browse/{parent.key}/subtasks", {"summary": "  Write the migration  ", "assignee": member.username}
    )
    assert made.status_code == 302 and made["Location"] == f"/browse/{parent.key}"
    key = f"AGENT-{top + 1}"
    page = client_in.get(f"/browse/{parent.key}").content.decode()
    assert f"{key} has been created as a sub-task of {parent.key}." in page and f'href="/browse/{key}"' in page
    with bound_world(board_world):
        sub = Issue.objects.get(key=key)
        assert (
            sub.issue_type,
            sub.summary,
            sub.parent_id,
            sub.sprint_id,
            sub.assignee_id,
            sub.status,
            sub.reporter_id,
        ) == ("subtask", "Write the migration", parent.id, parent.sprint_id, member.id, W.TODO, client_in.me.id)
    # a sub-task has no sub-tasks, and neither does an epic: no form, and a post is refused with the reason
    assert 'id="subtask-summary"' not in client_in.get(f"/browse/{key}").content.decode()
    client_in.post(f"/browse/{key}/subtasks", {"summary": "Nested"})
    assert escape("A sub-task can't have sub-tasks of its own.") in client_in.get(f"/browse/{key}").content.decode()
    with bound_world(board_world):
        epic = Issue.objects.filter(project__key="AGENT", issue_type="epic").order_by("number").first()
        gone = Person.objects.filter(active=False).order_by("public_id").first()
    client_in.post(f"/browse/{epic.key}/subtasks", {"summary": "Under an epic"})
    assert escape("An epic can't have sub-tasks") in client_in.get(f"/browse/{epic.key}").content.decode()
    for bad, message in (
        ({"summary": "   "}, "A sub-task needs a summary."),
        ({"summary": "x" * 256}, "A summary can be at most 255 characters long."),
        ({"summary": "Someone gone", "assignee": gone.username}, "Choose someone on the team"),
    ):
        client_in.post(f"/browse/{parent.key}/subtasks", bad)
        assert escape(message) in client_in.get(f"/browse/{parent.key}").content.decode()
    with bound_world(board_world):
        assert Issue.objects.filter(parent=parent, summary="Write the migration").count() == 1
        assert not Issue.objects.filter(summary__in=["Nested", "Under an epic", "Someone gone"]).exists()
        assert Issue.objects.filter(project__key="AGENT").order_by("-number").first().key == key


# --- rich-text descriptions ---------------------------------------------------------------------------------


def test_rich_text_renders_the_products_wiki_markup_and_escapes_everything_else():
    names = {"rharris": "Robert Harris"}
    text = (
        "h2. Steps\n# Open *the* board\n# Drag _a card_\n\nSee [the guide|https://example.com/a?b=1&c=2] or "
        "[/filters].\n"
        "* uses {{rank}}\n- ask [~rharris] or [~nobody]\nbq. quoted\n{code}\n<b>*not bold*</b>\n{code}\n"
        "<script>alert(1)</script> [x|javascript:alert(1)] [y|//evil.example] [z|/\\evil.example] a*b*c snake_case_name"
    )
    html = render_rich_text(text, names)
    assert html.startswith(
        "<h4>Steps</h4><ol><li>Open <strong>the</strong> board</li><li>Drag <em>a card</em></li></ol>"
    )
    assert '<p>See <a href="https://example.com/a?b=1&amp;c=2" rel="nofollow noopener">the guide</a> or ' in html
    assert '<a href="/filters" rel="nofollow noopener">/filters</a>.</p>' in html
    assert (
        '<ul><li>uses <code>rank</code></li><li>ask <span class="mention" data-username="rharris">@Robert '
        "Harris</span> or @nobody</li></ul>" in html
    )
    assert "<blockquote>quoted</blockquote><pre><code>&lt;b&gt;*not bold*&lt;/b&gt;</code></pre>" in html
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert (
        "javascript:" not in html.replace("[x|javascript:alert(1)]", "")
        and 'href="//' not in html
        and 'href="/\\' not in html
    )
    assert "a*b*c snake_case_name</p>" in html  # markup characters inside words stay text
    assert render_rich_text("one\ntwo\n\nthree", {}) == "<p>one<br>two</p><p>three</p>"


def test_the_issue_view_shows_the_description_rendered_and_edits_its_markup(client_in, board_world):
    issue = _get(board_world, Issue, project__key="AGENT", issue_type="story")
    page = client_in.get(f"/browse/{issue.key}").content.decode()
    assert '<div class="richtext" aria-labelledby="description-title">' in page and "Edit description</summary>" in page
    form = {
        "summary": issue.summary,
        "priority": issue.priority,
        "labels": " ".join(issue.labels),
        "story_points": issue.story_points or "",
        "assignee": issue.assignee.username if issue.assignee else "",
        "description": "h3. Why\r\n* *fast* boards\r\n* <i>safe</i>",
    }
    assert client_in.post(f"/browse/{issue.key}", form).status_code == 302
    page = client_in.get(f"/browse/{issue.key}").content.decode()
    assert "<h5>Why</h5><ul><li><strong>fast</strong> boards</li><li>&lt;i&gt;safe&lt;/i&gt;</li></ul>" in page
    assert _get(board_world, Issue, key=issue.key).description == "h3. Why\n* *fast* boards\n* <i>safe</i>"
    assert '<details class="rtedit">' in page  # closed until asked for, as the product shows a description
    # with nothing to show, the editor is open
    assert client_in.post(f"/browse/{issue.key}", {**form, "description": ""}).status_code == 302
    page = client_in.get(f"/browse/{issue.key}").content.decode()
    assert (
        '<details class="rtedit" open>' in page
        and "Add a description</summary>" in page
        and 'class="richtext"' not in page
    )


# --- comments with mentions, attachments, watchers, assign to me --------------------------------------------


def test_a_mention_is_recorded_and_shown_and_an_unknown_one_is_refused(client_in, board_world):
    with bound_world(board_world):
        issue = Issue.objects.filter(project__key="AGENT", number=5).get()
        mate = Person.objects.filter(active=True).exclude(pk=client_in.me.pk).order_by("public_id").first()
        gone = Person.objects.filter(active=False).first()
    client_in.post(
        f"/browse/{issue.key}/comment", {"body": f"[~{mate.username}] could you check the retry? cc [~{mate.username}]"}
    )
    with bound_world(board_world):
        comment = Comment.objects.filter(issue=issue).order_by("-public_id").first()
        assert list(Mention.objects.filter(comment=comment).values_list("person__username", flat=True)) == [
            mate.username
        ]
    page = client_in.get(f"/browse/{issue.key}").content.decode()
    assert f'<span class="mention" data-username="{mate.username}">@{mate.name}</span> could you check' in page
    assert f'"username": "{mate.username}"' in page  # the picker's people
    for body in ("[~nobody] look", f"[~{gone.username}] look"):
        with bound_world(board_world):
            before = Comment.objects.count()
        client_in.post(f"/browse/{issue.key}/comment", {"body": body})
        page = client_in.get(f"/browse/{issue.key}").content.decode()
        assert "can&#x27;t be mentioned" in page and f">{body}</textarea>" in page  # kept as a draft
        with bound_world(board_world):
            assert Comment.objects.count() == before


def test_attachments_by_name_with_checks(client_in, board_world):
    issue = _get(board_world, Issue, project__key="AGENT", number=6)
    client_in.post(
        f"/browse/{issue.key}/attach", {"file": SimpleUploadedFile("trace 1.log", b"x" * 1500, "text/plain")}
    )
    attachment = _get(board_world, Attachment, issue=issue, name="trace 1.log")
    assert (
        attachment.size == 1500 and attachment.content_type == "text/plain" and attachment.author_id == client_in.me.id
    )
    page = client_in.get(f"/browse/{issue.key}").content.decode()
    assert "trace 1.log" in page and "1.5\xa0KB" in page
    with bound_world(board_world):
        count = Attachment.objects.count()
    too_big = SimpleUploadedFile("huge.bin", b"0" * (10 * 1024 * 1024 + 1))
    client_in.post(f"/browse/{issue.key}/attach", {"file": too_big})
    assert "at most 10 MB" in client_in.get(f"/browse/{issue.key}").content.decode()
    client_in.post(f"/browse/{issue.key}/attach", {})
    with bound_world(board_world):
        assert Attachment.objects.count() == count
    client_in.post(f"/browse/{issue.key}/attachments/{attachment.public_id}/delete")
    assert _get(board_world, Attachment, public_id=attachment.public_id) is None
    assert _get(board_world, Change, issue=issue, field="Attachment", from_value="trace 1.log") is not None


def test_watchers_and_assign_to_me(client_in, board_world):
    with bound_world(board_world):
        issue = (
            Issue.objects.filter(project__key="AGENT", status=W.TODO)
            .exclude(assignee=client_in.me)
            .order_by("number")
            .first()
        )
        mate = (
            Person.objects.filter(active=True)
            .exclude(pk__in=issue.watchers.values("person"))
            .order_by("public_id")
            .last()
        )
        gone = Person.objects.filter(active=False).first()
    client_in.post(f"/browse/{issue.key}/watchers", {"person": mate.username})
    client_in.post(f"/browse/{issue.key}/watchers", {"person": mate.username})
    assert "already watching" in client_in.get(f"/browse/{issue.key}").content.decode()
    client_in.post(f"/browse/{issue.key}/watchers", {"person": gone.username})
    with bound_world(board_world):
        assert list(issue.watchers.filter(person__in=[mate, gone]).values_list("person__username", flat=True)) == [
            mate.username
        ]
    answer = client_in.post(f"/browse/{issue.key}/assign-to-me", HTTP_ACCEPT="application/json")
    assert answer.json()["ok"] and _get(board_world, Issue, key=issue.key).assignee_id == client_in.me.id


# --- custom fields ------------------------------------------------------------------------------------------


def _form(issue, **extra):
    data = {
        "summary": issue.summary,
        "description": issue.description,
        "priority": issue.priority,
        "steps_to_reproduce": issue.steps_to_reproduce,
        "labels": " ".join(issue.labels),
        "components": issue.components,
        "fix_versions": issue.fix_versions,
        "assignee": issue.assignee.username if issue.assignee else "",
        "story_points": "" if issue.story_points is None else issue.story_points,
        "sprint": str(issue.sprint.public_id) if issue.sprint else "",
        "due_date": issue.due_date.isoformat() if issue.due_date else "",
        "epic": issue.epic.key if issue.epic else "",
        "resolution": issue.resolution,
    }
    return {**data, **extra}


def test_custom_fields_are_edited_in_the_issue_view_and_legacy_values_survive_an_unchanged_save(client_in, board_world):
    with bound_world(board_world):
        tier = CustomField.objects.get(project__key="AGENT", name="Customer tier")
        criteria = CustomField.objects.get(project__key="AGENT", name="Acceptance criteria")
        legacy = (
            FieldValue.objects.filter(field=tier, value__in=list(LEGACY_OPTIONS["Customer tier"]))
            .select_related("issue")
            .first()
        )
        issue = legacy.issue
        value = legacy.value
        changes = Change.objects.filter(issue=issue).count()
    page = client_in.get(f"/browse/{issue.key}").content.decode()
    assert (
        f'id="id_cf_{tier.public_id}"' in page
        and f"{value} (legacy value)" in page
        and "is no longer an option" in page
    )
    unchanged = _form(
        issue,
        **{
            f"cf_{tier.public_id}": value,
            f"cf_{criteria.public_id}": _get(board_world, FieldValue, issue=issue, field=criteria).value
            if _get(board_world, FieldValue, issue=issue, field=criteria)
            else "",
        },
    )
    assert client_in.post(f"/browse/{issue.key}", unchanged).status_code == 302
    with bound_world(board_world):
        assert (
            FieldValue.objects.get(issue=issue, field=tier).value == value
            and Change.objects.filter(issue=issue).count() == changes
        )
    bad = client_in.post(f"/browse/{issue.key}", {**unchanged, f"cf_{tier.public_id}": "Diamond"})
    assert bad.status_code == 400
    client_in.post(
        f"/browse/{issue.key}",
        {**unchanged, f"cf_{tier.public_id}": "Enterprise", f"cf_{criteria.public_id}": "Given a user, then it works."},
    )
    with bound_world(board_world):
        assert FieldValue.objects.get(issue=issue, field=tier).value == "Enterprise"
        assert FieldValue.objects.get(issue=issue, field=criteria).value == "Given a user, then it works."
        assert Change.objects.filter(
            issue=issue, field="Customer tier", from_value=value, to_value="Enterprise"
        ).exists()
    # a number field refuses text, and stores numbers in one form
    web = _get(board_world, Issue, project__key="WEB", issue_type="story")
    revenue = _get(board_world, CustomField, project__key="WEB", name="Revenue impact")
    assert client_in.post(f"/browse/{web.key}", _form(web, **{f"cf_{revenue.public_id}": "lots"})).status_code == 400
    client_in.post(f"/browse/{web.key}", _form(web, **{f"cf_{revenue.public_id}": "1200.50"}))
    assert _get(board_world, FieldValue, issue=web, field=revenue).value == "1200.5"


def test_jql_finds_custom_field_values_by_name_and_id_with_the_products_errors(board_world):
    with bound_world(board_world):
        me = Person.objects.order_by("public_id").first()
        tier = CustomField.objects.get(project__key="AGENT", name="Customer tier")
        revenue = CustomField.objects.get(project__key="WEB", name="Revenue impact")

        def keys(query):
            return {i.key for i in issues_search(query=query, person=me)[0]}

        enterprise = {
            v.issue.key for v in FieldValue.objects.filter(field=tier, value="Enterprise").select_related("issue")
        }
        assert enterprise and keys('"Customer tier" = Enterprise') == enterprise == keys(
            f"cf[{tier.public_id}] = enterprise"
        )
        legacy = (
            FieldValue.objects.filter(field=tier, value__in=list(LEGACY_OPTIONS["Customer tier"]))
            .order_by("value")
            .first()
            .value
        )
        assert keys(f'"Customer tier" = {legacy}') == {
            v.issue.key for v in FieldValue.objects.filter(field=tier, value=legacy).select_related("issue")
        }
        big = {
            v.issue.key
            for v in FieldValue.objects.filter(field=revenue).select_related("issue")
            if float(v.value) > 1000
        }
        assert big and keys('"Revenue impact" > 1000') == big
        assert keys('project = AGENT AND "Customer tier" is EMPTY') == {
            i.key
            for i in Issue.objects.filter(project__key="AGENT")
            if not FieldValue.objects.filter(issue=i, field=tier).exists()
        }
        for query, message in [
            ('"Customer tier" = Diamond', "The option 'Diamond' for field 'Customer tier' does not exist."),
            ('"Customer tier" > 3', "The operator '>' is not supported by the 'Customer tier' field."),
            ('"Revenue impact" = lots', "is not a number"),
            ("cf[99999] = 1", "Field 'cf[99999]' does not exist"),
        ]:
            with pytest.raises(jql.JQLError, match=message.replace("[", r"\[").replace("(", r"\(")):
                issues_search(query=query, person=me)


# --- saved filters --------------------------------------------------------------------------------------------


def test_saved_filters_are_saved_listed_opened_edited_and_deleted_by_their_owner(client_in, board_world, world_client):
    created = client_in.post(
        "/filters/new", {"name": "  My   bugs ", "jql": "type = Bug AND\n assignee = currentUser()"}
    )
    saved = _get(board_world, Filter, owner=client_in.me, name="My bugs")
    assert (
        created["Location"] == f"/issues?filter={saved.public_id}"
        and saved.jql == "type = Bug AND assignee = currentUser()"
    )
    page = client_in.get(created["Location"]).content.decode()
    assert "<h1>My bugs</h1>" in page and "type = Bug AND assignee = currentUser()</textarea>" in page
    assert "My bugs" in client_in.get("/filters").content.decode()
    with bound_world(board_world):
        count = Filter.objects.count()
    for bad, message in [
        ({"name": "my BUGS", "jql": "type = Bug"}, "already have a filter named"),
        ({"name": "Broken", "jql": "type = "}, "Expecting either a value"),
        ({"name": "", "jql": "type = Bug"}, "This field is required"),
    ]:
        answer = client_in.post("/filters/new", bad)
        assert answer.status_code == 400 and message in answer.content.decode().replace("&#x27;", "'")
    with bound_world(board_world):
        assert Filter.objects.count() == count
    edited = client_in.post(
        f"/filters/{saved.public_id}",
        {"name": "My open bugs", "jql": "type = Bug AND resolution = Unresolved", "starred": "on"},
    )
    assert edited.status_code == 302
    saved = _get(board_world, Filter, public_id=saved.public_id)
    assert (saved.name, saved.jql, saved.starred) == ("My open bugs", "type = Bug AND resolution = Unresolved", True)
    # another person can open it by id but neither edit nor delete it
    other = _get(board_world, Filter, name="Reported by me")
    assert client_in.get(f"/filters/{other.public_id}").status_code == 404
    assert client_in.post(f"/filters/{other.public_id}/delete").status_code == 404
    client_in.post(f"/filters/{saved.public_id}/delete")
    assert _get(board_world, Filter, public_id=saved.public_id) is None and _get(
        board_world, Filter, public_id=other.public_id
    )


def test_a_comment_typed_in_the_side_panel_survives_an_expired_session(board_world, world_client):
    client = world_client(board_world, signed_in=False)
    issue = _get(board_world, Issue, project__key="AGENT", number=5)
    panel = f"/projects/AGENT/board?selectedIssue={issue.key}"
    answer = client.post(f"/browse/{issue.key}/comment", {"body": "Typed before lunch", "next": panel})
    assert answer.status_code == 302 and answer["Location"] == "/login?next=" + panel.replace("?", "%3F").replace(
        "=", "%3D"
    )
    with bound_world(board_world):
        me = Person.objects.filter(active=True).order_by("public_id").first()
        assert not Comment.objects.filter(body="Typed before lunch").exists()
    back = client.post(
        answer["Location"],
        {"email": me.email, "password": person_password(seed=board_world.seed, username=me.username)},
    )
    assert back["Location"] == panel
    page = client.get(panel).content.decode()
    assert "We kept it as a draft" in page and "Typed before lunch</textarea>" in page
