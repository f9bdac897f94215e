from tests.evals.conftest import Err, text, tool_call
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import run_eval, EvalOptions

def test_smoke(fake, catalog, settings, workspace):
    pdf = str(workspace / ".claude/skills/pdf/SKILL.md")
    fake.plans = {
        "merge": [[tool_call("Skill", {"skill": "pdf"})]],
        "listfirst": [[tool_call("list_directory", {"path": "."}), tool_call("read_file", {"path": pdf})]],
        "greet": [[tool_call("Skill", {"skill": "greeter"}), tool_call("Skill", {"skill": "pdf"})]],
        "weather": [[text("sunny")]],
        "broken": [[Err(500)]],
    }
    qs = [Query("merge a.pdf", True), Query("listfirst then read", True), Query("greet and pdf", True),
          Query("weather?", False), Query("broken query", False)]
    rep = run_eval(catalog, "pdf", qs, settings=settings, api_key="sk-test",
                   options=EvalOptions(runs=3, backoff_base=0.01))
    import json; print(json.dumps(rep.to_json(), indent=1)[:3000])
    print(fake.invalid)
