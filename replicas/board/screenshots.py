"""The issue board's screenshot tour (`manage.py screenshots board`): every page and dialog of the board
(Your work, Projects, Dashboards, a project's Summary, Timeline, Backlog, Board, List and Reports, its
settings, a work item, search in both modes with JQL suggestions, saved filters) and its dialogs and menus
(Create, Start and Complete sprint, a card dragged to Done, keyboard shortcuts, notifications, the toolbar's
filters and Group by), as the first
administrator, each at 1280x800 and at 1920x1080: board-<name>-1280.png and board-<name>-1920.png."""

from urllib.parse import quote

from replicas.worlds.registry import get_replica

from .models import Issue, Sprint

JQL = 'project = AGENT AND status in ("To Do", "In Progress") AND sprint in openSprints() ORDER BY priority DESC'
SIZES = ((1280, 800), (1920, 1080))


def _pages(issue: Issue, future: Sprint) -> list[tuple[str, str]]:
    return [
        ("your-work", "/your-work"),
        ("projects", "/projects"),
        ("dashboards", "/dashboards"),
        ("summary", "/projects/AGENT/summary"),
        ("timeline", "/projects/AGENT/timeline"),
        ("backlog", "/projects/AGENT/backlog"),
        ("backlog-epic", f"/projects/AGENT/backlog?epic={issue.epic.key if issue.epic else 'none'}"),
        ("scrum-board", "/projects/AGENT/board"),
        ("board-filtered", "/projects/AGENT/board?type=story&type=bug"),
        ("kanban", "/projects/OPS/board"),
        ("side-panel", f"/projects/AGENT/board?selectedIssue={issue.key}"),
        ("issue-view", f"/browse/{issue.key}"),
        ("list", f"/issues?jql={quote('project = AGENT ORDER BY created DESC')}"),  # the sidebar's List
        ("search", f"/issues?jql={quote(JQL)}"),
        ("search-basic", "/issues?mode=basic&project=AGENT&type=Bug"),
        ("search-paged", f"/issues?jql={quote('ORDER BY created DESC')}&page=2"),
        ("filters", "/filters"),
        ("report-burndown", "/projects/AGENT/reports/burndown"),
        ("report-velocity", "/projects/AGENT/reports/velocity"),
        ("project-settings", "/projects/AGENT/settings"),
        ("create-page", "/projects/AGENT/issues/new?issue_type=bug"),
        ("start-sprint-page", f"/projects/AGENT/sprints/{future.public_id}/start"),
    ]


def tour(world):
    # a story of the active sprint with sub-tasks, links and comments shows the most of the issue view
    issue = max(
        Issue.objects.filter(sprint__state="active", project__key="AGENT", issue_type="story").order_by("number"),
        key=lambda i: (i.subtasks.count() + i.outward_links.count() + i.inward_links.count(), i.comments.count()),
    )
    future = Sprint.objects.filter(project__key="AGENT", state="future").order_by("number").first()
    session_key = get_replica("board").sign_in(world).session_key
    pages = _pages(issue, future)

    def shoot(camera):
        for width, height in SIZES:
            page = camera.page(session_key, width=width, height=height)

            def name(what, width=width):
                return f"board-{what}-{width}.png"

            for what, path in pages:
                camera.shot(page, name(what), path)
            camera.goto(page, f"/browse/{issue.key}")
            page.fill("#id_labels", "needs-review")  # an inline edit in progress: its check and cross show
            camera.shot(page, name("inline-edit"))
            # the dialogs over the board, and its menus
            camera.goto(page, "/projects/AGENT/board")
            page.locator(".topnav__create").click()
            page.locator("#modal-dialog[open] #id_summary").wait_for()
            page.select_option("#id_issue_type", "bug")
            camera.shot(page, name("create-dialog"))
            camera.goto(page, "/projects/AGENT/board")
            page.get_by_role("link", name="Complete sprint").click()
            page.locator("#modal-dialog[open] #id_move_to").wait_for()
            camera.shot(page, name("complete-sprint-dialog"))
            camera.goto(page, "/projects/AGENT/board")
            page.locator("#epic-filter").click()
            camera.shot(page, name("board-epic-menu"))
            camera.goto(page, "/projects/AGENT/board")
            page.locator("#group-by").click()
            camera.shot(page, name("board-group-menu"))
            camera.goto(page, "/projects/AGENT/backlog")
            page.locator(".brow .brow__rank summary").first.click()
            camera.shot(page, name("backlog-row-menu"))
            camera.goto(page, "/projects/AGENT/backlog")
            page.locator(".bcreate__open").last.click()
            camera.shot(page, name("backlog-inline-create"))
            camera.goto(page, "/your-work")
            page.locator(".topnav__menu summary").first.click()
            page.locator(".topnav__menu .notif, .topnav__menu .menu__empty").first.wait_for()  # fetched on opening
            camera.shot(page, name("notifications"))
            camera.goto(page, "/issues")
            page.fill("#jql", "")
            page.locator("#jql").press_sequentially("status = ", delay=10)
            page.locator("#jql-suggest li").first.wait_for()
            camera.shot(page, name("jql-autocomplete"))
            camera.goto(page, "/projects/AGENT/board")
            with page.expect_navigation(wait_until="networkidle"):  # through the board's own Group by menu
                page.locator("#group-by").click()
                page.locator("#group-by-epic").click()
            camera.shot(page, name("swimlanes-epic"))
            with page.expect_navigation(wait_until="networkidle"):
                page.locator("#group-by").click()
                page.locator("#group-by-none").click()
            # the help menu's keyboard shortcuts, and the resolution dialog a card dragged to Done opens
            page.locator("summary[aria-label='Help']").click()
            page.locator("[data-shortcuts-open]").click()
            page.locator("#shortcuts-dialog[open]").wait_for()
            camera.shot(page, name("shortcuts-dialog"))
            camera.goto(page, "/projects/AGENT/board")
            _drag(page, "[data-drop-status='To Do'] [data-key]", "[data-drop-status='Done'] .column__head")
            page.locator("#resolve-dialog[open]").wait_for()
            camera.shot(page, name("transition-dialog"))
            page.context.close()
        # last, as it changes the world: the active sprint completed, so that Start sprint opens its dialog
        page = camera.page(session_key)
        camera.goto(page, "/projects/AGENT/board")
        page.get_by_role("link", name="Complete sprint").click()
        page.select_option("#modal-dialog[open] #id_move_to", "backlog")
        with page.expect_navigation(wait_until="networkidle"):
            page.locator("#complete-submit").click()
        page.context.close()
        for width, height in SIZES:
            page = camera.page(session_key, width=width, height=height)
            camera.goto(page, "/projects/AGENT/backlog")
            page.locator("a[data-dialog-link]", has_text="Start sprint").first.click()
            page.locator("#modal-dialog[open] #start-submit").wait_for()
            camera.shot(page, f"board-start-sprint-dialog-{width}.png")
            page.context.close()

    return shoot


def _drag(page, source: str, target: str) -> None:
    """A real mouse drag, as a person makes it: press on the card, move in steps, release over the target."""
    start, end = page.locator(source).first.bounding_box(), page.locator(target).first.bounding_box()
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=12)
    page.mouse.up()
