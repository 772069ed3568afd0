"""Params functions of the issue board's task pack: each picks its task's issues from the seeded world
and computes the answer key (which issues, how many, which labels), so no task hard-codes world data.

Called by the catalogue as `fn(world)` with the (template) world bound. A function picks the first
suitable record in key order (or, given an episode's `rng`, a random suitable one:
replicas.worlds.seeding.candidates) and raises NoCandidate when the world has none, so a task on
another seed either finds its own records or fails loudly at load time.
"""

import re
from datetime import timedelta

from replicas.worlds.clock import now
from replicas.worlds.seeding import candidates

from .. import reports
from .. import workflow as W
from ..faults import STEPS_LOST
from ..models import Component, CustomField, FieldValue, Issue, Link, Person, Project, Sprint
from ..seed import LEGACY_OPTIONS
from ..signin import person_password

DUPLICATE_NOTE = "Seen again today. "
DRIFTED = ("Frontend", "front-end")


class NoCandidate(LookupError):
    """The world holds no record this task can be about."""


def _first(issues, what: str, rng=None):
    """The first of `issues`, or a random one given an episode's `rng` (replicas.worlds.seeding.candidates)."""
    for issue in candidates(issues, rng):
        return issue
    raise NoCandidate(f"no {what} in this world")


def _ordered(qs):
    return qs.select_related("project", "assignee", "sprint").order_by("project__key", "number")


def _signin(person: Person) -> dict:
    world_seed = Project.objects.first().world.seed
    return {
        "name": person.name,
        "email": person.email,
        "password": person_password(seed=world_seed, username=person.username),
        "username": person.username,
    }


def _admin() -> Person:
    return Person.objects.filter(active=True, is_admin=True).order_by("public_id").first()


def _sprint(key: str, state: str, nth: int = 0) -> Sprint:
    return Sprint.objects.filter(project__key=key, state=state).order_by("number")[nth]


def _open(qs):
    return qs.exclude(status=W.DONE)


# --- triage -----------------------------------------------------------------------------------------


def triage_priority(issue: Issue) -> str:
    """The contributing page's rule 1."""
    if re.search(r"\b(crashes|loses data)\b", issue.summary):
        return "Highest"
    return "High" if "customer-reported" in issue.labels else "Medium"


def _triage(customer: bool, rng=None) -> dict:
    for issue in candidates(_ordered(Issue.objects.filter(project__key="AGENT", issue_type="bug", status=W.TODO)), rng):
        if "needs-triage" not in issue.labels or ("customer-reported" in issue.labels) != customer:
            continue
        priority = triage_priority(issue)
        if customer and priority == issue.priority:
            continue  # the customer task is about rule 1: its bug must need a new priority
        area = re.match(r"\[([^\]]+)\]", issue.summary).group(1)
        component = Component.objects.get(project=issue.project, name=area)
        if component.lead_id == issue.project.lead_id:
            continue  # the negative example assigns to the project lead: it must differ
        labels = sorted(lbl for lbl in issue.labels if lbl != "needs-triage")
        return {
            **_signin(_admin()),
            "key": issue.key,
            "priority": priority,
            "component": component.name,
            "lead": component.lead.username,
            "lead_name": component.lead.name,
            "project_lead": issue.project.lead.username,
            "labels_after": labels,
            "labels_after_text": " ".join(labels),
        }
    raise NoCandidate("no untriaged AGENT bug")


def triage_crash_bug(world, rng=None) -> dict:
    return _triage(customer=False, rng=rng)


def triage_customer_bug(world, rng=None) -> dict:
    return _triage(customer=True, rng=rng)


# --- workflow ---------------------------------------------------------------------------------------


def bug_without_steps(world, rng=None) -> dict:
    bug = _first(
        _ordered(
            Issue.objects.filter(
                project__key="AGENT", issue_type="bug", status=W.TODO, steps_to_reproduce="", parent__isnull=True
            )
        ),
        "bug without steps to reproduce",
        rng=rng,
    )
    return {
        **_signin(_admin()),
        "key": bug.key,
        "steps": "Open a list with 600 rows, scroll to the end: the spinner never stops.",
    }


