"""The environment factory: compiles an anchor (a domain described in anchor.yaml) into a replica (issue 33)."""
