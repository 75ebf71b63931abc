import os
from pathlib import Path

import pytest

from automanager.reasoner import KEEPER, Const, Reasoner, ReasonerError, atom, program_text


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_facts_from_python_values_come_back_as_python_values(tmp_path):
    rules = write(tmp_path, "r.lp", "total(S) :- S = #sum { P, D : price(D, P) }.\n#show total/1.\n#show price/2.")
    atoms = Reasoner([rules]).solve([atom("price", "Soft Taco", 139), atom("price", "Pepsi®", 100)])
    assert atoms["total"] == [(239,)]
    assert sorted(atoms["price"]) == [("Pepsi®", 100), ("Soft Taco", 139)]


def test_user_text_stays_one_string_even_if_it_looks_like_asp(tmp_path):
    rules = write(tmp_path, "r.lp", "seen(X) :- said(X).\n#show seen/1.\n#show evil/0.")
    hostile = 'x"). evil. said("y'
    atoms = Reasoner([rules]).solve([atom("said", hostile)])
    assert atoms["seen"] == [(hostile,)]
    assert "evil" not in atoms


def test_constants_and_strings_differ(tmp_path):
    rules = write(tmp_path, "r.lp", 'is_const(X) :- style(X), X = fresco.\nis_str(X) :- style(X), X = "fresco".\n#show is_const/1.\n#show is_str/1.')
    atoms = Reasoner([rules]).solve([atom("style", Const("fresco"))])
    assert atoms.get("is_const") == [("fresco",)]
    assert "is_str" not in atoms
    with pytest.raises(ValueError):
        Const("Not A Constant")


def test_syntax_error_names_file_and_line(tmp_path):
    bad = write(tmp_path, "broken.lp", "a.\nb :- a,, c.\n")
    with pytest.raises(ReasonerError) as info:
        Reasoner([bad]).solve()
    assert "broken.lp:2" in str(info.value)


def test_unsafe_variable_names_file_and_line(tmp_path):
    bad = write(tmp_path, "unsafe.lp", "% comment\n\np(X) :- q.\n")
    with pytest.raises(ReasonerError) as info:
        Reasoner([bad]).solve()
    assert "unsafe.lp:3" in str(info.value)
    assert "unsafe" in str(info.value)


def test_unsatisfiable_program_is_an_error(tmp_path):
    rules = write(tmp_path, "r.lp", ":- a.\n")
    with pytest.raises(ReasonerError, match="no answer set"):
        Reasoner([rules]).solve([atom("a")])


def test_program_files_are_read_once_and_again_when_changed(tmp_path):
    path = write(tmp_path, "once.lp", "a.\n#show a/0.")
    assert Reasoner([path]).solve() == {"a": [()]}
    assert program_text(path) is program_text(path)  # cached while the file is unchanged
    path.write_text("b.\n#show b/0.", encoding="utf-8")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert Reasoner([path]).solve() == {"b": [()]}


def test_missing_program_file_is_a_clear_error(tmp_path):
    with pytest.raises(ReasonerError, match="cannot read ASP program"):
        Reasoner([tmp_path / "nope.lp"]).solve()


def test_unsupported_values_are_refused():
    with pytest.raises(TypeError):
        atom("x", 1.5)
    with pytest.raises(TypeError):
        atom("x", True)


def test_the_turn_reasoner_answers_as_a_fresh_reasoner_call_after_call(monkeypatch):
    """Same answers over a whole conversation, across Control rebuilds, after an error too."""
    from automanager import paths
    from automanager.acts import CUSTOMER_ACTS
    from automanager.bots.assistant import PROGRAM, context
    from automanager.bots.base import new_facts, split_next
    from automanager.language.customer_parser import CustomerParser
    from automanager.menu.model import Menu
    from automanager.reasoner import Reasoner, TurnReasoner, atom
    from automanager.state import State

    monkeypatch.setattr(TurnReasoner, "RECYCLE", 3)
    rules = [paths.data_dir("crs") / "crs.lp", PROGRAM]
    fresh, turn = Reasoner([*paths.kb_files(), *rules]), TurnReasoner(paths.kb_files(), rules)
    parser = CustomerParser(Menu.load(paths.kb_files()))
    state = State()
    lines = ["two soft tacos and a large pepsi", "no onions on the taco", "what do people add to the soft taco?",
             "yes", "a crunchwrap supreme combo", "that's all", "no", "no", "a mountain dew", "bye"]
    for line in lines:
        acts = parser.parse(line, context(state)).acts
        facts = [atom("runout", "Tomatoes"), *state.holds(), *new_facts(acts, CUSTOMER_ACTS)]
        expected = fresh.solve(facts)
        assert turn.solve(facts) == expected, line
        state = split_next(expected).state


