"""Pages of the support desk's agent workspace, one module per area."""
