"""The demo ships a pending workshop proposal (issue 8: the demo exercises every view)."""

from workbench.core.demo import demo_environment, ensure_demo_proposal
from workbench.core.workshop import WorkshopStore


def test_demo_proposal_is_pending_and_idempotent(tmp_path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_HOME", str(tmp_path / "wb"))
    env = demo_environment()
    target = env.workspace / ".claude" / "skills" / "code-review" / "SKILL.md"
    before = target.read_bytes()
    pid = ensure_demo_proposal(env)
    assert pid
    assert ensure_demo_proposal(env) == pid  # not duplicated
    store = WorkshopStore(env.workspace)
    (p,) = [x for x in store.proposals() if x.source == "demo"]
    assert p.state == "pending" and p.kind == "update"
    assert target.read_bytes() == before  # proposing never writes the skill
