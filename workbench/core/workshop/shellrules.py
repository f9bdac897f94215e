"""The workshop's shell and prose patterns (``workshop.risktext`` runs them on proposed text).

This project's own patterns (no reference tool was copied); the secret, bidi/invisible and
injection tables they sit beside live in ``workbench.core.riskpatterns`` (shared with lint). Codes
and severities are those of the table in ``workshop.risks``. Every line rule is compiled to match
within one line (``_single_line``) and within ``SPAN_CHARS`` characters (``_bounded``), so a
1 MB line costs linear time; WS-EXFIL, whose upload alternative has two bounded spans in a row
(~SPAN_CHARS^2 steps from each failing start), runs through ``_exfil_scan``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from workbench.core.workshop.risk import CRITICAL, WARNING, Severity


def _single_line(pattern: str) -> str:
    """Make ``\\s`` outside character classes match spaces/tabs only, so no rule spans lines
    (the whole file is matched at once for speed; findings stay per line)."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            out.append(r"[^\S\n]" if pair == r"\s" and not in_class else pair)
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        out.append(c)
        i += 1
    return "".join(out)


#: A rule's parts must lie within this many characters of each other: ``[^\n]*`` after a keyword
#: rescans the rest of the line from every occurrence (a 1 MB line of "curl " took minutes).
SPAN_CHARS = 300
_STAR_CLASS = re.compile(r"(\[\^(?:\\.|[^\]\\])*\])\*")


def _bounded(pattern: str) -> str:
    """``[^...]*`` -> ``[^...]{0,SPAN_CHARS}``: linear time on any line."""
    return _STAR_CLASS.sub(lambda m: m.group(1) + "{0," + str(SPAN_CHARS) + "}", pattern)


@dataclass(slots=True)
class LineRule:
    """A regex check run on each line of a proposed text file: ``triggers`` are lowercase
    literals of which one must occur in the lowercased text for ``regex`` to run."""

    code: str
    severity: Severity
    regex: re.Pattern[str]
    message: str
    #: lowercase literals of which at least one must occur for the regex to match (a cheap
    #: prefilter: most files skip most rules without running a regex)
    triggers: tuple[str, ...] = ()
    #: ``scan(regex, text)``: ``regex.finditer(text)``, match for match, by a faster way (None:
    #: ``finditer`` itself); see ``matches``
    scan: Callable[[re.Pattern[str], str], Iterator[re.Match[str]]] | None = None

    def matches(self, text: str) -> Iterator[re.Match[str]]:
        """``self.regex.finditer(text)`` (through ``scan`` when the rule has one)."""
        if self.scan is not None:
            return self.scan(self.regex, text)
        return self.regex.finditer(text)