def bug_with_lost_steps(world, rng=None) -> dict:
    """The bug the `data_conflict` fault empties (faults.data_conflict's default pick: AGENT's first To Do
    bug with steps); its steps survive only in the reporter's comment. `fragment`
    is the line of them the verifier looks for, `steps_line` the steps on one line, as the reference types them."""
    bug = _first(
        _ordered(
            Issue.objects.filter(project__key="AGENT", issue_type="bug", status=W.TODO, parent__isnull=True).exclude(
                steps_to_reproduce=""
            )
        ),
        "AGENT To Do bug with steps to reproduce",
        rng=rng,
    )
    lines = [line.strip() for line in bug.steps_to_reproduce.splitlines() if line.strip()]
    fragment = re.sub(r"^\d+\.\s*", "", max(lines, key=len))
    # the reporter's steps and nothing else: on one line or several, under the comment's heading or not
    heading = re.escape(STEPS_LOST.strip())
    steps_pattern = rf"^\s*(?:{heading}\s*)?" + r"\s+".join(re.escape(line) for line in lines) + r"\s*$"
    return {
        **_signin(_admin()),
        "key": bug.key,
        "steps_line": " ".join(lines),
        "fragment": re.escape(fragment),
        "steps_pattern": steps_pattern,
        "own_steps": "1. Open the page 2. It fails",
    }


def in_progress_of_assignee(world, rng=None) -> dict:
    issue = _first(
        (
            i
            for i in _ordered(
                Issue.objects.filter(
                    project__key="AGENT", sprint__state="active", status=W.IN_PROGRESS, issue_type__in=("story", "task")
                )
            )
            if i.assignee and i.assignee.active and not i.assignee.is_admin
        ),
        "In Progress issue with an active assignee",
        rng=rng,
    )
    return {**_signin(issue.assignee), "key": issue.key}


def close_wont_do(world, rng=None) -> dict:
    stale = _first(
        (
            i
            for i in _ordered(
                Issue.objects.filter(project__key="AGENT", sprint__isnull=True, status=W.TODO, issue_type="story")
            )
            if (world.clock - i.updated_at).days > 120
        ),
        "stale backlog story",
        rng=rng,
    )
    return {**_signin(_admin()), "key": stale.key, "summary": stale.summary}


def done_issue_to_reopen(world, rng=None) -> dict:
    issue = _first(
        _ordered(Issue.objects.filter(project__key="AGENT", sprint__state="active", status=W.DONE, issue_type="story")),
        "done story in the active sprint",
        rng=rng,
    )
    return {**_signin(_admin()), "key": issue.key}


# --- sprints ----------------------------------------------------------------------------------------


def complete_web_sprint(world) -> dict:
    active, nxt = _sprint("WEB", "active"), _sprint("WEB", "future")
    open_keys = sorted(active.issues.exclude(status=W.DONE).values_list("key", flat=True))
    if not open_keys:
        raise NoCandidate("the active WEB sprint has no open issue")
    return {
        **_signin(_admin()),
        "sprint": active.public_id,
        "sprint_name": active.name,
        "next": nxt.public_id,
        "next_name": nxt.name,
        "open_keys": open_keys,
        "open_count": len(open_keys),
    }


