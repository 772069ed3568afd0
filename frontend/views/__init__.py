"""The platform's own pages, one module per section (dashboard, catalogue, suites, worlds, editor, settings)."""
