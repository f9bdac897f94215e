"""GitHub Copilot CLI (``copilot``): see ``profile.py``, ``listing.py``, ``loading.py``, ``runner.py``."""