def plan_to_capacity(world) -> dict:
    """Fill the second future sprint down the backlog in rank order with what still fits.

    The capacity is the sprint's points plus the smallest slack from 10 points on under which
    exactly two issues fit and an estimated issue ranked between them is skipped for not
    fitting (so the rule "skip what does not fit, keep going" decides the answer).
    """
    sprint = _sprint("AGENT", "future", 1)
    points = sum(i.story_points or 0 for i in sprint.issues.all())
    backlog = [
        i
        for i in Issue.objects.filter(project__key="AGENT", sprint__isnull=True)
        .exclude(status=W.DONE)
        .exclude(issue_type__in=("epic", "subtask"))
        .order_by("rank", "key")
        if i.story_points is not None
    ]
    for slack in range(10, 60):
        added, skipped, total = [], [], points
        for issue in backlog:
            if total + issue.story_points <= points + slack:
                added.append(issue)
                total += issue.story_points
            else:
                skipped.append(issue)
        if len(added) == 2 and skipped and added[0].rank < skipped[0].rank < added[1].rank:
            keys = [i.key for i in added]
            return {
                **_signin(_admin()),
                "sprint": sprint.public_id,
                "sprint_name": sprint.name,
                "capacity": points + slack,
                "points_before": points,
                "added": keys,
                "added_count": 2,
                "added_1": keys[0],
                "added_2": keys[1],
                "total": total,
                "skipped": skipped[0].key,
            }
    raise NoCandidate("no capacity makes the backlog exercise the capacity rule")


def ended_sprint_leftovers(world) -> dict:
    last = Sprint.objects.filter(project__key="AGENT", state="closed").order_by("-number").first()
    keys = sorted(_open(last.issues.all()).values_list("key", flat=True), key=lambda k: int(k.split("-")[1]))
    if not keys:
        raise NoCandidate("the last closed AGENT sprint holds no open issue")
    active = _sprint("AGENT", "active")
    if len(keys) != 3:
        raise NoCandidate(f"{last.name} holds {len(keys)} open issues, the task is written for three")
    return {
        **_signin(_admin()),
        "closed_name": last.name,
        "keys": keys,
        "count": len(keys),
        "active": active.public_id,
        "active_name": active.name,
        "key_1": keys[0],
        "key_2": keys[1],
        "key_3": keys[2],
    }


def estimate_and_plan(world, rng=None) -> dict:
    issue = _first(
        _ordered(
            Issue.objects.filter(
                project__key="AGENT", sprint__isnull=True, status=W.TODO, story_points__isnull=True, issue_type="story"
            )
        ),
        "unestimated backlog story",
        rng=rng,
    )
    nxt = _sprint("AGENT", "future")
    return {**_signin(_admin()), "key": issue.key, "points": 5, "sprint": nxt.public_id, "sprint_name": nxt.name}


# --- links and duplicates -----------------------------------------------------------------------------


def duplicate_pair(world, rng=None) -> dict:
    for dup in candidates(
        _ordered(Issue.objects.filter(project__key="AGENT", status=W.TODO, description__startswith=DUPLICATE_NOTE)), rng
    ):
        original = (
            Issue.objects.filter(project=dup.project, description=dup.description[len(DUPLICATE_NOTE) :])
            .exclude(pk=dup.pk)
            .first()
        )
        if original is not None and original.status != W.DONE:
            return {**_signin(_admin()), "dup": dup.key, "original": original.key, "summary": original.summary}
    raise NoCandidate("no unlinked duplicate in AGENT")


def unlinked_pair(world) -> dict:
    linked = set(Link.objects.values_list("source__key", "target__key"))
    backlog = list(
        _ordered(Issue.objects.filter(project__key="AGENT", sprint__isnull=True, status=W.TODO, issue_type="story"))
    )
    for blocker in backlog:
        for blocked in backlog:
            if (
                blocker != blocked
                and (blocker.key, blocked.key) not in linked
                and (blocked.key, blocker.key) not in linked
            ):
                return {**_signin(_admin()), "blocker": blocker.key, "blocked": blocked.key}
    raise NoCandidate("no two unlinked backlog stories")


# --- answers ----------------------------------------------------------------------------------------


def _answer_sprints(rng=None):
    """The sprints a count question can be about: AGENT's active sprint first (the task's fixed pick), then
    its future and closed ones, then the other projects' (some worlds have no AGENT sprint that tells a
    count from its misreadings), or all of them shuffled by an episode's `rng`, so the answer key is not
    one number to find blind."""
    order = {"active": 0, "future": 1, "closed": 2}
    sprints = sorted(
        Sprint.objects.select_related("project"),
        key=lambda s: (s.project.key != "AGENT", s.project.key, order[s.state], s.number),
    )
    return candidates(sprints, rng)


