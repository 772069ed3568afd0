"""The episode viewer's screenshot tour (`manage.py screenshots workspace-viewer`): a cross-app episode
in the viewer, one tab per app, the checkpoints each step reached (issue 32).

The oracle plays a task of the cross-app pack with dense checkpoints on, in this process's engine;
then the tour shoots the viewer, signed in as a staff user of its own, at 1280x800:
workspace-viewer-summary.png (the episode's checkpoints, each with the step that reached it),
workspace-viewer-desk.png and workspace-viewer-board.png (a step with the support desk's tab focused,
then one with the board's), and workspace-viewer-checkpoint.png (a step that reached a checkpoint).
"""

from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse

from catalogue.packs import WORKSPACE_PACK, task_current
from episodes.creation import episode_create
from episodes.driver import agent_for, episode_run
from episodes.engine.browser import shutdown_browser
from episodes.models import Episode
from replicagym.accounts.roles import Role, role_grant

TASK = f"{WORKSPACE_PACK}.escalate-ticket-to-work-item"  # desk (tab 0) and board (tab 1), two checkpoints
USERNAME = "screenshots"  # the staff user the tour signs in as: no password, so nobody else signs in with it


class TourError(LookupError):
    """The episode the tour played does not show what the pictures are for."""


def _session_key() -> str:
    user, created = get_user_model().objects.get_or_create(username=USERNAME)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    role_grant(user=user, role=Role.AUTHOR)
    store = SessionStore()
    store["_auth_user_id"] = str(user.pk)
    store["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
    store["_auth_user_hash"] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def showcase_steps(steps: list) -> dict[str, int]:
    """The step each picture shows, by picture: for the desk and the board, the last step that acted on a page of
    that app (focused on it before and after, another tab open) and reached no checkpoint; then the first step that
    reached a checkpoint."""

    def focused(step) -> str | None:
        tabs = (step.tabs or []) if step is not None else []
        return next((t.get("app") for t in tabs if t.get("active")), None) if len(tabs) > 1 else None

    def on(app: str) -> int | None:
        found = [
            s.index
            for before, s in zip([None, *steps], steps, strict=False)
            if focused(before) == app == focused(s) and not (s.checkpoints or {}).get("new")
        ]
        return found[-1] if found else None

    reached = [s.index for s in steps if (s.checkpoints or {}).get("new")]
    picked = {"desk": on("supportdesk"), "board": on("board"), "checkpoint": reached[0] if reached else None}
    missing = sorted(name for name, index in picked.items() if index is None)
    if missing:
        raise TourError(f"the episode has no step for {', '.join(missing)}: its tabs or checkpoints were not kept")
    return picked


def tour(task_id: str = TASK):
    """Play the episode and return shoot(camera): the camera's origin is the platform's (no ORM in there)."""
    episode = episode_create(
        task=task_current(task_id),
        agent="oracle",
        agent_settings={"dense_checkpoints": True},
        status=Episode.Status.RUNNING,
    )
    try:
        episode = episode_run(episode_id=episode.pk, agent=agent_for(episode))
    finally:
        shutdown_browser()  # the camera starts Playwright of its own in this thread
    if episode.status != Episode.Status.SUCCEEDED:
        raise TourError(f"the oracle's episode {episode.pk} of {task_id} ended {episode.status}: {episode.error}")
    picked = showcase_steps(list(episode.steps.order_by("index")))
    path = reverse("reports:episode", args=[episode.pk])
    session_key = _session_key()

    def shoot(camera):
        page = camera.page(session_key)
        camera.goto(page, path)
        # every step's picture loads, not just those in view (they are lazy), so none shows half drawn
        page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; })")
        page.wait_for_function("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
        camera.shot(page, "workspace-viewer-summary.png")  # the top: the instruction, rewards and checkpoints
        for name, index in picked.items():
            page.evaluate(
                f"window.scrollTo(0, document.getElementById('step-{index + 1}').getBoundingClientRect().top"
                " + window.scrollY - 8)"
            )
            camera.shot(page, f"workspace-viewer-{name}.png")
        page.context.close()

    return shoot
