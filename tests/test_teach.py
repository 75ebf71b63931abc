"""Issue 28: the manager teaches a phrase customers said as another name (an alias) of a menu
item, published as a menu version like any change, or marks it as something we don't sell.
Issue 37: every alias is read back first (a yes stages it); a phrase customers mean something else
by (an answer, "that's all", a number, a word many menu names share) is refused saying why; and
teaching from the dashboard stages only the alias, never publishing other pending changes.
Bot level (ManagerChat, CustomerChat) and service level (POST /api/unheard/teach), on both packs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from automanager import paths
from automanager.service.app import create_app
from automanager.star import CustomerChat, ManagerChat
from automanager.store import Home

# (pack, an item, a phrase no customer is understood by yet, a line teaching it)
PACKS = [
    ("default", "Crunchy Taco", "lava crunch", "when customers say 'lava crunch', they mean the crunchy taco"),
    ("pizza", "Fanta", "fizzy orange", "fizzy orange means the fanta"),
]


def home_of(tmp_path: Path, pack: str) -> Home:
    return Home(tmp_path, paths.pack_dir("pizza")) if pack == "pizza" else Home(tmp_path)


def ordered(chat: CustomerChat, line: str) -> list[str]:
    return [str(pred) for pred in chat.turn(line).parsed if pred.startswith("order(")]


@pytest.mark.parametrize(("pack", "item", "phrase", "line"), PACKS)
def test_a_taught_phrase_is_published_and_ordered_by(tmp_path, pack, item, phrase, line):
    home = home_of(tmp_path, pack)
    before = CustomerChat(home)
    assert not any(item in said for said in ordered(before, f"could I get a {phrase}"))
    manager = ManagerChat(home)
    asked = manager.turn(line)
    assert f'Teach "{phrase}" as another name of {item}' in asked.reply and asked.pending == []
    taught = manager.turn("yes")
    assert f'Customers who say "{phrase}" will get {item}' in taught.reply
    assert taught.pending == [f'add {item}: customers say "{phrase}"']
    assert home.latest_version() == 0  # staged, not published
    saved = manager.turn("save")
    assert "version 1" in saved.reply and home.latest_version() == 1
    row = home.history(1)[0]
    assert (row["action"], row["item"], row["property"], row["new"]) == ("add", item, "alias", phrase)
    customer = CustomerChat(home)  # a new customer orders by the phrase
    assert ordered(customer, f"two {phrase} please") == [f"order({item!r}, 2)"]


def test_a_customer_who_ordered_nothing_yet_catches_up(tmp_path):
    home = Home(tmp_path)
    waiting = CustomerChat(home)
    manager = ManagerChat(home)
    manager.turn("teach lava crunch as the crunchy taco")
    manager.turn("yes")
    manager.turn("save")
    waiting.catch_up()
    assert ordered(waiting, "a lava crunch please") == ["order('Crunchy Taco', 1)"]


def test_a_phrase_is_normalized_as_names_are(tmp_path):
    home = Home(tmp_path)
    manager = ManagerChat(home)
    manager.turn("  LAVA   Crunch!! means the crunchy taco")
    manager.turn("yes")
    manager.turn("save")
    assert ordered(CustomerChat(home), "one lava crunch") == ["order('Crunchy Taco', 1)"]


@pytest.mark.parametrize(("line", "said"), [
    ("gordita means the bean burrito", '"gordita" already means Cheesy Gordita Crunch'),  # another item's alias
    ("soft taco means the bean burrito", 'Customers who say "soft taco" already get Soft Taco'),  # another's name
    ("soft tacos means the bean burrito", 'Customers who say "soft tacos" already get Soft Taco'),  # its plural
    ("lava crunch means the zorp platter", "is not on the menu"),
])
def test_an_alias_that_would_mean_two_things_is_refused(tmp_path, line, said):
    manager = ManagerChat(Home(tmp_path))
    turn = manager.turn(line)
    assert said in turn.reply
    assert turn.pending == []
    assert "no pending changes" in manager.turn("save").reply


def test_an_alias_staged_for_one_item_is_refused_for_another(tmp_path):
    manager = ManagerChat(Home(tmp_path))
    manager.turn("lava crunch means the crunchy taco")
    manager.turn("yes")
    turn = manager.turn("lava crunch means the bean burrito")
    assert '"lava crunch" already means Crunchy Taco' in turn.reply
    assert len(turn.pending) == 1


def test_a_taught_alias_can_be_taken_off(tmp_path):
    home = Home(tmp_path)
    manager = ManagerChat(home)
    manager.turn("lava crunch means the crunchy taco")
    manager.turn("yes")
    manager.turn("save")
    off = manager.turn("lava crunch no longer means the crunchy taco")
    assert '"lava crunch" will no longer mean Crunchy Taco' in off.reply
    manager.turn("save")
    assert home.latest_version() == 2
    assert "order('Crunchy Taco', 1)" not in ordered(CustomerChat(home), "a lava crunch please")


def test_undo_takes_back_a_staged_alias(tmp_path):
    manager = ManagerChat(Home(tmp_path))
    manager.turn("lava crunch means the crunchy taco")
    manager.turn("yes")
    assert "Undone" in manager.turn("undo").reply
    assert manager.staged() == []


@pytest.mark.parametrize(("phrase", "why"), [
    ("yes", "something customers say to answer or finish"),
    ("no", "something customers say to answer or finish"),
    ("that's all", "something customers say to answer or finish"),
    ("cancel", "something customers say to answer or finish"),
    ("nope", "something customers say to answer or finish"),
    ("two", "is a number"),
    ("3", "is a number"),
    ("twenty one", "is a number"),
    ("supreme", "a word many things on the menu share"),
    ("combo", "a word many things on the menu share"),
    ("seasoned beef", "a word many things on the menu share"),  # an ingredient's name
    *((word, "said around the names of many dishes") for word in ("the", "with", "extra", "more", "same", "again")),
])
def test_a_phrase_customers_mean_otherwise_is_refused(tmp_path, phrase, why):
    """Staged as an alias, 'no' would order the dish at every read-back question, and 'that's all'
    would never close an order: refused with the reason, nothing staged nor asked."""
    home = Home(tmp_path)
    manager = ManagerChat(home)
    turn = manager.turn(f'"{phrase}" means the bean burrito')
    assert why in turn.reply and "can't be taught" in turn.reply, turn.reply
    assert turn.pending == [] and not turn.actions.get("ask")
    assert "no pending changes" in manager.turn("save").reply and home.latest_version() == 0


def test_an_alias_is_read_back_and_no_leaves_it(tmp_path):
    home = Home(tmp_path)
    manager = ManagerChat(home)
    asked = manager.turn("lava crunch means the crunchy taco")
    assert asked.actions.get("ask") and asked.pending == []
    left = manager.turn("no")
    assert '"lava crunch" is not taught' in left.reply and left.pending == []
    assert "no pending changes" in manager.turn("save").reply
    asked = manager.turn("lava crunch means the crunchy taco")
    kept = manager.turn("save")  # a save while it is asked asks again first: nothing passes unread
    assert 'Teach "lava crunch"' in kept.reply and home.latest_version() == 0


# ---- the service --------------------------------------------------------------------------------

def service(home: Home) -> tuple[TestClient, dict[str, str]]:
    app = create_app(home)
    client = TestClient(app)
    return client, {"Authorization": f"Bearer {app.state.service.token}"}


def lane_says(client: TestClient, line: str) -> dict:
    lane = client.post("/api/lanes").json()
    return client.post(f"/api/lanes/{lane['lane']}/turns", json={"text": line},
                       headers={"Authorization": f"Bearer {lane['token']}"}).json()


def open_lane(client: TestClient) -> tuple[str, dict[str, str]]:
    lane = client.post("/api/lanes").json()
    return lane["lane"], {"Authorization": f"Bearer {lane['token']}"}


@pytest.mark.parametrize(("pack", "item", "phrase", "_line"), PACKS)
def test_service_teaches_a_phrase_customers_said(tmp_path, pack, item, phrase, _line):
    home = home_of(tmp_path, pack)
    client, manager = service(home)
    with client:
        lane, token = open_lane(client)
        for _ in range(2):
            client.post(f"/api/lanes/{lane}/turns", json={"text": f"can I get a {phrase}"}, headers=token)
        heard = client.get("/api/unheard", headers=manager).json()
        assert {"phrase": phrase, "count": 2} in [{k: row[k] for k in ("phrase", "count")} for row in heard]
        answer = client.post("/api/unheard/teach", json={"phrase": phrase.upper(), "item": item.lower()},
                             headers=manager)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["status"] == "asking" and body["asking"] and body["menu_version"] == 0 and body["pending"] == []
        assert f'Teach "{phrase}" as another name of {item}' in body["reply"]
        staged = client.post("/api/manager/answer", json={"yes": True}, headers=manager).json()
        assert f'Customers who say "{phrase}" will get {item} once you save' in staged["reply"]
        assert staged["menu_version"] == 0 and home.heard(phrase)["status"] == "open"
        saved = client.post("/api/save", headers=manager).json()
        assert "version 1" in saved["reply"] and saved["menu_version"] == 1
        assert phrase in [row["phrase"] for row in client.get("/api/unheard?status=taught", headers=manager).json()]
        assert phrase not in [row["phrase"] for row in client.get("/api/unheard", headers=manager).json()]
        fresh = lane_says(client, f"one {phrase} please")
        assert fresh["lines"] and fresh["lines"][0]["item"] == item and fresh["menu_version"] == 1
        # the first lane ordered nothing yet: it catches up with the new version
        again = client.post(f"/api/lanes/{lane}/turns", json={"text": f"one {phrase} please"}, headers=token).json()
        assert again["lines"] and again["lines"][0]["item"] == item


def test_service_marks_a_phrase_not_sold(tmp_path):
    home = Home(tmp_path)
    client, manager = service(home)
    with client:
        lane_says(client, "can I get a lava crunch")
        answer = client.post("/api/unheard/teach", json={"phrase": "lava crunch", "item": None}, headers=manager)
        assert answer.status_code == 200 and answer.json()["status"] == "not_sold"
        assert home.heard("lava crunch")["status"] == "not_sold"
        assert home.latest_version() == 0
        listed = client.get("/api/unheard?status=not_sold", headers=manager).json()
        assert [row["phrase"] for row in listed] == ["lava crunch"]


def test_service_teach_needs_the_manager_token(tmp_path):
    home = Home(tmp_path)
    client, _manager = service(home)
    with client:
        lane_says(client, "can I get a lava crunch")
        _lane, lane_token = open_lane(client)
        for headers in ({}, lane_token, {"Authorization": "Bearer nope"}):
            for item in ("Crunchy Taco", None):
                answer = client.post("/api/unheard/teach", json={"phrase": "lava crunch", "item": item}, headers=headers)
                assert answer.status_code == 401 and answer.json()["status"] == 401
        assert home.latest_version() == 0 and home.heard("lava crunch")["status"] == "open"


@pytest.mark.parametrize(("body", "status", "said"), [
    ({"phrase": "never said this", "item": "Crunchy Taco"}, 404, "no customer said"),
    ({"phrase": "never said this", "item": None}, 404, "no customer said"),
    ({"phrase": "lava crunch", "item": "zorp platter"}, 404, "not an item on the menu"),
    ({"phrase": "gordita", "item": "Bean Burrito"}, 409, "already means Cheesy Gordita Crunch"),
    ({"phrase": "", "item": "Bean Burrito"}, 422, "phrase"),
    ({"phrase": "lava crunch", "item": ""}, 422, "item"),
    ({"phrase": "lava crunch", "item": "Bean Burrito", "more": 1}, 422, "more"),
])
def test_service_teach_errors_are_json(tmp_path, body, status, said):
    home = Home(tmp_path)
    client, manager = service(home)
    with client:
        lane_says(client, "can I get a lava crunch")
        lane_says(client, "could I have a gordita")  # understood: never listed, but say it was
        home.note_unheard(["gordita"])
        answer = client.post("/api/unheard/teach", json=body, headers=manager)
        assert answer.status_code == status, answer.text
        assert answer.json()["status"] == status and said in answer.json()["error"]
        assert home.latest_version() == 0
        assert home.heard("lava crunch")["status"] == "open"


def test_teaching_on_the_dashboard_stages_only_the_alias(tmp_path):
    """A price and a rule are pending, unsaved: teaching reads the alias back, a yes stages it
    beside them, and nothing is published until the manager saves (it used to publish all three
    and say both 'once you save' and 'Applied 3 changes')."""
    home = Home(tmp_path)
    client, manager = service(home)
    with client:
        lane_says(client, "can I get a lava crunch")
        said = [("text", "the soft taco now costs $1.79"),
                ("text", "nobody orders more than two cheesy gordita crunches per car")]
        for field, line in said:
            client.post("/api/manager/turns", json={field: line}, headers=manager)
        ruled = client.post("/api/manager/answer", json={"yes": True}, headers=manager).json()
        assert len(ruled["pending"]) == 2, ruled
        asked = client.post("/api/unheard/teach", json={"phrase": "lava crunch", "item": "Crunchy Taco"},
                            headers=manager).json()
        assert asked["status"] == "asking" and len(asked["pending"]) == 2 and "Applied" not in asked["reply"]
        staged = client.post("/api/manager/answer", json={"yes": True}, headers=manager).json()
        assert staged["reply"] == 'Customers who say "lava crunch" will get Crunchy Taco once you save.'
        assert len(staged["pending"]) == 3 and staged["menu_version"] == 0
        assert home.latest_version() == 0 and home.heard("lava crunch")["status"] == "open"
        saved = client.post("/api/save", headers=manager).json()
        assert "Applied 3 changes" in saved["reply"] and home.heard("lava crunch")["status"] == "taught"


@pytest.mark.parametrize("phrase", ["no", "that's all", "two"])
def test_service_refuses_to_teach_a_dialogue_word_or_number(tmp_path, phrase):
    home = Home(tmp_path)
    client, manager = service(home)
    with client:
        home.note_unheard([phrase])
        answer = client.post("/api/unheard/teach", json={"phrase": phrase, "item": "Bean Burrito"}, headers=manager)
        assert answer.status_code == 409 and "can't be taught" in answer.json()["error"], answer.text
        assert client.get("/api/pending", headers=manager).json()["pending"] == []
        assert home.latest_version() == 0
