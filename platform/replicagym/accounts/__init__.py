"""Who may do what on the platform: roles, hashed agent tokens scoped to suites, and their quotas."""
