"""Client package: agentskills (profile, listing, loading)."""
