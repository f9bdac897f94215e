"""The plan of a batch eval: one request per query x run (``Planned``, ``custom_id``), and what it
will cost before it is submitted (``estimate_batch``: tokens counted by the API, USD)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from workbench.core.chat.errors import from_exception
from workbench.core.chat.settings import ChatSettings
from workbench.core.evals.batchstore import BatchError
from workbench.core.evals.metrics import estimate_cost, price_for

log = logging.getLogger(__name__)

#: Output tokens assumed per first-turn request when nothing better is known (a tool call or a
#: short reply; assumption, labelled in the estimate).
DEFAULT_OUTPUT_TOKENS = 64
#: Distinct requests counted with ``count_tokens`` at most; more are sampled.
MAX_TOKEN_COUNTS = 200

_CID = re.compile(r"^j(\d+)-q(\d+)-r(\d+)$")


@dataclass
class Planned:
    """One request of the plan: ``custom_id``, ``params`` (the ``messages.create`` arguments),
    runner index ``job``, query index ``qi``, run ``ri``."""

    custom_id: str
    params: dict[str, Any]
    job: int
    qi: int
    ri: int


def custom_id(job: int, qi: int, ri: int) -> str:
    """``j<job>-q<query>-r<run>`` (fits the API's ``^[a-zA-Z0-9_-]{1,64}$``)."""
    return f"j{job}-q{qi}-r{ri}"


def parse_custom_id(cid: str) -> tuple[int, int, int] | None:
    """(job, query, run) of a ``custom_id`` made by ``custom_id``, else None."""
    m = _CID.match(cid or "")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3))) if m else None


def _count(sdk: Any, params: dict[str, Any]) -> int:
    body = {
        k: params[k]
        for k in ("model", "system", "tools", "messages", "tool_choice", "thinking")
        if k in params
    }
    return int(sdk.messages.count_tokens(**body).input_tokens)


