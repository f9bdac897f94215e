"""Client package: cursor (profile, listing, loading)."""
