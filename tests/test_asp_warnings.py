"""clingo's warnings are on, and every program the bots load is free of them.

Each rule file declares its inputs (`#defined`), so an atom no rule and no input defines is a
misspelling, and clingo says so ("atom does not occur in any rule head"). The programs are
checked as one program over each shipped pack's KB (the answers `Reasoner` gives and the
bots' `TurnReasoner` must equal), and the bots' rewrite of the rules is checked too.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import clingo
import pytest

from automanager import paths
from automanager.bots.admin import Administrator
from automanager.bots.assistant import Assistant
from automanager.menu import check, commit
from automanager.reasoner import Reasoner, TurnReasoner

ROOT = Path(__file__).resolve().parent.parent
PACKS = {"kb": ROOT / "kb", "pizza": ROOT / "kb" / "packs" / "pizza"}


def programs(kb_files: list[Path]) -> dict[str, list[Path]]:
    """The rule files of each program, as the bots and the menu commands load them."""
    return {
        "assistant": Assistant(kb_files).reasoner.rules,
        "admin": Administrator(kb_files).reasoner.rules,
        "commit": list(commit.RULES),
        "check": [check.WHOLE_NUMBERS, check.CHECK_RULES],
    }


class AnyFunction:
    """Answers every @function (check.lp's @normalize) while grounding."""

    def __getattr__(self, _name: str):
        return lambda *args: clingo.String("")


def clingo_messages(files: list[Path]) -> list[str]:
    """Every message clingo gives (each names its file and line) grounding these files as one program."""
    messages: list[str] = []
    ctl = clingo.Control(logger=lambda _code, message: messages.append(message.strip()), message_limit=10_000)
    for path in files:
        ctl.load(str(path))
    ctl.ground([("base", [])], context=AnyFunction())
    ctl.solve()
    return messages


CASES = [(pack, name) for pack in PACKS for name in ("assistant", "admin", "commit", "check")]


@pytest.mark.parametrize(("pack", "name"), CASES, ids=[f"{p}-{n}" for p, n in CASES])
def test_program_grounds_without_any_clingo_message(pack, name):
    kb = paths.kb_files(PACKS[pack])
    messages = clingo_messages([*kb, *programs(kb)[name]])
    assert not messages, "\n".join(messages)


@pytest.mark.parametrize("pack", PACKS)
def test_the_bots_rewrite_of_the_rules_gives_no_clingo_message(pack, caplog):
    kb = paths.kb_files(PACKS[pack])
    with caplog.at_level(logging.DEBUG, logger="automanager.reasoner"):
        for name, rules in programs(kb).items():
            if name != "check":  # check.lp runs through Reasoner, as tested above
                TurnReasoner(kb, rules).solve([])
    assert not caplog.records, "\n".join(record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("pack", PACKS)
def test_the_menu_commands_give_no_clingo_message(pack, caplog):
    kb = paths.kb_files(PACKS[pack])
    with caplog.at_level(logging.DEBUG, logger="automanager.reasoner"):
        assert check.check_kb(kb) == []
        assert check.kb_stats(kb)
    assert not caplog.records, "\n".join(record.getMessage() for record in caplog.records)


def test_a_misspelled_predicate_is_reported_with_file_and_line(tmp_path):
    kb = paths.kb_files(PACKS["kb"])
    rules = programs(kb)["assistant"]
    text = rules[-1].read_text(encoding="utf-8")
    assert "phase(P) :- holds(phase(P))." in text
    broken = tmp_path / rules[-1].name
    broken.write_text(text.replace("phase(P) :- holds(phase(P)).", "phase(P) :- hold(phase(P))."), encoding="utf-8")
    line = text[:text.index("phase(P) :- holds(phase(P)).")].count("\n") + 1
    messages = clingo_messages([*kb, *rules[:-1], broken])
    assert len(messages) == 1
    assert f"{broken}:{line}:" in messages[0]
    assert "atom does not occur in any rule head" in messages[0] and "hold(phase(P))" in messages[0]


def test_clingo_messages_go_to_the_log_not_the_terminal(tmp_path, caplog):
    rules = tmp_path / "r.lp"
    rules.write_text("p(X) :- q(X).\n#show p/1.\n", encoding="utf-8")
    with caplog.at_level(logging.DEBUG, logger="automanager.reasoner"):
        Reasoner([rules]).solve()
    assert any("atom does not occur in any rule head" in record.getMessage() for record in caplog.records)
    script = f"from automanager.reasoner import Reasoner; Reasoner([{str(rules)!r}]).solve()"
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert not run.stdout and not run.stderr
