"""The description-improvement loop: evaluate, ask the model for a better description from the
training failures, evaluate again, keep the best by held-out score, and leave a workshop proposal.

Recipe: agentskills.io "Optimizing skill descriptions" and skill-creator ``run_loop.py`` /
``improve_description.py`` (validators.md sections 3.1-3.2). The prompt wording is the
workbench's own (no skill-creator prose is reproduced).

Loop (decisions where the sources are silent are marked *decision*):

1. Split the queries (``split.split_queries``: stratified, seed 42, 40 % held out by default).
2. Iteration 0 evaluates the **current** description (the file's, via the real catalog) on all
   queries in one batch; train and test results are two views of that batch.
3. Up to ``iterations`` times (default 5; *decision*: the count is of new candidates, so
   ``--iterations 5`` can try five descriptions besides the current one):

   * stop early when every **train** query passes (``exit_reason = "all-train-passed"``);
   * ask the model for a new description. The prompt holds the skill name, the competing skill
     names, the current description, the **train** failures with their k/n, every earlier attempt
     with its **train** results only (the model never sees a test query or a test score), the
     SKILL.md body for context, and an instruction to try something structurally different;
   * parse ``<new_description>...</new_description>`` (whitespace collapsed to single spaces,
     *decision*); over 1,024 characters → ask once more for a shorter one; still too long, no
     tags, or a description already tried → the candidate is recorded as rejected and not
     evaluated (the iteration is used up, *decision*);
   * evaluate the candidate on train and test in one batch — in memory only (a copied ``Skill``).

4. The best attempt is the one with the most **test** queries passed (train when there is no
   held-out set); ties go to the earliest, so the current description wins a tie (*decision*:
   only a strictly better candidate is proposed).
5. When a candidate wins, it becomes a workshop proposal
   (``WorkshopStore.propose_description_update``, source "eval"), bound to the SKILL.md's hash at
   proposal time; the file is never written here. If the file changed while the loop ran, the
   proposal is still made (bound to the new content) and a warning says so.

Every evaluated attempt can be saved to the eval history (``history=HistoryStore``).
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workbench.core.chat.errors import ChatError, from_exception
from workbench.core.chat.settings import ChatSettings
from workbench.core.evals.queryset import Query
from workbench.core.evals.runner import (
    DEFAULT_EVAL_MODEL,
    EvalOptions,
    EvalReport,
    EvalRunner,
    EvalSetupError,
    find_target,
)
from workbench.core.evals.split import DEFAULT_HOLDOUT, DEFAULT_SEED, Split, split_queries
from workbench.core.model import Catalog
from workbench.core.safefile import sha256_of
from workbench.core.text import plural

log = logging.getLogger(__name__)

#: Marker in the improver's system prompt (lets a fake server tell improver requests apart).
IMPROVER_MARKER = "eval-improver"
#: Hard limit on a description (agentskills.io spec), in characters (code points).
MAX_DESCRIPTION_CHARS = 1024
#: Largest SKILL.md body quoted to the improver, in characters.
MAX_BODY_CHARS = 6000

EXIT_REASONS = ("all-train-passed", "max-iterations", "cancelled", "eval-error", "improver-error")

IMPROVER_SYSTEM = (
    f"[{IMPROVER_MARKER}] You rewrite the description field of an Agent Skill. A coding agent sees "
    "only the name and description of each installed skill and decides from them alone whether "
    "to load a skill for the user's request. Your description must make that decision easy and "
    "right. Answer with the new description between <new_description> and </new_description>."
)

_TAG = re.compile(r"<new_description>(.*?)</new_description>", re.S | re.I)


@dataclass
class Attempt:
    """One evaluated (or rejected) description.

    Attributes: iteration (0 = the current description), description, report (the whole batch;
    None when rejected), train / test (``EvalReport`` views over the split), rejected ("" or why
    the candidate was not evaluated).
    """

    iteration: int
    description: str
    report: EvalReport | None = None
    train: EvalReport | None = None
    test: EvalReport | None = None
    rejected: str = ""

    def score(self, part: str) -> tuple[int, int]:
        """(passed, total) on "train" or "test"."""
        r = self.train if part == "train" else self.test
        if r is None:
            return 0, 0
        s = r.summary
        return s.passed, s.total

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "iteration": self.iteration,
            "description": self.description,
            "chars": len(self.description),
            "rejected": self.rejected or None,
        }
        if self.report is not None:
            tp, tt = self.score("train")
            d["train"] = {
                "passed": tp,
                "total": tt,
                "summary": self.train.summary.to_json() if self.train else None,
            }
            xp, xt = self.score("test")
            d["test"] = {
                "passed": xp,
                "total": xt,
                "summary": self.test.summary.to_json() if self.test and xt else None,
            }
            d["description_sha"] = self.report.description_sha
        return d


@dataclass
class ImproveResult:
    """What the loop produced (``to_json`` for the CLI/history)."""

    skill: str
    skill_path: str
    split: Split
    attempts: list[Attempt] = field(default_factory=list)
    best: int = 0
    exit_reason: str = ""
    proposal_id: str | None = None
    proposal_error: str | None = None
    improver_usage: dict[str, int] = field(
        default_factory=lambda: {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        }
    )
    warnings: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None

    @property
    def evaluated(self) -> list[Attempt]:
        return [a for a in self.attempts if a.report is not None]

    @property
    def best_attempt(self) -> Attempt | None:
        ev = [a for a in self.attempts if a.iteration == self.best and a.report is not None]
        return ev[0] if ev else None

    @property
    def baseline(self) -> EvalReport | None:
        return self.attempts[0].report if self.attempts else None

    def to_json(self) -> dict[str, Any]:
        b = self.best_attempt
        return {
            "skill": self.skill,
            "skill_path": self.skill_path,
            "split": self.split.to_json(),
            "exit_reason": self.exit_reason,
            "best_iteration": self.best,
            "best_description": b.description if b else None,
            "improved": bool(b and b.iteration > 0),
            "proposal_id": self.proposal_id,
            "proposal_error": self.proposal_error,
            "history": [a.to_json() for a in self.attempts],
            "improver_usage": dict(self.improver_usage),
            "warnings": list(self.warnings),
            "error": self.error,
        }


# ---------------------------------------------------------------------------------------------
# the prompt


def _fmt_rate(r: dict[str, Any]) -> str:
    return (
        f"{r['triggers']} of {plural(r['runs'], 'run')}"
        if r["runs"]
        else f"no verdict ({plural(r['errors'], 'errored run')})"
    )


def build_prompt(
    skill_name: str,
    description: str,
    train: EvalReport,
    earlier: list[Attempt],
    competitors: list[str],
    body: str,
) -> str:
    """The improver's user message (own wording). Uses **train** results only: ``train`` and
    each earlier attempt's ``train`` view; no test query or score is ever passed in."""
    rows = [r.to_json() for r in train.results]
    missed = [r for r in rows if r["should_trigger"] and r["status"] == "failed"]
    false_hits = [r for r in rows if not r["should_trigger"] and r["status"] == "failed"]
    unsure = [r for r in rows if r["status"] in ("errored", "not-run")]
    s = train.summary
    out = [f"Skill name: {skill_name}"]
    if competitors:
        out.append("Other skills offered next to it (they compete for requests): " + ", ".join(competitors))
    out += [
        "",
        f"Current description ({len(description)} characters):",
        f"<current_description>{description}</current_description>",
        "",
        f"Training results: {s.passed} of {s.total} queries behave as intended. Each query was sent "
        f"{train.runs_per_query} times in a fresh conversation; a should-load query passes when the "
        f"skill loaded in at least {train.threshold:.0%} of its runs, any other query when it loaded "
        "in fewer.",
    ]
    if missed:
        out += ["", "Requests that should have loaded the skill but mostly did not:"]
        out += [f"- {r['query']!r} (loaded in {_fmt_rate(r)})" for r in missed]
    if false_hits:
        out += ["", "Requests that loaded the skill although they should not:"]
        out += [f"- {r['query']!r} (loaded in {_fmt_rate(r)})" for r in false_hits]
    if unsure:
        out += ["", "Requests without a verdict (their runs failed), ignore them:"]
        out += [f"- {r['query']!r}" for r in unsure]
    if earlier:
        out += ["", "Descriptions tried before, with their training results (none was good enough):"]
        for a in earlier:
            if a.report is None or a.train is None:
                out.append(f"- attempt {a.iteration}: {a.description!r} (not evaluated: {a.rejected})")
                continue
            p, t = a.score("train")
            out.append(f"- attempt {a.iteration} ({p}/{t} passed): {a.description!r}")
            for r in a.train.results:
                out.append(
                    f"    {'PASS' if r.passed else 'FAIL' if r.passed is False else 'N/A '} "
                    f"{'load' if r.should_trigger else 'skip'}: {r.query!r}"
                )
    if body.strip():
        b = body if len(body) <= MAX_BODY_CHARS else body[:MAX_BODY_CHARS] + "\n[... cut]"
        out += [
            "",
            "What the skill does (its SKILL.md body, for context):",
            "<skill_body>",
            b,
            "</skill_body>",
        ]
    out += [
        "",
        "Write a new description that:",
        "- names the kinds of tasks and the user intents the skill serves, in general terms; fix the "
        "failures by category instead of copying words from the requests above;",
        "- says what the skill is not for when near-miss requests loaded it;",
        "- starts in the imperative, e.g. \"Use this skill when ...\";",
        f"- is at most {MAX_DESCRIPTION_CHARS} characters (about 60 to 150 words is plenty);",
        "- if earlier descriptions failed, takes a structurally different approach (another framing, "
        "order or level of detail), not a rewording.",
        "Reply with the description inside <new_description></new_description> only.",
    ]
    return "\n".join(out)


