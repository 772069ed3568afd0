"""Every module of every root package sits in a layer of `.importlinter`: one left out is unconstrained,
so it could import any layer (as replicagym.accounts once did, unseen) and lint-imports would stay green."""

import configparser
import pkgutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _config() -> configparser.ConfigParser:
    config = configparser.ConfigParser()
    config.read(ROOT / ".importlinter")
    return config


def _layer_modules(config) -> set[str]:
    lines = config["importlinter:contract:layers"]["layers"].split("\n")
    return {name.strip() for line in lines for name in line.split(":") if name.strip()}


def _package_dir(package: str) -> Path:
    return next(p for p in (ROOT / package, ROOT / "platform" / package) if (p / "__init__.py").exists())


def uncovered_modules(config) -> list[str]:
    """Modules no layer names, neither themselves nor a package holding them (a root's own __init__ aside)."""
    layers = _layer_modules(config)

    def covered(module: str) -> bool:
        return any(module == layer or module.startswith(layer + ".") for layer in layers)

    missing = []
    for package in config["importlinter"]["root_packages"].split():
        if covered(package):
            continue
        for info in pkgutil.iter_modules([str(_package_dir(package))]):
            if not covered(f"{package}.{info.name}"):
                missing.append(f"{package}.{info.name}")
    return missing


def test_every_package_of_the_tree_is_a_root_package():
    # the top level and platform/ (where the Django project and the client live); tests sit above everything
    found = {
        path.parent.name
        for folder in (ROOT, ROOT / "platform")
        for path in folder.glob("*/__init__.py")
        if path.parent.name != "tests"
    }
    assert found <= set(_config()["importlinter"]["root_packages"].split())


def test_every_module_of_every_root_package_is_in_a_layer():
    assert uncovered_modules(_config()) == []


def test_a_package_left_out_of_the_layers_is_found():
    config = _config()
    layers = config["importlinter:contract:layers"]["layers"]
    config["importlinter:contract:layers"]["layers"] = layers.replace("replicagym.accounts", "")
    assert uncovered_modules(config) == ["replicagym.accounts"]
