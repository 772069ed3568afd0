"""Training data from verified episodes: SFT JSON lines (per step and per episode), DPO triples, a dataset card.

Rows carry the columns TRL's trainers read: SFT `prompt` and `completion` (per step: the system
prompt, the instruction, the actions so far and the observation text in the chosen mode, then
the action; per episode: the same as chat messages, the observations between the actions), DPO
`prompt`, `chosen` and `rejected`. Every action is written as a model that sees the observation
writes it: canonical name and quoting, and an element named by a selector as the bid the engine
read for it when the step ran (`Step.target_bid`), since selectors never appear in what a model sees.

Sources: `annotators` (replays of accepted recordings; replays that failed the verifier
are DPO's rejected side), `oracle` (episodes of the tasks' reference solutions) and
`runs` (episodes of suite runs by any other agent). A source is picked by the agent kind
the server recorded (`oracle` only for episodes the engine played with the reference
solution; a token's are `external:<token name>` whatever its request said). Only the verifier decides: SFT keeps
verified successes; DPO pairs, on
the same task, seed and observation, the step of a success (chosen) with the step where
a failed episode left it (rejected). Files: sft.jsonl + sft_episodes.jsonl, or dpo.jsonl;
images/<sha256>.png for each screenshot they name; card.json and README.md.
"""

import hashlib
import json
import logging
import shutil
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from catalogue.packs import suite_current
from episodes.creation import API_CLAIM
from episodes.engine.observation import FULL_EVERY_MAX, OBSERVATION_MODES, render_observation
from episodes.models import Episode, Step
from verifiers.actions import ACTIONS, ActionError, DragAndDrop, action_parts, is_bid, parse_action, signature

from .models import RecordedStep, Recording
from .observations import CAPTURE_AGENT, CaptureError, observations_for

log = logging.getLogger("replicagym.annotation")
FORMATS = ("sft", "dpo")
SOURCES = ("annotators", "oracle", "runs")
DATASET_VERSION = 2  # 2: prompt/completion and prompt/chosen/rejected columns, actions in bid syntax

SYSTEM_PROMPT = """You operate a web browser to complete the user's task. Each turn you get the page as text: \
its URL, its title and {page}; elements carry ids in brackets, e.g. [12] button 'Save'. Answer with exactly \
one action, one Python-style call, that addresses elements by their bracketed id as a string: click("12").

Actions:
{actions}

When the task is complete, or if it asks for information, answer the user with send_msg_to_user("..."). \
If the task cannot be done, use report_infeasible("reason")."""
PAGE_TEXT = {
    "full": "its accessibility tree",
    "text": "its accessibility tree, cut down to what you can read and act on",
    "diff": "what changed in its accessibility tree since the last turn (the whole tree every {n} turns)",
}


class ExportError(ValueError):
    pass


@dataclass
class Candidate:
    episode: Episode
    source: str
    thoughts: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.episode.status == Episode.Status.SUCCEEDED


def parse_sources(text) -> list[str]:
    names = [s.strip() for s in (text.split(",") if isinstance(text, str) else text) if s.strip()]
    unknown = [s for s in names if s not in SOURCES]
    if not names or unknown:
        raise ExportError(
            f"sources are a comma-separated list of {', '.join(SOURCES)}"
            + (f"; unknown: {', '.join(unknown)}" if unknown else "")
        )
    return list(dict.fromkeys(names))


def candidates(*, suite: str | None, sources: list[str], run: int | None = None) -> list[Candidate]:
    """Finished, verified-or-failed episodes of the suite's tasks (every task without a suite) from the given
    sources (errored ones never count).

    `run` narrows the `runs` source to one run (distillation keeps its own teacher's episodes).
    """
    judged = (
        Episode.objects.select_related("task")
        .filter(status__in=[Episode.Status.SUCCEEDED, Episode.Status.FAILED])
        .order_by("pk")
    )
    if suite is not None:
        try:
            task_ids = list(suite_current(suite).tasks.values_list("task_id", flat=True))
        except LookupError as exc:
            raise ExportError(str(exc.args[0] if exc.args else exc)) from None
        judged = judged.filter(task__task_id__in=task_ids)
    found: list[Candidate] = []
    if "annotators" in sources:
        recordings = (
            Recording.objects.filter(replay__in=judged)
            .filter(status__in=[Recording.Status.ACCEPTED, Recording.Status.FAILED, Recording.Status.REJECTED])
            .select_related("replay__task")
            .order_by("pk")
        )
        for rec in recordings:
            # a success counts once a reviewer accepted it; a failure needs no review to be a rejected side
            if rec.replay.status == Episode.Status.SUCCEEDED and rec.status != Recording.Status.ACCEPTED:
                continue
            thoughts = list(
                RecordedStep.objects.filter(recording=rec).order_by("index").values_list("thought", flat=True)
            )
            found.append(Candidate(episode=rec.replay, source="annotators", thoughts=thoughts))
    if "oracle" in sources:
        # an episode driven from outside (the API's claim) is never the oracle's, whatever it is labelled:
        # rows from before the server recorded the agent kind could carry a label the request chose
        oracle = judged.filter(agent="oracle").exclude(claimed_by__startswith=API_CLAIM)
        found += [Candidate(episode=e, source="oracle") for e in oracle]
    if "runs" in sources:
        # an oracle's run is the oracle source's, unless it is the one run asked for (a distillation's teacher)
        runs = (
            judged.filter(run_id=run) if run is not None else judged.filter(run__isnull=False).exclude(agent="oracle")
        )
        found += [Candidate(episode=e, source="runs") for e in runs]
    unique = {}
    for cand in found:
        if not cand.episode.agent.startswith(CAPTURE_AGENT):
            unique.setdefault(cand.episode.pk, cand)
    return list(unique.values())


