"""What an author types in the task editor to make a shop task from scratch, with no code: read by the platform's
authoring test (tests/frontend/test_authoring_browser.py), which covers every installed replica."""

RECIPE = {
    "title": "Count the units of an order",
    "record": "order",
    "table": "shop.order",
    "where": "{}",
    "answer": "units",
    "aggregate": ("sum", "shop.orderitem", "quantity", '{"order": "{order}"}'),
    "instruction": "How many units in total were ordered in order {order}? Reply with the number only.",
    "start_page": "/your-orders",
}
