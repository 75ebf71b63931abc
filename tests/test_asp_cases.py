"""ASP unit tests of the rule files, section by section, from tests/data/asp_cases.yaml: facts in,
shown atoms out. Each case is solved as one program (`Reasoner`) and by the bots' `TurnReasoner`,
which must give the same answer, and neither may give a clingo message."""

from __future__ import annotations

import logging
from functools import cache
from pathlib import Path

import clingo
import pytest
import yaml

from automanager import paths
from automanager.bots.admin import Administrator
from automanager.bots.assistant import Assistant
from automanager.menu import commit
from automanager.reasoner import LazyAtoms, Reasoner, TurnReasoner

HERE = Path(__file__).resolve().parent
PACKS = {"kb": HERE.parent / "kb", "pizza": HERE.parent / "kb" / "packs" / "pizza"}
CASES = yaml.safe_load((HERE / "data" / "asp_cases.yaml").read_text(encoding="utf-8"))


@cache
def kb_files(pack: str) -> tuple[Path, ...]:
    return tuple(paths.kb_files(PACKS[pack]))


def rules(program: str, pack: str) -> list[Path]:
    """The rule files of a program, as the bots load them."""
    kb = list(kb_files(pack))
    if program == "assistant":
        return Assistant(kb).reasoner.rules
    if program == "admin":
        return Administrator(kb).reasoner.rules
    if program == "commit":
        return list(commit.RULES)
    return [paths.data_dir("crs") / "crs.lp"]


@cache
def turn_reasoner(program: str, pack: str) -> TurnReasoner:
    return TurnReasoner(kb_files(pack), rules(program, pack))


def canonical(atoms: list[str]) -> list[str]:
    return [str(clingo.parse_term(text)) for text in atoms]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['program']}-{i}" for i, c in enumerate(CASES)])
def test_asp_case(case, caplog):
    program, pack = case["program"], case.get("pack", "kb")
    facts = [clingo.parse_term(text) for text in case["facts"]]
    with caplog.at_level(logging.DEBUG, logger="automanager.reasoner"):
        symbols = Reasoner([*kb_files(pack), *rules(program, pack)]).shown(facts)
        if program != "crs":  # crs.lp has no #show: one program shows all, the rewrite nothing
            assert turn_reasoner(program, pack).solve(facts) == dict(LazyAtoms(symbols))
    assert not caplog.records, "\n".join(record.getMessage() for record in caplog.records)
    shown = {str(symbol) for symbol in symbols}
    about = f"{program}.lp, {case['section']}"
    assert not [a for a in canonical(case.get("shows", [])) if a not in shown], about
    assert not [a for a in canonical(case.get("hides", [])) if a in shown], about
