"""The conformance lab: real clients vs the workbench's models (issue 11). See ``lab.py``."""
