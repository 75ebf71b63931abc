"""Scenario results for people and scripts: a rich table, an aggregate, a Markdown report."""

from __future__ import annotations

import json

import numpy as np
from rich.table import Table
from rich.text import Text

from .runner import CRITERIA, Result


def aggregate(results: list[Result]) -> dict:
    """Success rate, scenarios that changed something without being asked, latency percentiles
    per turn, LLM use per turn, mean judge grades."""
    turns = [t for r in results for t in r.turns]
    passed = sum(r.passed for r in results)

    def spread(key: str) -> dict:
        values = [t["timings"].get(key, 0.0) for t in turns]
        if not values:
            return {"p50": None, "p95": None, "max": None}
        return {"p50": round(float(np.percentile(values, 50)), 2), "p95": round(float(np.percentile(values, 95)), 2),
                "max": round(max(values), 2)}

    per_turn = max(len(turns), 1)
    judged = [r.judge for r in results if r.judge and "error" not in r.judge]
    return {
        "scenarios": len(results), "passed": passed, "failed": len(results) - passed,
        "success_rate": round(passed / len(results), 4) if results else None,
        "changed_without_asking": sum(r.changed_without_asking for r in results), "turns": len(turns),
        "parse_ms": spread("parse_ms"), "reasoning_ms": spread("reasoning_ms"), "total_ms": spread("total_ms"),
        "llm_calls_per_turn": round(sum(t["llm"].get("calls", 0) for t in turns) / per_turn, 3),
        "llm_tokens_per_turn": round(sum(t["llm"].get("prompt_tokens", 0) + t["llm"].get("completion_tokens", 0)
                                         for t in turns) / per_turn, 1),
        "judge": {c: round(sum(j[c] for j in judged) / len(judged), 2) for c in CRITERIA} if judged else None,
    }


def table(results: list[Result]) -> Table:
    grid = Table("scenario", "result", "turns", "changed without being asked", "what went wrong", title="Scenarios")
    for r in results:
        wrong = r.error or "; ".join(f"{f.key}: expected {short(f.expected)}, got {short(f.actual)}"
                                     for f in r.failures)
        result = Text("pass", "green") if r.passed else Text("FAIL", "red")
        changed = Text("; ".join(r.wrong_changes), "bold red") if r.changed_without_asking else Text("no")
        grid.add_row(Text(r.name), result, str(len(r.turns)), changed, Text(wrong))  # Text: names are never markup
    return grid


def summary_line(summary: dict) -> str:
    return (f"{summary['passed']} of {summary['scenarios']} scenarios passed, {summary['changed_without_asking']} "
            f"changed without being asked ({summary['turns']} turns)")


def short(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def markdown(results: list[Result], summary: dict) -> str:
    lines = ["# AutoManager scenario report", "",
             f"{summary_line(summary)}. Per turn: total p50 {summary['total_ms']['p50']} ms, "
             f"p95 {summary['total_ms']['p95']} ms; reasoning p50 {summary['reasoning_ms']['p50']} ms; "
             f"{summary['llm_calls_per_turn']} LLM calls and {summary['llm_tokens_per_turn']} tokens.", ""]
    if summary["judge"]:
        lines += ["## Judge (1-10, mean)", "", "| criterion | grade |", "|---|---|"]
        lines += [f"| {c.replace('_', ' ')} | {g} |" for c, g in summary["judge"].items()] + [""]
    lines += ["## Scenarios", "", "| scenario | result | turns | changed without being asked |", "|---|---|---|---|"]
    lines += [f"| {r.name} | {'pass' if r.passed else '**FAIL**'} | {len(r.turns)} | "
              f"{'**yes**: ' + '; '.join(r.wrong_changes) if r.changed_without_asking else 'no'} |" for r in results]
    for r in (r for r in results if not r.passed or r.changed_without_asking):
        lines += ["", f"### {r.name} ({r.file})", ""]
        if r.error:
            lines.append(f"- error: {r.error}")
        lines += [f"- changed without being asked: {change}" for change in r.wrong_changes]
        lines += [f"- `{f.key}`: expected `{short(f.expected)}`, got `{short(f.actual)}`" for f in r.failures]
        lines += ["", "Transcript:", ""] + [f"> **{t['role']}**: {t['text']}  \n> **bot**: {t['reply']}  "
                                            for t in r.turns]
    return "\n".join(lines) + "\n"
