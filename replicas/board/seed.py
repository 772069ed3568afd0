"""Seed generator of the issue board: three product teams two weeks into their sprints.

Everything is drawn from gen.random / gen.faker in a fixed order; timestamps are offsets
back from the world clock. Done work sits in closed sprints with the history that got it
there; the active sprint is under way; the backlog holds what is left, new bugs waiting for
triage included. Variant knobs switch on messy layers (see LAYERS).
"""
from datetime import datetime, time, timedelta

from . import workflow as W
from .models import BoardColumn, Change, Comment, Component, Issue, Link, Person, Project, Sprint, Version, Watcher

LAYERS = (
    "stale",  # backlog issues nobody touched for months
    "duplicates",  # the same problem filed twice, not linked yet
    "label_drift",  # "Frontend", "front-end" next to "frontend"; "techdebt" next to "tech-debt"
    "ended_sprint",  # the last closed sprint still holds unfinished issues
    "blocker_chains",  # A blocks B blocks C inside the active sprint
    "departed",  # people who left the team, still assigned to open issues
)

PROJECTS = [
    ("AGENT", "Agent Platform", ["Backend", "Frontend", "API", "Infrastructure", "Mobile"]),
    ("WEB", "Web Storefront", ["Checkout", "Catalog", "Search", "Accounts"]),
    ("OPS", "Operations", ["Monitoring", "Deploys", "Databases"]),
]
LABELS = ["frontend", "backend", "performance", "security", "tech-debt", "customer-reported", "regression", "ux", "docs",
          "flaky-test"]
DRIFT = {"frontend": ["Frontend", "front-end"], "tech-debt": ["techdebt", "Tech-Debt"]}
POINTS = [1, 2, 3, 5, 8, 13]
PEOPLE = 16
SPRINT_DAYS = 14
CLOSED_SPRINTS = 13  # the active sprint is number 14

VERBS = ["Add", "Support", "Refactor", "Migrate", "Improve", "Remove", "Cache", "Validate", "Document", "Rework"]
THINGS = ["retry policy", "session store", "rate limiter", "audit log", "search index", "feature flags", "export to CSV",
          "billing webhooks", "onboarding checklist", "dark mode", "notification settings", "SSO login", "bulk import",
          "pagination", "error pages", "health checks", "API tokens", "usage dashboard", "access roles", "file uploads"]
SYMPTOMS = [("crashes when", "crash"), ("loses data when", "data loss"), ("shows a blank page when", ""),
            ("is slow when", ""), ("shows the wrong total when", ""), ("times out when", ""), ("logs users out when", "")]
SITUATIONS = ["a filter is saved twice", "the locale is set to German", "the list has more than 500 rows", "two tabs are open",
              "the token has expired", "an upload is cancelled", "the network drops", "the user has no avatar",
              "the page is refreshed during save", "a date is before 1970"]
EPIC_THEMES = ["Self-serve onboarding", "Reliability push", "Enterprise SSO", "Mobile parity", "Billing v2", "Search relevance",
               "Observability", "Accessibility audit", "Performance budget", "Data retention"]

