"""What an author types in the task editor to make an issue board task from scratch, with no code: read by the
platform's authoring test (tests/frontend/test_authoring_browser.py), which covers every installed replica."""

RECIPE = {
    "title": "Count the comments of an issue",
    "record": "issue",
    "table": "board.issue",
    "where": '{"status": {"ne": "Done"}}',
    "answer": "comments",
    "field": ("issue_key", "issue.key"),
    "aggregate": ("count", "board.comment", None, '{"issue": "{issue}"}'),
    "instruction": "How many comments does issue {issue_key} have? Reply with the number only.",
    "start_page": "/issues",
}