def open_highest_in_sprint(world, rng=None) -> dict:
    """The open Highest issues of a sprint; `wrong` counts its done ones too (the misreading), or is one
    more when none of them is done."""
    for sprint in _answer_sprints(rng):
        count = _open(sprint.issues.filter(priority="Highest")).count()
        wrong = sprint.issues.filter(priority="Highest").count()
        if count:
            return {
                **_signin(_admin()),
                "sprint_name": sprint.name,
                "count": count,
                "wrong": wrong if wrong != count else count + 1,
            }
    raise NoCandidate("no sprint with an open Highest issue")


def open_blockers_in_sprint(world, rng=None) -> dict:
    """The open issues of a sprint that block another issue (a "blocks" link from them):
    "blockers" read as links, not as priority. `by_priority` is what reading it as priority Highest
    answers, `any_side` what counting both sides of the links (blocked issues too) answers; a sprint
    where a misreading gives the right count cannot tell it from the reading asked for and is skipped."""
    for sprint in _answer_sprints(rng):
        open_ids = set(_open(sprint.issues.all()).values_list("id", flat=True))
        blocking = set(Link.objects.filter(kind="blocks", source_id__in=open_ids).values_list("source_id", flat=True))
        blocked = set(Link.objects.filter(kind="blocks", target_id__in=open_ids).values_list("target_id", flat=True))
        count, any_side = len(blocking), len(blocking | blocked)
        by_priority = _open(sprint.issues.filter(priority="Highest")).count()
        if count and count not in (any_side, by_priority):
            keys = sorted(Issue.objects.filter(id__in=blocking).values_list("key", flat=True))
            return {
                **_signin(_admin()),
                "sprint_name": sprint.name,
                "count": count,
                "keys": keys,
                "by_priority": by_priority,
                "any_side": any_side,
            }
    raise NoCandidate("no sprint with an open blocker whose count differs from the misreadings")


def unassigned_open_bugs(world) -> dict:
    count = _open(Issue.objects.filter(project__key="WEB", issue_type="bug", assignee__isnull=True)).count()
    return {**_signin(_admin()), "count": count, "wrong": count + 1}


def open_points_in_sprint(world, rng=None) -> dict:
    """The open story points of a sprint; `wrong` is its total, done issues counted (the misreading), or
    one more when nothing of the sprint is done (a future sprint)."""
    for sprint in _answer_sprints(rng):
        issues = sprint.issues.exclude(issue_type="subtask")
        open_points = sum(i.story_points or 0 for i in _open(issues))
        total = sum(i.story_points or 0 for i in issues)
        if open_points:
            return {
                **_signin(_admin()),
                "sprint_name": sprint.name,
                "count": open_points,
                "wrong": total if total != open_points else open_points + 1,
            }
    raise NoCandidate("no sprint with open story points")


def burndown_first_day(world, rng=None) -> dict:
    """A started sprint's story points remaining at the end of its first day, as its Burndown chart
    draws them; `wrong` is the points it started with (the chart's other end of the first step)."""
    for sprint in _answer_sprints(rng):
        if sprint.state == Sprint.State.FUTURE:
            continue
        chart = reports.burndown(sprint)
        if chart.remaining and 0 < chart.remaining[0] != chart.total:
            return {
                **_signin(_admin()),
                "project": sprint.project.key,
                "sprint": sprint.public_id,
                "sprint_name": sprint.name,
                "count": chart.remaining[0],
                "wrong": chart.total,
            }
    raise NoCandidate("no started sprint that burned down on its first day")


# --- create -----------------------------------------------------------------------------------------


