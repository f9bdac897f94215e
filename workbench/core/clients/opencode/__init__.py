"""Client package: opencode (profile, listing, loading)."""
