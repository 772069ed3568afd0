"""Seed generator of the issue board: three product teams two weeks into their sprints.

Everything is drawn from gen.random / gen.faker in a fixed order; timestamps are offsets
back from the world clock. Done work sits in closed sprints with the history that got it
there; the active sprint is under way; the backlog holds what is left, new bugs waiting for
triage included. Variant knobs switch on messy layers (see LAYERS).
"""

from datetime import datetime, time, timedelta

from . import workflow as W
from .models import (
    Attachment,
    BoardColumn,
    Change,
    Comment,
    Component,
    CustomField,
    FieldValue,
    Filter,
    Issue,
    Link,
    Mention,
    Person,
    Project,
    ProjectPage,
    Sprint,
    Version,
    Watcher,
    Workflow,
)

LAYERS = (
    "stale",  # backlog issues nobody touched for months
    "duplicates",  # the same problem filed twice, not linked yet
    "label_drift",  # "Frontend", "front-end" next to "frontend"; "techdebt" next to "tech-debt"
    "ended_sprint",  # the last closed sprint still holds unfinished issues
    "blocker_chains",  # A blocks B blocks C inside the active sprint
    "departed",  # people who left the team, still assigned to open issues
    "epic_drift",  # an epic marked Done while some of its issues are still open
    "legacy_fields",  # custom field values from before a select list's options were renamed
)

PROJECTS = [
    ("AGENT", "Agent Platform", ["Backend", "Frontend", "API", "Infrastructure", "Mobile"]),
    ("WEB", "Web Storefront", ["Checkout", "Catalog", "Search", "Accounts"]),
    ("OPS", "Operations", ["Monitoring", "Deploys", "Databases"]),
]
LABELS = [
    "frontend",
    "backend",
    "performance",
    "security",
    "tech-debt",
    "customer-reported",
    "regression",
    "ux",
    "docs",
    "flaky-test",
]
DRIFT = {"frontend": ["Frontend", "front-end"], "tech-debt": ["techdebt", "Tech-Debt"]}
POINTS = [1, 2, 3, 5, 8, 13]
PEOPLE = 16
KANBAN = {"OPS"}  # projects whose board is a kanban board: continuous flow, no sprints
KANBAN_WIP = {W.IN_PROGRESS: 4, W.WAITING: 3}
SCRUM_WIP = {W.IN_PROGRESS: 5, W.IN_REVIEW: 3}
# per project: (name, kind, options, description); ids count up from 10010 like the product's customfield_10010
CUSTOM_FIELDS = {
    "AGENT": [
        ("Customer tier", "select", ["Free", "Team", "Enterprise"], "Plan of the customer who asked for it"),
        ("Acceptance criteria", "text", [], "What must be true for the issue to be done"),
    ],
    "WEB": [
        ("Browser", "select", ["Chrome", "Firefox", "Safari", "Edge"], "Where the problem shows"),
        ("Revenue impact", "number", [], "Estimated monthly revenue at stake, in dollars"),
    ],
    "OPS": [
        ("Environment", "select", ["production", "staging", "development"], "Where the change happens"),
        ("Change window", "date", [], "Day the change is scheduled for"),
    ],
}
CRITERIA = (
    ["a signed-in admin", "a user on a slow network", "a new workspace", "an expired token"],
    ["save the form twice", "open the list", "export the page", "switch the locale"],
    ["nothing is lost", "the page answers within a second", "the audit log has one entry", "an error says what to do"],
)
# select options renamed since: values written before the rename are still on old issues
# (old option -> the option it became)
LEGACY_OPTIONS = {
    "Customer tier": {"Gold": "Team", "Platinum": "Enterprise", "Basic": "Free"},
    "Browser": {"IE11": "Edge", "Chrome (old)": "Chrome"},
    "Environment": {"prod": "production", "PRODUCTION": "production"},
}
ATTACHMENTS = [
    ("screenshot-{n}.png", "image/png", 40_000, 900_000),
    ("console-log-{n}.txt", "text/plain", 800, 60_000),
    ("network-{n}.har", "application/json", 20_000, 2_000_000),
    ("design-{n}.pdf", "application/pdf", 90_000, 4_000_000),
    ("query-plan-{n}.sql", "application/sql", 300, 9_000),
]
SPRINT_DAYS = 14
CLOSED_SPRINTS = 13  # the active sprint is number 14

