"""Skill Workbench: see what coding agents see of your Agent Skills."""

__version__ = "0.1.0"
