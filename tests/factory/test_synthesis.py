"""Task synthesis and the pack's manifest: walks on the tool graph, the quality gate's scores applied by the build,
and a rebuild that gives the committed files byte for byte."""

import json
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from factory.anchor import anchor_read
from factory.build import (
    GATE,
    MANIFEST,
    TOOLS,
    gate_apply,
    gate_record,
    manifest_build,
    manifest_write,
    tasks_write,
    tool_solutions,
)
from factory.compiler import graph, spec_compile
from factory.synth import walks
from replicas.worlds.registry import replicas

ANCHOR = Path(settings.BASE_DIR) / "anchors" / "procurement"
FOLDER = Path(settings.BASE_DIR) / "replicas" / "procurement"
built = pytest.mark.skipif("procurement" not in replicas(), reason="the procurement replica is not built")


@pytest.fixture
def spec():
    return spec_compile(*anchor_read(ANCHOR))


def test_walks_follow_strong_edges_one_role_may_make_and_never_revisit_a_state(spec):
    tools = {t["name"]: t for t in graph(spec)["tools"]}
    strong = {(e["from"], e["to"]) for e in graph(spec)["edges"] if e["weight"] == 3}
    chains = walks(spec)
    for chain, starts in chains.items():
        assert 2 <= len(chain) <= 3
        assert all((a, b) in strong for a, b in zip(chain, chain[1:], strict=False)), chain
        assert set.intersection(*(set(tools[name]["roles"]) for name in chain)), chain
        for start in starts:
            visited = [start, *(tools[name]["to"] for name in chain)]
            assert len(set(visited)) == len(visited), (chain, start)
    assert chains[("send_purchase_order", "receive_purchase_order", "close_purchase_order")] == ["open"]
    # blocked and active again is a circle for an active vendor: only a pending one may walk it
    assert chains[("block_vendor", "activate_vendor")] == ["pending"]
    # a requester submits and an approver approves: no one person walks that chain
    assert not any("submit_purchase_request" in chain and "approve_purchase_request" in chain for chain in chains)


def _task_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "tasks").glob("*.json"))}


def test_the_gate_drops_only_the_tasks_it_scored_outside_its_band_on_the_same_bytes(tmp_path):
    (tmp_path / "tasks").mkdir()
    for slug in ("easy", "kept", "changed", "new", "hard"):
        (tmp_path / "tasks" / f"{slug}.json").write_text(json.dumps({"slug": slug}))
    # a gate over part of the pack adds to the scores recorded under the same rules
    gate_record(
        folder=tmp_path, gate_file=tmp_path / GATE, agent="noisy-oracle:0.1:7", k=5, low=2, high=4, passes={"hard": 0}
    )
    passes = {"easy": 5, "kept": 3, "changed": 0}
    gate_record(
        folder=tmp_path, gate_file=tmp_path / GATE, agent="noisy-oracle:0.1:7", k=5, low=2, high=4, passes=passes
    )
    (tmp_path / "tasks" / "changed.json").write_text(json.dumps({"slug": "changed", "edited": True}))
    slugs = ("easy", "kept", "changed", "new", "hard")
    (tmp_path / TOOLS).write_text(json.dumps({slug: [f"call {slug}"] for slug in slugs}))
    gate = gate_apply(tmp_path, tmp_path / GATE)
    assert sorted(p.stem for p in (tmp_path / "tasks").glob("*.json")) == ["changed", "kept", "new"]
    # a dropped task's tool reference solution goes with it
    assert sorted(tool_solutions(tmp_path)) == ["changed", "kept", "new"]
    assert gate["dropped"] == ["easy", "hard"] and gate["ungated"] == ["changed", "new"]
    assert gate["scores"] == {"easy": 5, "hard": 0, "kept": 3} and (gate["k"], gate["low"], gate["high"]) == (5, 2, 4)


@built
def test_the_manifest_names_every_file_by_its_hash_and_the_anchor_it_came_from():
    manifest = json.loads((FOLDER / MANIFEST).read_text())
    _anchor, sha = anchor_read(ANCHOR)
    assert manifest["anchor_sha256"] == sha
    on_disk = {p.relative_to(FOLDER).as_posix() for p in FOLDER.rglob("*") if p.is_file()}
    on_disk = {name for name in on_disk if "__pycache__" not in name and name != MANIFEST}
    assert set(manifest["files"]) == on_disk
    gate = manifest["gate"]
    assert manifest == manifest_build(FOLDER, anchor_sha256=sha, gate=gate)
    assert set(manifest["tasks"]) == {name.removesuffix(".json") for name in _task_files(FOLDER)}
    assert not set(manifest["tasks"]) & set(gate["dropped"])
    # a task is in the pack ungated (new since the gate ran) or scored inside the band
    for slug in manifest["tasks"]:
        assert slug in gate["ungated"] or gate["low"] <= gate["scores"][slug] <= gate["high"], slug


@built
def test_a_rebuild_synthesises_the_committed_tasks_and_manifest_byte_for_byte(tmp_path, db):
    """The build's task step and manifest, run again here (the compiled files and the migration have their own
    tests): the sandbox runs give the same answer keys, the gate drops the same tasks, the hashes agree."""
    from factory.synth import tasks_synthesise  # noqa: PLC0415 - runs the installed replica

    copy = tmp_path / "procurement"
    shutil.copytree(FOLDER, copy, ignore=shutil.ignore_patterns("__pycache__"))
    tasks, tools = tasks_synthesise(replica="procurement")
    assert len(tasks) >= 40
    tasks_write(copy, tasks, tools)
    gate = gate_apply(copy, ANCHOR / GATE)
    manifest_write(copy, anchor_sha256=anchor_read(ANCHOR)[1], gate=gate)
    assert _task_files(copy) == _task_files(FOLDER)
    assert (copy / TOOLS).read_bytes() == (FOLDER / TOOLS).read_bytes()
    assert (copy / MANIFEST).read_bytes() == (FOLDER / MANIFEST).read_bytes()
    for task in tasks:
        assert 3 <= len(task["verifier"]["assertions"]) <= 12, task["slug"]
