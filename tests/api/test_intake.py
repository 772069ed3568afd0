"""The JSON intake (replicagym.jsonintake): size, depth, string and finite-number limits, a refusal that
names the path, wherever JSON comes in: the API's bodies, task files and task imports. And the API's
own errors are JSON, never Django's debug pages, even with DEBUG on."""

import json

import pytest
from replicagym.jsonintake import MAX_BYTES, MAX_DEPTH, JsonIntakeError, json_check, json_intake

from catalogue.authoring import DraftError, task_import
from catalogue.packs import PackError, load_task_file
from episodes.models import Episode, Run
from tests.episodes.fixtures import sync_test_pack

DEEP = '{"task": ' + "[" * 100_000 + "]" * 100_000 + "}"  # far past the interpreter's recursion limit


def refusal(raw, **limits) -> JsonIntakeError:
    with pytest.raises(JsonIntakeError) as caught:
        json_intake(raw, **limits)
    return caught.value


def test_a_document_too_deep_for_the_parser_is_refused_at_the_path_where_it_passes_the_limit():
    error = refusal(DEEP)
    assert error.path == "$.task" + "[0]" * (MAX_DEPTH - 1)
    assert f"nested deeper than {MAX_DEPTH} levels" in error.message


def test_depth_within_what_python_parses_is_still_held_to_the_limit_and_names_the_member():
    error = refusal('{"a": "[[[", "b": {"c d": [1, [2, [3]]]}}', max_depth=4)
    assert error.path == '$.b["c d"][1][1]' and "deeper than 4" in error.message
    assert json_intake('{"a": "[[[", "b": {"c d": [1, [2, [3]]]}}', max_depth=5)["a"] == "[[["


@pytest.mark.parametrize(
    "raw, path, word",
    [
        ('{"limits": {"max_seconds": NaN}}', "$.limits.max_seconds", "NaN"),
        ('{"x": [1, Infinity]}', "$.x[1]", "Infinity"),
        ('{"x": -Infinity}', "$.x", "-Infinity"),
        ('{"x": 1e400}', "$.x", "Infinity"),  # overflows to inf: no column or encoder downstream takes it
    ],
)
def test_numbers_that_are_not_finite_are_refused_with_their_path(raw, path, word):
    error = refusal(raw)
    assert error.path == path and error.message.startswith(f"{word} is not a finite number")


def test_size_and_string_limits():
    assert refusal(b" " * (MAX_BYTES + 1)).path == "$"
    error = refusal('{"title": "' + "x" * 200 + '"}', max_string=100)
    assert error.path == "$.title" and "200 characters" in error.message
    assert refusal("{", max_bytes=10).message.startswith("invalid JSON at line 1 column 2")
    json_check({"ok": [1.5, "x" * 100]}, max_string=100)  # at the limit: accepted


@pytest.fixture
def staff_client(author_user, api_client_for):
    return api_client_for(user=author_user)


def post_raw(client, path, body: str | bytes):
    return client.generic("POST", path, body, content_type="application/json")


def test_deep_json_to_the_api_is_a_400_naming_the_path_not_a_500(agent_client, test_pack):
    response = post_raw(agent_client, "/api/episodes", DEEP)
    assert response.status_code == 400
    body = response.json()
    assert body["path"].startswith("$.task[0][0]") and "nested deeper than" in body["detail"]
    assert Episode.objects.count() == 0


def test_nan_in_a_run_is_a_400_naming_the_path(staff_client, test_pack):
    response = post_raw(staff_client, "/api/runs", '{"suite": "testbed", "agent": "random", "attempts": NaN}')
    assert response.status_code == 400 and response.json()["path"] == "$.attempts"
    assert Run.objects.count() == 0


def test_a_body_over_the_size_limit_is_refused_without_reading_it_all(agent_client, test_pack):
    response = post_raw(agent_client, "/api/episodes", '{"task": "' + "x" * (2 * MAX_BYTES) + '"}')
    assert (
        response.status_code == 400
        and response.json()["path"] == "$"
        and f"{MAX_BYTES} bytes" in response.json()["detail"]
    )


def test_an_api_404_is_json_and_lists_no_routes_even_with_debug_on(agent_client, settings):
    settings.DEBUG = True
    response = agent_client.get("/api/no/such/thing")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "no API operation at /api/no/such/thing"}
    assert b"episodes" not in response.content and b"admin" not in response.content


def test_an_api_failure_is_a_bare_json_500_even_with_debug_on(agent_client, test_pack, settings, monkeypatch):
    from replicagym.api import views

    def broken(**kwargs):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(views, "token_episode_start", broken)
    settings.DEBUG = True
    agent_client.raise_request_exception = False
    response = agent_client.post("/api/episodes", {"task": "testbed.open-note"}, format="json")
    assert response.status_code == 500 and response.json() == {"detail": "server error"}
    assert b"secret internals" not in response.content and b"Traceback" not in response.content


def test_debug_is_off_unless_a_developer_turns_it_on():
    import subprocess
    import sys

    code = "import os; os.environ.pop('DEBUG', None); from replicagym import settings as s; print(s.DEBUG)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": "platform", "PATH": "/usr/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"


# --- task files and imports ----------------------------------------------------------------------


@pytest.fixture
def open_note_spec(db):
    sync_test_pack()
    from catalogue.packs import task_current

    return dict(task_current("testbed.open-note").spec)


def test_a_task_import_with_nan_limits_is_refused_naming_the_path(open_note_spec):
    text = json.dumps({**open_note_spec, "slug": "nan-limits", "limits": {"max_steps": 4, "max_seconds": float("nan")}})
    assert "NaN" in text  # Python writes what JSON has no word for
    with pytest.raises(DraftError) as caught:
        task_import(text)
    assert caught.value.errors == [("limits.max_seconds", "NaN is not a finite number: send a number JSON allows")]


def test_a_task_import_with_a_20_mb_title_is_refused(open_note_spec):
    with pytest.raises(DraftError) as caught:
        task_import(json.dumps({**open_note_spec, "slug": "huge-title", "title": "x" * 20_000_000}))
    assert caught.value.errors == [("", f"the document is over {MAX_BYTES} bytes")]


def test_a_long_title_within_the_size_limit_is_refused_by_the_task_schema(open_note_spec):
    with pytest.raises(DraftError) as caught:
        task_import(json.dumps({**open_note_spec, "slug": "long-title", "title": "x" * 201}))
    assert [m for p, m in caught.value.errors if p == "title"][0].startswith(
        "must be a non-empty string of at most 200 characters"
    )


def test_a_deep_task_import_and_a_deep_task_file_are_refused_not_crashed(open_note_spec, tmp_path):
    deep = json.dumps({**open_note_spec, "slug": "deep", "tags": []}).replace(
        '"tags": []', '"tags": ' + "[" * 5000 + "]" * 5000
    )
    with pytest.raises(DraftError) as caught:
        task_import(deep)
    assert caught.value.errors[0][0] == "tags" + "[0]" * (MAX_DEPTH - 1)
    path = tmp_path / "deep.json"
    path.write_text(deep)
    with pytest.raises(PackError) as file_error:
        load_task_file(path, "testbed")
    assert "deep.json: tags[0][0]" in file_error.value.errors[0] and "nested deeper than" in file_error.value.errors[0]
