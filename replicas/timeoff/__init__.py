"""Harbor Leave: a replica compiled by the environment factory from its anchor."""
