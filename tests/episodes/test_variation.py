"""Per-episode variation (episodes.variation): world seeds drawn among built templates, picks drawn per episode,
reproducible from a run's seed and attempt, honoured when the caller fixes them (no browser)."""

import json
import random
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from replicagym.accounts.tokens import token_create
from replicagym.gateways.sessions import GatewayError, reset_arguments

from catalogue.packs import pack_dir, task_current, task_params, task_sync
from catalogue.task_templates import call_picker, template_params
from episodes import variation
from episodes.creation import EpisodeError, episode_create
from episodes.gym import ReplicaEnv
from episodes.models import Episode
from episodes.queue.workers import scheduler_tick
from episodes.runs import RunError, run_create, run_episodes_create, run_variation
from episodes.trajectory import trajectory_lines
from episodes.variation import (
    PARAPHRASES,
    WordingError,
    instruction_pick,
    ready_seeds,
    variation_resolve,
    variation_templates_build,
)
from replicas.worlds.models import World
from replicas.worlds.registry import get_replica
from replicas.worlds.seeding import candidates
from replicas.worlds.services import template_get_or_build
from tests.templates import module_template
from verifiers.placeholders import fill_text

pytestmark = pytest.mark.django_db
ANSWER_TASK = "shop.report-order-total"  # asks for one delivered order's total: the order is picked per episode
POOL = 4  # world seeds 1..4 besides the task's own 7
# the pool's templates (the task's variant, small), built once for the module rather than in each test's transaction
pool_templates = module_template("shop", 7, *range(1, POOL + 1))


@pytest.fixture
def shop_pool(settings, tmp_path):
    """The answer task, with a variation pool of POOL seeds whose templates are built (as task_sync's command does)."""
    settings.EPISODE_WORLD_SEEDS = POOL
    # the answer task alone (as the shop suite): the tests depend on no other task file of the pack
    shutil.copy(pack_dir("shop") / f"{ANSWER_TASK.split('.')[1]}.json", tmp_path)
    task_sync(replica="shop", directory=tmp_path)
    variation_templates_build()
    return task_current(ANSWER_TASK)


def _key(params: dict) -> tuple:
    return params["order"], params["total"]


def test_twenty_rest_episodes_of_an_answer_task_give_at_least_five_answer_keys(
    shop_pool, api_client_for, django_user_model
):
    user = django_user_model.objects.create_user(username="rl-agent", password="pw-123456")
    issued = token_create(user=user, suites=["shop"], expires_days=1, max_concurrent=50, max_per_hour=100)
    client = api_client_for(secret=issued.secret)
    ids = []
    for _ in range(20):
        response = client.post("/api/episodes", {"task": ANSWER_TASK}, format="json")
        assert response.status_code == 201, response.content
        ids.append(response.json()["id"])
    episodes = list(Episode.objects.filter(pk__in=ids))
    totals = {ep.params["total"] for ep in episodes}
    assert len(totals) >= 5, totals
    # each episode is what its record says: its world is of its world seed, its instruction names its own order
    for ep in episodes:
        assert ep.variation is not None and ep.world.seed == ep.world_seed
        assert ep.world_seed in [*range(1, POOL + 1), shop_pool.seed]
        assert ep.params == task_params({**shop_pool.spec, "seed": ep.world_seed}, variation=ep.variation)
        assert ep.params["order"] in ep.instance.instruction
    assert len({ep.world_seed for ep in episodes}) >= 2


def test_a_run_seed_and_attempt_reproduce_the_world_seed_and_params(shop_pool):
    def episodes(seed):
        run = run_create(task_filter=ANSWER_TASK, agent="oracle", attempts=6, seed=seed)
        return run, sorted(run_episodes_create(run_id=run.pk, enqueue=False), key=lambda e: e.attempt)

    run_a, first = episodes(12345)
    run_b, again = episodes(12345)
    _, other = episodes(54321)
    assert run_a.seed == run_b.seed == 12345
    assert [(e.world_seed, e.variation, e.params) for e in first] == [
        (e.world_seed, e.variation, e.params) for e in again
    ]
    # attempts of one run differ from each other, and another seed gives other episodes
    assert len({(e.world_seed, _key(e.params)) for e in first}) >= 3
    assert [e.variation for e in other] != [e.variation for e in first]