def _page(url: str) -> str:
    # a world's origin is random per world: the path is what the agent's page was
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _observation(obs, images: dict) -> dict:
    image = None
    if obs.screenshot is not None:
        image = f"images/{obs.screenshot.sha256}.png"
        images[obs.screenshot.sha256] = obs.screenshot
    return {"url": _page(obs.url), "title": obs.title, "axtree": obs.axtree, "screenshot": image}


def _key(obs) -> str:
    return hashlib.sha256(f"{_page(obs.url)}\n{obs.axtree}".encode()).hexdigest()


def bid_action(text: str, target_bid: str = "") -> str:
    """`text` as a model that sees only the observation writes it; ExportError if it cannot be.

    The canonical form of the grammar (an alias such as send_message_to_user by its name, strings
    in double quotes, defaults left out), with an element named by a selector replaced by
    `target_bid`, the bid the engine read for that element before the step ran.
    """
    try:
        action = parse_action(text)
    except ActionError as exc:  # an episode in the agent's own browser records requests, not actions
        raise ExportError(f"{text[:80]!r} is no action of the grammar ({exc})") from None
    if action.targets_element and not is_bid(action.element):
        if not is_bid(target_bid or ""):
            raise ExportError(f"{text[:80]} names its element by a selector that the engine found no bid for")
        action = action.with_element(target_bid)
    if isinstance(action, DragAndDrop) and not is_bid(action.to_bid):
        raise ExportError(f"{text[:80]} drops on a selector, which no observation shows")
    return str(action)


def _bid_actions(episode: Episode) -> tuple[list[str | None], str]:
    """The episode's actions in bid syntax (None for a step that cannot be written so) and why the first
    such step cannot ("" when every step can).

    A step recorded before the engine kept bids takes the bid its observing replay (the capture,
    which plays the same actions in the same world) read for it.
    """
    steps = list(episode.steps.order_by("index").values_list("action", "target_bid"))
    if any(not bid for _, bid in steps):
        capture = Episode.objects.filter(agent=f"{CAPTURE_AGENT}{episode.pk}").order_by("-pk").first()
        if capture is not None:
            replayed = dict(Step.objects.filter(episode=capture).values_list("index", "target_bid"))
            steps = [(action, bid or replayed.get(i, "")) for i, (action, bid) in enumerate(steps)]
    out, why = [], ""
    for index, (action, bid) in enumerate(steps):
        try:
            out.append(bid_action(action, bid))
        except ExportError as exc:
            out.append(None)
            why = why or f"step {index}: {exc}"
    return out, why


def syntax_only(chosen: str, rejected: str, *, chosen_bid: str = "", rejected_bid: str = "") -> bool:
    """Whether two different action texts are one action written two ways (a selector and the bid of the
    element it names, an alias, other quoting): a DPO pair of them teaches syntax, not behaviour."""
    if chosen == rejected:
        return False
    try:
        return action_parts(bid_action(chosen, chosen_bid)) == action_parts(bid_action(rejected, rejected_bid))
    except ExportError:  # a side that cannot be written in bids is no rewriting of the other
        return False


