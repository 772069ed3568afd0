"""What an author does in the task editor to make a task of this compiled replica from scratch, read by
the platform's authoring test (tests/frontend/test_authoring_browser.py). Written by the environment factory."""

RECIPE = {
    "title": "Count a department's employees",
    "record": "department",
    "table": "timeoff.department",
    "where": "{}",
    "answer": "employees",
    "field": ("department_name", "department.name"),
    "aggregate": ("count", "timeoff.employee", None, '{"department": "{department}"}'),
    "instruction": "How many employees name the department {department_name}? Reply with the number only.",
    "start_page": "/employees",
}
