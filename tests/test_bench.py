"""`automanager bench --json --quick`: every figure is there (no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import clingo
import pytest
from typer.testing import CliRunner

from automanager import bench, paths
from automanager.cli import app
from automanager.language.phrases import menu_examples
from automanager.menu.model import Menu
from automanager.reasoner import caches_written

pytestmark = pytest.mark.slow  # runs the whole bench: child processes and a served run

CASES = {"admin_reasoning", "assistant_reasoning_1", "assistant_reasoning_10", "assistant_reasoning_30",
         "assistant_reasoning_100", "menu_x1_reasoning_10", "menu_x4_reasoning_10", "menu_x10_reasoning_10",
         "customer_turn", "manager_turn", "customer_turn_with_save", "commit_turn", "first_prompt", "cold_turn",
         "first_turn_after_greeting", "embedding_first_use", "customer_turn_rules_0", "customer_turn_rules_10",
         "customer_turn_rules_200"}
RULE_KINDS = {"limit", "hours", "deal_price", "deal_off", "deal_free", "instead", "suggest"}


def test_bench_quick_json_has_every_figure(monkeypatch):
    from fake_openai import FakeOpenAI

    with FakeOpenAI() as fake:
        fake.count_tokens = True  # the parse prompt's size as a server would count it (about 4 characters a token)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        result = CliRunner().invoke(app, ["bench", "--json", "--quick"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert {c["name"] for c in data["cases"]} == CASES
    for case in data["cases"]:
        assert set(case) == {"name", "rounds", "p50", "p95", "max", "target", "paper", "meets"}
        assert case["rounds"] >= 2 and 0 < case["p50"] <= case["p95"] <= case["max"]
        assert (case["meets"] is None) == (case["target"] is None)
    assert {c["name"]: c["paper"] for c in data["cases"] if c["paper"]} == {
        "admin_reasoning": 9.9, "assistant_reasoning_1": 115.4, "assistant_reasoning_10": 886.5}
    rules = data["store_rules"]  # issue 30: a customer turn with ten store rules on, and with none
    assert set(rules) == {"rules", "p50_none", "p50_rules", "ratio", "within", "meets", "many"}
    assert len(rules["rules"]) == 10 and rules["within"] == 0.1
    assert rules["many"]["count"] == 200 and rules["many"]["within"] == 0.5
    cases = {c["name"]: c for c in data["cases"]}
    assert (rules["p50_none"], rules["p50_rules"], rules["many"]["p50"]) == (
        cases["customer_turn_rules_0"]["p50"], cases["customer_turn_rules_10"]["p50"], cases["customer_turn_rules_200"]["p50"])
    assert cases["customer_turn_rules_10"]["meets"] == rules["meets"]
    assert cases["customer_turn_rules_200"]["meets"] == rules["many"]["meets"]
    memory = data["peak_memory_mb"]
    assert memory["bench_process"] > 0 and memory["repl_process"] > 0 and memory["embedding_extra_mb"] >= 0
    assert data["quick"] is True
    long = data["long_session"]  # a figure, not a target: near turn 100 and at the end of one open session
    assert long["turns"] == 300 and long["p50_ms_near_100"] > 0 and long["p50_ms_at_end"] > 0
    assert long["session_bytes"] > 0
    # one LLM call a turn (the templates speak), and the parse prompt's size with its schema
    assert data["llm"]["llm_calls_per_turn"] == 1.0 and data["llm"]["parse_prompt_tokens"] > 500


def test_bench_served_tiny_run_loses_nothing():
    """`automanager bench --served` in a tiny configuration: a real server process, every figure
    there, no error, no lost or doubled turn, both saves published (no timing is asserted)."""
    result = CliRunner().invoke(app, ["bench", "--served", "--lanes", "4", "--turns", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"lanes", "turns_per_lane", "think_s", "turns", "acknowledged", "seconds",
                         "turns_per_second", "p50", "p95", "p99", "max", "errors", "error_samples", "lost",
                         "doubled", "manager_saves", "menu_version", "target_p95", "meets", "machine",
                         "orders_closed", "tickets_shown", "tickets_missing", "tickets_twice", "kitchen_events"}
    assert data["lanes"] == 4 and data["turns"] == data["acknowledged"] == 12
    assert data["errors"] == data["lost"] == data["doubled"] == 0 and data["error_samples"] == []
    assert 0 < data["p50"] <= data["p95"] <= data["p99"] <= data["max"] and data["turns_per_second"] > 0
    assert [save["ok"] for save in data["manager_saves"]] == [True, True] and data["menu_version"] == 2
    assert data["tickets_missing"] == data["tickets_twice"] == 0 and data["kitchen_events"] >= 1


def test_store_rules_case_reports_both_turns_and_their_ratio(tmp_path):
    """Issue 30's line: the customer turn with ten store rules published, of every kind and named
    from the pack's own menu, against none; both p50s and their ratio (no timing is asserted)."""
    kb = paths.pack_dir("pizza")
    menu = Menu.load(paths.kb_files(kb))
    dish, drink = menu.example_dish, menu_examples(menu)["drink"]
    with caches_written():
        (none, ten, many), figures = bench.rules_cases(tmp_path, kb, menu, dish, drink, 3, 1)
    assert (none.name, ten.name, many.name) == ("customer_turn_rules_0", "customer_turn_rules_10", "customer_turn_rules_200")
    assert none.rounds == ten.rounds == many.rounds == 3 and 0 < none.p50 and 0 < ten.p50 and 0 < many.p50
    assert figures["p50_none"] == none.p50 and figures["p50_rules"] == ten.p50 and figures["many"]["p50"] == many.p50
    assert figures["ratio"] == round(ten.p50 / none.p50, 3) and figures["meets"] == ten.meets
    assert ten.target == round(none.p50 * 1.1, 2) and many.target == round(none.p50 * 1.5, 2) and none.target is None
    assert len(bench.many_store_rules(menu, dish, drink)) == 200  # every one a fact of its own, also on a small pack
    rules = [clingo.parse_term(rule) for rule in figures["rules"]]
    assert len(rules) == 10 and {rule.name for rule in rules} == RULE_KINDS
    named = {arg.string for rule in rules for arg in rule.arguments if arg.type == clingo.SymbolType.String}
    assert named - {"all", "combo"} <= menu.items | menu.categories  # the pack's own names
    # published as a manager's save publishes a version: the rules are facts of the new menu, the
    # other state dir's version has none of them
    published = {name: (tmp_path / f"rules-{name}" / "menu" / "v1.lp").read_text(encoding="utf-8")
                 for name in ("none", "ten")}
    assert all(f"{rule}." in published["ten"].splitlines() for rule in figures["rules"])
    assert not any(f"{rule}." in published["none"].splitlines() for rule in figures["rules"])


def test_compare_names_a_revision_it_cannot_check_out_in_one_line():
    """benchmarks/compare never fails CI on timings, but a revision that is not there is said, exit 2."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "compare"
    done = subprocess.run([sys.executable, str(script), "no-such-revision-0000"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "no-such-revision-0000" in done.stderr