def test_a_run_draws_its_seed_unless_given_and_a_fixed_run_plays_the_task_as_written(shop_pool):
    drawn = run_create(task_filter=ANSWER_TASK, agent="oracle", attempts=2)
    assert drawn.seed is not None
    fixed = run_create(task_filter=ANSWER_TASK, agent="oracle", attempts=2, vary=False)
    assert fixed.seed is None
    for ep in run_episodes_create(run_id=fixed.pk, enqueue=False):
        assert (ep.world_seed, ep.variation, ep.params) == (shop_pool.seed, None, shop_pool.params)
    for bad in (-1, 2**31, "7", True):
        with pytest.raises(RunError, match="seed must be a whole number"):
            run_create(task_filter=ANSWER_TASK, agent="oracle", seed=bad)


def test_a_group_rollout_run_gives_every_attempt_one_variation(shop_pool):
    run = run_create(task_filter=ANSWER_TASK, agent="oracle", attempts=4, seed=99, shared_variation=True)
    eps = run_episodes_create(run_id=run.pk, enqueue=False)
    assert len({(e.world_seed, e.variation, _key(e.params)) for e in eps}) == 1
    assert sorted(e.seed for e in eps) == [0, 1, 2, 3]  # the agents' own seeds still differ


def test_a_seed_the_caller_gives_is_honoured_with_the_tasks_fixed_picks(shop_pool, api_client_for, author_user):
    client = api_client_for(user=author_user)
    response = client.post("/api/episodes", {"task": ANSWER_TASK, "seed": 3}, format="json")
    assert response.status_code == 201, response.content
    ep = Episode.objects.get(pk=response.json()["id"])
    assert (ep.world_seed, ep.world.seed, ep.variation) == (3, 3, None)
    assert ep.params == task_params({**shop_pool.spec, "seed": 3})  # no variation: the picks of the task as written
    assert ep.params["order"] in response.json()["instruction"]


def test_a_variation_the_caller_gives_gives_the_same_world_and_answer_key_each_time(
    shop_pool, api_client_for, author_user
):
    client = api_client_for(user=author_user)
    first, second = (
        Episode.objects.get(
            pk=client.post("/api/episodes", {"task": ANSWER_TASK, "variation": 4242}, format="json").json()["id"]
        )
        for _ in range(2)
    )
    assert first.variation == second.variation == 4242
    assert (first.world_seed, first.params) == (second.world_seed, second.params)
    assert first.world_id != second.world_id  # still a fresh world each
    header = json.loads(next(iter(trajectory_lines(first))))  # exports carry what reproduces the episode
    assert (header["world_seed"], header["variation"]) == (first.world_seed, 4242)


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"seed": -1}, "seed"),
        ({"seed": 2**31}, "seed"),
        ({"seed": "seven"}, "seed"),
        ({"variation": -5}, "variation"),
    ],
)
def test_bad_seeds_and_variations_are_400_and_start_nothing(shop_pool, api_client_for, author_user, payload, field):
    response = api_client_for(user=author_user).post("/api/episodes", {"task": ANSWER_TASK, **payload}, format="json")
    assert response.status_code == 400 and field in response.json()
    assert not Episode.objects.exists()


def test_episodes_made_without_a_variation_keep_the_tasks_seed_and_params(shop_pool):
    """What verify_tasks and the self-checks play: deterministic, the task's own answer key."""
    ep = episode_create(task=ANSWER_TASK, agent="script")
    assert (ep.world_seed, ep.variation, ep.params) == (shop_pool.seed, None, shop_pool.params)


def test_only_seeds_whose_template_is_built_are_drawn(shop_pool, settings):
    settings.EPISODE_WORLD_SEEDS = POOL + 2  # seeds 5 and 6 have no template yet
    assert ready_seeds(shop_pool) == [1, 2, 3, 4, 7]
    drawn = {variation_resolve(task=shop_pool, variation=v).world_seed for v in range(60)}
    assert drawn == {1, 2, 3, 4, 7}
    assert not World.objects.filter(is_template=True, replica="shop", seed__in=[5, 6]).exists()


def test_the_scheduler_builds_missing_templates_a_few_per_tick(shop_pool, settings, monkeypatch):
    monkeypatch.setattr("episodes.queue.workers.TEMPLATES_PER_TICK", 1)
    settings.EPISODE_WORLD_SEEDS = POOL + 2
    assert scheduler_tick()["templates_built"] == ["shop/small/5"]
    assert scheduler_tick()["templates_built"] == ["shop/small/6"]
    assert scheduler_tick()["templates_built"] == []
    assert ready_seeds(shop_pool) == [1, 2, 3, 4, 5, 6, 7]


