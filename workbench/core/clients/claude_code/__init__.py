"""Client package: claude_code (profile, listing, loading)."""
