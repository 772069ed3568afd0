"""ReplicaGym for TRL's GRPOTrainer: `GRPOTrainer(environment_factory=ReplicaGymToolEnv, reward_funcs=[reward], ...)`.

TRL makes the class with no arguments, calls `reset(**row)` with each dataset row and appends the text it
returns to the row's prompt, offers every public method with an `Args:` docstring as a tool
(`transformers.utils.get_json_schema`), and passes the environments to reward functions. So:
- the server and token come from REPLICAGYM_URL and REPLICAGYM_TOKEN, the observation mode from
  REPLICAGYM_MODE (default `text`);
- a row's `task`, `seed`, `variation`, `mode`, `screenshots` and `full_every` choose the episode; its
  other columns (TRL's `prompt`) are TRL's own;
- each tool is one browser action, answered with the next observation;
- `reward` ends a running episode as it stands (the model stopped calling tools) and gives its reward.
Nothing else on the class is public: TRL would offer it to the model as a tool.
"""

import os

from .actions import action_string
from .client import RESET_FIELDS, ReplicaGymClient, StepResult

MODE_VARIABLE = "REPLICAGYM_MODE"


class ReplicaGymToolEnv:
    """One ReplicaGym episode at a time, driven through tool calls."""

    def __init__(self):
        self._client = ReplicaGymClient()
        self._mode = os.environ.get(MODE_VARIABLE, "text")
        self._last: StepResult | None = None

    def reset(self, **row) -> str:
        """Start the episode a dataset row names (task, seed, ...; the rest of the row is TRL's); its first
        observation.
        """
        fields = {key: row[key] for key in RESET_FIELDS if row.get(key) is not None}
        fields.setdefault("mode", self._mode)
        self._last = self._client.reset(**fields)
        return self._last.message(with_goal=True)

    def _act(self, name: str, *args) -> str:
        if self._last is None or self._last.done:
            return "There is no running episode: it has ended, and no further action is taken."
        self._last = self._client.step(action_string(name, *args))
        return self._last.message()

    def _episode_reward(self) -> float:
        """The episode's reward, ending it first if it still runs."""
        if self._last is None:
            return 0.0
        if not self._last.done:
            self._last = self._client.finish()
        return self._last.reward or 0.0

    def click(self, bid: str) -> str:
        """Click an element of the page.

        Args:
            bid: The element's id, the text in brackets before it in the observation (e.g. "a51").
        """
        return self._act("click", bid)

    def fill(self, bid: str, value: str) -> str:
        """Replace the text of an input or text area.

        Args:
            bid: The id of the input or text area.
            value: The text to type into it.
        """
        return self._act("fill", bid, value)

    def select_option(self, bid: str, option: str) -> str:
        """Choose an option of a select element.

        Args:
            bid: The id of the select element.
            option: The option's visible label.
        """
        return self._act("select_option", bid, option)

    def check(self, bid: str) -> str:
        """Tick a checkbox.

        Args:
            bid: The id of the checkbox.
        """
        return self._act("check", bid)

    def uncheck(self, bid: str) -> str:
        """Clear a checkbox.

        Args:
            bid: The id of the checkbox.
        """
        return self._act("uncheck", bid)

    def press(self, bid: str, key: str) -> str:
        """Press a key or key combination with an element focused.

        Args:
            bid: The id of the element to focus first.
            key: The key, e.g. "Enter", "Tab" or "Control+a".
        """
        return self._act("press", bid, key)

    def hover(self, bid: str) -> str:
        """Move the mouse over an element (menus and tooltips open on it).

        Args:
            bid: The id of the element.
        """
        return self._act("hover", bid)

    def scroll(self, delta_x: float, delta_y: float) -> str:
        """Scroll the page.

        Args:
            delta_x: Pixels to scroll right (negative: left).
            delta_y: Pixels to scroll down (negative: up).
        """
        return self._act("scroll", delta_x, delta_y)

    def goto(self, url: str) -> str:
        """Open a URL of the site in the current tab.

        Args:
            url: The URL, as the observation shows them (http://world.test/...), or a path such as "/orders".
        """
        return self._act("goto", url)

    def go_back(self) -> str:
        """Go back to the previous page of the tab's history."""
        return self._act("go_back")

    def send_msg_to_user(self, text: str) -> str:
        """Answer the user: this ends the episode, which is then verified and rewarded.

        Args:
            text: The message, with the answer when the task asks a question.
        """
        return self._act("send_msg_to_user", text)

    def report_infeasible(self, reason: str) -> str:
        """Tell the user the task cannot be done: this ends the episode.

        Args:
            reason: Why it cannot be done.
        """
        return self._act("report_infeasible", reason)


def reward(environments, **kwargs) -> list[float]:
    """TRL reward function: each rollout's episode reward (an episode still running is ended as it stands)."""
    return [environment._episode_reward() for environment in environments]