def create_bugs_in_other_space(world) -> dict:
    """Two bugs to create with the Create dialog in a scrum space other than AGENT (the dialog's default,
    so the space picker must be used), under that space's first open epic."""
    for project in Project.objects.filter(board_type=Project.BoardType.SCRUM).exclude(key="AGENT").order_by("key"):
        epic = Issue.objects.filter(project=project, issue_type="epic").exclude(status=W.DONE).order_by("rank")
        epic = epic.first()
        if epic is not None:
            return {**_signin(_admin()), "project": project.key, "project_name": project.name, "epic": epic.key}
    raise NoCandidate("no scrum space besides AGENT with an open epic")


# --- bulk -------------------------------------------------------------------------------------------


def drifted_labels(world) -> dict:
    expected = {}
    for issue in _ordered(Issue.objects.filter(project__key="AGENT")):
        if any(lbl in DRIFTED for lbl in issue.labels):
            expected[issue.key] = sorted({*(lbl for lbl in issue.labels if lbl not in DRIFTED), "frontend"})
    if len(expected) < 2:
        raise NoCandidate("fewer than two AGENT issues with drifted labels")
    return {**_signin(_admin()), "expected": expected, "keys": sorted(expected), "count": len(expected)}


def departed_assignee(world, rng=None) -> dict:
    for gone in candidates(Person.objects.filter(active=False).order_by("public_id"), rng):
        keys = sorted(_open(Issue.objects.filter(project__key="AGENT", assignee=gone)).values_list("key", flat=True))
        if keys:
            heir = Project.objects.get(key="AGENT").lead
            others = _open(Issue.objects.filter(assignee=gone)).exclude(project__key="AGENT").count()
            return {
                **_signin(_admin()),
                "gone": gone.username,
                "gone_name": gone.name,
                "heir": heir.username,
                "heir_name": heir.name,
                "keys": keys,
                "count": len(keys),
                "elsewhere": others,
            }
    raise NoCandidate("nobody who left still has open AGENT issues")


# --- drag and drop ----------------------------------------------------------------------------------


def _column(sprint, status):
    return list(sprint.issues.filter(status=status).exclude(issue_type="epic").order_by("rank", "key"))


def last_todo_card(world) -> dict:
    cards = _column(_sprint("AGENT", "active"), W.TODO)
    if len(cards) < 3:
        raise NoCandidate("the To Do column has fewer than three cards")
    return {**_signin(_admin()), "key": cards[-1].key, "top": cards[0].key, "top_rank": cards[0].rank}


