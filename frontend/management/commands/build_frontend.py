"""Copies the front-end files the pages use from frontend/node_modules into static folders.

bin/setup runs `npm ci` in frontend/ and then this command, so a fresh clone serves
its CSS, fonts and scripts itself (no CDN: screenshots must not depend on the network).
The copies are generated (gitignored); running the command again rewrites them.
"""
import shutil
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

NODE_MODULES = Path(settings.BASE_DIR) / "frontend" / "node_modules"
SUPPORTDESK_VENDOR = Path(settings.BASE_DIR) / "replicas" / "supportdesk" / "static" / "supportdesk" / "vendor"

GARDEN = ["variables", "bedrock", "buttons", "forms", "tables", "tabs", "tags", "menus", "modals", "avatars", "pagination", "tooltips"]
INTER_WEIGHTS = [400, 500, 600, 700]

# (source under node_modules, destination file)
FILES = [
    *[(f"@zendeskgarden/css-{name}/dist/index.css", SUPPORTDESK_VENDOR / f"garden-{name}.css") for name in GARDEN],
    *[(f"@zendeskgarden/css-{name}/LICENSE.md", SUPPORTDESK_VENDOR / "LICENSE-zendeskgarden.md") for name in GARDEN[:1]],
    ("htmx.org/dist/htmx.min.js", SUPPORTDESK_VENDOR / "htmx.min.js"),
    ("htmx.org/LICENSE", SUPPORTDESK_VENDOR / "LICENSE-htmx"),
    *[
        (f"@fontsource/inter/files/inter-{subset}-{w}-normal.woff2", SUPPORTDESK_VENDOR / "fonts" / f"inter-{subset}-{w}-normal.woff2")
        for subset in ("latin", "latin-ext")
        for w in INTER_WEIGHTS
    ],
    ("@fontsource/inter/LICENSE", SUPPORTDESK_VENDOR / "fonts" / "LICENSE-inter"),
]


class Command(BaseCommand):
    help = "Copy CSS, fonts and scripts from frontend/node_modules into the apps' static folders."

    def handle(self, *args, **options):
        missing = [src for src, _ in FILES if not (NODE_MODULES / src).exists()]
        if missing:
            raise CommandError(
                f"missing in {NODE_MODULES} (run `npm ci` in frontend/ first): " + ", ".join(missing[:5])
            )
        for src, dest in FILES:
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(NODE_MODULES / src, dest)
        self.stdout.write(f"build_frontend: copied {len(FILES)} files")
