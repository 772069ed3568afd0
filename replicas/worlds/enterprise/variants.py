"""The variants a compiled replica serves besides the anchor's sizes: the large sizes (`10k`, `100k`: about that many
records) and the variant families of `factory generate ANCHOR --variants N` (policies x personas x seeds). Each is
a dict of knobs the shared seed generator reads (seeding.py), derived from the spec and N alone: the same anchor and
N give the same variants. Derived when the replica loads (config.EnterpriseConfig.variants), from its spec.json and
its families file, which holds N: the factory writes N, never the families."""

import json
import math
from pathlib import Path

FAMILIES = "families.json"  # in the anchor's and the replica's folders: how many variant families the replica serves
MAX_FAMILIES = 99
# records a large size aims at (people and records of every entity; the audit history comes on top)
LARGE = {"10k": 10_000, "100k": 100_000}
# policies: approval limits (budget caps) scaled; people away with a delegate (delegated approvers) moved, for the
# roles that delegate at all
POLICIES = {
    "standard": {"limit_factor": 1, "away_shift": 0},
    "strict": {"limit_factor": 0.5, "away_shift": 1},
    "lenient": {"limit_factor": 2, "away_shift": -1},
}
# personas: the team's shape, people per role moved (at least one each)
PERSONAS = {"standard": 0, "lean": -1, "crowded": 2}


def large_sizes(spec: dict) -> dict[str, dict]:
    """`10k` and `100k` as size multipliers of the anchor's counts."""
    unit = sum(e["count"] for e in spec["entities"]) + sum(r["people"] for r in spec["roles"])
    return {name: {"size": math.ceil(target / unit)} for name, target in LARGE.items()}


def families(count: int) -> dict[str, dict]:
    """`count` families, every policy with every persona before a seed repeats a pair: family1 is standard x
    standard on seed 1, family2 strict x standard, ..., family10 standard x standard on seed 2."""
    if not 0 <= count <= MAX_FAMILIES:
        raise ValueError(f"families: from 0 to {MAX_FAMILIES}, not {count}")
    pairs = [(policy, persona) for persona in PERSONAS for policy in POLICIES]
    out = {}
    for i in range(count):
        policy, persona = pairs[i % len(pairs)]
        out[f"family{i + 1}"] = {
            "size": 1,
            "policy": policy,
            **POLICIES[policy],
            "persona": persona,
            "people_shift": PERSONAS[persona],
            "salt": 1 + i // len(pairs),
        }
    return out


def families_read(folder: Path) -> int:
    """N of a folder's families file (an anchor's or a replica's); 0 without one."""
    path = Path(folder) / FAMILIES
    return json.loads(path.read_text())["families"] if path.is_file() else 0


def families_json(count: int) -> str:
    """The families file of `count` families (checked)."""
    families(count)
    return json.dumps({"families": count}) + "\n"


def replica_variants(spec: dict, count: int) -> dict[str, dict]:
    """Every variant of the replica: the anchor's sizes, the large sizes, `count` families."""
    sizes = {name: {"size": factor} for name, factor in spec["sizes"].items()}
    return dict(sorted({**large_sizes(spec), **sizes, **families(count)}.items()))
