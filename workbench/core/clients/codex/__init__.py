"""Client package: codex (profile, listing, loading)."""
