"""Variant families (`factory generate ANCHOR --variants N`: policies x personas x seeds) and the large sizes, as
variants of the one compiled replica: the same N gives the same families, and a family's world has the team and
the policies its knobs say."""

from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings

from factory.build import anchor_spec
from factory.compiler import replica_files
from replicas.worlds.enterprise.variants import FAMILIES, POLICIES, families, families_read, large_sizes
from replicas.worlds.registry import get_replica, replicas
from replicas.worlds.scoping import bound_world
from replicas.worlds.snapshot import snapshot, state_hash

pytestmark = pytest.mark.skipif("procurement" not in replicas(), reason="the procurement replica is not built")

ANCHOR = Path(settings.BASE_DIR) / "anchors" / "procurement"


def test_n_families_cover_every_policy_and_persona_before_a_seed_repeats():
    twelve = families(12)
    assert twelve == families(12) and list(twelve) == [f"family{i}" for i in range(1, 13)]
    pairs = [(k["policy"], k["persona"]) for k in twelve.values()]
    assert len(set(pairs[:9])) == 9 and pairs[9:] == pairs[:3]
    assert [k["salt"] for k in twelve.values()] == [1] * 9 + [2] * 3
    assert families(3) == {name: twelve[name] for name in ("family1", "family2", "family3")}
    with pytest.raises(ValueError, match="from 0 to 99"):
        families(100)


def test_the_compiled_replica_serves_its_families_and_the_large_sizes():
    spec, _sha = anchor_spec(ANCHOR)
    count = families_read(ANCHOR)
    # procurement's unit: 11 people and 50 records (its entities' base counts)
    assert large_sizes(spec) == {"10k": {"size": 164}, "100k": {"size": 1640}}
    config = get_replica("procurement")
    assert count > 0 and families_read(Path(config.path)) == count
    variants = config.variants
    assert {"small", "default", "10k", "100k", *families(count)} == set(variants)
    assert {name: variants[name] for name in families(count)} == families(count)
    # the replica's files hold the families' number, derived when it loads, never their knobs
    files = replica_files(spec, bench_task="", families=count)
    assert files[FAMILIES] == f'{{"families": {count}}}\n'
    assert not any("family8" in text or "limit_factor" in text for text in files.values())


def _people(world):
    with bound_world(world):
        return list(get_replica("procurement").runtime().domain.person_model().objects.all())


def test_a_familys_world_has_its_personas_and_policies(make_world):
    """family8 is strict x crowded (approval limits halved, one more approver away; two more people per role),
    family9 lenient x crowded (limits doubled, nobody away)."""
    knobs = families(9)
    assert (knobs["family8"]["policy"], knobs["family8"]["persona"]) == ("strict", "crowded")
    strict = _people(make_world(replica="procurement", seed=7, variant="family8"))
    lenient = _people(make_world(replica="procurement", seed=7, variant="family9"))
    base = {"requester": 4, "approver": 3, "buyer": 2, "ap_clerk": 2}
    for people in (strict, lenient):
        assert Counter(p.role for p in people) == {role: n + 2 for role, n in base.items()}
    limits = {
        "strict": [p.approval_limit for p in strict if p.role == "approver"],
        "lenient": [p.approval_limit for p in lenient if p.role == "approver"],
    }
    for policy, found in limits.items():
        factor = Decimal(str(POLICIES[policy]["limit_factor"]))
        assert all(5000 * factor <= limit <= 30000 * factor for limit in found), (policy, found)
    assert sum(p.out_of_office for p in strict) == 2 and sum(p.out_of_office for p in lenient) == 0
    assert all(p.delegate is not None for p in strict if p.out_of_office)


def test_a_familys_seed_moves_its_world_and_the_same_family_gives_the_same_world(make_world):
    first = state_hash(snapshot(make_world(replica="procurement", seed=7, variant="family1")))
    again = state_hash(snapshot(make_world(replica="procurement", seed=7, variant="family1")))
    # family10: family1's policy and persona on the families' second seed
    other_seed = state_hash(snapshot(make_world(replica="procurement", seed=7, variant="family10")))
    small = state_hash(snapshot(make_world(replica="procurement", seed=7, variant="small")))
    assert first == again and len({first, other_seed, small}) == 3