def estimate_batch(
    sdk: Any,
    plan: Sequence[Planned],
    settings: ChatSettings,
    *,
    n_batches: int = 1,
    output_tokens: float | None = None,
    calibrate: list[Any] | None = None,
    max_counts: int = MAX_TOKEN_COUNTS,
    concurrency: int = 4,
) -> dict[str, Any]:
    """The cost of a batch eval's ``plan`` before submitting (``workbench.core.evals.batch``'s
    module docstring), with ``sdk.messages.count_tokens``; ``settings`` are the runs' (model,
    max_tokens, base URL), ``n_batches`` the number of batches the plan is sent in. ``output_tokens``: assumed
    per request; ``calibrate``: earlier reports of this model (``EvalReport``s or their saved
    ``to_json(details=True)``) whose mean output tokens per model request are used instead.
    Raises ``BatchError`` when ``count_tokens`` fails.

    Returns ``{"requests", "batches", "distinct", "counted", "input_tokens",
    "cache_write_tokens", "cache_read_tokens", "output_tokens", "output_per_request",
    "output_source", "usage" (the four usage keys), "usd", "usd_no_cache", "usd_direct",
    "max_usd" (every reply at max_tokens), "model_key", "assumption"}`` (tokens, USD).
    """
    distinct: dict[int, tuple[dict[str, Any], int, int]] = {}  # id(params) -> (params, uses, runner)
    for p in plan:
        d = distinct.get(id(p.params))
        distinct[id(p.params)] = (p.params, (d[1] if d else 0) + 1, p.job)
    items = list(distinct.values())
    step = max(1, -(-len(items) // max(1, max_counts)))
    sample = items[::step]
    try:
        with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
            counted = list(pool.map(lambda it: _count(sdk, it[0]), sample))
            prefixes = _prefixes(sdk, items, pool)
    except Exception as exc:  # noqa: BLE001 - shown to the user
        err = from_exception(exc, settings.effective_base_url())
        log.warning("batch estimate: count_tokens failed: %s (%s)", err.kind, type(exc).__name__)
        raise BatchError(f"count_tokens failed: {err.message}", err) from None
    chars = [len(json.dumps(it[0])) for it in sample]
    per_char = sum(counted) / max(1, sum(chars))
    exact = {id(it[0]): n for it, n in zip(sample, counted)}
    total_in = 0
    for params, uses, _j in items:
        n = exact.get(id(params))
        if n is None:
            n = round(len(json.dumps(params)) * per_char)
        total_in += n * uses
    hit = price_for(settings.model)
    min_cache = int((hit[1].get("min_cache_tokens") if hit else None) or 1024)
    write = read = 0
    for key, (ptoks, uses) in prefixes.items():
        if key and ptoks >= min_cache:
            write += ptoks
            read += ptoks * (uses - 1)
    out_per, out_src = output_per_request(output_tokens, calibrate)
    n_req = len(plan)
    out_total = round(out_per * n_req)
    usage = {
        "input_tokens": total_in - write - read,
        "output_tokens": out_total,
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
    }
    no_cache = {"input_tokens": total_in, "output_tokens": out_total}
    max_tokens = int(settings.max_tokens)
    c = estimate_cost(usage, settings.model, batch=True)
    return {
        "requests": n_req,
        "batches": n_batches,
        "distinct": len(items),
        "counted": len(sample),
        "input_tokens": total_in,
        "cache_write_tokens": write,
        "cache_read_tokens": read,
        "output_tokens": out_total,
        "output_per_request": round(out_per, 1),
        "output_source": out_src,
        "usage": usage,
        "usd": c["usd"],
        "usd_no_cache": estimate_cost(no_cache, settings.model, batch=True)["usd"],
        "usd_direct": estimate_cost(usage, settings.model)["usd"],
        "max_usd": estimate_cost(
            {"input_tokens": total_in, "output_tokens": max_tokens * n_req}, settings.model, batch=True
        )["usd"],
        "model_key": c["model_key"],
        "assumption": f"{c['assumption']}; output {out_per:.0f} tokens per request ({out_src}); "
        f"cache: prefix written once and read by the other requests when it "
        f"reaches {min_cache:,} tokens (batch caching is best-effort)",
    }


def _prefixes(
    sdk: Any, items: list[tuple[dict[str, Any], int, int]], pool: ThreadPoolExecutor
) -> dict[str, tuple[int, int]]:
    """{prefix key: (tokens, requests using it)}; key "" = caching off (no cache_control)."""
    groups: dict[str, list[Any]] = {}
    for params, uses, _j in items:
        cc = [b for b in params.get("system") or [] if b.get("cache_control")]
        if not cc and not any(t.get("cache_control") for t in params.get("tools") or []):
            groups.setdefault("", [None, 0])[1] += uses
            continue
        first = (params.get("messages") or [{}])[0].get("content") or []
        lead = [b for b in first if b.get("cache_control")]
        key = json.dumps([params.get("system"), params.get("tools"), lead], sort_keys=True)
        g = groups.setdefault(
            key,
            [
                {
                    "model": params["model"],
                    "system": params.get("system"),
                    "tools": params.get("tools"),
                    "messages": [{"role": "user", "content": lead or "."}],
                },
                0,
            ],
        )
        g[1] += uses
    keys = [k for k in groups if k]
    counts = list(pool.map(lambda k: _count(sdk, groups[k][0]), keys))
    out = {k: (n, groups[k][1]) for k, n in zip(keys, counts)}
    if "" in groups:
        out[""] = (0, groups[""][1])
    return out


def output_per_request(output_tokens: float | None, calibrate: list[Any] | None) -> tuple[float, str]:
    if output_tokens is not None:
        return float(output_tokens), "given"
    out = hops = 0
    for rep in calibrate or []:
        if isinstance(rep, dict):  # a saved report (``EvalReport.to_json(details=True)``)
            runs = [d for r in rep.get("results") or [] for d in r.get("run_details") or []]
        else:
            runs = [d.to_json() for r in rep.results for d in r.details]
        for d in runs:
            if d.get("outcome") in ("triggered", "not-triggered"):
                out += int((d.get("usage") or {}).get("output_tokens") or 0)
                hops += max(1, int(d.get("hops") or 1))
    if hops:
        return out / hops, f"mean of {hops} earlier model requests"
    return float(DEFAULT_OUTPUT_TOKENS), "assumed"
