"""`automanager eval`: the scenario suite passes, wrong expectations fail, bad files are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from automanager.cli import app
from automanager.evaluation.runner import run_scenario
from automanager.evaluation.scenario import ScenarioError, load_scenarios

REPO = Path(__file__).resolve().parents[1]

BASE = """
name: probe
steps:
  - manager: we are out of tomatoes
  - manager: the soft taco now costs $1.99
  - manager: bye
  - customer: a crunchy taco with tomatoes
  - customer: two soft tacos
  - customer: that's all
  - customer: no
  - customer: bye
expect:
"""
RIGHT = {
    "rejected": "[Tomatoes]",
    "order": "[{item: Crunchy Taco}, {item: Soft Taco, quantity: 2}]",
    "total": "auto",
    "stock_out": "[Tomatoes]",
    "menu": "['original_price(\"Soft Taco\",199)']",
    "not_menu": "['original_price(\"Soft Taco\",139)']",
    "say": "[goodbye]",
    "not_say": "[Traceback]",
    "ended": "true",
}
WRONG = {
    "rejected": "[Tomatoes, Guacamole]",
    "order": "[{item: Crunchy Taco, no: [Iceberg Lettuce]}, {item: Soft Taco, quantity: 2}]",  # same price
    "total": "5.00",
    "stock_out": "[Tomatoes, Onions]",
    "menu": "['original_price(\"Soft Taco\",139)']",
    "not_menu": "['original_price(\"Soft Taco\",199)']",
    "say": "[free food]",
    "not_say": "[goodbye]",
    "ended": "false",
}


def scenario_file(tmp_path, expect: dict[str, str]) -> Path:
    path = tmp_path / "probe.yaml"
    path.write_text(BASE + "".join(f"  {k}: {v}\n" for k, v in expect.items()), encoding="utf-8")
    return path


def test_the_right_expectations_pass(tmp_path):
    [scenario] = load_scenarios([scenario_file(tmp_path, RIGHT)])
    result = run_scenario(scenario)
    assert result.passed, result.failures
    assert len(result.turns) == 8


@pytest.mark.parametrize("key", list(WRONG))
def test_each_wrong_expectation_fails_the_scenario(tmp_path, key):
    [scenario] = load_scenarios([scenario_file(tmp_path, {**RIGHT, key: WRONG[key]})])
    result = run_scenario(scenario)
    assert not result.passed
    assert [f.key for f in result.failures] == [key]


SCENARIOS = sorted((REPO / "eval" / "scenarios").glob("*.yaml"))


def test_the_scenario_suite_has_every_file_and_scenario():
    assert [p.name for p in SCENARIOS] == sorted(p.name for p in (REPO / "eval" / "scenarios").iterdir())
    assert len(load_scenarios([REPO / "eval" / "scenarios"])) >= 40


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_the_scenario_suite_passes_offline(path):
    """What CI runs: every scenario in eval/scenarios, offline; a file a test, so parallel workers
    share the suite."""
    result = CliRunner().invoke(app, ["eval", str(path), "--json", "--backend", "offline"])
    data = json.loads(result.stdout)
    failed = {r["name"]: r["failures"] or r["error"] for r in data["scenarios"] if not r["passed"]}
    assert failed == {} and result.exit_code == 0
    summary = data["aggregate"]
    assert summary["scenarios"] >= 1 and summary["success_rate"] == 1.0
    assert set(summary["total_ms"]) == {"p50", "p95", "max"} and summary["llm_calls_per_turn"] == 0


def test_a_failing_scenario_exits_1_and_the_report_says_why(tmp_path):
    path = scenario_file(tmp_path, {**RIGHT, "total": "5.00"})
    report = tmp_path / "report.md"
    result = CliRunner().invoke(app, ["eval", str(path), "--report", str(report), "--backend", "offline"])
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "total: expected 500" in result.stdout
    text = report.read_text(encoding="utf-8")
    assert "0 of 1 scenarios passed" in text and "`total`: expected `500`" in text and "**customer**" in text


@pytest.mark.parametrize("body, line, problem", [
    ("name: x\nsteps:\n  - customer: hi\n  - customr: typo\n", 4, "unknown key 'customr' in a step"),
    ("name: x\nsteps: []\n", 2, "steps must be a non-empty list"),
    ("steps:\n  - customer: hi\n", 1, "a scenario needs 'name'"),
    ("name: x\nsteps:\n  - customer: hi\n    manager: hello\n", 3, "either 'manager: ...' or 'customer: ...'"),
    ("name: x\nsteps:\n  - customer: hi\nexpect:\n  total: lots\n", 5, "total must be an amount"),
    ("name: x\nsteps:\n  - customer: hi\nexpect:\n  menu: ['not a fact(']\n", 5, "is not an ASP fact"),
    ("name: x\nsteps:\n  - customer: hi\nexpect:\n  order:\n    - {item: Pepsi, size: [large, small]}\n", 6,
     "size must be text"),
    ("name: x\nsteps:\n  - customer: [unclosed\n", 4, "not valid YAML"),
    ("name: x\npack: sushi\nsteps:\n  - customer: hi\n", 2, "no built menu pack 'sushi'; shipped: burger, chicken, pizza"),
])
def test_a_malformed_file_is_refused_with_file_line_and_problem(tmp_path, body, line, problem):
    path = tmp_path / "bad.yaml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenarios([path])
    assert caught.value.line == line and problem in caught.value.problem
    result = CliRunner().invoke(app, ["eval", str(path), "--backend", "offline"])
    assert result.exit_code == 2
    assert f"bad.yaml:{line}:" in result.stderr.replace("\n", "") and problem in result.stderr.replace("\n", " ")


def test_a_scenario_runs_on_the_pack_it_names(tmp_path):
    """`pack: pizza` runs that scenario on the pizza pack whatever --kb the run was given."""
    path = tmp_path / "pack.yaml"
    path.write_text("name: on-pizza\npack: pizza\nsteps:\n  - customer: a large pepperoni pizza\n"
                    "expect:\n  order: [{item: Pizza, size: large, add: [Pepperoni]}]\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", str(path), "--json", "--backend", "offline"])
    assert result.exit_code == 0 and json.loads(result.stdout)["aggregate"]["success_rate"] == 1.0
    path.write_text(path.read_text(encoding="utf-8").replace("pack: pizza\n", ""), encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", str(path), "--json", "--backend", "offline"])
    assert result.exit_code == 1  # on the shipped menu there is no such pizza


def test_a_scenario_names_a_pack_kept_elsewhere_by_a_path_from_its_own_folder(tmp_path):
    import shutil

    shutil.copytree(REPO / "kb" / "packs" / "pizza", tmp_path / "packs" / "corner")
    (tmp_path / "scenarios").mkdir()
    path = tmp_path / "scenarios" / "elsewhere.yaml"
    path.write_text("name: on-corner\npack: ../packs/corner\nsteps:\n  - customer: a large pepperoni pizza\n"
                    "expect:\n  order: [{item: Pizza, size: large, add: [Pepperoni]}]\n", encoding="utf-8")
    [scenario] = load_scenarios([path])
    assert scenario.pack == (tmp_path / "packs" / "corner").resolve()
    result = CliRunner().invoke(app, ["eval", str(path), "--json", "--backend", "offline"])
    assert result.exit_code == 0 and json.loads(result.stdout)["aggregate"]["success_rate"] == 1.0
    path.write_text(path.read_text(encoding="utf-8").replace("../packs/corner", "./nowhere"), encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        load_scenarios([path])
    assert caught.value.line == 2 and "no built menu pack at './nowhere'" in caught.value.problem


def test_yes_and_no_are_words_in_steps(tmp_path):
    path = tmp_path / "words.yaml"
    path.write_text("name: x\nsteps:\n  - customer: no\n  - customer: yes\n  - customer: 2\n", encoding="utf-8")
    [scenario] = load_scenarios([path])
    assert [s.text for s in scenario.steps] == ["no", "yes", "2"]


def test_judge_needs_an_llm(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = CliRunner().invoke(app, ["eval", str(scenario_file(tmp_path, RIGHT)), "--judge"])
    assert result.exit_code == 2 and "--judge needs an LLM backend" in result.stderr


def test_judge_grades_are_averaged_in_the_report(tmp_path, monkeypatch):
    from fake_openai import FakeOpenAI

    grades = {"understanding": 9, "truthfulness": 10, "coherency": 8, "fluency": 7, "task_ease": 9,
              "expected_behavior": 10, "total_satisfaction": 8}
    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.setenv("AUTOMANAGER_LLM_RETRIES", "0")
        path = tmp_path / "tiny.yaml"
        path.write_text("name: tiny\nsteps:\n  - customer: a pepsi\nexpect:\n  order: [{item: Pepsi}]\n",
                        encoding="utf-8")
        fake.parses.extend([{"predicates": [{"predicate": "order", "food": "pepsi", "quantity": 1}]}, grades])
        report = tmp_path / "report.md"
        result = CliRunner().invoke(app, ["eval", str(path), "--judge", "--json", "--report", str(report)])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["aggregate"]["judge"] == {k: float(v) for k, v in grades.items()}
    assert data["scenarios"][0]["judge"]["prompt"].startswith("judge@")
    assert "| truthfulness | 10.0 |" in report.read_text(encoding="utf-8")
    judge_request = fake.parse_requests[-1]
    assert "Grades:" in judge_request["messages"][-1]["content"] and "a pepsi" in judge_request["messages"][-1]["content"]


def test_now_sets_the_bots_clock_for_the_whole_scenario(tmp_path, monkeypatch):
    """`now:` (a local time, ISO 8601) is the clock fact both bots get at every turn."""
    from automanager.bots import assistant as assistant_module
    from automanager.bots.base import clock_facts

    path = tmp_path / "now.yaml"
    path.write_text("name: at-lunch\nnow: 2026-11-24T11:45\nsteps:\n  - customer: a soft taco\n"
                    "expect:\n  order: [{item: Soft Taco}]\n", encoding="utf-8")
    [scenario] = load_scenarios([path])
    assert scenario.now is not None and scenario.now.isoformat() == "2026-11-24T11:45:00"
    assert [str(f) for f in clock_facts(scenario.now)] == ["clock(20261124,tue,705)"]
    seen: list = []
    decide = assistant_module.Assistant.decide

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("clock", args[5] if len(args) > 5 else None))
        return decide(self, *args, **kwargs)

    monkeypatch.setattr(assistant_module.Assistant, "decide", spy)
    assert run_scenario(scenario).passed
    assert seen and all(at == scenario.now for at in seen)
    for bad, problem in (("tomorrow at noon", "ISO 8601"), ("2026-11-24T11:45+01:00", "local time")):
        path.write_text(f"name: x\nnow: '{bad}'\nsteps:\n  - customer: hi\n", encoding="utf-8")
        with pytest.raises(ScenarioError, match=problem):
            load_scenarios([path])


@pytest.mark.parametrize("steps, expect, changes", [
    # a unit nobody expected is a wrong change; the expected one is there
    (["a soft taco and a pepsi"], "order: [{item: Soft Taco}]", ["added Pepsi®"]),
    # a unit never rung up was not understood: a failure, not a wrong change
    (["a soft taco"], "order: [{item: Soft Taco}, {item: Bean Burrito}]", []),
    # rung up, then taken off: a wrongful removal
    (["a soft taco and a pepsi", "take off the pepsi"], "order: [{item: Soft Taco}, {item: Pepsi}]", ["removed Pepsi®"]),
    # two of a unit, then one: one removed
    (["two bean burritos", "actually just one bean burrito"], "order: [{item: Bean Burrito, quantity: 2}]",
     ["removed Bean Burrito"]),
    # a detail the expected unit has not: that unit changed
    (["a large pepsi"], "order: [{item: Pepsi, size: regular}]", ["resized Pepsi® (size large), expected Pepsi® (size regular)"]),
    (["a bean burrito with no onions"], "order: [{item: Bean Burrito}]",
     ["changed Bean Burrito (no Onions), expected Bean Burrito"]),
    # only lacking an expected detail: a change not made
    (["a bean burrito"], "order: [{item: Bean Burrito, no: [Onions]}]", []),
    # ... unless the unit as expected was in the order before
    (["a bean burrito with no onions", "put the onions back on the bean burrito"],
     "order: [{item: Bean Burrito, no: [Onions]}]", ["took details off Bean Burrito (no Onions), now Bean Burrito"]),
])
def test_changed_without_being_asked_in_orders(tmp_path, steps, expect, changes):
    path = tmp_path / "changes.yaml"
    path.write_text("name: x\nsteps:\n" + "".join(f"  - customer: {s}\n" for s in steps) + f"expect:\n  {expect}\n",
                    encoding="utf-8")
    [scenario] = load_scenarios([path])
    result = run_scenario(scenario)
    assert (result.wrong_changes, result.changed_without_asking) == (changes, bool(changes)), result.turns


@pytest.mark.parametrize("expect, changes", [
    (RIGHT, []),
    # the new price is on the menu, and the scenario says it must not be: put there wrongly
    ({"not_menu": "['original_price(\"Soft Taco\",199)']"}, ['put original_price("Soft Taco",199) on the menu']),
    # a price set to another amount than the one expected: one change, said once
    ({"menu": "['original_price(\"Soft Taco\",149)']", "not_menu": "['original_price(\"Soft Taco\",199)']"},
     ['set original_price("Soft Taco",199) (expected original_price("Soft Taco",149))']),
    # the shipped price was to stay and is gone
    ({"menu": "['original_price(\"Soft Taco\",139)']"},
     ['set original_price("Soft Taco",199) (expected original_price("Soft Taco",139))']),
    # a fact of the shipped menu still there, and one never put there, are changes not made
    ({"not_menu": "['original_price(\"Bean Burrito\",139)', 'dish(\"Lava Taco\")']", "menu": "['dish(\"Lava Taco\")']"}, []),
    # out but not expected out; expected out and never marked is a change not made
    ({"stock_out": "[Onions]"}, ["marked Tomatoes out"]),
    ({"stock_out": "[Tomatoes, Onions]"}, []),
])
def test_changed_without_being_asked_on_the_menu(tmp_path, expect, changes):
    [scenario] = load_scenarios([scenario_file(tmp_path, expect)])
    assert run_scenario(scenario).wrong_changes == changes


def test_a_restock_nobody_asked_for_is_a_wrong_change(tmp_path):
    path = tmp_path / "restock.yaml"
    path.write_text("name: x\nsteps:\n  - manager: we are out of tomatoes\n  - manager: tomatoes are back\n"
                    "expect:\n  stock_out: [Tomatoes]\n", encoding="utf-8")
    [scenario] = load_scenarios([path])
    assert run_scenario(scenario).wrong_changes == ["put Tomatoes back in"]


def test_wrong_changes_are_counted_in_json_table_and_report(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text("- name: fine\n  steps:\n    - customer: a soft taco\n  expect:\n    order: [{item: Soft Taco}]\n"
                    "- name: extra\n  steps:\n    - customer: two soft tacos\n  expect:\n    order: [{item: Soft Taco}]\n",
                    encoding="utf-8")
    report = tmp_path / "report.md"
    result = CliRunner().invoke(app, ["eval", str(path), "--json", "--report", str(report), "--backend", "offline"])
    data = json.loads(result.stdout)
    assert [(r["changed_without_asking"], r["wrong_changes"]) for r in data["scenarios"]] == [
        (False, []), (True, ["added Soft Taco"])]
    assert data["aggregate"]["changed_without_asking"] == 1
    text = report.read_text(encoding="utf-8")
    assert "1 of 2 scenarios passed, 1 changed without being asked" in text
    assert "| extra | **FAIL** | 1 | **yes**: added Soft Taco |" in text and "| fine | pass | 1 | no |" in text
    table = CliRunner().invoke(app, ["eval", str(path), "--backend", "offline"], terminal_width=200).stdout
    assert "changed without being asked" in table and "added Soft Taco" in table
    assert "1 of 2 scenarios passed, 1 changed without being asked" in table


def test_eval_readme_documents_every_key_the_loader_accepts():
    """`automanager eval` points every scenario error to eval/README.md: each key a scenario, a step,
    `expect` or an order unit may hold is written there as YAML (`key:`) or named (`key`)."""
    from automanager.evaluation.scenario import EXPECT_KEYS, SCENARIO_KEYS, STEP_KEYS, UNIT_KEYS

    readme = (Path(__file__).resolve().parents[1] / "eval" / "README.md").read_text(encoding="utf-8")
    missing = [key for key in (*SCENARIO_KEYS, *STEP_KEYS, *EXPECT_KEYS, *UNIT_KEYS)
               if f"{key}:" not in readme and f"`{key}`" not in readme]
    assert not missing, f"eval/README.md does not document {missing}"
