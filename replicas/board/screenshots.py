"""The issue board's screenshot tour (`manage.py screenshots board`): scrum and kanban boards, swimlanes by
epic, the side panel (also at 1280x800), the backlog, an issue and one of its fields being edited in place,
a search paged 50 at a time, the burndown and velocity reports and the saved filters, as the first
administrator at 1440x900."""

from urllib.parse import quote

from replicas.worlds.registry import get_replica

from .models import Issue

JQL = 'project = AGENT AND status in ("To Do", "In Progress") AND sprint in openSprints() ORDER BY priority DESC'


def tour(world):
    # a story of the active sprint with sub-tasks, links and comments shows the most of the issue view
    issue = max(
        Issue.objects.filter(sprint__state="active", project__key="AGENT", issue_type="story").order_by("number"),
        key=lambda i: (i.subtasks.count() + i.outward_links.count() + i.inward_links.count(), i.comments.count()),
    )
    session_key = get_replica("board").sign_in(world).session_key

    def shoot(camera):
        page = camera.page(session_key, width=1440, height=900)
        camera.shot(page, "board-scrum-board.png", "/projects/AGENT/board")
        camera.shot(page, "board-backlog.png", "/projects/AGENT/backlog")
        camera.shot(page, "board-issue-view.png", f"/browse/{issue.key}")
        camera.shot(page, "board-search.png", f"/issues?jql={quote(JQL)}")
        camera.shot(page, "board-kanban.png", "/projects/OPS/board")
        camera.shot(page, "board-side-panel.png", f"/projects/AGENT/board?selectedIssue={issue.key}")
        camera.shot(page, "board-filters.png", "/filters")
        camera.shot(page, "board-search-paged.png", f"/issues?jql={quote('ORDER BY created DESC')}&page=2")
        camera.shot(page, "board-report-burndown.png", "/projects/AGENT/reports/burndown")
        camera.shot(page, "board-report-velocity.png", "/projects/AGENT/reports/velocity")
        camera.goto(page, f"/browse/{issue.key}")
        page.fill("#id_labels", "needs-review")  # an inline edit in progress: its check and cross show
        camera.shot(page, "board-inline-edit.png")
        narrow = camera.page(session_key, width=1280, height=800)
        camera.shot(narrow, "board-side-panel-1280.png", f"/projects/AGENT/board?selectedIssue={issue.key}")
        camera.goto(page, "/projects/AGENT/board")
        with page.expect_navigation(wait_until="networkidle"):  # through the board's own Group by menu
            page.select_option("#group-by", "epic")
        camera.shot(page, "board-swimlanes-epic.png")

    return shoot