def parse_description(text: str) -> str | None:
    """The text of the last ``<new_description>`` block, whitespace collapsed; None when absent or
    empty."""
    found = _TAG.findall(text or "")
    if not found:
        return None
    d = " ".join(found[-1].split())
    return d or None


def _usage_add(acc: dict[str, int], u: Any) -> None:
    for k in acc:
        v = getattr(u, k, None) if u is not None else None
        if isinstance(v, int):
            acc[k] += v


def ask_improver(
    sdk: Any, settings: ChatSettings, prompt: str, usage: dict[str, int]
) -> tuple[str | None, str]:
    """Ask for a description; returns (description or None, note). Asks once more when the first
    answer is over ``MAX_DESCRIPTION_CHARS``. Raises ``ChatError`` on an API failure."""
    client = sdk.with_options(max_retries=2) if hasattr(sdk, "with_options") else sdk
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    kw: dict[str, Any] = {
        "model": settings.model,
        "max_tokens": 2048,
        "system": [{"type": "text", "text": IMPROVER_SYSTEM}],
    }
    if settings.temperature is not None:
        kw["temperature"] = float(settings.temperature)
    note = ""
    for attempt in range(2):
        try:
            msg = client.messages.create(messages=messages, **kw)
        except Exception as exc:  # noqa: BLE001
            raise from_exception(exc, settings.effective_base_url()) from None
        _usage_add(usage, getattr(msg, "usage", None))
        reply = "".join(getattr(b, "text", "") for b in msg.content if getattr(b, "type", "") == "text")
        desc = parse_description(reply)
        if desc is None:
            return None, "the reply had no <new_description> tags"
        if len(desc) <= MAX_DESCRIPTION_CHARS:
            return desc, note
        if attempt == 1:
            return None, f"still {len(desc)} characters after asking for a shorter one"
        note = f"first answer was {len(desc)} characters; asked again for a shorter one"
        messages += [
            {"role": "assistant", "content": reply},
            {
                "role": "user",
                "content": f"That description is {len(desc)} characters; the limit "
                f"is {MAX_DESCRIPTION_CHARS}. Reply with a shorter version, same tags.",
            },
        ]
    return None, note  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# the loop