def backlog_bottom_issue(world) -> dict:
    rows = list(
        Issue.objects.filter(project__key="AGENT", sprint__isnull=True)
        .exclude(status=W.DONE)
        .exclude(issue_type__in=("epic", "subtask"))
        .order_by("rank", "key")
    )
    if len(rows) < 3:
        raise NoCandidate("the backlog has fewer than three issues")
    pick = rows[len(rows) // 2]
    return {**_signin(_admin()), "key": pick.key, "top": rows[0].key, "top_rank": rows[0].rank}


def backlog_into_next_sprint_top(world, rng=None) -> dict:
    nxt = _sprint("AGENT", "future")
    in_sprint = list(nxt.issues.exclude(issue_type="subtask").order_by("rank", "key"))
    issue = _first(
        _ordered(
            Issue.objects.filter(
                project__key="AGENT", sprint__isnull=True, status=W.TODO, story_points__isnull=False, issue_type="story"
            )
        ),
        "estimated backlog story",
        rng=rng,
    )
    return {
        **_signin(_admin()),
        "key": issue.key,
        "sprint": nxt.public_id,
        "sprint_name": nxt.name,
        "top": in_sprint[0].key,
        "top_rank": in_sprint[0].rank,
    }


def todo_card_of_assignee(world, rng=None) -> dict:
    """A To Do card of the active sprint (not a bug without steps) and its assignee, who may send it to review."""
    issue = _first(
        (
            i
            for i in _ordered(
                Issue.objects.filter(
                    project__key="AGENT", sprint__state="active", status=W.TODO, issue_type__in=("story", "task")
                )
            )
            if i.assignee and i.assignee.active
        ),
        "To Do story or task with an active assignee",
        rng=rng,
    )
    return {**_signin(issue.assignee), "key": issue.key}


# --- kanban, swimlanes, collaboration, fields, filters --------------------------------------------


def kanban_pull(world) -> dict:
    """On the OPS kanban board In Progress sits at its WIP limit: the actor has exactly one card there
    (the one to hand to support first: the Operations workflow has Waiting for support, no In Review) and
    pulls the top startable To Do card."""
    limit = Project.objects.get(key="OPS").columns.get(status=W.IN_PROGRESS).wip_limit
    in_progress = list(
        _ordered(Issue.objects.filter(project__key="OPS", status=W.IN_PROGRESS).exclude(issue_type="epic"))
    )
    if len(in_progress) != limit:
        raise NoCandidate(f"OPS In Progress holds {len(in_progress)} cards, not its limit {limit}")
    mine = {}
    for card in in_progress:
        if card.assignee and card.assignee.active and not card.assignee.is_admin:
            mine.setdefault(card.assignee.username, []).append(card)
    finished = _first(
        (cards[0] for cards in mine.values() if len(cards) == 1), "OPS In Progress card of a member with one card there"
    )
    todo = Issue.objects.filter(project__key="OPS", status=W.TODO).exclude(issue_type="epic").order_by("rank", "key")
    pull = _first((i for i in todo if i.issue_type != "bug" or i.steps_to_reproduce), "startable OPS To Do card")
    return {**_signin(finished.assignee), "key": pull.key, "finished": finished.key, "limit": limit}


def regroup_by_epic(world) -> dict:
    """A To Do card of the active AGENT sprint filed under one epic, and another epic that already has a
    swimlane on the board (a card in the sprint), to drag it into."""
    sprint = _sprint("AGENT", "active")
    cards = list(
        sprint.issues.exclude(issue_type__in=("epic", "subtask")).select_related("epic").order_by("rank", "key")
    )
    lanes = sorted({c.epic.key: c.epic for c in cards if c.epic_id}.values(), key=lambda e: e.number)
    for card in cards:
        if card.status != W.TODO or not card.epic_id:
            continue
        other = next((e for e in lanes if e.key != card.epic.key and e.status != W.DONE), None)
        if other is not None:
            return {
                **_signin(_admin()),
                "key": card.key,
                "summary": card.summary,
                "from_epic": card.epic.key,
                "from_name": card.epic.summary,
                "epic": other.key,
                "epic_name": other.summary,
            }
    raise NoCandidate("no To Do card of the active AGENT sprint with an epic, next to another epic's lane")


def mention_teammate(world, rng=None) -> dict:
    """An open issue of the active AGENT sprint whose assignee should be asked about it; the actor is
    the admin, who is not the assignee."""
    admin = _admin()
    issue = _first(
        (
            i
            for i in _ordered(Issue.objects.filter(project__key="AGENT", sprint__state="active", status=W.IN_REVIEW))
            if i.assignee and i.assignee.active and i.assignee != admin
        ),
        "In Review issue with an active assignee",
        rng=rng,
    )
    return {**_signin(admin), "key": issue.key, "mention": issue.assignee.username, "mention_name": issue.assignee.name}


def save_filter(world) -> dict:
    """A search to save under a name; the name is new for the admin."""
    admin = _admin()
    name = "WEB bugs waiting for triage"
    if admin.filters.filter(name__iexact=name).exists():
        raise NoCandidate(f"the admin already has a filter named {name!r}")
    return {
        **_signin(admin),
        "filter_name": name,
        "jql": "project = WEB AND type = Bug AND resolution = Unresolved AND labels = needs-triage ORDER BY "
        "created DESC",
    }


def legacy_tier(world, rng=None) -> dict:
    """An open AGENT issue still holding a Customer tier from before the tiers were renamed."""
    field = CustomField.objects.get(project__key="AGENT", name="Customer tier")
    values = (
        FieldValue.objects.filter(field=field, value__in=list(LEGACY_OPTIONS["Customer tier"]))
        .exclude(issue__status=W.DONE)
        .select_related("issue")
    )
    value = _first(
        sorted(values, key=lambda v: v.issue.number), "open AGENT issue with a legacy Customer tier", rng=rng
    )
    tier = LEGACY_OPTIONS["Customer tier"][value.value]
    return {
        **_signin(_admin()),
        "key": value.issue.key,
        "field": field.name,
        "field_id": field.public_id,
        "field_ref": str(field.public_id),
        "legacy": value.value,
        "tier": tier,
        "wrong_tier": next(o for o in reversed(field.options) if o != tier),
    }


def epic_closed_early(world, rng=None) -> dict:
    """An AGENT epic marked Done while issues of it are still open (the "epic_drift" layer)."""
    for epic in candidates(_ordered(Issue.objects.filter(project__key="AGENT", issue_type="epic", status=W.DONE)), rng):
        open_keys = sorted(_open(epic.children.all()).values_list("key", flat=True))
        if open_keys:
            return {
                **_signin(_admin()),
                "key": epic.key,
                "summary": epic.summary,
                "open_count": len(open_keys),
                "children": open_keys,
            }
    raise NoCandidate("no AGENT epic marked Done with open issues")


# --- dates ------------------------------------------------------------------------------------------

RECENT_WINDOWS = (14, 7, 30, 21)


def recent_unresolved(world, rng=None) -> dict:
    """Unresolved work items of a project created in the last `days` days, on the world clock. A pick is
    kept only where "the last N days" reads the same rolling (created >= -Nd) and by calendar day
    (created >= startOfDay(-N)), and where each misreading gives another count: `all_open` (no date
    filter), `with_resolved` (resolved ones counted too) and `other_window` (the next window's count)."""
    clock = now()
    projects = list(Project.objects.order_by("key"))
    picks = [(p, d) for p in sorted(projects, key=lambda p: p.key != "AGENT") for d in RECENT_WINDOWS]
    for project, days in candidates(picks, rng):
        issues = list(Issue.objects.filter(project=project))
        midnight = clock.replace(hour=0, minute=0, second=0, microsecond=0)

        def since(start, pool):
            return sum(1 for i in pool if i.created_at >= start)

        open_items = [i for i in issues if not i.resolution]
        count = since(clock - timedelta(days=days), open_items)
        if count != since(midnight - timedelta(days=days), open_items) or not count:
            continue
        other = RECENT_WINDOWS[(RECENT_WINDOWS.index(days) + 1) % len(RECENT_WINDOWS)]
        wrong = {
            "all_open": len(open_items),
            "with_resolved": since(clock - timedelta(days=days), issues),
            "other_window": since(clock - timedelta(days=other), open_items),
        }
        if count in wrong.values():
            continue
        return {**_signin(_admin()), "project": project.key, "days": days, "count": count, **wrong}
    raise NoCandidate("no project and window whose count differs from its misreadings")


# --- inline editing ---------------------------------------------------------------------------------


def due_and_priority(world, rng=None) -> dict:
    """An open AGENT work item of the active sprint not yet due on the sprint's last day, with a priority
    below High: it gets that day as its due date and High. `day_before` is the date one off (a misreading)."""
    sprint = _sprint("AGENT", "active")
    due = sprint.end.date()
    issue = _first(
        _ordered(_open(Issue.objects.filter(sprint=sprint, priority__in=["Medium", "Low", "Lowest"])))
        .exclude(issue_type="subtask")
        .exclude(due_date=due),
        "open sprint work item below High priority",
        rng=rng,
    )
    return {
        **_signin(_admin()),
        "key": issue.key,
        "due": due.isoformat(),
        "due_label": f"{due:%A} {due.day} {due:%B} {due.year}",
        "day_before": (due - timedelta(days=1)).isoformat(),
    }