def syntax_only_pairs(rows: list[dict]) -> int:
    """How many DPO rows (dpo.jsonl's) pair one action with itself in another syntax, using the bids the
    engine read for the rows' steps of their chosen and rejected episodes."""
    bids = {
        (episode, index): bid
        for episode, index, bid in Step.objects.filter(
            episode_id__in={r["chosen_episode"] for r in rows} | {r["rejected_episode"] for r in rows}
        ).values_list("episode_id", "index", "target_bid")
    }
    return sum(
        syntax_only(
            r["chosen"],
            r["rejected"],
            chosen_bid=bids.get((r["chosen_episode"], r["step"]), ""),
            rejected_bid=bids.get((r["rejected_episode"], r["step"]), ""),
        )
        for r in rows
    )


@dataclass(frozen=True)
class Prompting:
    """How observations become prompt text: the observation mode and, for diff, the whole page every N steps."""

    mode: str = "full"
    full_every: int = 5

    def __post_init__(self):
        if self.mode not in OBSERVATION_MODES:
            raise ExportError(f"observation mode must be one of {', '.join(OBSERVATION_MODES)}, not {self.mode!r}")
        n = self.full_every
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= FULL_EVERY_MAX:
            raise ExportError(f"full_every must be a whole number of steps from 1 to {FULL_EVERY_MAX}, not {n!r}")

    def system(self) -> str:
        actions = "\n".join(signature(name) for name in sorted(ACTIONS))
        return SYSTEM_PROMPT.format(page=PAGE_TEXT[self.mode].format(n=self.full_every), actions=actions)

    def texts(self, observations: list) -> list[str]:
        """Observation i as the text an agent of the mode was given before step i."""
        out, previous = [], None
        for i, obs in enumerate(observations):
            parts = urlsplit(obs.url)
            shown = {"url": obs.url, "title": obs.title, "axtree": obs.axtree}
            # the world's origin is random per world: shown as the display origin, as the engine shows it
            shown["origin"] = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
            out.append(render_observation(shown, self.mode, previous, step=i, full_every=self.full_every))
            previous = obs.axtree
        return out

    def step_prompt(self, *, instruction: str, history: list[str], observation: str) -> str:
        done = "\n".join(history) or "(none yet)"
        return (
            f"{self.system()}\n\nTask: {instruction}\n\nYour previous actions:\n{done}\n\n{observation}\n\n"
            "Your next action:"
        )


@dataclass
class ExportResult:
    out: Path
    card: dict
    files: list[str]


class Progress:
    """Called as progress(done, total) while episodes are observed (the UI's bar, the command's stderr)."""

    def __init__(self, callback=None):
        self.callback = callback

    def __call__(self, done: int, total: int):
        if self.callback is not None:
            self.callback(done, total)


def _observed(cands: list[Candidate], progress: Progress, skipped: list[dict]) -> dict[int, list]:
    out = {}
    for n, cand in enumerate(cands, start=1):
        try:
            if cand.episode.steps.exists():
                out[cand.episode.pk] = observations_for(cand.episode)
            else:
                skipped.append({"episode": cand.episode.pk, "reason": "no steps"})
        except CaptureError as exc:
            skipped.append({"episode": cand.episode.pk, "reason": str(exc)})
        progress(n, len(cands))
    return out


def _sft(cands, observed, actions, prompting: Prompting, images) -> tuple[list[dict], list[dict]]:
    lines, episodes = [], []
    for cand in cands:
        ep = cand.episode
        if not cand.passed or ep.pk not in observed:
            continue
        recorded = list(ep.steps.order_by("index").values_list("action", flat=True))
        texts = prompting.texts(observed[ep.pk])
        steps = []
        for i, action in enumerate(actions[ep.pk]):
            thought = cand.thoughts[i] if i < len(cand.thoughts) else ""
            steps.append(
                {
                    "step": i,
                    "observation": _observation(observed[ep.pk][i], images),
                    "action": action,
                    "recorded_action": recorded[i],
                    "thought": thought,
                }
            )
        common = {
            "source": cand.source,
            "episode": ep.pk,
            "task_id": ep.task.task_id,
            "task_version": ep.task.content_hash,
            "world_seed": ep.world_seed,
            "instruction": ep.instance.instruction,
        }
        instruction = common["instruction"]
        lines += [
            {
                "id": f"{ep.pk}-{s['step']}",
                **common,
                **s,
                "prompt": prompting.step_prompt(
                    instruction=instruction, history=actions[ep.pk][: s["step"]], observation=texts[s["step"]]
                ),
                "completion": s["action"],
            }
            for s in steps
        ]
        # the whole episode as chat messages: the observations between the actions the model is to write
        completion = []
        for i, action in enumerate(actions[ep.pk]):
            if i:
                completion.append({"role": "user", "content": texts[i]})
            completion.append({"role": "assistant", "content": action})
        episodes.append(
            {
                "id": str(ep.pk),
                **common,
                "prompt": [
                    {"role": "system", "content": prompting.system()},
                    {"role": "user", "content": f"Task: {instruction}\n\n{texts[0]}"},
                ],
                "completion": completion,
                "steps": steps,
                "messages": list(ep.messages),
                "reward": (ep.rewards or {}).get("episode_reward"),
            }
        )
    return lines, episodes