_I = re.IGNORECASE
#: A shell or interpreter as a command word: optional sudo/env/xargs prefixes and a /path/.
_SHELL = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+(?:-\S+\s+|\w+=\S*\s+)*)?(?:xargs\s+(?:-\S+\s+)*)?"
    r"(?:/[\w./-]*/)?(?:ba|z|da|k|fi|tc|c|a|mk)?sh\b"
)
_INTERP = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:/[\w./-]*/)?(?:python[0-9.]*|perl|ruby|node|deno|bun|php|"
    r"pwsh|powershell|osascript)\b"
)
_FETCH = r"(?:curl|wget|fetch|aria2c|lwp-request|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)"
#: What WS-EXFIL's upload alternative (curl/wget with a data flag) must reach to match: a key,
#: credential file or secret variable.
EXFIL_TARGETS = (
    r"(?:~/\.ssh|\.ssh/|id_rsa|id_ed25519|\.env\b|/etc/passwd|/etc/shadow|\.aws/credentials|\.netrc|"
    r"\.git-credentials|\$\(\s*(?:env|printenv)\s*\)|`\s*(?:env|printenv)\s*`|"
    r"\$\{?[A-Z_]*(?:API_KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS)\b)"
)
LINE_RULES: list[LineRule] = [
    LineRule(
        "WS-HIDDEN",
        CRITICAL,
        re.compile(
            r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention\s+(?:this\s+)?to|reveal\s+(?:this\s+)?to|"
            r"notify|alert|warn)\s+(?:the\s+)?user\b|\bwithout\s+(?:telling|informing|notifying|asking|"
            r"alerting)\s+(?:the\s+)?user\b|\bhide\s+(?:this|it|these|the\s+\w+)\s+from\s+(?:the\s+)?user\b",
            _I,
        ),
        "hidden instruction: conceals an action from the user",
    ),
    LineRule(
        "WS-HIDDEN",
        CRITICAL,
        re.compile(
            r"\b(?:secretly|covertly|quietly|silently)\s+(?:send|upload|post|exfiltrate|copy|transmit|"
            r"forward|email|leak)\b",
            _I,
        ),
        "hidden instruction: secretly sends data somewhere",
    ),
    LineRule(
        "WS-ROLE",
        WARNING,
        re.compile(r"\byou\s+are\s+now\b(?!\s+(?:ready|done|in\b|on\b|at\b))", _I),
        "role-reassignment phrasing (\"you are now ...\")",
    ),
    LineRule(
        "WS-EXFIL-TEXT",
        WARNING,
        re.compile(
            r"\b(?:send|upload|post|exfiltrate|transmit|forward|leak|email)\b.{0,60}\b(?:api[\s_-]?keys?|"
            r"credentials|secrets?|passwords?|ssh\s+keys?|\.env\b|environment\s+variables|private\s+keys?)"
            r".{0,40}\b(?:to|at)\s+(?:https?://|\S+@|\w+\.\w+)",
            _I,
        ),
        "asks to send credentials or secrets somewhere",
    ),
    LineRule(
        "WS-PROMPT-LEAK",
        WARNING,
        re.compile(
            r"\b(?:reveal|print|output|repeat|show|dump)\s+(?:your\s+|the\s+)?(?:full\s+)?(?:system\s+prompt|"
            r"hidden\s+instructions|developer\s+message)",
            _I,
        ),
        "asks the model to reveal its system prompt",
    ),
    # linear: the lookahead needs a "-->" before the next "<!--" (else every "<!--" rescanned the line)
    LineRule(
        "WS-COMMENT",
        WARNING,
        re.compile(
            r"<!--(?=(?:(?!-->|<!--).)*-->)(?:(?!-->|<!--).)*"
            r"\b(?:ignore|instructions?|you\s+must|assistant|system\s+prompt|do\s+not\s+tell|"
            r"execute|run\s+this)\b(?:(?!-->).)*-->",
            _I,
        ),
        "directive inside an HTML comment (invisible when the Markdown is rendered)",
    ),
    # -- destructive shell ---------------------------------------------------------------
    LineRule(
        "WS-DESTROY",
        CRITICAL,
        re.compile(
            r"\bmkfs(?:\.\w+)?\s+/dev/|\bdd\b[^\n]*\bof=/dev/(?:sd|nvme|hd|disk|mmcblk|xvd)"
            r"|>\s*/dev/(?:sd[a-z]|nvme\d|disk\d)"
        ),
        "overwrites a disk device",
    ),
    LineRule("WS-DESTROY", CRITICAL, re.compile(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"), "fork bomb"),
    LineRule(
        "WS-DESTROY",
        CRITICAL,
        re.compile(r"\bchmod\s+-R\s+0?777\s+/(?:\s|$)|\bchown\s+-R\s+\S+\s+/(?:\s|$)"),
        "changes permissions of the whole filesystem",
    ),
    # -- network into a shell -------------------------------------------------------------
    LineRule(
        "WS-PIPE-SHELL",
        CRITICAL,
        re.compile(
            r"\b" + _FETCH + r"[^\S\n]+[^|\s][^\n;]*\|\s*(?:" + _SHELL + "|" + _INTERP + r")(?!\s*\.)|"
            r"\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|\n]*\|\s*(?:iex|Invoke-Expression)\b|"
            r"\b(?:iex|Invoke-Expression)\s*\(?\s*\(?\s*(?:iwr|irm|New-Object\s+Net\.WebClient)|"
            r"(?:\beval|\bsource|(?<![\w.])\.|" + _SHELL + "|" + _INTERP + r")\s+(?:-\S+\s+)*[\"']?"
            r"(?:\$\(|`|<\(|<\s*<\()\s*" + _FETCH + r"\b|"
            r"\b(?:exec|eval)\s*\(\s*(?:urllib\.request\.urlopen|requests\.get|urlopen)\b",
            _I,
        ),
        "pipes a download from the network straight into a shell/interpreter",
    ),
    LineRule(
        "WS-DOWNLOAD-EXEC",
        CRITICAL,
        re.compile(
            r"\b(?:curl|wget|aria2c)\b[^\n]*?(?:\s-o\s*|\s-O\s*|--output[=\s]|--output-document[=\s]|>\s*)"
            r"[\"']?([\w./~$-]+)[^\n]*?(?:&&|;|\|\|)\s*(?:sudo\s+)?"
            r"(?:chmod\s+[^\n]*(?:\+x|[0-7]?[1357][0-7]{2})|(?:ba|z)?sh\s+\S|source\s+\S|\.\s+\S|\./\S|"
            r"python[0-9.]*\s+\S|node\s+\S|perl\s+\S)",
            _I,
        ),
        "downloads a file and runs it",
    ),
    LineRule(
        "WS-DECODE-EXEC",
        CRITICAL,
        re.compile(
            r"\b(?:base64\s+(?:-\w*d\w*|--decode)|base32\s+(?:-d|--decode)|xxd\s+-r|openssl\s+(?:enc\s+)?"
            r"(?:base64\s+)?-d|gunzip|zcat|rev)\b[^\n;]*\|\s*(?:" + _SHELL + "|" + _INTERP + r")|"
            r"(?:\beval|"
            + _SHELL
            + r"\s+-c)\s+[\"']?(?:\$\(|`)[^\n]*\b(?:base64\s+(?:-\w*d|--decode)|xxd\s+-r)|"
            r"\b(?:exec|eval)\s*\(\s*(?:base64\.b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress)",
            _I,
        ),
        "decodes hidden text and runs it",
    ),
    # -- exfiltration ----------------------------------------------------------------------
    LineRule(
        "WS-EXFIL",
        CRITICAL,
        re.compile(
            r"\b(?:env|printenv|set|export\s+-p)\b\s*\|\s*(?:curl|wget|nc|ncat|netcat|socat)\b|"
            r"\bcat\s+[^|\n]*(?:\.ssh/|id_rsa|id_ed25519|\.env\b|credentials|\.netrc|\.git-credentials|"
            r"/etc/shadow|/etc/passwd)[^|\n]*\|\s*(?:base64\s*\|\s*)?(?:curl|wget|nc|ncat|netcat|socat)\b|"
            r"\b(?:curl|wget)\b[^\n]*(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|"
            r"--post-file|--post-data|--body-file)[=\s]*[\"']?[^\s\"']*(?:@|\$\(|`)?[^\n]*" + EXFIL_TARGETS,
            _I,
        ),
        "sends environment variables, keys or credentials over the network",
    ),
    LineRule(
        "WS-UPLOAD",
        WARNING,
        re.compile(
            r"\bcurl\b[^\n]*(?:-d|--data(?:-binary)?|-F|--form)\s*[\"']?[\w-]*=?@[^\s\"']+|"
            r"\bcurl\b[^\n]*(?:-T|--upload-file)\s+\S+|\bwget\b[^\n]*--post-file[=\s]\S+",
            _I,
        ),
        "uploads a local file to a URL",
    ),
    LineRule(
        "WS-REVSHELL",
        CRITICAL,
        re.compile(r"/dev/tcp/[\w.\-]+/\d+|\b(?:nc|ncat|netcat)\b[^\n]*\s-[a-z]*e\s+\S*(?:sh|bash)\b", _I),
        "reverse shell",
    ),
]

_TRIGGERS = [
    ("user",),  # WS-HIDDEN
    ("secretly", "covertly", "quietly", "silently"),  # WS-HIDDEN
    ("now",),  # WS-ROLE
    ("key", "credential", "secret", "password", ".env", "environment"),  # WS-EXFIL-TEXT
    ("system", "hidden", "developer"),  # WS-PROMPT-LEAK
    ("<!--",),  # WS-COMMENT
    ("mkfs", "/dev/"),  # WS-DESTROY
    (":()",),  # WS-DESTROY
    ("chmod", "chown"),  # WS-DESTROY
    (
        "curl",
        "wget",
        "fetch",
        "aria2c",
        "lwp",
        "iwr",
        "irm",
        "invoke-",
        "iex",
        "urlopen",
        "requests.get",
    ),  # WS-PIPE-SHELL
    ("curl", "wget", "aria2c"),  # WS-DOWNLOAD-EXEC
    (
        "base64",
        "base32",
        "xxd",
        "openssl",
        "gunzip",
        "zcat",
        "rev",
        "b64decode",
        "codecs",
        "fromhex",
        "zlib",
    ),  # WS-DECODE-EXEC
    ("env", "set", "export", "cat", "curl", "wget"),  # WS-EXFIL
    ("curl", "wget"),  # WS-UPLOAD
    ("/dev/tcp/", "nc", "netcat"),  # WS-REVSHELL
]
for _r, _t in zip(LINE_RULES, _TRIGGERS, strict=True):
    _r.triggers = _t
    _r.regex = re.compile(_bounded(_single_line(_r.regex.pattern)), _r.regex.flags)


# -- WS-EXFIL without the backtracking ---------------------------------------------------------
# Its upload alternative, ``\b(?:curl|wget)\b[^\n]{0,S}FLAG[=\s]*["']?[^\s"']{0,S}(?:@|\$\(|`)?
# [^\n]{0,S}TARGET`` (S = SPAN_CHARS), tries every split of the text between its two ``[^\n]{0,S}``
# before failing: ~S^2 steps from each curl/wget that reaches no target (one 1.1 MB line of
# ``curl --data @ `` took 224 s). A match starts where one of the rule's first words does and its
# target starts at most ``_UPLOAD_REACH`` characters after, plus the ``[=\s]*`` run after the flag
# (unbounded; it starts within ``_FLAG_END`` characters of the start). ``_exfil_scan`` tries the
# regex only at such starts: the same matches as ``finditer``, in linear time.
_FIRST_WORDS = re.compile(r"(?=\b(?:env|printenv|set|export|cat|curl|wget)\b)", _I)
_UPLOAD_START = re.compile(r"(?:curl|wget)\b", _I)
_TARGET_AT = re.compile("(?=" + _bounded(_single_line(EXFIL_TARGETS)) + ")", _I)
_LONG_RUN = re.compile(r"[=\s]{" + str(SPAN_CHARS + 1) + ",}")
#: the upload alternative's flag ends within [start + _FLAG_END[0], start + _FLAG_END[1]]
#: ("curl" + up to S characters + "-d" .. "--data-urlencode")
_FLAG_END = (4 + 2, 4 + SPAN_CHARS + 16)
#: longest distance from the start to the target's start, the ``[=\s]*`` run apart: curl (4),
#: ``[^\n]{0,S}``, the longest flag (16), a quote (1), ``[^\s"']{0,S}``, ``$(`` (2), ``[^\n]{0,S}``
_UPLOAD_REACH = 4 + SPAN_CHARS + 16 + 1 + SPAN_CHARS + 2 + SPAN_CHARS


def _exfil_scan(regex: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """``regex.finditer(text)`` for WS-EXFIL's regex, match for match: the regex is tried
    (``regex.match(text, start)``, which sees the text before ``start`` as ``finditer`` does) at
    each start of one of its first words, except at a curl/wget from which no target is in reach
    (see above). Linear in ``len(text)`` (one pass per helper pattern)."""
    pos = 0
    targets: list[int] | None = None
    runs: list[tuple[int, int]] = []
    run_starts: list[int] = []
    for first in _FIRST_WORDS.finditer(text):
        at = first.start()
        if at < pos:
            continue
        if _UPLOAD_START.match(text, at):  # only the upload alternative can start here
            if targets is None:
                targets = [m.start() for m in _TARGET_AT.finditer(text)]
                runs = [m.span() for m in _LONG_RUN.finditer(text)]
                run_starts = [r[0] for r in runs]
            lo, hi = at + _FLAG_END[0], at + _FLAG_END[1]
            extra = SPAN_CHARS  # a run of [=\s] that starts after the flag, in a short run
            for k in range(bisect_right(run_starts, hi) - 1, -1, -1):
                rs, re_ = runs[k]
                if re_ <= lo:
                    break
                extra = max(extra, re_ - max(rs, lo))
            i = bisect_left(targets, at)
            if i == len(targets) or targets[i] > at + _UPLOAD_REACH + extra:
                continue
        m = regex.match(text, at)
        if m is not None:
            yield m
            pos = max(m.end(), at + 1)


RM = re.compile(_bounded(_single_line(r"(?<![\w-])rm\s+([^;&|\n`)]*)")))
RM_TARGETS = {
    "/",
    "/*",
    "~",
    "~/",
    "~/*",
    "$HOME",
    "$HOME/",
    "$HOME/*",
    "${HOME}",
    "${HOME}/",
    "${HOME}/*",
    "/home",
    "/usr",
    "/etc",
    "/var",
    "/bin",
    "/boot",
    "/lib",
    "/opt",
    "/root",
    "/sbin",
    "/System",
    "/Users",
    "C:\\",
    "C:/",
    "*",
    "/.",
    ".*",
}

SECRET_ASSIGN = re.compile(
    _single_line(
        r"\b(?:api[_-]?key|secret(?:[_-]?key)?|access[_-]?token|auth[_-]?token|password|passwd)\b\s*[:=]\s*"
        r"[\"']([A-Za-z0-9/+_\-]{24,})[\"']"
    ),
    _I,
)
SECRET_FILE = re.compile(
    r"(?:^|/)(?:\.env(?:\.[\w.]+)?|id_rsa|id_dsa|id_ecdsa|id_ed25519|\.netrc|"
    r"\.git-credentials|credentials(?:\.json)?|[^/]*\.pem|[^/]*\.key|[^/]*\.p12|"
    r"[^/]*\.pfx)$",
    _I,
)

#: Credential folders under the home folder: deleting them recursively is critical.
HOME_SENSITIVE = re.compile(
    r"^(?:~|\$HOME|\$\{HOME\})/\.?(?:ssh|aws|gnupg|kube|docker|config|azure|"
    r"gcloud|password-store|local/share/keyrings|mozilla|thunderbird|Library|"
    r"Documents|Desktop|Pictures|git|\*)(?:/|$)"
)
SYSTEM_TOP = re.compile(
    r"^/(?:etc|usr|var|bin|sbin|boot|lib\w*|opt|root|home|System|Users|Library|"
    r"Applications|private|dev|proc|sys|srv|mnt|Volumes)/?\*?$"
)
FIND_DELETE = re.compile(r"\bfind\s+[\"']?(?:/|~|\$HOME|\$\{HOME\})[\"']?(?:\s[^\n]*)?\s-delete\b")
#: Files whose content is credentials (read = leak).
CRED_PATH = (
    r"(?:~/\.aws/credentials|\.aws/credentials|~/\.ssh/id_\w+|\.ssh/id_\w+|~/\.netrc|"
    r"\.git-credentials|/etc/shadow|~/\.docker/config\.json|~/\.kube/config|"
    r"~/\.config/gcloud/\S*credentials\S*|~/\.npmrc|~/\.pypirc|\.env\b)"
)
CRED_READ = re.compile(
    r"\b(?:cat|less|more|head|tail|cp|scp|base64|xxd|od|strings|type|Get-Content|gc|"
    r"grep|awk|sed|openssl)\b[^\n|;]*?" + CRED_PATH,
    _I,
)
KEYCHAIN = re.compile(
    r"\bsecurity\s+find-(?:generic|internet)-password\b[^\n]*\s-w\b"
    r"|\bsecret-tool\s+lookup\b"
)
#: Claude Code's dynamic context: ``!`cmd` `` runs cmd when the skill loads (clients.md, Claude
#: Code "Inject dynamic context"); only in SKILL.md.
BANG = re.compile(r"!`([^`\n]+)`")
#: Script files by extension (besides any file with a ``#!`` line or an executable bit).
SCRIPT_EXTENSIONS = frozenset(
    {
        ".sh",
        ".bash",
        ".zsh",
        ".fish",
        ".ksh",
        ".csh",
        ".py",
        ".pyw",
        ".js",
        ".mjs",
        ".cjs",
        ".ts",
        ".rb",
        ".pl",
        ".php",
        ".ps1",
        ".psm1",
        ".bat",
        ".cmd",
        ".vbs",
        ".exe",
        ".dll",
        ".so",
        ".dylib",
        ".bin",
        ".jar",
        ".applescript",
        ".scpt",
        ".command",
        ".lua",
        ".tcl",
        ".r",
        ".swift",
        ".go",
        ".awk",
        ".elf",
        ".run",
        ".app",
    }
)
#: Folders where a skill must never be written (a client or tool runs what is there).
BAD_TARGET = re.compile(
    r"(?:^|/)(?:\.git|\.hg|\.svn)(?:/|$)|(?:^|/)\.github/(?:workflows|actions)(?:/|$)|"
    r"(?:^|/)\.claude/(?:commands|agents|hooks)(?:/|$)|(?:^|/)\.vscode(?:/|$)|"
    r"(?:^|/)\.idea(?:/|$)|(?:^|/)\.husky(?:/|$)|"
    r"(?:^|/)\.(?:bashrc|zshrc|profile|bash_profile)(?:/|$)"
)

for _r in LINE_RULES:
    if _r.code == "WS-EXFIL":
        _r.scan = _exfil_scan
