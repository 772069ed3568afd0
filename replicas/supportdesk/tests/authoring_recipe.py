"""What an author types in the task editor to make a support desk task from scratch, with no code: read by the
platform's authoring test (tests/frontend/test_authoring_browser.py), which covers every installed replica."""

RECIPE = {
    "title": "Count the comments of an open ticket",
    "record": "ticket",
    "table": "supportdesk.ticket",
    "where": '{"status": {"in": ["new", "open"]}}',
    "answer": "comments",
    "aggregate": ("count", "supportdesk.comment", None, '{"ticket": "{ticket}"}'),
    "instruction": "How many comments does ticket #{ticket} have? Reply with the number only.",
    "start_page": "/agent/tickets/{ticket}",
    # the editor and its test run, as docs/screenshots show them (REPLICAGYM_SCREENSHOTS=1)
    "screenshots": {"editor": "platform-editor.png", "test_run": "platform-test-run.png"},
}
