"""Pages of the storefront and the back office, one module per section of the store."""