CONTRIBUTING = """How we triage new bugs in {key}

Every new bug lands in the backlog with the label needs-triage. The triager of the week, for each one:
1. Priority: Highest when the bug crashes the product or loses data (the summary says "crashes" or "loses data"); High when a customer reported it (label customer-reported); Medium otherwise.
2. Component: the area named in square brackets at the start of the summary, e.g. [{example}].
3. Assignee: the lead of that component (see the component list below).
4. Remove the needs-triage label; keep the other labels.

Component leads:
{leads}
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

    # --- helpers ---------------------------------------------------------------------------------

    def ago(self, days: float, spread: float = 0.0) -> datetime:
        return self.now - timedelta(days=days + self.rnd.uniform(0, spread), minutes=self.rnd.randint(0, 600))

    def change(self, issue, author, field, old, new, at):
        self.change_id += 1
        self.gen.add(Change(public_id=self.change_id, issue=issue, author=author, field=field, from_value=old or "",
                            to_value=new or "", created_at=at))

    def comment(self, issue, author, body, at):
        self.comment_id += 1
        self.gen.add(Comment(public_id=self.comment_id, issue=issue, author=author, body=body, created_at=at))

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
            self.persons.append(self.gen.add(Person(
                public_id=i + 1, username=username, name=f"{first} {last}", email=f"{username}@replicalabs.example",
                is_admin=i == 0, active=True, avatar_color=self.rnd.choice(["#0052CC", "#00875A", "#FF5630", "#6554C0",
                                                                            "#FF991F", "#00B8D9", "#36B37E", "#403294"]),
            )))
        # two people who left: still assigned to open work when the "departed" layer is on
        self.departed = self.persons[-2:] if "departed" in self.layers else []
        for person in self.departed:
            person.active = False
        self.team = [p for p in self.persons if p.active]

    def project(self, key, name, component_names):
        lead = self.team[len(self.projects) % len(self.team)]
        project = self.gen.add(Project(key=key, name=name, lead=lead))
        comps = []
        for cname in component_names:
            comps.append(self.gen.add(Component(project=project, name=cname, lead=self.rnd.choice(self.team[1:]))))
        leads = "\n".join(f"- {c.name}: {c.lead.name}" for c in comps)
        project.contributing = CONTRIBUTING.format(key=key, example=comps[0].name, leads=leads)
        versions = []
        for i, vname in enumerate(["1.0", "1.1", "2.0", "2.1", "2.2"]):
            released = i < 3
            versions.append(self.gen.add(Version(project=project, name=vname, released=released,
                                                 release_date=(self.now - timedelta(days=(3 - i) * 40)).date())))
        for position, status in enumerate(W.STATUSES):
            self.gen.add(BoardColumn(project=project, status=status, position=position,
                                     wip_limit={W.IN_PROGRESS: 5, W.IN_REVIEW: 3}.get(status)))
        self.projects.append(project)
        return project, comps, versions

    def sprints(self, project):
        active_start = datetime.combine((self.now - timedelta(days=6)).date(), time(9, 0), tzinfo=self.now.tzinfo)
        made = []
        for number in range(1, CLOSED_SPRINTS + 4):
            self.sprint_id += 1
            start = active_start + timedelta(days=SPRINT_DAYS * (number - CLOSED_SPRINTS - 1))
            state = Sprint.State.CLOSED if number <= CLOSED_SPRINTS else Sprint.State.ACTIVE if number == CLOSED_SPRINTS + 1 else Sprint.State.FUTURE
            made.append(self.gen.add(Sprint(
                public_id=self.sprint_id, project=project, number=number, name=f"{project.key} Sprint {number}",
                goal=self.rnd.choice(["Ship the beta", "Stabilise the release", "Close the audit findings", "Speed up the list pages",
                                      "Finish the migration", ""]) if state != Sprint.State.FUTURE else "",
                state=state, start=start if state != Sprint.State.FUTURE else None,
                end=start + timedelta(days=SPRINT_DAYS) if state != Sprint.State.FUTURE else None,
                completed_at=start + timedelta(days=SPRINT_DAYS, hours=7) if state == Sprint.State.CLOSED else None,
            )))
        return made

    # --- issues ----------------------------------------------------------------------------------

    def issue(self, project, issue_type, summary, status, *, sprint=None, created=None, **fields):
        self.numbers[project.key] += 1
        number = self.numbers[project.key]
        created = created or self.ago(30, 200)
        reporter = fields.pop("reporter", None) or self.rnd.choice(self.team)
        resolution = fields.pop("resolution", "Done" if status == W.DONE else "")
        issue = Issue(
            key=f"{project.key}-{number}", project=project, number=number, issue_type=issue_type, summary=summary,
            description=fields.pop("description", None) or self.fake.paragraph(nb_sentences=3),
            status=status, resolution=resolution, priority=fields.pop("priority", None) or self.rnd.choices(W.PRIORITIES, [1, 3, 8, 3, 1])[0],
            reporter=reporter, sprint=sprint, created_at=created, updated_at=created,
            rank=number * 1000, **fields,
        )
        if issue.issue_type == "bug" and not issue.steps_to_reproduce and self.rnd.random() < 0.8:
            issue.steps_to_reproduce = f"1. Sign in as a regular user\n2. {self.fake.sentence(nb_words=6)}\n3. Observe the error"
        self.gen.add(issue)
        self.history(issue)
        return issue

    def history(self, issue):
        """The changelog that brought the issue to where it is, and a comment or two."""
        at = issue.created_at
        actor = issue.assignee or issue.reporter
        path = W.STATUSES[: W.STATUSES.index(issue.status) + 1]
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
        epics = [self.issue(project, "epic", theme, W.IN_PROGRESS if i % 3 else W.TODO, created=self.ago(120, 60),
                            priority="Medium")
                 for i, theme in enumerate(self.rnd.sample(EPIC_THEMES, max(3, min(10, n // 40))))]
        closed, active, future = sprints[:CLOSED_SPRINTS], sprints[CLOSED_SPRINTS], sprints[CLOSED_SPRINTS + 1:]

        def work(issue_type, status, sprint, created, **extra):
            comp = self.rnd.choice(comps)
            summary = self.bug_summary(comp) if issue_type == "bug" else self.work_summary(comps)
            extra.setdefault("assignee", self.rnd.choice(self.team) if status != W.TODO or self.rnd.random() < 0.6 else None)
            return self.issue(project, issue_type, summary, status, sprint=sprint, created=created, components=[comp.name],
                              labels=self.labels(comp), story_points=self.rnd.choice(POINTS) if issue_type != "bug" or self.rnd.random() < 0.5 else None,
                              epic=self.rnd.choice(epics) if self.rnd.random() < 0.6 else None,
                              fix_versions=[self.rnd.choice(versions).name] if self.rnd.random() < 0.4 else [], **extra)

        # the active sprint: everything estimated, spread over the columns
        sprint_issues = []
        spread = [W.TODO] * 5 + [W.IN_PROGRESS] * 4 + [W.IN_REVIEW] * 3 + [W.DONE] * 4
        for status in spread:
            issue_type = self.rnd.choices(["story", "task", "bug"], [5, 3, 2])[0]
            issue = work(issue_type, status, active, self.ago(10, 8),
                         assignee=self.rnd.choice(self.team), due_date=(active.end + timedelta(days=self.rnd.randint(-6, 4))).date())
            if issue.story_points is None:
                issue.story_points = self.rnd.choice(POINTS[:4])
            sprint_issues.append(issue)
        for parent in sprint_issues[:: 4]:
            for _ in range(self.rnd.randint(1, 2)):
                self.issue(project, "subtask", f"{self.rnd.choice(VERBS)} {self.rnd.choice(THINGS)}", parent.status if parent.status != W.IN_REVIEW else W.IN_PROGRESS,
                           sprint=active, parent=parent, assignee=parent.assignee, created=parent.created_at + timedelta(hours=3))
        # the next sprints, planned but not started
        for sprint, count in zip(future, (6, 3), strict=True):
            for _ in range(count):
                work(self.rnd.choices(["story", "task", "bug"], [5, 3, 2])[0], W.TODO, sprint, self.ago(20, 20))
        # the backlog: estimated and unestimated work, and new bugs waiting for triage
        backlog = []
        for _ in range(max(12, n // 6)):
            issue = work(self.rnd.choices(["story", "task", "bug"], [4, 3, 3])[0], W.TODO, None, self.ago(5, 90), assignee=None)
            if self.rnd.random() < 0.4:
                issue.story_points = None
            backlog.append(issue)
        for _ in range(max(4, n // 40)):
            comp = self.rnd.choice(comps)
            extra = ["customer-reported"] if self.rnd.random() < 0.4 else []
            self.issue(project, "bug", self.bug_summary(comp), W.TODO, created=self.ago(0.5, 4), priority="Medium",
                       labels=sorted(["needs-triage", *extra]), components=[])
        # done work in the closed sprints, the bulk of the project
        remaining = max(0, n - self.numbers[project.key])
        for i in range(remaining):
            sprint = closed[i * len(closed) // max(1, remaining)]
            created = sprint.start - timedelta(days=self.rnd.randint(0, 20))
            resolution = self.rnd.choices(["Done", "Won't Do", "Duplicate", "Cannot Reproduce"], [20, 2, 1, 1])[0]
            work(self.rnd.choices(["story", "task", "bug"], [5, 3, 2])[0], W.DONE, sprint, created, resolution=resolution,
                 assignee=self.rnd.choice(self.team))
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
                self.issue(project, original.issue_type, original.summary.replace(" in ", " for ", 1) if " in " in original.summary else original.summary + " (again)",
                           W.TODO, created=original.created_at + timedelta(days=self.rnd.randint(3, 30)),
                           components=list(original.components), labels=list(original.labels),
                           description=f"Seen again today. {original.description}", reporter=self.rnd.choice(self.team))
        if "label_drift" in self.layers:
            for issue in self.rnd.sample(backlog + sprint_issues, max(3, len(backlog) // 6)):
                for good, variants in DRIFT.items():
                    if good in issue.labels:
                        issue.labels = sorted({*(lbl for lbl in issue.labels if lbl != good), self.rnd.choice(variants)})
                        break
                else:
                    issue.labels = sorted({*issue.labels, self.rnd.choice(DRIFT["frontend"])})
        if "ended_sprint" in self.layers:
            for status in (W.TODO, W.IN_PROGRESS, W.TODO):
                self.issue(project, "story", self.work_summary(comps), status, sprint=last_closed, created=last_closed.start,
                           assignee=self.rnd.choice(self.team), story_points=self.rnd.choice(POINTS[:4]), components=[comps[0].name])
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


def generate(gen):
    s = Seeder(gen)
    s.people()
    s.projects, s.numbers, s.links = [], {}, set()
    for key, name, component_names in PROJECTS:
        project, comps, versions = s.project(key, name, component_names)
        s.numbers[key] = 0
        s.fill(project, comps, versions, s.sprints(project))
