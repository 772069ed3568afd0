"""The board's pages through Django's test client: sign-in, board, backlog, issue view, search, bulk change, sprints."""

import re
from datetime import timedelta

import pytest
from django.utils.html import escape

from replicas.board import services
from replicas.board import workflow as W
from replicas.board.models import Change, Comment, Issue, Link, Mention, Person, Project, Sprint
from replicas.board.signin import person_password
from replicas.worlds import clock
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


def _issue(world, **filters):
    with bound_world(world):
        return Issue.objects.filter(**filters).order_by("number").first()


def test_pages_redirect_to_login_without_a_session(board_world, world_client):
    client = world_client(board_world, signed_in=False)
    for path in ["/projects/AGENT/board", "/projects/AGENT/backlog", "/browse/AGENT-1", "/issues"]:
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login?next=")


def test_login_checks_the_password_and_refuses_people_who_left(board_world, world_client):
    client = world_client(board_world, signed_in=False)
    with bound_world(board_world):
        member = Person.objects.filter(active=True, is_admin=False).order_by("public_id").first()
        gone = Person.objects.filter(active=False).order_by("public_id").first()
    password = person_password(seed=board_world.seed, username=member.username)
    wrong = client.post("/login", {"email": member.email, "password": password + "x"})
    assert wrong.status_code == 400 and b"Incorrect email address" in wrong.content
    gone_answer = client.post(
        "/login", {"email": gone.email, "password": person_password(seed=board_world.seed, username=gone.username)}
    )
    assert gone_answer.status_code == 400
    ok = client.post("/login", {"email": member.email, "password": password, "next": "/projects/AGENT/backlog"})
    assert ok.status_code == 302 and ok["Location"] == "/projects/AGENT/backlog"
    assert member.name in client.get("/projects/AGENT/backlog").content.decode()


def test_board_shows_the_active_sprint_columns_wip_limits_and_cards(client_in, board_world):
    page = client_in.get("/projects/AGENT/board").content.decode()
    with bound_world(board_world):
        sprint = Sprint.objects.get(project__key="AGENT", state="active")
        keys = list(Issue.objects.filter(sprint=sprint).exclude(issue_type="epic").values_list("key", flat=True))
    assert sprint.name in page and "Complete sprint" in page and "remaining" in page
    assert all(f'data-key="{k}"' in page for k in keys)
    assert "Max 5" in page and "Max 3" in page
    assert "Actions for " + keys[0] in page