def test_an_unsatisfiable_call_does_not_poison_the_next(tmp_path):
    from automanager.reasoner import TurnReasoner

    kb, rules = tmp_path / "kb.lp", tmp_path / "rules.lp"
    kb.write_text("item(1). item(2).\n", encoding="utf-8")
    rules.write_text("ok(X) :- item(X), x. :- bad.\n#show ok/1.\n", encoding="utf-8")
    reasoner = TurnReasoner([kb], [rules])
    with pytest.raises(ReasonerError, match="no answer set"):
        reasoner.solve([atom("bad")])
    assert reasoner.solve([atom("x")]) == {"ok": [(1,), (2,)]}
    assert reasoner.solve([]) == {}


def test_a_call_grounds_only_the_rules_its_facts_can_fire(tmp_path):
    """Rules whose body needs an atom no fact and no live rule can give are left out of the call,
    with the same answer; constants in the shapes count, numbers and strings do not."""
    from automanager.reasoner import TurnReasoner

    kb = write(tmp_path, "kb.lp", "price(\"Taco\", 199).\n")
    rules = write(tmp_path, "rules.lp", "\n".join([
        "ordered(F) :- new_order(F, _).",
        "priced(F, P) :- ordered(F), price(F, P).",
        "asked(F) :- new_query(price, F).",
        "told(F) :- asked(F).",
        "none_ordered :- not ordered(_).",
        "#show priced/2. #show told/1. #show none_ordered/0.",
    ]))
    reasoner = TurnReasoner([kb], [rules], cache=tmp_path / "cache")
    facts = [atom("new_order", "Taco", 2)]
    assert reasoner.solve(facts) == Reasoner([kb, rules]).solve(facts) == {"priced": [("Taco", 199)]}
    live = reasoner._relevance.live(facts)
    parts = next(r.parts for r in reasoner._programs.values() if any("told(F,t)" in t for t in r.parts.values()))
    grounded = {text.split("\n")[1] for part, text in parts.items() if part in live}
    assert any("ordered(F,t) :- new_order" in rule for rule in grounded)
    assert not any("asked(F,t) :-" in rule or "told(F,t) :-" in rule for rule in grounded)
    assert reasoner._relevance.live([atom("new_query", Const("calories"), "Taco")]) == \
        reasoner._relevance.live([])  # a price question's rule needs the constant price
    asked = [atom("new_query", Const("price"), "Taco")]
    assert reasoner.solve(asked) == {"told": [("Taco",)], "none_ordered": [()]}
    # a new process reads the rewrite and what each rule needs from the cache
    TurnReasoner._programs.clear()
    TurnReasoner._grounded.clear()
    again = TurnReasoner([kb], [rules], cache=tmp_path / "cache")
    assert again.solve(asked) == {"told": [("Taco",)], "none_ordered": [()]}
    assert again._relevance.parts == reasoner._relevance.parts


def test_the_managers_calls_answer_as_a_fresh_reasoner(tmp_path, monkeypatch):
    """The administrator's rules (over view.lp) through the grounded-once reasoner, turn by turn:
    runouts, a read-back, a new dish asked piece by piece, a refusal, an undo."""
    from automanager.reasoner import TurnReasoner
    from automanager.star import ManagerChat
    from automanager.store import Home

    chat = ManagerChat(Home(tmp_path))
    reasoner = chat.admin.reasoner
    fresh = Reasoner([*chat.menu.files, *reasoner.rules])
    calls = []

    def checked(facts):
        facts = list(facts)
        answer = TurnReasoner.solve(reasoner, facts)
        assert answer == fresh.solve(facts)
        calls.append(answer)
        return answer

    monkeypatch.setattr(reasoner, "solve", checked)
    for line in ["we're out of tomatoes and lettuce", "the soft taco now costs $9.99", "yes",
                 "add a new dish called Garden Bowl", "it's a bowl", "$4.49", "with black beans and rice",
                 "380 calories", "none", "the bean burrito costs a million dollars", "undo",
                 "tomatoes are back", "what's out?"]:
        chat.turn(line)
    assert len(calls) >= 13 and any(answer.get("reject") for answer in calls)


