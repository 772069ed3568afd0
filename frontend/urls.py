"""The platform's own pages: dashboard, catalogue, suites, worlds, settings and task authoring."""

from django.urls import path

from .views import account, catalogue, dashboard, editor, people, selfcheck_runs, suites, task_page, worlds

app_name = "frontend"
urlpatterns = [
    path("", dashboard.dashboard, name="home"),
    path("tasks/", catalogue.task_list, name="tasks"),
    path("tasks/new/", editor.task_new, name="task_new"),
    path("tasks/import/", task_page.task_import_file, name="task_import"),
    path("tasks/editor/validate/", editor.editor_validate, name="editor_validate"),
    path("tasks/editor/form/", editor.editor_form, name="editor_form"),
    path("tasks/editor/save/", editor.editor_save, name="editor_save"),
    path("tasks/editor/instances/", editor.editor_instances, name="editor_instances"),
    path("tasks/editor/world/", editor.editor_open_world, name="editor_open_world"),
    path("tasks/editor/demonstration/", editor.editor_record, name="editor_record"),
    path("tasks/editor/demonstration/pull/", editor.editor_pull, name="editor_pull"),
    path("tasks/<str:task_id>/", task_page.task_detail, name="task"),
    path("tasks/<str:task_id>/edit/", editor.task_edit, name="task_edit"),
    path("tasks/<str:task_id>/diff/", task_page.task_diff, name="task_diff"),
    path("tasks/<str:task_id>/restore/", task_page.task_restore, name="task_restore"),
    path("tasks/<str:task_id>/export/", task_page.task_export_file, name="task_export"),
    path("tasks/<str:task_id>/test-runs/", selfcheck_runs.selfcheck_create, name="test_run_create"),
    path("tasks/<str:task_id>/test-runs/<int:pk>/", selfcheck_runs.selfcheck_page, name="test_run"),
    path("suites/", suites.suite_list, name="suites"),
    path("suites/new/", suites.suite_edit, name="suite_new"),
    path("suites/<slug:name>/", suites.suite_detail, name="suite"),
    path("suites/<slug:name>/edit/", suites.suite_edit, name="suite_edit"),
    path("worlds/", worlds.world_list, name="worlds"),
    path("settings/", account.settings_page, name="settings"),
    path("people/", people.people_page, name="people"),
]