def test_a_move_the_workflow_refuses_leaves_the_issue_and_shows_the_products_error(client_in, board_world):
    with bound_world(board_world):
        issue = (
            Issue.objects.filter(sprint__state="active", status=W.IN_PROGRESS)
            .exclude(assignee=client_in.me)
            .exclude(issue_type="subtask")
            .order_by("number")
            .first()
        )
    response = client_in.post(
        f"/browse/{issue.key}/transition", {"status": W.IN_REVIEW, "seen": issue.status}, HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 400 and "only the assignee" in response.json()["error"]
    done = client_in.post(
        f"/browse/{issue.key}/transition", {"status": W.DONE, "seen": issue.status}, HTTP_ACCEPT="application/json"
    )
    assert done.status_code == 400 and "resolution" in done.json()["error"]
    stale = client_in.post(
        f"/browse/{issue.key}/transition", {"status": W.TODO, "seen": W.TODO}, HTTP_ACCEPT="application/json"
    )
    assert stale.status_code == 409 and stale.json()["reload"]
    with bound_world(board_world):
        assert Issue.objects.get(key=issue.key).status == W.IN_PROGRESS
    ok = client_in.post(
        f"/browse/{issue.key}/transition",
        {"status": W.DONE, "resolution": "Done", "seen": issue.status, "next": "/projects/AGENT/board"},
    )
    assert ok.status_code == 302 and ok["Location"] == "/projects/AGENT/board"
    with bound_world(board_world):
        moved = Issue.objects.get(key=issue.key)
        assert (moved.status, moved.resolution) == (W.DONE, "Done")
        assert list(Change.objects.filter(issue=moved).order_by("-public_id").values_list("field", "to_value")[:2]) == [
            ("resolution", "Done"),
            ("status", "Done"),
        ]


def test_a_bug_without_steps_cannot_start(client_in, board_world):
    with bound_world(board_world):
        bug = Issue.objects.filter(issue_type="bug", status=W.TODO, steps_to_reproduce="").order_by("number").first()
    response = client_in.post(
        f"/browse/{bug.key}/transition", {"status": W.IN_PROGRESS}, HTTP_ACCEPT="application/json"
    )
    assert response.status_code == 400 and "Steps to reproduce" in response.json()["error"]


def test_issue_view_edits_fields_and_records_history(client_in, board_world):
    issue = _issue(board_world, project__key="AGENT", issue_type="story", status=W.TODO, sprint__isnull=True)
    page = client_in.get(f"/browse/{issue.key}")
    assert page.status_code == 200 and issue.summary in page.content.decode()
    form = {
        "summary": issue.summary,
        "description": issue.description,
        "priority": "High",
        "labels": "alpha beta",
        "assignee": client_in.me.username,
        "story_points": "5",
        "sprint": "",
        "due_date": "",
        "epic": "",
    }
    response = client_in.post(f"/browse/{issue.key}", form)
    assert response.status_code == 302
    with bound_world(board_world):
        saved = Issue.objects.get(key=issue.key)
        assert (saved.priority, saved.labels, saved.assignee, saved.story_points) == (
            "High",
            ["alpha", "beta"],
            client_in.me,
            5,
        )
        assert {"priority", "labels", "assignee", "story_points"} <= set(saved.changes.values_list("field", flat=True))
    bad = client_in.post(f"/browse/{issue.key}", {**form, "story_points": "-3", "labels": "a,b c"})
    assert bad.status_code == 400


def test_comment_link_and_watch(client_in, board_world):
    a = _issue(board_world, project__key="AGENT", number=2)
    b = _issue(board_world, project__key="AGENT", number=3)
    assert client_in.post(f"/browse/{a.key}/comment", {"body": "Looks like the cache"}).status_code == 302
    assert client_in.post(f"/browse/{a.key}/link", {"kind": "blocks", "target": b.key}).status_code == 302
    client_in.post(f"/browse/{a.key}/link", {"kind": "blocks", "target": "NOPE-1"})
    with bound_world(board_world):
        assert Comment.objects.filter(issue__key=a.key, body="Looks like the cache").exists()
        assert Link.objects.filter(source__key=a.key, kind="blocks", target__key=b.key).count() == 1
    assert "is blocked by" in client_in.get(f"/browse/{b.key}").content.decode()


def test_search_runs_jql_and_shows_the_products_error(client_in):
    ok = client_in.get(
        "/issues",
        {
            "jql": 'project = AGENT AND status in ("To Do", "In Progress") AND assignee = currentUser() ORDER '
            "BY priority DESC"
        },
    )
    assert ok.status_code == 200
    bad = client_in.get("/issues", {"jql": "project = AGENT AND stauts = Done"})
    assert bad.status_code == 400 and "Field &#x27;stauts&#x27; does not exist" in bad.content.decode()


def test_bulk_change_relabels_only_the_selected_issues(client_in, board_world):
    with bound_world(board_world):
        issues = list(Issue.objects.filter(project__key="AGENT", status=W.TODO).order_by("number")[:2])
    response = client_in.post(
        "/issues/bulk", {"keys": [i.key for i in issues], "labels_add": "zeta", "jql": "project = AGENT"}
    )
    assert response.status_code == 302
    with bound_world(board_world):
        assert all("zeta" in Issue.objects.get(key=i.key).labels for i in issues)
        assert Issue.objects.filter(project__key="AGENT").count() > 2
    nothing = client_in.post("/issues/bulk", {"keys": [issues[0].key], "jql": "project = AGENT"})
    assert nothing.status_code == 302


def test_complete_sprint_moves_open_issues_to_the_chosen_sprint(client_in, board_world):
    with bound_world(board_world):
        active = Sprint.objects.get(project__key="AGENT", state="active")
        nxt = Sprint.objects.filter(project__key="AGENT", state="future").order_by("number").first()
        open_keys = set(active.issues.exclude(status=W.DONE).values_list("key", flat=True))
    page = client_in.get(f"/projects/AGENT/sprints/{active.public_id}/complete")
    assert b"open work item" in page.content
    response = client_in.post(f"/projects/AGENT/sprints/{active.public_id}/complete", {"move_to": str(nxt.public_id)})
    assert response.status_code == 302
    with bound_world(board_world):
        assert Sprint.objects.get(pk=active.pk).state == "closed"
        assert set(Issue.objects.filter(key__in=open_keys).values_list("sprint", flat=True)) == {nxt.id}


def test_start_sprint_asks_for_a_duration_and_goal_and_refuses_what_the_product_refuses(client_in, board_world):
    with bound_world(board_world):
        active = Sprint.objects.get(project__key="AGENT", state="active")
        nxt, empty = Sprint.objects.filter(project__key="AGENT", state="future").order_by("number")[:2]
        planned = nxt.issues.exclude(issue_type__in=("epic", "subtask")).count()
        Issue.objects.filter(sprint=empty).update(sprint=None)  # a sprint nothing was planned into
    backlog = client_in.get("/projects/AGENT/backlog").content.decode()
    assert 'disabled title="Complete the active sprint first">Start sprint</button>' in backlog
    url = f"/projects/AGENT/sprints/{nxt.public_id}/start"
    early = client_in.post(url, {"weeks": "2", "goal": "Ship it"})
    assert early.status_code == 400 and "Another sprint is already active" in early.content.decode()
    client_in.post(f"/projects/AGENT/sprints/{active.public_id}/complete", {"move_to": "backlog"})
    backlog = client_in.get("/projects/AGENT/backlog").content.decode()
    assert f'href="{url}" data-dialog-link>Start sprint</a>' in backlog
    dialog = client_in.get(url).content.decode()
    assert f"{planned} work item" in dialog and 'id="id_weeks"' in dialog and 'id="id_goal"' in dialog
    for bad, message in (
        ({"weeks": "6"}, "Duration must be 1, 2, 3 or 4 weeks."),
        ({"weeks": ""}, "Choose how long the sprint runs."),
        ({"weeks": "2", "goal": "x" * 201}, "A sprint goal can be at most 200 characters long."),
    ):
        answer = client_in.post(url, bad)
        assert answer.status_code == 400 and message in answer.content.decode()
    refused = client_in.post(f"/projects/AGENT/sprints/{empty.public_id}/start", {"weeks": "1"})
    assert refused.status_code == 400 and "A sprint with no work items can" in refused.content.decode()
    started = client_in.post(url, {"weeks": "3", "goal": "  Faster   boards  "})
    assert started.status_code == 302 and started["Location"] == "/projects/AGENT/board"
    with bound_world(board_world):
        sprint = Sprint.objects.get(pk=nxt.pk)
        assert (sprint.state, sprint.goal, sprint.end - sprint.start) == ("active", "Faster boards", timedelta(weeks=3))
        assert Sprint.objects.get(pk=empty.pk).state == "future"
    board = client_in.get("/projects/AGENT/board").content.decode()
    assert f"{nxt.name} has started." in board and "Faster boards" in board and "21 days remaining" in board


def test_complete_to_a_new_sprint_then_start_it_renamed_with_custom_dates(client_in, board_world):
    with bound_world(board_world):
        active = Sprint.objects.get(project__key="AGENT", state="active")
        top = Sprint.objects.filter(project__key="AGENT").order_by("-number").first().number
        open_keys = set(active.issues.exclude(status=W.DONE).values_list("key", flat=True))
        today = clock.now().date()
    url = f"/projects/AGENT/sprints/{active.public_id}/complete"
    fragment = client_in.get(url, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment and '<option value="new">New sprint</option>' in fragment
    wrong = client_in.post(url, {"move_to": "nowhere"})
    assert wrong.status_code == 400 and "Choose where the open work items go" in wrong.content.decode()
    done = client_in.post(url, {"move_to": "new"})
    assert done.status_code == 302
    name = f"AGENT Sprint {top + 1}"
    assert f"moved to {name}." in client_in.get(done["Location"]).content.decode()
    with bound_world(board_world):
        made = Sprint.objects.get(project__key="AGENT", number=top + 1)
        assert (made.name, made.state) == (name, "future")
        assert set(made.issues.values_list("key", flat=True)) == open_keys
    start = f"/projects/AGENT/sprints/{made.public_id}/start"
    for bad, message in (
        ({"weeks": "custom", "name": name}, "Custom dates need an end date."),
        ({"weeks": "custom", "end_date": today.isoformat()}, "The end date must be after today"),
        ({"weeks": "custom", "end_date": (today + timedelta(weeks=9)).isoformat()}, "at most 8 weeks away"),
        ({"weeks": "2", "name": "   "}, "Give the sprint a name."),
        ({"weeks": "2", "name": active.name.lower()}, f"AGENT already has a sprint called {active.name.lower()}."),
    ):
        answer = client_in.post(start, bad)
        assert answer.status_code == 400 and escape(message) in answer.content.decode(), message
    with bound_world(board_world):
        assert Sprint.objects.get(pk=made.pk).state == "future"
    end = today + timedelta(days=10)
    # a custom end date wins; the duration's own end is not used
    started = client_in.post(start, {"weeks": "custom", "end_date": end.isoformat(), "name": "  Polish  sprint "})
    assert started.status_code == 302
    with bound_world(board_world):
        sprint = Sprint.objects.get(pk=made.pk)
        assert (sprint.state, sprint.name, sprint.end.date(), sprint.start.date()) == (
            "active",
            "Polish sprint",
            end,
            today,
        )


def test_a_comment_sent_after_the_session_expired_is_kept_as_a_draft(board_world, world_client):
    client = world_client(board_world, signed_in=False)
    issue = _issue(board_world, project__key="AGENT", number=5)
    response = client.post(f"/browse/{issue.key}/comment", {"body": "Half-written thought"})
    assert response.status_code == 302 and response["Location"] == f"/login?next=/browse/{issue.key}"
    with bound_world(board_world):
        me = Person.objects.filter(active=True).order_by("public_id").first()
        assert not Comment.objects.filter(body="Half-written thought").exists()
    client.post("/login", {"email": me.email, "password": person_password(seed=board_world.seed, username=me.username)})
    page = client.get(f"/browse/{issue.key}").content.decode()
    assert "We kept it as a draft" in page and "Half-written thought</textarea>" in page
    client.post(f"/browse/{issue.key}/comment", {"body": "Half-written thought"})
    assert "We kept it as a draft" not in client.get(f"/browse/{issue.key}").content.decode()


def test_backlog_moves_issues_between_sprints_and_ranks_by_drag(client_in, board_world):
    with bound_world(board_world):
        rows = list(
            Issue.objects.filter(project__key="AGENT", sprint__isnull=True, status=W.TODO)
            .exclude(issue_type="epic")
            .order_by("rank")
        )
        nxt = Sprint.objects.filter(project__key="AGENT", state="future").order_by("number").first()
    page = client_in.get("/projects/AGENT/backlog").content.decode()
    assert f'data-drop-sprint="{nxt.public_id}"' in page and f'id="move-{rows[0].key}-{nxt.public_id}"' in page
    moved = client_in.post(
        f"/browse/{rows[0].key}/rank", {"sprint": str(nxt.public_id), "next": "/projects/AGENT/backlog"}
    )
    assert moved.status_code == 302
    ranked = client_in.post(f"/browse/{rows[-1].key}/rank", {"before": rows[1].key}, HTTP_ACCEPT="application/json")
    assert ranked.json() == {"ok": True, "error": "", "reload": False}
    bad = client_in.post(f"/browse/{rows[2].key}/rank", {"sprint": "999"}, HTTP_ACCEPT="application/json")
    assert bad.status_code == 400
    with bound_world(board_world):
        assert Issue.objects.get(key=rows[0].key).sprint == nxt
        assert Issue.objects.get(key=rows[-1].key).rank < rows[1].rank
        assert Issue.objects.get(key=rows[2].key).sprint is None


def test_backlog_epic_panel_create_sprint_and_inline_create(client_in, board_world):
    with bound_world(board_world):
        project = Project.objects.get(key="AGENT")
        epic = Issue.objects.filter(project=project, issue_type="epic").exclude(status=W.DONE).order_by("rank").first()
        children = set(epic.children.exclude(status=W.DONE).exclude(issue_type="subtask").values_list("key", flat=True))
        other = Issue.objects.filter(project=project, epic__isnull=True).exclude(issue_type__in=("epic", "subtask"))
        other = other.exclude(status=W.DONE).filter(sprint__state__in=("active", "future")).first()
        top = project.sprints.order_by("-number").first().number
        nxt = project.sprints.filter(state="future").order_by("number").first()
    page = client_in.get(f"/projects/AGENT/backlog?epic={epic.key.lower()}").content.decode()
    assert f'href="?epic={epic.key}" aria-current="true"' in page and '<details class="bsection__fold" open>' in page
    shown = set(re.findall(r'<li class="brow" data-key="([A-Z]+-\d+)"', page))
    assert shown and shown <= children and other.key not in shown
    assert other.key in client_in.get("/projects/AGENT/backlog?epic=none").content.decode()
    assert client_in.get("/projects/AGENT/backlog?epic=AGENT-999999").status_code == 404
    assert client_in.get("/projects/AGENT/sprints/new").status_code == 405
    made = client_in.post("/projects/AGENT/sprints/new")
    assert (
        made.status_code == 302
        and f"AGENT Sprint {top + 1} has been created." in client_in.get(made["Location"]).content.decode()
    )
    refused = client_in.post("/projects/OPS/sprints/new")
    assert "OPS is a kanban project: it has no sprints." in client_in.get(refused["Location"]).content.decode()
    inline = {"issue_type": "task", "summary": "Write the runbook", "priority": "Medium", "sprint": str(nxt.public_id)}
    back = client_in.post("/projects/AGENT/issues/new", {**inline, "next": "/projects/AGENT/backlog"})
    assert back.status_code == 302 and back["Location"] == "/projects/AGENT/backlog"
    with bound_world(board_world):
        assert Issue.objects.get(summary="Write the runbook").sprint == nxt
        assert Sprint.objects.filter(project=project, number=top + 1, state="future").exists()


def test_saving_the_issue_form_unchanged_changes_nothing(client_in, board_world):
    with bound_world(board_world):
        bug = Issue.objects.filter(issue_type="bug").exclude(steps_to_reproduce="").order_by("number").first()
        before = Change.objects.count()
    form = {
        "summary": bug.summary,
        "description": bug.description.replace("\n", "\r\n"),
        "priority": bug.priority,
        "steps_to_reproduce": bug.steps_to_reproduce.replace("\n", "\r\n"),
        "labels": " ".join(bug.labels),
        "components": bug.components,
        "fix_versions": bug.fix_versions,
        "assignee": bug.assignee.username if bug.assignee else "",
        "story_points": "" if bug.story_points is None else str(bug.story_points),
        "sprint": str(bug.sprint.public_id) if bug.sprint else "",
        "due_date": bug.due_date.isoformat() if bug.due_date else "",
        "epic": bug.epic.key if bug.epic else "",
        "resolution": bug.resolution,
    }
    assert client_in.post(f"/browse/{bug.key}", form).status_code == 302
    with bound_world(board_world):
        assert Change.objects.count() == before
        assert Issue.objects.get(key=bug.key).steps_to_reproduce == bug.steps_to_reproduce


def test_navigation_pages_answer_with_the_projects_work(client_in, board_world):
    with bound_world(board_world):
        mine = Issue.objects.filter(assignee=client_in.me).exclude(status=W.DONE).order_by("-updated_at").first()
        projects = list(Project.objects.order_by("key"))
        epic = Issue.objects.filter(project__key="AGENT", issue_type="epic").order_by("rank").first()
        total = Issue.objects.filter(project__key="AGENT").exclude(issue_type="subtask").count()
    work = client_in.get("/your-work").content.decode()
    assert f'href="/browse/{mine.key}"' in work and 'href="/your-work" aria-current="page"' in work
    listing = client_in.get("/projects").content.decode()
    assert all(f'<a href="/projects/{p.key}/board">{p.name}</a>' in listing for p in projects)
    summary = client_in.get("/projects/agent/summary").content.decode()
    assert f"{total} work items" in summary and 'href="/projects/AGENT/settings"' in summary
    assert client_in.get("/projects/AGENT")["Location"] == "/projects/AGENT/summary"
    assert f'href="/browse/{epic.key}"' in client_in.get("/projects/AGENT/timeline").content.decode()
    assert "Board columns" in client_in.get("/projects/AGENT/settings").content.decode()
    assert "Default dashboard" in client_in.get("/dashboards").content.decode()
    for path in ("/projects/NOPE/summary", "/projects/NOPE/timeline", "/projects/NOPE/settings"):
        assert client_in.get(path).status_code == 404
    # the sidebar of today's product, on every project page
    board = client_in.get("/projects/AGENT/board").content.decode()
    for item in ("Summary", "Timeline", "Backlog", "Board", "List", "Reports", "Project settings"):
        assert f"</svg>{item}</a>" in board, item


def test_a_mention_shows_in_the_notifications_menu(client_in, board_world):
    with bound_world(board_world):
        other = Person.objects.filter(active=True).exclude(pk=client_in.me.pk).order_by("public_id").first()
        issue = Issue.objects.filter(project__key="AGENT").order_by("-number").first()
        services.comment_add(issue=issue, actor=other, body=f"[~{client_in.me.username}] can you look?")
    page = client_in.get("/your-work").content.decode()
    assert '<span class="topnav__dot"' in page
    assert 'data-notifications="/notifications"' in page  # the menu's items are fetched when it opens
    assert '<a class="menu__item notif"' not in page
    menu = client_in.get("/notifications", HTTP_HX_REQUEST="true").content.decode()
    assert menu.startswith('<div class="menu__title">Notifications</div>')  # a fragment, not a page
    newest = menu.index('<a class="menu__item notif"')
    assert f"<strong>{other.name}</strong> mentioned you on <strong>{issue.key}</strong>" in menu[newest:][:600]
    # without JavaScript, the menu's link leads to a page of them
    full = client_in.get("/notifications").content.decode()
    assert "<title>Notifications - Tracklane</title>" in full
    assert f"mentioned you on <strong>{issue.key}</strong>" in full


def test_without_mentions_the_bell_has_no_dot_and_fetches_nothing(client_in, board_world):
    with bound_world(board_world):
        Mention.objects.filter(person=client_in.me).delete()
    page = client_in.get("/your-work").content.decode()
    assert '<span class="topnav__dot"' not in page and "data-notifications" not in page
    assert "You have no notifications from the last 30 days." in page
    menu = client_in.get("/notifications", HTTP_HX_REQUEST="true").content.decode()
    assert "You have no notifications from the last 30 days." in menu