def conversation_facts():
    """The facts of the assistant's calls over a short conversation, as a chat makes them."""
    from automanager import paths
    from automanager.acts import CUSTOMER_ACTS
    from automanager.bots.assistant import context
    from automanager.bots.base import new_facts, split_next
    from automanager.language.customer_parser import CustomerParser
    from automanager.menu.model import Menu
    from automanager.state import State

    parser, fresh, state, calls = CustomerParser(Menu.load(paths.kb_files())), None, State(), []
    for line in ["two soft tacos and a large pepsi", "no onions on the taco", "that's all", "no"]:
        acts = parser.parse(line, context(state)).acts
        calls.append([atom("runout", "Tomatoes"), *state.holds(), *new_facts(acts, CUSTOMER_ACTS)])
        fresh = fresh or Reasoner([*paths.kb_files(), *assistant_rules()])
        state = split_next(fresh.solve(calls[-1])).state
    return calls


def assistant_rules():
    from automanager import paths
    from automanager.bots.assistant import PROGRAM

    return [paths.data_dir("crs") / "crs.lp", PROGRAM]


def new_process(monkeypatch):
    """Forget what this process keeps in memory, as a new process would start (once the caches
    the last one keeps in the background are written)."""
    import threading

    from automanager.reasoner import TurnReasoner

    for thread in threading.enumerate():
        if thread.name == KEEPER:
            thread.join()
    monkeypatch.setattr(TurnReasoner, "_programs", {})
    monkeypatch.setattr(TurnReasoner, "_grounded", {})


def test_a_new_process_reads_the_kb_from_the_cache_and_answers_the_same(tmp_path, monkeypatch):
    from automanager import paths
    from automanager.reasoner import Grounded, TurnReasoner

    calls, cache = conversation_facts(), tmp_path / "cache"
    fresh = Reasoner([*paths.kb_files(), *assistant_rules()])
    expected = [fresh.solve(facts) for facts in calls]
    new_process(monkeypatch)
    first = TurnReasoner(paths.kb_files(), assistant_rules(), cache)
    assert [first.solve(facts) for facts in calls] == expected
    first._keeping.join()
    assert len(list(cache.glob("kb-*.cache"))) == 1 and len(list(cache.glob("rules-*.cache"))) == 1
    new_process(monkeypatch)
    monkeypatch.setattr(Grounded, "of", None)  # the KB text is not read again: nothing to make facts of
    again = TurnReasoner(paths.kb_files(), assistant_rules(), cache)
    assert [again.solve(facts) for facts in calls] == expected
    again.warm()  # every part parsed now; the answers stay the same
    assert [again.solve(facts) for facts in calls] == expected


