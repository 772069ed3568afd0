"""docs/architecture.md stands on its own: every file or folder it names exists in the repository, and it
sends the reader to nothing outside it (manage.py neither)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
# a path in backticks: folders and files of the tree, without placeholders such as <name>
PATH = re.compile(r"`([A-Za-z_][\w./-]*/[\w./-]*)`")
# short forms the tables use inside a row that already named the folder (a replica's: the testbed's)
RELATIVE_TO = ("", "platform/replicagym/", "platform/", "replicas/worlds/", "frontend/", "replicas/testbed/")


def named_paths(text: str) -> list[str]:
    return [p for p in PATH.findall(text) if "." in p.rsplit("/", 1)[-1] or p.endswith("/")]


def missing(paths: list[str]) -> list[str]:
    return [p for p in paths if not any((ROOT / base / p).exists() for base in RELATIVE_TO)]


def test_every_path_the_architecture_names_exists():
    paths = named_paths(DOC.read_text())
    assert len(paths) > 50  # the doc names its modules: a pattern that matched nothing would pass vacuously
    assert missing(paths) == []


def test_a_path_that_does_not_exist_is_found():
    assert missing(named_paths("see `episodes/no_such_module.py` and `replicas/worlds/models.py`")) == [
        "episodes/no_such_module.py"
    ]


def test_nothing_points_outside_the_repository():
    for path in (DOC, ROOT / "manage.py", ROOT / "README.md"):
        text = path.read_text()
        assert not re.search(r"/work/|shared/design\.md|design card", text), path


USER_PAGES = ["agent-developer", "rl-trainer", "task-author", "annotator", "operator"]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_sends_each_user_to_a_page_of_their_own_whose_links_resolve():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    assert readme.index("bin/start") < readme.index("## ") and readme.index("bin/test") < readme.index("## ")
    for page in USER_PAGES:
        assert f"(docs/{page}.md)" in readme
    for source in [ROOT / "README.md", *(ROOT / "docs" / f"{p}.md" for p in USER_PAGES)]:
        text = source.read_text()
        assert not re.search(r"/work/|shared/design\.md|design card", text), source
        broken = [
            link
            for link in LINK.findall(text)
            if not link.startswith(("http://", "https://")) and not (source.parent / link).exists()
        ]
        assert broken == [], (source.name, broken)


def test_every_user_page_starts_from_a_fresh_clone():
    for page in USER_PAGES:
        text = (ROOT / "docs" / f"{page}.md").read_text()
        assert "From a fresh clone" in text.split("\n## ")[0], page
