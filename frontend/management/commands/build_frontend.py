"""Copies the platform's front-end files and those each replica declares from frontend/node_modules into static folders.

bin/setup runs `npm ci` in frontend/ and then this command, so a fresh clone serves
its CSS, fonts and scripts itself (no CDN: screenshots must not depend on the network).
Each replica lists its npm packages and files on its ReplicaConfig (`npm_packages`,
`frontend_assets`); frontend/package.json must pin the same versions. Files a replica
gives one destination are concatenated into it, in its order (a stylesheet bundle). The
copies are generated (gitignored); running the command again rewrites them.
"""

import json
import shutil
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from replicas.worlds.registry import replicas

FRONTEND = Path(settings.BASE_DIR) / "frontend"
NODE_MODULES = FRONTEND / "node_modules"
# The platform's own pages (frontend/templates/frontend/base.html): Primer CSS and htmx, served by whitenoise.
PLATFORM_STATIC = FRONTEND / "static" / "frontend" / "vendor"
PLATFORM_ASSETS = [
    ("@primer/css/dist/primer.css", "primer.css"),
    ("htmx.org/dist/htmx.min.js", "htmx.min.js"),
]


def _installed_version(package: str) -> str | None:
    manifest = NODE_MODULES / package / "package.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else None


def frontend_problems(configs) -> list[str]:
    """Why the declared packages and files cannot be written (empty: they can)."""
    pinned = json.loads((FRONTEND / "package.json").read_text()).get("dependencies", {})
    problems = []
    for config in configs:
        for package, version in sorted(config.npm_packages.items()):
            if pinned.get(package) != version:
                problems.append(
                    f"{config.label} needs {package}@{version}: frontend/package.json pins {pinned.get(package)!r}"
                )
            elif _installed_version(package) != version:
                problems.append(
                    f"{config.label} needs {package}@{version}: not installed (run `npm ci` in frontend/ first)"
                )
        declared = set(config.npm_packages)
        for src, _dest in config.frontend_assets:
            package = "/".join(src.split("/")[: 2 if src.startswith("@") else 1])
            if package not in declared:
                problems.append(f"{config.label}: asset {src} is from {package}, which is not in its npm_packages")
            elif _installed_version(package) is not None and not (NODE_MODULES / src).exists():
                problems.append(f"{config.label}: {src} is missing in {NODE_MODULES}")
    return problems


class Command(BaseCommand):
    help = "Copy each replica's CSS, fonts and scripts from frontend/node_modules into its static folder."

    def handle(self, *args, **options):
        configs = sorted(replicas().values(), key=lambda c: c.label)
        problems = frontend_problems(configs)
        if problems:
            raise CommandError("; ".join(problems[:8]))
        missing = [src for src, _ in PLATFORM_ASSETS if not (NODE_MODULES / src).exists()]
        if missing:
            raise CommandError(
                f"platform assets missing in {NODE_MODULES}: {', '.join(missing)} (run `npm ci` in frontend/ first)"
            )
        written = 0
        for src, dest in PLATFORM_ASSETS:
            PLATFORM_STATIC.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(NODE_MODULES / src, PLATFORM_STATIC / dest)
            written += 1
        for config in configs:
            sources: dict[str, list[str]] = {}
            for src, dest in config.frontend_assets:
                sources.setdefault(dest, []).append(src)
            for dest, srcs in sources.items():
                target = config.static_dir / dest
                target.parent.mkdir(parents=True, exist_ok=True)
                if len(srcs) == 1:
                    shutil.copyfile(NODE_MODULES / srcs[0], target)
                else:
                    target.write_bytes(
                        b"\n".join((NODE_MODULES / src).read_bytes().rstrip(b"\n") for src in srcs) + b"\n"
                    )
                written += 1
        self.stdout.write(f"build_frontend: wrote {written} files for the platform and {len(configs)} replica(s)")
