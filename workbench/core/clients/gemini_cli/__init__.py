"""Client package: gemini_cli (profile, listing, loading)."""