def test_a_drawn_world_without_a_candidate_falls_back_to_the_tasks_own_seed(shop_pool, monkeypatch):
    real = task_params

    def no_candidate_elsewhere(spec, *, variation=None):
        if spec["seed"] != shop_pool.seed:
            raise LookupError("no delivered order with tax and shipping")
        return real(spec, variation=variation)

    monkeypatch.setattr("episodes.variation.task_params", no_candidate_elsewhere)
    for v in range(10):
        chosen = variation_resolve(task=shop_pool, variation=v)
        assert (chosen.world_seed, chosen.variation) == (shop_pool.seed, v)
        assert chosen.params == real(shop_pool.spec, variation=v)


def test_seeded_template_picks_vary_with_the_variation_and_stay_put_without_one(db):
    world = template_get_or_build(replica="testbed", seed=7, variant="small")
    steps = [{"name": "note", "pick": {"table": "testbed.note"}}]
    fixed = template_params(steps, world=world)
    assert template_params(steps, world=world) == fixed
    varied = {template_params(steps, world=world, variation=v)["note"] for v in range(30)}
    assert len(varied) >= 3
    assert template_params(steps, world=world, variation=11) == template_params(steps, world=world, variation=11)


def test_pickers_get_the_rng_only_when_they_take_one():
    rng = random.Random(1)
    assert call_picker(lambda world, seed: (world, seed), "w", 7, rng=rng) == ("w", 7)
    assert call_picker(lambda world, seed, rng=None: rng, "w", 7, rng=rng) is rng
    assert call_picker(lambda world, seed, rng=None: rng, "w", 7, rng=None) is None


def test_candidates_keep_their_order_without_an_rng_and_are_shuffled_with_one():
    items = iter(range(5))
    assert candidates(items) is items  # as lazy as given: the fixed pick checks no more than before
    shuffled = candidates(range(20), random.Random(3))
    assert sorted(shuffled) == list(range(20)) and shuffled != list(range(20))


def test_gateway_resets_take_a_variation_and_refuse_a_bad_one():
    assert reset_arguments({"task": ANSWER_TASK, "variation": 5}).variation == 5
    plain = reset_arguments({"task": ANSWER_TASK, "seed": 3})
    assert (plain.task, plain.seed, plain.episode_id, plain.variation) == (ANSWER_TASK, 3, None, None)
    for bad in (-1, 2**31, "5", 1.5, True):
        with pytest.raises(GatewayError, match="variation must be a whole number"):
            reset_arguments({"task": ANSWER_TASK, "variation": bad})


