"""Issue 12 item 1: lint SEC001 and the Workshop scanner share one secret table
(``workbench.core.riskpatterns``) covering the common provider key formats."""

from __future__ import annotations

import pytest

from workbench.core import riskpatterns
from workbench.core.lint import lint_text
from workbench.core.workshop.risks import check_files

FM = "---\nname: deploy-notes\ndescription: Explains deploy settings. Use when deploying.\n---\n"

#: (provider, token): realistic shapes, random-looking (none is a real credential).
TOKENS = [
    ("AWS", "AKIAQWERTYUIOPASDFGH"),
    ("GitHub", "ghp_Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9"),
    ("GitHub fine-grained", "github_pat_11BZQWXRT0" + "Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9Qw"),
    ("GitLab", "glpat-Zq3v9LkP2mN8xR4tY7wB"),
    ("Slack", "xoxb-5829301746-4917364829-Qk3vNw8LpZ"),
    ("Stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("Anthropic", "sk-ant-api03-" + "Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9" * 2),
    ("OpenAI project", "sk-proj-" + "Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9Qw12"),
    ("OpenAI legacy", "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"),
    ("Google", "AIzaSyDq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jKx"),
    ("SendGrid", "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"),
    ("Hugging Face", "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"),
    ("PyPI", "pypi-AgEIcHlwaS5vcmc" + "Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9" * 2),
    ("npm", "//registry.npmjs.org/:_authToken=npm_Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM"),
    (
        "private key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA" + "q3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK" * 2,
    ),
]


@pytest.mark.parametrize("provider,token", TOKENS, ids=[t[0] for t in TOKENS])
def test_lint_and_scanner_agree_on_provider_keys(provider, token):
    text = FM + f"Use {token} to deploy.\n"
    lint = [d for d in lint_text(text) if d.code == "SEC001"]
    assert lint and lint[0].line == 5, (provider, lint)
    scan = [f for f in check_files({"SKILL.md": text.encode()}) if f.code == "WS-SECRET"]
    assert [f.severity for f in scan] == ["critical"] and scan[0].line == 5, (provider, scan)
    assert riskpatterns.has_secret_candidate(text)


@pytest.mark.parametrize(
    "text",
    [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "sk-ant-api03-your-key-here-0000000000000000",
        "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
    ],
)
def test_placeholders_are_not_secrets(text):
    body = FM + text + "\n"
    assert not [d for d in lint_text(body) if d.code == "SEC001"]
    assert not [f for f in check_files({"SKILL.md": body.encode()}) if f.severity == "critical"]


def test_patterns_come_from_detect_secrets_and_gitleaks():
    patterns, library = riskpatterns.secret_patterns()
    assert library and library.startswith("detect-secrets")
    sources = {p.source.split()[0] for p in patterns}
    assert sources == {"detect-secrets", "gitleaks"}
    for p in patterns:  # every pattern is reachable through the pre-check
        assert p.triggers and set(p.triggers) <= set(riskpatterns.SECRET_TRIGGERS)


def test_precheck_without_ahocorasick_rs_is_the_same(monkeypatch):
    texts = [FM + t + "\n" for _p, t in TOKENS] + [FM + "plain text, no key here\n", "日本語 AKIA"]
    want = [riskpatterns.has_secret_candidate(t) for t in texts]
    assert (
        want == [riskpatterns.has_secret_candidate(t.encode()) for t in texts] == [True] * 15 + [False, True]
    )
    hits = [riskpatterns.secret_triggers_in(t) for t in texts]
    monkeypatch.setattr(riskpatterns, "_STR_AC", None)
    monkeypatch.setattr(riskpatterns, "_BYTES_AC", None)
    assert [riskpatterns.has_secret_candidate(t) for t in texts] == want
    assert [riskpatterns.has_secret_candidate(t.encode()) for t in texts] == want
    assert [riskpatterns.secret_triggers_in(t) for t in texts] == hits


def test_fallback_rows_when_a_plugin_cannot_be_imported(monkeypatch):
    """A missing detect-secrets plugin (e.g. a frozen app without it) falls back to the gitleaks
    row for that format instead of dropping the format."""
    import importlib

    real = importlib.import_module

    def no_aws(name, *a, **kw):
        if name == "detect_secrets.plugins.aws":
            raise ImportError(name)
        return real(name, *a, **kw)

    monkeypatch.setattr(importlib, "import_module", no_aws)
    patterns, _lib = riskpatterns._build_secret_patterns()
    aws = [p for p in patterns if p.what == "AWS access key id"]
    assert [p.source for p in aws] == ["gitleaks aws-access-token"]