def dpo_pair(chosen: Candidate, rejected: Candidate, observed: dict, actions: dict) -> dict | None:
    """The step where `rejected` left `chosen`: both saw the same page before it, and different pages after it.

    `actions` holds each episode's actions in bid syntax, so one action written two ways (a bid
    or a selector for one field) is the same step; so are steps that differ but lead to the same
    page. None when the two never shared an observation there.
    """
    good, bad = observed.get(chosen.episode.pk), observed.get(rejected.episode.pk)
    if not good or not bad:
        return None
    good_actions, bad_actions = actions[chosen.episode.pk], actions[rejected.episode.pk]
    for k in range(min(len(good_actions), len(bad_actions))):
        if _key(good[k]) != _key(bad[k]):
            return None  # they parted without a step that can be blamed
        if good_actions[k] is None or bad_actions[k] is None:
            return None  # a step no model could write (a selector that named nothing) before they parted
        if good_actions[k] == bad_actions[k]:
            continue
        after_good = good[k + 1] if k + 1 < len(good) else None
        after_bad = bad[k + 1] if k + 1 < len(bad) else None
        if after_good is not None and after_bad is not None and _key(after_good) == _key(after_bad):
            continue
        return {
            "step": k,
            "chosen": good_actions[k],
            "rejected": bad_actions[k],
            "observation": good[k],
            "history": good_actions[:k],
        }
    return None


def _dpo(cands, observed, actions, prompting: Prompting, images) -> list[dict]:
    lines = []
    good = [c for c in cands if c.passed and c.episode.pk in observed]
    for bad in (c for c in cands if not c.passed and c.episode.pk in observed):
        ep = bad.episode
        for cand in good:
            if (cand.episode.task.task_id, cand.episode.world_seed, cand.episode.initial_state_id) != (
                ep.task.task_id,
                ep.world_seed,
                ep.initial_state_id,
            ):
                continue
            pair = dpo_pair(cand, bad, observed, actions)
            if pair is None:
                continue
            # both saw this page after the same history of pages: the chosen side's observation text is theirs
            text = prompting.texts(observed[cand.episode.pk][: pair["step"] + 1])[pair["step"]]
            lines.append(
                {
                    "id": f"{cand.episode.pk}-{ep.pk}-{pair['step']}",
                    "task_id": ep.task.task_id,
                    "world_seed": ep.world_seed,
                    "instruction": ep.instance.instruction,
                    "prompt": prompting.step_prompt(
                        instruction=ep.instance.instruction, history=pair["history"], observation=text
                    ),
                    "step": pair["step"],
                    "history": pair["history"],
                    "observation": _observation(pair["observation"], images),
                    "chosen": pair["chosen"],
                    "rejected": pair["rejected"],
                    "chosen_thought": cand.thoughts[pair["step"]] if pair["step"] < len(cand.thoughts) else "",
                    "chosen_episode": cand.episode.pk,
                    "chosen_source": cand.source,
                    "rejected_episode": ep.pk,
                    "rejected_source": bad.source,
                }
            )
            break  # one triple per failed episode: its first success that shares the diverging page
    return lines


def platform_version() -> str:
    try:
        return version("replicagym")
    except PackageNotFoundError:
        head = settings.BASE_DIR / ".git" / "HEAD"
        try:
            ref = head.read_text().strip()
            if ref.startswith("ref: "):
                return (settings.BASE_DIR / ".git" / ref[5:]).read_text().strip()[:12]
            return ref[:12]
        except OSError:
            return "unknown"


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows), encoding="utf-8")