VERBS = ["Add", "Support", "Refactor", "Migrate", "Improve", "Remove", "Cache", "Validate", "Document", "Rework"]
THINGS = [
    "retry policy",
    "session store",
    "rate limiter",
    "audit log",
    "search index",
    "feature flags",
    "export to CSV",
    "billing webhooks",
    "onboarding checklist",
    "dark mode",
    "notification settings",
    "SSO login",
    "bulk import",
    "pagination",
    "error pages",
    "health checks",
    "API tokens",
    "usage dashboard",
    "access roles",
    "file uploads",
]
SYMPTOMS = [
    ("crashes when", "crash"),
    ("loses data when", "data loss"),
    ("shows a blank page when", ""),
    ("is slow when", ""),
    ("shows the wrong total when", ""),
    ("times out when", ""),
    ("logs users out when", ""),
]
SITUATIONS = [
    "a filter is saved twice",
    "the locale is set to German",
    "the list has more than 500 rows",
    "two tabs are open",
    "the token has expired",
    "an upload is cancelled",
    "the network drops",
    "the user has no avatar",
    "the page is refreshed during save",
    "a date is before 1970",
]
EPIC_THEMES = [
    "Self-serve onboarding",
    "Reliability push",
    "Enterprise SSO",
    "Mobile parity",
    "Billing v2",
    "Search relevance",
    "Observability",
    "Accessibility audit",
    "Performance budget",
    "Data retention",
]

PINGS = ["can you take a look?", "is this still happening for you?", "FYI.", "please confirm the fix."]

CONTRIBUTING = """How we triage new bugs in {key}

Every new bug lands in the backlog with the label needs-triage. The triager of the week, for each one:
1. Priority: Highest when the bug crashes the product or loses data (the summary says "crashes" or "loses data"); \
High when a customer reported it (label customer-reported); Medium otherwise.
2. Component: the area named in square brackets at the start of the summary, e.g. [{example}].
3. Assignee: the lead of that component (see the component list below).
4. Remove the needs-triage label; keep the other labels.

Component leads:
{leads}
"""


# --- project pages: the definition of done and the on-call runbook ---------------------------------------
# Each world draws the values a team would have settled on, so a task that says "per the runbook" can only
# be done by reading the page. The page keeps people as [~username] mentions (shown by today's name).
ESCALATION_PRIORITIES = ("Highest", "High")
ESCALATION_LABELS = ("escalated", "sev-2", "customer-impact", "support-escalation", "hot-issue")
DONE_LABELS = ("verified", "qa-passed", "release-noted", "support-verified", "regression-tested")
DEFINITION_OF_DONE = """A work item in {key} is done when every line below holds. \
Reviewers send back anything that misses one.

h2. Every work item
* The change is merged to main and was reviewed by someone other than its author.
* The acceptance criteria are met, and the tests that cover them pass in CI.
* Anything a user can see is described in the release notes draft.

h2. Bugs
# The fix ships in the next release: set *Fix versions* to {{{{{version}}}}}.
# Add the label {{{{{label}}}}} once the fix is verified on staging.
# Move the work item to *Done* with the resolution *Done*. \
(Won't Do, Duplicate and Cannot Reproduce are for bugs that ship no fix.)

h2. Not part of done
* Closing the customer's support ticket: support does that when they hear back from the customer.
"""
ON_CALL_RUNBOOK = """What the {key} on-call engineer does, and what anyone who escalates to them does first.

h2. This week
On call: [~{oncall}]. Backup: [~{backup}].

h2. Customer escalations from support
When support escalates a customer's bug to {key}, the person escalating it, on its work item:
# Assigns it to the on-call engineer named above.
# Sets its priority to *{priority}*.
# Adds the label {{{{{label}}}}} (keep the labels it has).
# Moves it to *In Progress*, so the board shows someone is on it.

h2. Paging
* Page the on-call engineer only for an outage or data loss; everything else goes through the steps above.
* If the on-call engineer does not answer within 15 minutes, page the backup.

h2. Handover
* On-call changes every Monday at 10:00. The outgoing engineer updates the names on this page.
"""