def improve_description(
    catalog: Catalog,
    skill_name: str,
    queries: list[Query],
    *,
    settings: ChatSettings | None = None,
    api_key: str | None = None,
    client: Any = None,
    options: EvalOptions | None = None,
    iterations: int = 5,
    holdout: float = DEFAULT_HOLDOUT,
    seed: int = DEFAULT_SEED,
    propose: bool = True,
    store: Any = None,
    history: Any = None,
    cancel: threading.Event | None = None,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> ImproveResult:
    """Run the loop (module docstring) and return an ``ImproveResult``.

    Args: as ``runner.EvalRunner`` (a client made from ``api_key`` is closed before returning)
    plus ``iterations`` (new candidates at most, >= 0),
    ``holdout``/``seed`` (split), ``propose`` (make a workshop proposal for a winning candidate),
    ``store`` (a ``WorkshopStore``; default ``WorkshopStore(catalog.env.workspace)``),
    ``history`` (a ``HistoryStore`` to save each evaluated attempt, or None), ``cancel``,
    ``progress`` (runner events with an added ``"iteration"`` key, plus
    ``{"type":"iteration","iteration","phase":"eval"|"improve"}``).

    Raises ``EvalSetupError`` (unknown/unlisted skill, no key, bad options, bad holdout).
    """
    if iterations < 0:
        raise EvalSetupError("bad-options", "iterations must be 0 or more")
    try:
        split = split_queries(queries, holdout, seed)
    except ValueError as exc:
        raise EvalSetupError("bad-options", str(exc)) from None
    settings = settings or ChatSettings(model=DEFAULT_EVAL_MODEL)
    options = options or EvalOptions()
    target = find_target(catalog, skill_name)
    if client is None:
        if not api_key:
            from workbench.core.chat.errors import no_key_error

            raise EvalSetupError("no-key", str(no_key_error()))
        from workbench.core.chat.backend import make_client

        own = make_client(dataclasses.replace(settings, max_retries=0), api_key)
        try:  # the loop again with the client made here, closed after whatever happens
            return improve_description(
                catalog,
                skill_name,
                queries,
                settings=settings,
                client=own,
                options=options,
                iterations=iterations,
                holdout=holdout,
                seed=seed,
                propose=propose,
                store=store,
                history=history,
                cancel=cancel,
                progress=progress,
            )
        finally:
            own.close()
    cancel = cancel or threading.Event()
    sha_start = sha256_of(Path(target.path))
    res = ImproveResult(target.name, str(target.path), split, warnings=list(split.warnings))
    target_file = getattr(target, "file", None)
    body = target_file.body if target_file is not None else ""
    part = "test" if split.test else "train"

    def emit(ev: dict[str, Any]) -> None:
        if progress is not None:
            try:
                progress(ev)
            except Exception:  # noqa: BLE001 - a broken listener must not stop the loop
                log.warning("improve: progress listener failed on a %s event", ev.get("type"), exc_info=True)

    def evaluate(i: int, desc: str | None) -> Attempt:
        emit({"type": "iteration", "iteration": i, "phase": "eval", "description": desc})
        runner = EvalRunner(
            catalog, skill_name, queries, settings=settings, client=client, options=options, description=desc
        )
        rep = runner.run(cancel, lambda ev: emit({**ev, "iteration": i}))
        a = Attempt(i, rep.description, rep, rep.subset(split.train), rep.subset(split.test))
        if history is not None:
            try:
                history.save(
                    rep,
                    kind="improve",
                    queries=queries,
                    extra={
                        "iteration": i,
                        "split": split.to_json(),
                        "train": a.to_json().get("train"),
                        "test": a.to_json().get("test"),
                    },
                )
            except OSError as exc:
                res.warnings.append(f"could not save eval history: {exc}")
        return a

    res.attempts.append(evaluate(0, None))
    tried = {" ".join(target.description.split())}
    i = 0
    while True:
        last = res.evaluated[-1]
        rep, train = last.report, last.train
        assert rep is not None and train is not None  # ``evaluated`` attempts carry both
        if rep.cancelled or cancel.is_set():
            res.exit_reason = "cancelled"
            break
        if rep.fatal_error:
            res.exit_reason, res.error = "eval-error", rep.fatal_error
            break
        tr = train.summary
        if tr.total and tr.passed == tr.total:
            res.exit_reason = "all-train-passed"
            break
        if i >= iterations:
            res.exit_reason = "max-iterations"
            break
        i += 1
        emit({"type": "iteration", "iteration": i, "phase": "improve"})
        prompt = build_prompt(
            target.name,
            last.description,
            train,
            [a for a in res.attempts if a is not last],
            rep.competitors,
            body,
        )
        try:
            desc, note = ask_improver(client, settings, prompt, res.improver_usage)
        except ChatError as exc:
            res.exit_reason, res.error = "improver-error", exc.to_json()
            break
        if desc is None:
            res.attempts.append(Attempt(i, "", rejected=note))
            continue
        if desc in tried:
            res.attempts.append(Attempt(i, desc, rejected="the same description was already tried"))
            continue
        tried.add(desc)
        a = evaluate(i, desc)
        if note:
            res.warnings.append(f"attempt {i}: {note}")
        res.attempts.append(a)

    best = None
    for a in res.evaluated:
        if best is None or a.score(part)[0] > best.score(part)[0]:
            best = a
    res.best = best.iteration if best else 0
    if best is not None and best.iteration > 0 and propose and res.exit_reason != "cancelled":
        try:
            if store is None:
                from workbench.core.workshop.store import WorkshopStore

                store = WorkshopStore(catalog.env.workspace)
            if sha256_of(Path(target.path)) != sha_start:
                res.warnings.append(
                    f"{target.path} changed while the loop ran; the proposal is bound to its new content"
                )
            bp, bt = best.score(part)
            base_p, base_t = res.attempts[0].score(part)
            note = (
                f"description-improvement loop: {part} {bp}/{bt} passed (current description "
                f"{base_p}/{base_t}); iteration {best.iteration} of {i}; model {settings.model}"
            )
            prop = store.propose_description_update(target.path, best.description, source="eval", note=note)
            res.proposal_id = prop.id
        except Exception as exc:  # noqa: BLE001 - WorkshopError/ProposalError/OSError: reported
            log.warning("improve: the proposal could not be made", exc_info=True)
            res.proposal_error = f"{type(exc).__name__}: {exc}"
    return res
