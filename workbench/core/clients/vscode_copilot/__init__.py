"""Client package: vscode_copilot (profile, listing, loading)."""