def test_a_run_launched_over_the_api_takes_its_seed_and_shows_it(shop_pool, api_client_for, author_user):
    api = api_client_for(user=author_user)
    created = api.post("/api/runs", {"task_filter": ANSWER_TASK, "agent": "random:1", "seed": 777}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["seed"] == 777
    (episode,) = Episode.objects.filter(run_id=created.json()["id"])
    assert episode.variation == run_variation(episode.run, shop_pool, 0)
    refused = api.post("/api/runs", {"task_filter": ANSWER_TASK, "agent": "random:1", "seed": -3}, format="json")
    assert refused.status_code == 400 and "seed" in refused.json()


def test_run_suite_refuses_a_seed_for_a_run_without_variation(shop_pool):
    with pytest.raises(CommandError, match="cannot go with --fixed"):
        call_command(
            "run_suite", "-", "--tasks", ANSWER_TASK, "--agent", "oracle", "--seed", "5", "--fixed", "--no-sync"
        )
    assert not Episode.objects.exists()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_gyms_reset_seed_chooses_the_variation(shop_pool):
    env = ReplicaEnv(ANSWER_TASK)
    try:
        episodes = []
        for seed in (5, 5, 6):
            obs, _ = env.reset(seed=seed)
            episodes.append(env.episode)
            assert env.episode.params["order"] in obs["goal"]
        env.reset(seed=5, options={"world_seed": 2})
        fixed_world = env.episode
    finally:
        env.close()
    first, again, other = episodes
    assert first.variation is not None and (first.world_seed, first.variation, first.params) == (
        again.world_seed,
        again.variation,
        again.params,
    )
    assert other.variation != first.variation
    assert (fixed_world.world_seed, fixed_world.variation) == (2, first.variation)


# Other wordings of the answer task's instruction, as a replica ships them (its paraphrases.json): the same
# placeholders, no number, code or quote of its own.
WORDINGS = [
    "Signed in on Bazaaro as {name} ({email}, password {password}), what did order {order} cost in all, with "
    "shipping and tax? Tell me the amount.",
    "As {name} on Bazaaro (sign in with {email} and password {password}), tell me the total of order {order}, "
    "shipping and tax included.",
]


@pytest.fixture
def shop_wordings(shop_pool, tmp_path, monkeypatch):
    """The answer task's replica ships WORDINGS (a file of the test's own, in place of the replica's)."""
    path = tmp_path / PARAPHRASES
    path.write_text(json.dumps({shop_pool.slug: WORDINGS}))
    assert variation.wordings_path("shop") == Path(get_replica("shop").path) / PARAPHRASES
    monkeypatch.setattr(variation, "wordings_path", lambda replica: path)
    return path


def test_a_varied_episode_is_worded_by_its_variation_and_a_fixed_one_keeps_the_tasks_words(shop_wordings):
    task, own = task_current(ANSWER_TASK), task_current(ANSWER_TASK).spec["instruction"]
    picks = {v: instruction_pick(task, v) for v in range(40)}
    assert set(picks.values()) == {own, *WORDINGS}  # the original is one of the choices; every wording is reached
    by_wording = {wording: v for v, wording in sorted(picks.items(), reverse=True)}
    first, again = (episode_create(task=task, agent="script", variation=by_wording[WORDINGS[0]]) for _ in range(2))
    other = episode_create(task=task, agent="script", variation=by_wording[WORDINGS[1]])
    assert first.instance.instruction == again.instance.instruction == fill_text(WORDINGS[0], first.params)
    assert other.instance.instruction == fill_text(WORDINGS[1], other.params)
    for ep in (first, other):  # filled as the original is: the episode's own order, no placeholder left
        assert ep.params["order"] in ep.instance.instruction and "{" not in ep.instance.instruction
        assert ep.instance.verifier == task.with_params(ep.params).verifier  # the wording changes nothing else
    # no variation (verify_tasks, --fixed runs, a seed the caller gives): the task's instruction word for word
    fixed = episode_create(task=task, agent="script")
    assert fixed.instance.instruction == task.instruction
    on_seed = episode_create(task=task, agent="script", seed=3)
    assert on_seed.instance.instruction == fill_text(own, on_seed.params)
    run = run_create(task_filter=ANSWER_TASK, agent="oracle", attempts=3, vary=False)
    assert {ep.instance.instruction for ep in run_episodes_create(run_id=run.pk, enqueue=False)} == {task.instruction}


@pytest.mark.parametrize(
    "entry, words",
    [
        ([WORDINGS[0].replace("order {order}", "your order")], "wording 0 of report-order-total loses {order}"),
        ([WORDINGS[0], WORDINGS[1] + " It came to {total}."], "wording 1 of report-order-total adds {total}"),
        ([WORDINGS[0] + " Orders over 100 ship free."], "adds 100"),
        (None, "is empty or the instruction itself"),  # None: the instruction itself
        ("not a list", "report-order-total must be a list of wordings"),
    ],
)
def test_a_wording_that_loses_or_adds_a_fact_refuses_the_episode_naming_it(shop_wordings, entry, words):
    """A file edited after its build: an answer key ({total}) or a lost record must not reach the agent."""
    task = task_current(ANSWER_TASK)
    shop_wordings.write_text(json.dumps({task.slug: [task.spec["instruction"]] if entry is None else entry}))
    with pytest.raises(EpisodeError) as refused:
        episode_create(task=task, agent="script", variation=1)
    assert words in str(refused.value) and str(shop_wordings) in str(refused.value)
    assert not Episode.objects.exists()
    assert episode_create(task=task, agent="script").instance.instruction == task.instruction  # fixed: not read


def test_a_wordings_file_that_is_not_a_map_of_slugs_is_refused(shop_wordings):
    task = task_current(ANSWER_TASK)
    for text, words in (("[1, 2]", "must map task slugs to lists of wordings"), ("{oops", "is not JSON")):
        shop_wordings.write_text(text)
        with pytest.raises(WordingError, match=words):
            instruction_pick(task, 5)