@pytest.mark.parametrize("damage", ["garbage", "truncated", "byte", "unreadable"])
def test_a_damaged_cache_is_rebuilt_and_the_answers_stay_the_same(tmp_path, monkeypatch, damage):
    """A cache file cut short, changed or made of junk is not used (its digest does not match);
    one whose digest matches but clingo cannot read is not used either. Either is written anew."""
    from automanager import paths
    from automanager.files import read_cache, write_cache
    from automanager.reasoner import TurnReasoner

    calls, cache = conversation_facts()[:2], tmp_path / "cache"
    fresh = Reasoner([*paths.kb_files(), *assistant_rules()])
    expected = [fresh.solve(facts) for facts in calls]
    new_process(monkeypatch)
    TurnReasoner(paths.kb_files(), assistant_rules(), cache).warm()
    new_process(monkeypatch)
    for path in cache.iterdir():
        data = path.read_bytes()
        if damage == "garbage":
            path.write_bytes(b"\x00\xff junk")
        elif damage == "truncated":
            path.write_bytes(data[:len(data) // 2])
        elif damage == "byte":
            path.write_bytes(data[:-10] + bytes([data[-10] ^ 1]) + data[-9:])
        else:  # a valid digest over facts (or base rules) clingo cannot read
            saved, text = read_cache(path)
            write_cache(path, saved, text.replace("(", "((", 3) if path.name.startswith("kb-") else
                        text.replace(":-", ":- :-", 1))
    new_process(monkeypatch)
    assert [TurnReasoner(paths.kb_files(), assistant_rules(), cache).solve(facts) for facts in calls] == expected
    new_process(monkeypatch)
    reread = TurnReasoner(paths.kb_files(), assistant_rules(), cache)
    assert [reread.solve(facts) for facts in calls] == expected
    new_process(monkeypatch)
    assert all(read_cache(path)[0] is not None for path in cache.iterdir())


def test_a_kb_that_facts_cannot_stand_for_is_parsed_every_time(tmp_path, monkeypatch):
    """A #const, a rule or a constraint in the KB, or a fact said twice, is not kept as facts:
    the KB text is read by each new Control."""
    from automanager.reasoner import TurnReasoner

    rules = write(tmp_path, "rules.lp", "ok(X) :- item(X), go.\n#show ok/1.\n")
    for name, text in [("const", "#const n = 2.\nitem(1..n).\n"), ("constraint", "item(1). item(2).\n:- item(3).\n"),
                       ("rule", "item(1). item(2) :- item(1).\n"), ("twice", "item(1). item(2). item(1).\n")]:
        kb = write(tmp_path, f"{name}.lp", text)
        for _process in range(2):
            new_process(monkeypatch)
            assert TurnReasoner([kb], [rules], tmp_path / name).solve([atom("go")]) == {"ok": [(1,), (2,)]}
        new_process(monkeypatch)
        assert not list((tmp_path / name).glob("kb-*")), name
    kb = write(tmp_path, "kb.lp", "item(1). item(2). other(3).\n")
    for _process in range(2):
        new_process(monkeypatch)
        assert TurnReasoner([kb], [rules], tmp_path / "facts").solve([atom("go")]) == {"ok": [(1,), (2,)]}
    new_process(monkeypatch)
    (kept,) = (tmp_path / "facts").glob("kb-*")
    facts = kept.read_text().split("asp 1 0 0")[1]
    assert "item(2)" in facts and "other" not in facts  # no rule mentions other/1


@pytest.mark.parametrize("text, facts", [
    ('p(1). q("a.b;c%d:-#x").\n', [("p", "p(1)"), ("q", 'q("a.b;c%d:-#x")')]),
    ('% a comment (x).\np((1,2), "say \\"hi\\"") .\n%* p(2). *%\nq.', [("p", 'p((1,2), "say \\"hi\\"")'), ("q", "q")]),
    ("p(1..3).", None), ("p(a;b).", None), ("p(X) :- q(X).", None), ("#const n = 1.", None),
    ("-p(1).", None), ("p(1)\n.", None), (":- p(1).", None), ("p(1)", None),
])
def test_only_plain_facts_are_read_from_the_kb_text(text, facts):
    """A KB's facts are taken as its text says them only when each statement is one plain fact."""
    from automanager.reasoner import kb_facts

    assert kb_facts([text]) == facts


def test_the_shipped_kbs_are_plain_facts():
    import clingo

    from automanager import paths
    from automanager.reasoner import kb_facts

    for folder in (None, paths.data_dir("kb") / "packs" / "pizza"):
        files = paths.kb_files(folder)
        ctl = clingo.Control()
        for path in files:
            ctl.load(str(path))
        ctl.ground([("base", [])])
        facts = kb_facts([path.read_text(encoding="utf-8") for path in files])
        assert facts is not None and sorted(str(clingo.parse_term(text)) for _, text in facts) == \
            sorted(str(atom.symbol) for atom in ctl.symbolic_atoms)