class Seeder:
    def __init__(self, gen):
        self.gen = gen
        self.rnd = gen.random
        self.fake = gen.faker
        self.now = gen.now
        self.layers = set(gen.knobs.get("layers", []))
        self.n = gen.knobs["issues"]
        self.comment_id = 10000
        self.change_id = 100000
        self.sprint_id = 0
        self.comments = []
        self.issues = []
        self.unreleased = {}  # project key -> names of its versions not released yet

    # --- helpers ---------------------------------------------------------------------------------

    def ago(self, days: float, spread: float = 0.0) -> datetime:
        return self.now - timedelta(days=days + self.rnd.uniform(0, spread), minutes=self.rnd.randint(0, 600))

    def change(self, issue, author, field, old, new, at):
        self.change_id += 1
        self.gen.add(
            Change(
                public_id=self.change_id,
                issue=issue,
                author=author,
                field=field,
                from_value=old or "",
                to_value=new or "",
                created_at=at,
            )
        )

    def comment(self, issue, author, body, at):
        self.comment_id += 1
        self.comments.append(
            self.gen.add(Comment(public_id=self.comment_id, issue=issue, author=author, body=body, created_at=at))
        )

    # --- people and projects ---------------------------------------------------------------------

    def people(self):
        self.persons = []
        used = set()
        for i in range(PEOPLE):
            while True:
                first, last = self.fake.first_name(), self.fake.last_name()
                username = f"{first[0]}{last}".lower().replace("'", "")
                if username not in used:
                    break
            used.add(username)
            self.persons.append(
                self.gen.add(
                    Person(
                        public_id=i + 1,
                        username=username,
                        name=f"{first} {last}",
                        email=f"{username}@replicalabs.example",
                        is_admin=i == 0,
                        active=True,
                        avatar_color=self.rnd.choice(
                            ["#0052CC", "#00875A", "#FF5630", "#6554C0", "#FF991F", "#00B8D9", "#36B37E", "#403294"]
                        ),
                    )
                )
            )
        # two people who left: still assigned to open work when the "departed" layer is on
        self.departed = self.persons[-2:] if "departed" in self.layers else []
        for person in self.departed:
            person.active = False
        self.team = [p for p in self.persons if p.active]

    def workflows(self):
        """One row per workflow of workflow.WORKFLOWS; projects point at theirs (PROJECT_WORKFLOWS)."""
        self.flows = {
            name: self.gen.add(Workflow(name=name, statuses=list(statuses), rules=[dict(r) for r in rules]))
            for name, (statuses, rules) in W.WORKFLOWS.items()
        }

    def project(self, key, name, component_names):
        lead = self.team[len(self.projects) % len(self.team)]
        project = self.gen.add(
            Project(
                key=key,
                name=name,
                lead=lead,
                workflow=self.flows[W.PROJECT_WORKFLOWS[key]],
                board_type=Project.BoardType.KANBAN if key in KANBAN else Project.BoardType.SCRUM,
            )
        )
        comps = []
        for cname in component_names:
            comps.append(self.gen.add(Component(project=project, name=cname, lead=self.rnd.choice(self.team[1:]))))
        leads = "\n".join(f"- {c.name}: {c.lead.name}" for c in comps)
        project.contributing = CONTRIBUTING.format(key=key, example=comps[0].name, leads=leads)
        versions = []
        for i, vname in enumerate(["1.0", "1.1", "2.0", "2.1", "2.2"]):
            released = i < 3
            versions.append(
                self.gen.add(
                    Version(
                        project=project,
                        name=vname,
                        released=released,
                        release_date=(self.now - timedelta(days=(3 - i) * 40)).date(),
                    )
                )
            )
        for position, status in enumerate(project.workflow.statuses):
            self.gen.add(
                BoardColumn(
                    project=project,
                    status=status,
                    position=position,
                    wip_limit=(KANBAN_WIP if key in KANBAN else SCRUM_WIP).get(status),
                )
            )
        self.projects.append(project)
        self.unreleased[key] = [v.name for v in versions if not v.released]
        return project, comps, versions

    def sprints(self, project):
        active_start = datetime.combine((self.now - timedelta(days=6)).date(), time(9, 0), tzinfo=self.now.tzinfo)
        made = []
        for number in range(1, CLOSED_SPRINTS + 4):
            self.sprint_id += 1
            start = active_start + timedelta(days=SPRINT_DAYS * (number - CLOSED_SPRINTS - 1))
            state = (
                Sprint.State.CLOSED
                if number <= CLOSED_SPRINTS
                else Sprint.State.ACTIVE
                if number == CLOSED_SPRINTS + 1
                else Sprint.State.FUTURE
            )
            made.append(
                self.gen.add(
                    Sprint(
                        public_id=self.sprint_id,
                        project=project,
                        number=number,
                        name=f"{project.key} Sprint {number}",
                        goal=self.rnd.choice(
                            [
                                "Ship the beta",
                                "Stabilise the release",
                                "Close the audit findings",
                                "Speed up the list pages",
                                "Finish the migration",
                                "",
                            ]
                        )
                        if state != Sprint.State.FUTURE
                        else "",
                        state=state,
                        start=start if state != Sprint.State.FUTURE else None,
                        end=start + timedelta(days=SPRINT_DAYS) if state != Sprint.State.FUTURE else None,
                        completed_at=start + timedelta(days=SPRINT_DAYS, hours=7)
                        if state == Sprint.State.CLOSED
                        else None,
                    )
                )
            )
        return made

    # --- issues ----------------------------------------------------------------------------------

    def issue(self, project, issue_type, summary, status, *, sprint=None, created=None, **fields):
        self.numbers[project.key] += 1
        number = self.numbers[project.key]
        created = created or self.ago(30, 200)
        reporter = fields.pop("reporter", None) or self.rnd.choice(self.team)
        resolution = fields.pop("resolution", "Done" if status == W.DONE else "")
        issue = Issue(
            key=f"{project.key}-{number}",
            project=project,
            number=number,
            issue_type=issue_type,
            summary=summary,
            description=fields.pop("description", None) or self.fake.paragraph(nb_sentences=3),
            status=status,
            resolution=resolution,
            priority=fields.pop("priority", None) or self.rnd.choices(W.PRIORITIES, [1, 3, 8, 3, 1])[0],
            reporter=reporter,
            sprint=sprint,
            created_at=created,
            updated_at=created,
            rank=number * 1000,
            **fields,
        )
        if issue.issue_type == "bug" and not issue.steps_to_reproduce and self.rnd.random() < 0.8:
            issue.steps_to_reproduce = (
                f"1. Sign in as a regular user\n2. {self.fake.sentence(nb_words=6)}\n3. Observe the error"
            )
        self.gen.add(issue)
        self.issues.append(issue)
        self.history(issue)
        return issue

    def history(self, issue):
        """The changelog that brought the issue to where it is, and a comment or two."""
        at = issue.created_at
        actor = issue.assignee or issue.reporter
        statuses = issue.project.workflow.statuses
        path = statuses[: statuses.index(issue.status) + 1]
        for old, new in zip(path, path[1:], strict=False):
            at = min(at + timedelta(hours=self.rnd.randint(2, 70)), self.now - timedelta(minutes=5))
            self.change(issue, actor, "status", old, new, at)
        if issue.resolution:
            self.change(issue, actor, "resolution", "", issue.resolution, at)
            issue.resolved_at = at
        for _ in range(self.rnd.choice([0, 0, 1, 1, 2])):
            at = min(at + timedelta(hours=self.rnd.randint(1, 30)), self.now - timedelta(minutes=1))
            self.comment(issue, self.rnd.choice(self.team), self.fake.sentence(nb_words=12), at)
        issue.updated_at = max(at, issue.created_at)
        if self.rnd.random() < 0.3:
            self.gen.add(Watcher(issue=issue, person=self.rnd.choice([p for p in self.team if p != issue.reporter])))

    def work_summary(self, comps):
        return f"{self.rnd.choice(VERBS)} {self.rnd.choice(THINGS)} in {self.rnd.choice(comps).name.lower()}"

    def bug_summary(self, comp):
        symptom, _ = self.rnd.choice(SYMPTOMS)
        return f"[{comp.name}] {self.rnd.choice(THINGS).capitalize()} {symptom} {self.rnd.choice(SITUATIONS)}"

    def labels(self, comp):
        labels = set(self.rnd.sample(LABELS, self.rnd.choice([0, 1, 1, 2])))
        if comp.name in ("Frontend", "Checkout", "Catalog", "Mobile"):
            labels.add("frontend")
        return sorted(labels)

    def fill(self, project, comps, versions, sprints):
        n = self.n
        epics = [
            self.issue(
                project, "epic", theme, W.IN_PROGRESS if i % 3 else W.TODO, created=self.ago(120, 60), priority="Medium"
            )
            for i, theme in enumerate(self.rnd.sample(EPIC_THEMES, max(3, min(10, n // 40))))
        ]
        closed, active, future = sprints[:CLOSED_SPRINTS], sprints[CLOSED_SPRINTS], sprints[CLOSED_SPRINTS + 1 :]

        def work(issue_type, status, sprint, created, **extra):
            comp = self.rnd.choice(comps)
            summary = self.bug_summary(comp) if issue_type == "bug" else self.work_summary(comps)
            extra.setdefault(
                "assignee", self.rnd.choice(self.team) if status != W.TODO or self.rnd.random() < 0.6 else None
            )
            return self.issue(
                project,
                issue_type,
                summary,
                status,
                sprint=sprint,
                created=created,
                components=[comp.name],
                labels=self.labels(comp),
                story_points=self.rnd.choice(POINTS) if issue_type != "bug" or self.rnd.random() < 0.5 else None,
                epic=self.rnd.choice(epics) if self.rnd.random() < 0.6 else None,
                fix_versions=[self.rnd.choice(versions).name] if self.rnd.random() < 0.4 else [],
                **extra,
            )

        # the active sprint: everything estimated, spread over the columns
        sprint_issues = []
        spread = [W.TODO] * 5 + [W.IN_PROGRESS] * 4 + [W.IN_REVIEW] * 3 + [W.DONE] * 4
        for status in spread:
            issue_type = self.rnd.choices(["story", "task", "bug"], [5, 3, 2])[0]
            issue = work(
                issue_type,
                status,
                active,
                self.ago(10, 8),
                assignee=self.rnd.choice(self.team),
                due_date=(active.end + timedelta(days=self.rnd.randint(-6, 4))).date(),
            )
            if issue.story_points is None:
                issue.story_points = self.rnd.choice(POINTS[:4])
            sprint_issues.append(issue)
        for parent in sprint_issues[::4]:
            for _ in range(self.rnd.randint(1, 2)):
                self.issue(
                    project,
                    "subtask",
                    f"{self.rnd.choice(VERBS)} {self.rnd.choice(THINGS)}",
                    parent.status if parent.status != W.IN_REVIEW else W.IN_PROGRESS,
                    sprint=active,
                    parent=parent,
                    assignee=parent.assignee,
                    created=parent.created_at + timedelta(hours=3),
                )
        # the next sprints, planned but not started
        for sprint, count in zip(future, (6, 3), strict=True):
            for _ in range(count):
                work(self.rnd.choices(["story", "task", "bug"], [5, 3, 2])[0], W.TODO, sprint, self.ago(20, 20))
        # the backlog: estimated and unestimated work, and new bugs waiting for triage
        backlog = []
        for _ in range(max(12, n // 6)):
            issue = work(
                self.rnd.choices(["story", "task", "bug"], [4, 3, 3])[0], W.TODO, None, self.ago(5, 90), assignee=None
            )
            if self.rnd.random() < 0.4:
                issue.story_points = None
            backlog.append(issue)
        for _ in range(max(4, n // 40)):
            comp = self.rnd.choice(comps)
            extra = ["customer-reported"] if self.rnd.random() < 0.4 else []
            self.issue(
                project,
                "bug",
                self.bug_summary(comp),
                W.TODO,
                created=self.ago(0.5, 4),
                priority="Medium",
                labels=sorted(["needs-triage", *extra]),
                components=[],
            )
        # done work in the closed sprints, the bulk of the project
        remaining = max(0, n - self.numbers[project.key])
        for i in range(remaining):
            sprint = closed[i * len(closed) // max(1, remaining)]
            created = sprint.start - timedelta(days=self.rnd.randint(0, 20))
            resolution = self.rnd.choices(["Done", "Won't Do", "Duplicate", "Cannot Reproduce"], [20, 2, 1, 1])[0]
            work(
                self.rnd.choices(["story", "task", "bug"], [5, 3, 2])[0],
                W.DONE,
                sprint,
                created,
                resolution=resolution,
                assignee=self.rnd.choice(self.team),
            )
        # links between open work
        open_work = sprint_issues + backlog
        for _ in range(max(2, n // 30)):
            a, b = self.rnd.sample(open_work, 2)
            if a.key != b.key and (a.key, b.key) not in self.links:
                self.link(a, self.rnd.choice(["relates", "relates", "blocks"]), b)
        self.messy(project, comps, closed[-1], active, sprint_issues, backlog)

    def link(self, source, kind, target):
        self.links.add((source.key, target.key))
        self.gen.add(Link(source=source, kind=kind, target=target))

    # --- messy layers ----------------------------------------------------------------------------

    def messy(self, project, comps, last_closed, active, sprint_issues, backlog):
        if "stale" in self.layers:
            for issue in self.rnd.sample(backlog, max(2, len(backlog) // 5)):
                issue.created_at = issue.updated_at = self.ago(200, 150)
        if "duplicates" in self.layers:
            for original in self.rnd.sample(backlog, max(1, len(backlog) // 12)):
                self.issue(
                    project,
                    original.issue_type,
                    original.summary.replace(" in ", " for ", 1)
                    if " in " in original.summary
                    else original.summary + " (again)",
                    W.TODO,
                    created=original.created_at + timedelta(days=self.rnd.randint(3, 30)),
                    components=list(original.components),
                    labels=list(original.labels),
                    description=f"Seen again today. {original.description}",
                    reporter=self.rnd.choice(self.team),
                )
        if "label_drift" in self.layers:
            for issue in self.rnd.sample(backlog + sprint_issues, max(3, len(backlog) // 6)):
                for good, variants in DRIFT.items():
                    if good in issue.labels:
                        issue.labels = sorted(
                            {*(lbl for lbl in issue.labels if lbl != good), self.rnd.choice(variants)}
                        )
                        break
                else:
                    issue.labels = sorted({*issue.labels, self.rnd.choice(DRIFT["frontend"])})
        if "ended_sprint" in self.layers:
            for status in (W.TODO, W.IN_PROGRESS, W.TODO):
                self.issue(
                    project,
                    "story",
                    self.work_summary(comps),
                    status,
                    sprint=last_closed,
                    created=last_closed.start,
                    assignee=self.rnd.choice(self.team),
                    story_points=self.rnd.choice(POINTS[:4]),
                    components=[comps[0].name],
                )
        if "blocker_chains" in self.layers:
            chain = self.rnd.sample([i for i in sprint_issues if i.status != W.DONE], 3)
            for a, b in zip(chain, chain[1:], strict=False):
                if (a.key, b.key) not in self.links:
                    self.link(a, "blocks", b)
            for issue in chain[:2]:
                issue.priority = "Highest"
        for person in self.departed:
            for issue in self.rnd.sample([i for i in backlog + sprint_issues if i.status != W.DONE], 3):
                issue.assignee = person

    def epic_drift(self):
        """An AGENT epic someone closed early: Done, while issues of it are still open."""
        epics = [i for i in self.issues if i.project.key == "AGENT" and i.issue_type == "epic" and i.status != W.DONE]
        open_children = {e.key: [i for i in self.issues if i.epic is e and i.status != W.DONE] for e in epics}
        candidates = [e for e in epics if len(open_children[e.key]) >= 2]
        if not candidates:
            return
        epic = self.rnd.choice(candidates)
        at = self.ago(9, 3)
        actor = self.rnd.choice(self.team)
        self.change(epic, actor, "status", epic.status, W.DONE, at)
        self.change(epic, actor, "resolution", "", "Done", at)
        epic.status, epic.resolution, epic.resolved_at, epic.updated_at = W.DONE, "Done", at, max(at, epic.updated_at)

    # --- kanban: continuous flow -----------------------------------------------------------------

    def fill_kanban(self, project, comps, versions):
        """No sprints: a ranked To Do column, In Progress at its WIP limit, a few waiting for support, and done
        work resolved over the last months (the board shows what was resolved in the last two weeks)."""
        epics = [
            self.issue(project, "epic", theme, W.IN_PROGRESS, created=self.ago(90, 60), priority="Medium")
            for theme in self.rnd.sample(EPIC_THEMES, 3)
        ]

        def work(status, created, **extra):
            issue_type = self.rnd.choices(["task", "bug", "story"], [6, 3, 1])[0]
            comp = self.rnd.choice(comps)
            summary = self.bug_summary(comp) if issue_type == "bug" else self.work_summary(comps)
            if issue_type == "bug" and status != W.TODO:  # the workflow let it start: it has its steps
                extra["steps_to_reproduce"] = (
                    f"1. {self.fake.sentence(nb_words=6)}\n2. Watch the dashboard\n3. The alert fires"
                )
            return self.issue(
                project,
                issue_type,
                summary,
                status,
                created=created,
                components=[comp.name],
                labels=self.labels(comp),
                epic=self.rnd.choice(epics) if self.rnd.random() < 0.4 else None,
                **extra,
            )

        # one card each in In Progress: the column sits exactly at its limit
        for person in self.rnd.sample(self.team[1:], KANBAN_WIP[W.IN_PROGRESS]):
            work(W.IN_PROGRESS, self.ago(6, 6), assignee=person)
        for _ in range(2):
            work(W.WAITING, self.ago(5, 4), assignee=self.rnd.choice(self.team))
        for _ in range(max(10, self.n // 25)):
            work(W.TODO, self.ago(3, 40), assignee=self.rnd.choice(self.team) if self.rnd.random() < 0.5 else None)
        done = max(0, self.n - self.numbers[project.key])
        for i in range(done):
            resolution = self.rnd.choices(["Done", "Won't Do", "Duplicate"], [20, 2, 1])[0]
            work(
                W.DONE,
                self.ago(3 + 150 * i / max(1, done), 3),
                assignee=self.rnd.choice(self.team),
                resolution=resolution,
            )

    # --- what every project has: custom fields, attachments, mentions; people's filters --------------

    def custom_fields(self):
        field_id = 10009
        by_project = {}
        for project in self.projects:
            for name, kind, options, description in CUSTOM_FIELDS[project.key]:
                field_id += 1
                by_project.setdefault(project.key, []).append(
                    self.gen.add(
                        CustomField(
                            public_id=field_id,
                            project=project,
                            name=name,
                            kind=kind,
                            options=options,
                            description=description,
                        )
                    )
                )
        legacy = "legacy_fields" in self.layers
        for issue in self.issues:
            if issue.issue_type in ("epic", "subtask"):
                continue
            for field in by_project[issue.project.key]:
                if self.rnd.random() >= 0.25:
                    continue
                if field.kind == "select":
                    old = sorted(LEGACY_OPTIONS.get(field.name, {}))
                    # values older than the last rename keep the options of their day
                    stale = (
                        legacy and old and issue.created_at < self.now - timedelta(days=30) and self.rnd.random() < 0.6
                    )
                    value = self.rnd.choice(old if stale else field.options)
                elif field.kind == "number":
                    value = str(self.rnd.choice([250, 500, 1200, 4000, 15000, 60000]))
                elif field.kind == "date":
                    value = (issue.created_at + timedelta(days=self.rnd.randint(3, 30))).date().isoformat()
                else:
                    value = (
                        f"Given {self.rnd.choice(CRITERIA[0])}, when they {self.rnd.choice(CRITERIA[1])}, "
                        f"then {self.rnd.choice(CRITERIA[2])}."
                    )
                self.gen.add(FieldValue(issue=issue, field=field, value=value))

    def attachments(self):
        public_id = 20000
        for issue in self.issues:
            if issue.issue_type == "epic" or self.rnd.random() >= 0.08:
                continue
            for n in range(1, self.rnd.choice([1, 1, 2]) + 1):
                pattern, mime, low, high = self.rnd.choice(ATTACHMENTS)
                public_id += 1
                at = min(issue.created_at + timedelta(hours=self.rnd.randint(0, 48)), self.now - timedelta(minutes=1))
                self.gen.add(
                    Attachment(
                        public_id=public_id,
                        issue=issue,
                        name=pattern.format(n=n),
                        size=self.rnd.randint(low, high),
                        content_type=mime,
                        author=issue.reporter,
                        created_at=at,
                    )
                )

    def mentions(self):
        """Some comments ask a teammate something: the product writes a mention as [~username]."""
        for comment in self.comments:
            if self.rnd.random() >= 0.15:
                continue
            who = self.rnd.choice([p for p in self.team if p is not comment.author])
            comment.body = f"[~{who.username}] {self.rnd.choice(PINGS)} {comment.body}"
            self.gen.add(Mention(comment=comment, person=who))

    def filters(self):
        public_id = 10100
        admin = self.persons[0]
        saved = [
            (
                admin,
                "My open issues",
                "assignee = currentUser() AND resolution = Unresolved ORDER BY priority DESC",
                True,
            ),
            (
                admin,
                "AGENT blockers this sprint",
                "project = AGENT AND sprint in openSprints() AND priority = Highest AND status != Done",
                True,
            ),
            (admin, "Untriaged bugs", "labels = needs-triage ORDER BY created DESC", False),
            (
                admin,
                "Enterprise asks",
                'project = AGENT AND "Customer tier" = Enterprise AND resolution = Unresolved',
                False,
            ),
        ]
        for person in self.rnd.sample(self.team[1:], 4):
            saved.append(
                (person, "Reported by me", "reporter = currentUser() ORDER BY updated DESC", self.rnd.random() < 0.5)
            )
        for owner, name, query, starred in saved:
            public_id += 1
            self.gen.add(
                Filter(
                    public_id=public_id,
                    owner=owner,
                    name=name,
                    jql=query,
                    starred=starred,
                    updated_at=self.ago(20, 100),
                )
            )

    def pages(self):
        """Each project's pages: the definition of done and the on-call runbook, with this world's values.
        Drawn last, so adding them moved no other record of the world."""
        for project in self.projects:
            oncall, backup = self.rnd.sample(self.team[1:], 2)
            runbook = ON_CALL_RUNBOOK.format(
                key=project.key,
                oncall=oncall.username,
                backup=backup.username,
                priority=self.rnd.choice(ESCALATION_PRIORITIES),
                label=self.rnd.choice(ESCALATION_LABELS),
            )
            done = DEFINITION_OF_DONE.format(
                key=project.key,
                version=self.rnd.choice(self.unreleased[project.key]),
                label=self.rnd.choice(DONE_LABELS),
            )
            for position, (slug, title, body) in enumerate(
                [("definition-of-done", "Definition of done", done), ("on-call-runbook", "On-call runbook", runbook)]
            ):
                self.gen.add(
                    ProjectPage(
                        project=project,
                        slug=slug,
                        title=title,
                        body=body,
                        position=position,
                        author=project.lead,
                        updated_at=self.ago(3, 20),
                    )
                )


def generate(gen):
    s = Seeder(gen)
    s.people()
    s.workflows()
    s.projects, s.numbers, s.links = [], {}, set()
    for key, name, component_names in PROJECTS:
        project, comps, versions = s.project(key, name, component_names)
        s.numbers[key] = 0
        if key in KANBAN:
            s.fill_kanban(project, comps, versions)
        else:
            s.fill(project, comps, versions, s.sprints(project))
    if "epic_drift" in s.layers:
        s.epic_drift()
    s.custom_fields()
    s.attachments()
    s.mentions()
    s.filters()
    s.pages()
