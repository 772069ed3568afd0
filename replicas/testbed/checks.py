"""The testbed's registered verifier check, for what the JSON kinds cannot say."""

from verifiers.checks import register_check


@register_check("testbed.titles_unique")
def titles_unique(inputs):
    """No two notes share a title at the end (case and surrounding spaces ignored)."""
    titles = [row["title"].strip().casefold() for row in inputs.final["tables"].get("testbed.note", {}).values()]
    repeated = sorted({t for t in titles if titles.count(t) > 1})
    return not repeated, f"repeated titles: {', '.join(repeated)}" if repeated else "every title is unique"
