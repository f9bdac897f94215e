r"""SEC001 secret: something that looks like a real credential (AWS key id, GitHub / GitLab /
Slack / Anthropic / OpenAI / Google tokens, a PEM private key).

skillscheck (warning) and skillsaw content-embedded-secrets (error) (validators.md J1): skills
are shared and loaded into prompts. Values containing EXAMPLE, xxxx or ``...`` are ignored
(documentation placeholders).

PASS:
    ---
    name: deploy-notes
    description: Explains deploy credentials. Use when the user asks how to set AWS keys.
    ---
    Set `AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE` in your shell.
FAIL:
    ---
    name: deploy-notes
    description: Explains deploy credentials. Use when the user asks how to set AWS keys.
    ---
    Use the token ghp_Zq3v9LkP2mN8xR4tY7wB1cD5eF6gH0jK3lM9 to push.
"""

import re

from workbench.core.lint.registry import Finding, rule

#: (what, literals that must occur for the pattern to match, pattern)
PATTERNS = [
    ("AWS access key id", ("AKIA", "ASIA"), re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b")),
    ("GitHub token", ("github_pat_",), re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}\b")),
    ("GitLab token", ("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}\b")),
    ("Slack token", ("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("Anthropic API key", ("sk-ant-",), re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    ("OpenAI API key", ("T3BlbkFJ", "sk-proj-"),
     re.compile(r"\bsk-(?:proj-)?[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b|\bsk-proj-[A-Za-z0-9_\-]{40,}")),
    ("Google API key", ("AIza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    ("private key", ("PRIVATE KEY",), re.compile(r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY-----")),
]

_FAKE = re.compile(r"(?i)example|x{4,}|\.\.\.|your|dummy|fake|placeholder|redacted|0{8,}|1234567|abcdef")


@rule("SEC001", "secret", "error")
def check(ctx):
    text = ctx.text
    for what, lits, rx in PATTERNS:
        if not any(s in text for s in lits):
            continue
        for m in rx.finditer(text):
            s = m.group(0)
            if what != "private key" and _FAKE.search(s):
                continue
            if what == "private key":
                tail = text[m.end():m.end() + 200]
                if _FAKE.search(tail) or len(tail.strip()) < 40:
                    continue
            yield Finding(ctx.span(m.start(), m.end()), f"this looks like a real {what}; remove it and rotate it")
