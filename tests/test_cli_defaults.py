"""Each subcommand keeps its own --client default (argparse shares parent actions; cli.py gives
every subcommand a fresh copy of the common options)."""

from workbench.cli import build_parser


def test_client_defaults_are_per_command(tmp_path):
    p = build_parser()
    ws = str(tmp_path)
    assert p.parse_args(["scan", ws]).client == "claude-code"
    assert p.parse_args(["listing", ws]).client == "claude-code"
    assert p.parse_args(["explain", "x", ws]).client == "all"
    assert p.parse_args(["lint", ws]).client is None  # lint: --client only selects a profile
    assert p.parse_args(["scan", ws]).client == "claude-code"  # unchanged after the others