def dataset_export(
    *,
    fmt: str,
    suite: str | None,
    sources,
    out,
    progress=None,
    run: int | None = None,
    observation: str = "full",
    full_every: int = 5,
) -> ExportResult:
    """Write one dataset to the folder `out` (created; must be empty if it exists).

    `observation` is the mode the prompts show the pages in (episodes.engine.observation: full, text, diff;
    `full_every` for diff), whatever mode the episodes were played in: the pages are the captured trees.
    """
    if fmt not in FORMATS:
        raise ExportError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    prompting = Prompting(mode=observation, full_every=full_every)
    sources = parse_sources(sources)
    out = Path(out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"{out} exists and is not an empty folder")
    cands = candidates(suite=suite, sources=sources, run=run)
    progress = progress if isinstance(progress, Progress) else Progress(progress)
    if fmt == "dpo":
        # only failed episodes with a success on the same task and seed need observing
        keys = {(c.episode.task.task_id, c.episode.world_seed) for c in cands if c.passed}
        bad_keys = {(c.episode.task.task_id, c.episode.world_seed) for c in cands if not c.passed}
        cands = [c for c in cands if (c.episode.task.task_id, c.episode.world_seed) in keys & bad_keys]
    else:
        # SFT keeps verified successes only: observing a failure again would cost a browser episode for nothing
        cands = [c for c in cands if c.passed]
    skipped: list[dict] = []
    progress(0, len(cands))
    observed = _observed(cands, progress, skipped)
    actions = {}
    for cand in cands:
        if cand.episode.pk not in observed:
            continue
        actions[cand.episode.pk], why = _bid_actions(cand.episode)
        # an SFT episode is every step of it: left out, and named in the card, rather than teach a selector;
        # a DPO pair needs only the steps up to where the two parted (dpo_pair)
        if why and fmt == "sft":
            del observed[cand.episode.pk]
            skipped.append({"episode": cand.episode.pk, "reason": why})
    images: dict = {}
    out.mkdir(parents=True, exist_ok=True)
    files = []
    if fmt == "sft":
        lines, episodes = _sft(cands, observed, actions, prompting, images)
        _write_jsonl(out / "sft.jsonl", lines)
        _write_jsonl(out / "sft_episodes.jsonl", episodes)
        files += ["sft.jsonl", "sft_episodes.jsonl"]
        counts = {"steps": len(lines), "episodes": len(episodes)}
        used = [c for c in cands if c.passed and c.episode.pk in observed]
    else:
        lines = _dpo(cands, observed, actions, prompting, images)
        _write_jsonl(out / "dpo.jsonl", lines)
        files.append("dpo.jsonl")
        counts = {"pairs": len(lines)}
        used_ids = {r["chosen_episode"] for r in lines} | {r["rejected_episode"] for r in lines}
        used = [c for c in cands if c.episode.pk in used_ids]
    (out / "images").mkdir(exist_ok=True)
    for sha, shot in sorted(images.items()):
        shutil.copyfile(settings.DATA_DIR / shot.path, out / "images" / f"{sha}.png")
    counts["images"] = len(images)
    card = {
        "name": f"replicagym-{suite or 'all-tasks'}-{fmt}",
        "dataset_version": DATASET_VERSION,
        "format": fmt,
        "created_at": timezone.now().isoformat(),
        "platform_version": platform_version(),
        "suite": suite,
        "sources": sources,
        "run": run,
        "observation": {"mode": prompting.mode, "full_every": prompting.full_every},
        "system_prompt": prompting.system(),
        "filters": {
            "sft": "episodes the verifier passed; annotators' only once a reviewer accepted them",
            "dpo": "same task, seed and initial state; chosen from a verified success, rejected = the step where a "
            "failed episode first reached another page from the same observation",
        }[fmt],
        "counts": counts,
        "tasks": dict(sorted(Counter(c.episode.task.task_id for c in used).items())),
        "by_source": dict(sorted(Counter(c.source for c in used).items())),
        "episodes": sorted(c.episode.pk for c in used),
        "skipped": skipped,
        "files": files + ["images/"],
    }
    (out / "card.json").write_text(json.dumps(card, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    (out / "README.md").write_text(_card_markdown(card), encoding="utf-8")
    return ExportResult(out=out, card=card, files=files)


def _card_markdown(card: dict) -> str:
    rows = "\n".join(f"| {task} | {n} |" for task, n in card["tasks"].items()) or "| (none) | 0 |"
    counts = ", ".join(f"{n} {what}" for what, n in card["counts"].items())
    suite = f"`{card['suite']}`" if card["suite"] else "none: every task"
    return (
        f"# {card['name']}\n\n"
        f"ReplicaGym dataset ({card['format'].upper()}), made {card['created_at']} by platform version "
        f"{card['platform_version']}.\n\n"
        f"- suite: {suite}\n- sources: {', '.join(card['sources'])}\n- filter: {card['filters']}\n"
        f"- counts: {counts}\n- skipped episodes: {len(card['skipped'])}\n\n"
        f"| task | episodes |\n|---|---|\n{rows}\n\n"
        'Load with `datasets.load_dataset("json", data_files=...)`; screenshots are `images/<sha256>.png`.\n'
    )
