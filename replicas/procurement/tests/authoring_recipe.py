"""What an author does in the task editor to make a task of this compiled replica from scratch, read by
the platform's authoring test (tests/frontend/test_authoring_browser.py). Written by the environment factory."""

RECIPE = {
    "title": "Count a vendor's purchase requests",
    "record": "vendor",
    "table": "procurement.vendor",
    "where": "{}",
    "answer": "requests",
    "field": ("vendor_name", "vendor.name"),
    "aggregate": ("count", "procurement.purchaserequest", None, '{"vendor": "{vendor}"}'),
    "instruction": "How many purchase requests name the vendor {vendor_name}? Reply with the number only.",
    "start_page": "/purchase-requests",
}
