"""Client package: openclaw (profile, listing, loading)."""
