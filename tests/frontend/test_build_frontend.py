"""build_frontend: a replica's declared npm files are copied, and files given one destination become one bundle."""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from frontend.management.commands import build_frontend as command


@pytest.fixture
def node_modules(tmp_path, monkeypatch):
    """A frontend/ folder of our own: one pinned package with three files, the platform's assets."""
    frontend = tmp_path / "frontend"
    modules = frontend / "node_modules"
    (modules / "kit" / "dist").mkdir(parents=True)
    (modules / "kit" / "package.json").write_text(json.dumps({"version": "1.0.0"}))
    for name, body in (("a.css", ".a{color:red}\n"), ("b.css", ".b{color:blue}"), ("c.js", "let c = 1;\n")):
        (modules / "kit" / "dist" / name).write_text(body)
    (modules / "platform.css").write_text("body{}")
    (frontend / "package.json").write_text(json.dumps({"dependencies": {"kit": "1.0.0"}}))
    monkeypatch.setattr(command, "FRONTEND", frontend)
    monkeypatch.setattr(command, "NODE_MODULES", modules)
    monkeypatch.setattr(command, "PLATFORM_STATIC", tmp_path / "platform-static")
    monkeypatch.setattr(command, "PLATFORM_ASSETS", [("platform.css", "platform.css")])
    return modules


def _replica(tmp_path, monkeypatch, assets):
    config = SimpleNamespace(
        label="kitdesk", npm_packages={"kit": "1.0.0"}, frontend_assets=assets, static_dir=tmp_path / "static"
    )
    monkeypatch.setattr(command, "replicas", lambda: {"kitdesk": config})
    return config.static_dir


def test_files_given_one_destination_are_concatenated_in_their_order(node_modules, tmp_path, monkeypatch):
    static = _replica(
        tmp_path,
        monkeypatch,
        [
            ("kit/dist/b.css", "kit/bundle.css"),
            ("kit/dist/c.js", "kit/c.js"),
            ("kit/dist/a.css", "kit/bundle.css"),
        ],
    )
    call_command("build_frontend")
    # b before a, as declared (the cascade's order), each ending on a new line
    assert (static / "kit" / "bundle.css").read_text() == ".b{color:blue}\n.a{color:red}\n"
    assert (static / "kit" / "c.js").read_text() == "let c = 1;\n"
    assert (tmp_path / "platform-static" / "platform.css").read_text() == "body{}"


def test_a_missing_file_in_a_bundle_is_refused_and_nothing_is_written(node_modules, tmp_path, monkeypatch):
    static = _replica(
        tmp_path, monkeypatch, [("kit/dist/a.css", "kit/bundle.css"), ("kit/dist/gone.css", "kit/bundle.css")]
    )
    with pytest.raises(CommandError, match="kit/dist/gone.css is missing"):
        call_command("build_frontend")
    assert not static.exists()


def test_the_support_desk_pages_each_load_one_garden_bundle_holding_every_component_they_use():
    from django.apps import apps

    from replicas.supportdesk.apps import GARDEN, GARDEN_BUNDLES

    config = apps.get_app_config("supportdesk")
    assert set(GARDEN_BUNDLES["garden.css"]) == set(GARDEN)  # every pinned component is served
    destinations = {dest for _src, dest in config.frontend_assets if dest.endswith(".css")}
    assert destinations == {"supportdesk/vendor/garden.css", "supportdesk/vendor/garden-signin.css"}
    templates = Path(config.path) / "templates" / "supportdesk"
    for template, bundle in (("base.html", "garden.css"), ("login.html", "garden-signin.css")):
        links = re.findall(r"supportdesk/vendor/[\w-]+\.css", (templates / template).read_text())
        assert links == [f"supportdesk/vendor/{bundle}"], template
