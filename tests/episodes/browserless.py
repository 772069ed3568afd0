"""An EpisodeSession without a browser, for tests of the engine's step and finish paths that need no page."""

from episodes.engine.browser import EpisodeSession
from episodes.engine.observation import Observation
from verifiers import actions


class BrowserlessSession(EpisodeSession):
    """The engine's real step() with the browser parts replaced: what a step does with the action text.

    Messages to the user go through the real action code (they need no page); other actions are only recorded.
    """

    page = None

    def __init__(self):
        super().__init__(
            origin="http://127.0.0.1:1",
            instruction="",
            viewport=(1280, 800),
            action_timeout_ms=1,
            navigation_timeout_ms=1,
            settle_cap_ms=1,
            quiet_ms=1,
            include_html=False,
            files_dir=None,
        )
        self.executed = []

    def _check_alive(self, exc=None):
        pass

    def _execute(self, action):
        self.executed.append(action)
        if isinstance(action, actions.SendMsgToUser | actions.ReportInfeasible):
            super()._execute(action)

    def _settle(self) -> bool:
        return True

    def observe(self) -> Observation:
        return Observation(
            url=self.origin + "/",
            title="",
            screenshot=b"",
            axtree="",
            focused_bid=None,
            tabs=[],
            active_tab=0,
            instruction="",
            chat=[],
            step=self.step_index,
            elapsed_ms=0.0,
            last_action=self.last_action,
            last_action_error=self.last_error,
        )

    def final_page(self) -> dict:
        return {"url": self.origin + "/", "title": "", "html": ""}
