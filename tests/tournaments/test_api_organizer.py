"""The tournament organizer's API: each panel action as an API call through the same
services (the same checks, caps and log entries), refused to strangers and to anonymous
callers, refusing bad input by naming the field, and never doing anything twice."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.services.organizer import game_end
from tests.games.web_support import make_user, token_client
from tests.tournaments.test_tournament_services import play_to_the_end
from tournaments.models import Registration, Round, Tournament, TournamentLog
from tournaments.services import results
from tournaments.services import tournaments as tsvc

pytestmark = pytest.mark.django_db

CREATE = {"name": "Bot Cup", "ruleset": "6x5", "table_sizes": [2], "rounds_count": 2}


def _staff(name: str = "olga"):
    user = make_user(name)
    user.is_staff = True  # a league administrator: enters other players
    user.save()
    return user


def _kinds(slug: str) -> list[str]:
    return list(
        TournamentLog.objects.filter(tournament__slug=slug).order_by("seq").values_list("kind", flat=True)
    )


def _created(api: APIClient, **changes) -> str:
    made = api.post("/api/tournaments/", {**CREATE, **changes}, format="json")
    assert made.status_code == 201, made.json()
    return made.json()["slug"]


def test_create_answers_the_organizers_view_and_logs_it():
    olga = _staff()
    api = token_client(olga)
    made = api.post("/api/tournaments/", {**CREATE, "tiebreaks": ["sonneborn_berger"]}, format="json")
    assert made.status_code == 201
    body = made.json()
    assert body["status"] == "draft" and body["organizer"] == "olga"
    assert [tb["key"] for tb in body["tiebreaks"]] == ["sonneborn_berger"]
    assert made["Location"].endswith(f"/api/tournaments/{body['slug']}/")
    assert [e["kind"] for e in body["log"]] == ["tournament_created"]
    assert Tournament.objects.get(slug=body["slug"]).organizer == olga
    # a draft: nobody else sees it
    assert token_client(make_user("ann")).get(f"/api/tournaments/{body['slug']}/organizer/").status_code == 404


def test_create_refuses_bad_input_by_naming_the_field():
    api = token_client(make_user("olga"))
    for bad, field in (
        ({"table_sizes": "x"}, "table_sizes"),
        ({"table_sizes": [7]}, "table_sizes"),
        ({"rounds_count": 0}, "rounds_count"),
        ({"name": "   "}, "name"),  # the service's own refusal, named
        ({"tiebreaks": ["coin"]}, "tiebreaks"),
        ({"forbidden_pairs": [["nobody1", "nobody2"]]}, "forbidden_pairs"),
        ({"colour": "red"}, "colour"),
    ):
        answer = api.post("/api/tournaments/", {**CREATE, **bad}, format="json")
        assert answer.status_code == 400, bad
        assert answer.json()["error"] == "invalid" and field in answer.json()["fields"], answer.json()
    assert not Tournament.objects.exists()


@pytest.mark.parametrize("bad", [
    {"quiet_hours_start": 22},  # without its end
    {"quiet_hours_start": 22, "quiet_hours_end": 6, "quiet_hours_time_zone": "Mars/Base"},
    {"points_per_place": {"3": [1, 0.5, 0]}},  # no table of three
    {"points_per_place": {"x": [1, 0]}},
    {"points_per_place": {"2": [0, 1]}},
    {"options": {"nope": 1}},
    {"options": []},
    {"ruleset": "chess"},
    {"rating_pool": "a b"},
    {"away_days": 2},
    {"name": "x\u0000y"},
    {"forbidden_pairs": [["ann"]]},
])
def test_create_answers_every_bad_setting_with_a_400(bad):
    # Guards against a 500 from a setting the service refuses (never a crash).
    make_user("ann")
    answer = token_client(make_user("olga")).post("/api/tournaments/", {**CREATE, **bad}, format="json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"] == "invalid" and answer.json()["message"]
    assert not Tournament.objects.exists()


def test_create_sent_twice_with_its_idempotency_key_makes_one_tournament():
    api = token_client(make_user("olga"))
    first = api.post("/api/tournaments/", CREATE, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = api.post("/api/tournaments/", CREATE, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["slug"] == first.json()["slug"]
    assert Tournament.objects.count() == 1 and _kinds(first.json()["slug"]) == ["tournament_created"]
    other = api.post("/api/tournaments/", {**CREATE, "rounds_count": 3}, format="json",
                     HTTP_IDEMPOTENCY_KEY="k-1")  # fmt: skip
    assert other.status_code == 422 and other.json()["error"] == "idempotency_key_reused"
    bad = api.post("/api/tournaments/", CREATE, format="json", HTTP_IDEMPOTENCY_KEY="a b")
    assert bad.status_code == 400 and "Idempotency-Key" in bad.json()["fields"]
    # another organizer's key is theirs alone; without a key, each call is a tournament
    theirs = token_client(make_user("bob")).post("/api/tournaments/", CREATE, format="json",
                                                 HTTP_IDEMPOTENCY_KEY="k-1")  # fmt: skip
    assert theirs.status_code == 201
    assert api.post("/api/tournaments/", CREATE, format="json").status_code == 201
    assert Tournament.objects.count() == 3


def test_create_needs_an_account():
    answer = APIClient().post("/api/tournaments/", CREATE, format="json")
    assert answer.status_code == 401 and not Tournament.objects.exists()
    # the list stays public
    assert APIClient().get("/api/tournaments/").status_code == 200


def test_strangers_and_anonymous_callers_are_refused_every_operation():
    olga = _staff()
    slug = _created(token_client(olga))
    tsvc.tournament_open(tournament=Tournament.objects.get(slug=slug), by=olga)
    ann = make_user("ann")
    tsvc.registration_add(tournament=Tournament.objects.get(slug=slug), user=ann)
    base = f"/api/tournaments/{slug}"
    calls = [
        ("get", f"{base}/organizer/", None),
        ("post", f"{base}/open/", {}),
        ("post", f"{base}/registrations/", {"player": "ann"}),
        ("post", f"{base}/registrations/ann/withdraw/", {}),
        ("post", f"{base}/rounds/", {}),
        ("post", f"{base}/rounds/by-hand/", {"tables": [["ann", "olga"]]}),
        ("post", f"{base}/rounds/1/repair/", {}),
        ("post", f"{base}/rounds/1/start/", {}),
        ("post", f"{base}/rounds/1/remind/", {}),
        ("post", f"{base}/rounds/1/extend/", {"hours": 2}),
        ("post", f"{base}/rounds/1/tables/1/result/", {"ranking": [["ann"]], "reason": "x"}),
        ("post", f"{base}/close/", {"confirm": True}),
        ("post", f"{base}/rename/", {"name": "Mine now"}),
        ("post", f"{base}/delete/", {"confirm": True}),
    ]
    stranger = token_client(make_user("bob"))
    before = _kinds(slug)
    for method, url, data in calls:
        refused = getattr(stranger, method)(url, data, format="json") if data is not None else stranger.get(url)
        assert refused.status_code == 403 and refused.json()["error"] == "forbidden", url
        anonymous = getattr(APIClient(), method)(url, data, format="json") if data is not None else APIClient().get(url)
        assert anonymous.status_code == 401, url
    assert _kinds(slug) == before
    assert Registration.objects.get(user=ann).status == "active"


def test_open_register_withdraw_and_their_second_times():
    olga = _staff()
    api = token_client(olga)
    slug = _created(api)
    base = f"/api/tournaments/{slug}"
    make_user("ann")

    opened = api.post(f"{base}/open/", {}, format="json")
    assert opened.status_code == 200 and opened.json()["status"] == "open"
    again = api.post(f"{base}/open/", {}, format="json")
    assert again.status_code == 409 and again.json()["error"] == "conflict"

    entered = api.post(f"{base}/registrations/", {"player": "ANN"}, format="json")
    assert entered.status_code == 201
    assert [r["player"] for r in entered.json()["registrations"]] == ["ann"]
    twice = api.post(f"{base}/registrations/", {"player": "ann"}, format="json")
    assert twice.status_code == 409 and twice.json()["error"] == "already_done"
    assert Registration.objects.filter(tournament__slug=slug).count() == 1
    unknown = api.post(f"{base}/registrations/", {"player": "annn"}, format="json")
    assert unknown.status_code == 400 and "player" in unknown.json()["fields"]
    assert api.post(f"{base}/registrations/", {}, format="json").json()["fields"].keys() == {"player"}

    gone = api.post(f"{base}/registrations/ann/withdraw/", {}, format="json")
    assert gone.status_code == 200
    assert gone.json()["registrations"][0]["status"] == "withdrawn"
    twice = api.post(f"{base}/registrations/ann/withdraw/", {}, format="json")
    assert twice.status_code == 409 and twice.json()["error"] == "already_done"
    assert api.post(f"{base}/registrations/zed/withdraw/", {}, format="json").status_code == 404
    assert api.post(f"{base}/registrations/a%00b/withdraw/", {}, format="json").status_code == 404
    assert _kinds(slug) == [
        "tournament_created", "tournament_opened", "registration_added", "registration_withdrawn",
    ]  # fmt: skip


def test_an_organizer_who_is_no_league_administrator_enters_nobody_else():
    olga = make_user("olga")
    api = token_client(olga)
    slug = _created(api)
    api.post(f"/api/tournaments/{slug}/open/", {}, format="json")
    make_user("ann")
    refused = api.post(f"/api/tournaments/{slug}/registrations/", {"player": "ann"}, format="json")
    assert refused.status_code == 403 and "league administrator" in refused.json()["message"]
    # an email address names nobody for them (the panel's rule)
    by_mail = api.post(f"/api/tournaments/{slug}/registrations/", {"player": "ann@example.com"},
                       format="json")  # fmt: skip
    assert by_mail.status_code == 400 and "player" in by_mail.json()["fields"]
    assert not Registration.objects.exists()


def _cup_with(api: APIClient, players: list[str], **changes) -> str:
    slug = _created(api, **changes)
    api.post(f"/api/tournaments/{slug}/open/", {}, format="json")
    for name in players:
        make_user(name)
        assert api.post(f"/api/tournaments/{slug}/registrations/", {"player": name},
                        format="json").status_code == 201  # fmt: skip
    return slug


def test_pairing_twice_is_one_round_and_starting_twice_one_set_of_games():
    api = token_client(_staff())
    slug = _cup_with(api, ["ann", "bob", "cat", "dan"])
    base = f"/api/tournaments/{slug}"
    paired = api.post(f"{base}/rounds/", {}, format="json")
    assert paired.status_code == 201 and paired.json()["status"] == "running"
    pairing = paired.json()["pairing"]
    assert len(pairing) == 16 and len(paired.json()["rounds"][0]["tables"]) == 2
    second = api.post(f"{base}/rounds/", {}, format="json")
    assert second.status_code == 409 and "paired already" in second.json()["message"]
    assert Round.objects.filter(tournament__slug=slug).count() == 1

    repaired = api.post(f"{base}/rounds/1/repair/", {"pairing": pairing}, format="json")
    assert repaired.status_code == 200
    if repaired.json()["pairing"] != pairing:  # (the new seed may seat them alike)
        # the same request again (a retry whose first attempt went through): not re-paired
        retried = api.post(f"{base}/rounds/1/repair/", {"pairing": pairing}, format="json")
        assert retried.status_code == 409 and retried.json()["error"] == "already_done"
        assert api.get(f"{base}/organizer/").json()["pairing"] == repaired.json()["pairing"]
    bad = api.post(f"{base}/rounds/1/start/", {"pairing": "not-a-digest"}, format="json")
    assert bad.status_code == 400 and "pairing" in bad.json()["fields"]
    started = api.post(f"{base}/rounds/1/start/", {"pairing": pairing}, format="json")
    if repaired.json()["pairing"] != pairing:  # (the new seed may seat them alike)
        assert started.status_code == 409 and "paired again" in started.json()["message"]
        started = api.post(f"{base}/rounds/1/start/", {"pairing": repaired.json()["pairing"]},
                           format="json")  # fmt: skip
    assert started.status_code == 200, started.json()
    games = [t["game"] for t in started.json()["rounds"][0]["tables"]]
    assert all(games) and started.json()["pairing"] == ""
    twice = api.post(f"{base}/rounds/1/start/", {}, format="json")
    assert twice.status_code == 409 and "already started" in twice.json()["message"]
    assert [t["game"] for t in api.get(f"{base}/organizer/").json()["rounds"][0]["tables"]] == games
    assert api.post(f"{base}/rounds/1/repair/", {}, format="json").status_code == 409
    assert api.post(f"{base}/rounds/7/start/", {}, format="json").status_code == 404
    assert _kinds(slug).count("round_started") == 1 and _kinds(slug).count("round_paired") == 2


def test_a_withdrawal_after_the_pairing_blocks_the_start_with_its_code():
    api = token_client(_staff())
    slug = _cup_with(api, ["ann", "bob", "cat", "dan"])
    base = f"/api/tournaments/{slug}"
    api.post(f"{base}/rounds/", {}, format="json")
    api.post(f"{base}/registrations/ann/withdraw/", {}, format="json")
    refused = api.post(f"{base}/rounds/1/start/", {}, format="json")
    assert refused.status_code == 409 and refused.json()["error"] == "withdrawn_since_pairing"
    assert Round.objects.get(tournament__slug=slug, number=1).status == Round.Status.PAIRED
    assert api.post(f"{base}/rounds/1/repair/", {}, format="json").status_code == 200
    assert api.post(f"{base}/rounds/1/start/", {}, format="json").status_code == 200
    # Started without her: only the three others at its tables (two-seat tables: a bye).
    started = Round.objects.get(tournament__slug=slug, number=1)
    assert started.status == Round.Status.STARTED
    seated = [rid for table in started.tables.all() for rid in table.players]
    names = list(Registration.objects.filter(pk__in=seated).values_list("user__username", flat=True))
    assert len(names) == len(seated) == len(set(seated)) >= 2
    assert set(names) <= {"bob", "cat", "dan"}


def test_pairing_by_hand_warns_then_pairs_when_forced():
    api = token_client(_staff())
    slug = _cup_with(api, ["ann", "bob", "cat", "dan"])
    base = f"/api/tournaments/{slug}"
    unknown = api.post(f"{base}/rounds/by-hand/", {"tables": [["ann", "zed"], ["cat", "dan"]]},
                       format="json")  # fmt: skip
    assert unknown.status_code == 400 and "tables" in unknown.json()["fields"]
    # two byes where none is needed: a warning, nothing saved
    warned = api.post(f"{base}/rounds/by-hand/", {"tables": [["ann", "bob"]], "byes": ["cat", "dan"]},
                      format="json")  # fmt: skip
    assert warned.status_code == 409 and warned.json()["error"] == "pairing_warnings"
    assert not Round.objects.filter(tournament__slug=slug).exists()
    forced = api.post(f"{base}/rounds/by-hand/",
                      {"tables": [["ann", "bob"]], "byes": ["cat", "dan"], "force": True},
                      format="json")  # fmt: skip
    assert forced.status_code == 201
    table = forced.json()["rounds"][0]["tables"]
    assert [t["players"] for t in table] == [["ann", "bob"]]
    same = api.post(f"{base}/rounds/by-hand/",
                    {"tables": [["ann", "bob"]], "byes": ["cat", "dan"], "force": True},
                    format="json")  # fmt: skip
    assert same.status_code == 409 and same.json()["error"] == "already_done"
    assert _kinds(slug).count("round_paired_by_hand") == 1
    other = api.post(f"{base}/rounds/by-hand/", {"tables": [["ann", "cat"], ["bob", "dan"]]},
                     format="json")  # fmt: skip
    assert other.status_code == 201  # re-paired by hand: another pairing
    assert [t["players"] for t in other.json()["rounds"][0]["tables"]] == [["ann", "cat"], ["bob", "dan"]]
    assert _kinds(slug).count("round_paired_by_hand") == 2


def test_remind_and_extend_reach_the_rounds_games():
    api = token_client(_staff())
    slug = _cup_with(api, ["ann", "bob", "cat", "dan"])
    base = f"/api/tournaments/{slug}"
    assert api.post(f"{base}/rounds/1/remind/", {}, format="json").status_code == 404  # no round
    api.post(f"{base}/rounds/", {}, format="json")
    early = api.post(f"{base}/rounds/1/extend/", {"hours": 2}, format="json")
    assert early.status_code == 409 and "not being played" in early.json()["message"]
    api.post(f"{base}/rounds/1/start/", {}, format="json")
    reminded = api.post(f"{base}/rounds/1/remind/", {}, format="json")
    assert reminded.status_code == 200
    again = api.post(f"{base}/rounds/1/remind/", {}, format="json")
    assert again.status_code == 409 and "Nobody to remind" in again.json()["message"]
    for bad in ({"hours": 0}, {"hours": 169}, {"hours": "2"}, {}):
        answer = api.post(f"{base}/rounds/1/extend/", bad, format="json")
        assert answer.status_code == 400 and "hours" in answer.json()["fields"], bad
    extended = api.post(f"{base}/rounds/1/extend/", {"hours": 5, "reason": "storm"}, format="json")
    assert extended.status_code == 200
    assert _kinds(slug).count("players_reminded") == 1 and _kinds(slug).count("deadlines_extended") == 1


def _decide(api: APIClient, slug: str, number: int, by, *, forfeit: bool = False) -> None:
    """End every table's game of round ``number``, then enter its result over the API:
    the first seat beats the second."""
    body = api.get(f"/api/tournaments/{slug}/organizer/").json()
    for table in body["rounds"][number - 1]["tables"]:
        from games.models import Game

        game_end(game=Game.objects.get(pk=table["game"]), by=by, reason="offline")
        answer = api.post(
            f"/api/tournaments/{slug}/rounds/{number}/tables/{table['number']}/result/",
            {"ranking": [[table["players"][0]], [table["players"][1]]], "reason": "played offline",
             "forfeit": forfeit},
            format="json",
        )  # fmt: skip
        assert answer.status_code == 200, answer.json()


def test_a_result_entered_once_its_bad_input_and_close():
    olga = _staff()
    api = token_client(olga)
    slug = _cup_with(api, ["ann", "bob"], rounds_count=1)
    base = f"/api/tournaments/{slug}"
    api.post(f"{base}/rounds/", {}, format="json")
    not_started = api.post(f"{base}/rounds/1/tables/1/result/",
                           {"ranking": [["ann"], ["bob"]], "reason": "x"}, format="json")  # fmt: skip
    assert not_started.status_code == 409  # the service's refusal: the round has not started
    body = api.post(f"{base}/rounds/1/start/", {}, format="json").json()
    table = body["rounds"][0]["tables"][0]
    url = f"{base}/rounds/1/tables/1/result/"
    playing = api.post(url, {"ranking": [["ann"], ["bob"]], "reason": "x"}, format="json")
    assert playing.status_code == 409 and "still being played" in playing.json()["message"]
    from games.models import Game

    game_end(game=Game.objects.get(pk=table["game"]), by=olga, reason="offline")
    for bad, field in (
        ({"ranking": [["ann"], ["zed"]], "reason": "x"}, "ranking"),
        ({"ranking": [["ann"], ["bob"]]}, "reason"),
        ({"ranking": [["ann"], ["bob"]], "reason": "x", "forfeit": True, "nobody_played": True},
         "nobody_played"),
        ({"reason": "x"}, "ranking"),
        ({"ranking": "ann > bob", "reason": "x"}, "ranking"),
    ):  # fmt: skip
        answer = api.post(url, bad, format="json")
        assert answer.status_code == 400 and field in answer.json()["fields"], (bad, answer.json())
    assert api.post(f"{base}/rounds/1/tables/9/result/", {"ranking": [["ann"]], "reason": "x"},
                    format="json").status_code == 404  # fmt: skip
    entered = api.post(url, {"ranking": [["bob"], ["ann"]], "reason": "forfeit", "forfeit": True},
                       format="json")  # fmt: skip
    assert entered.status_code == 200
    row = entered.json()["rounds"][0]["tables"][0]
    assert row["ranking"] == [["bob"], ["ann"]] and row["rated"] is False
    assert row["result_source"] == "organizer" and entered.json()["rounds"][0]["status"] == "finished"
    twice = api.post(url, {"ranking": [["bob"], ["ann"]], "reason": "forfeit", "forfeit": True},
                     format="json")  # fmt: skip
    assert twice.status_code == 409 and twice.json()["error"] == "already_done"
    assert _kinds(slug).count("result_entered") == 1 and "result_corrected" not in _kinds(slug)

    unconfirmed = api.post(f"{base}/close/", {}, format="json")
    assert unconfirmed.status_code == 400 and "confirm" in unconfirmed.json()["fields"]
    assert api.post(f"{base}/close/", {"confirm": False}, format="json").status_code == 400
    closed = api.post(f"{base}/close/", {"confirm": True}, format="json")
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    again = api.post(f"{base}/close/", {"confirm": True}, format="json")
    assert again.status_code == 409 and again.json()["error"] == "already_done"
    assert _kinds(slug).count("tournament_closed") == 1


def test_a_scripted_tournament_from_creation_to_close(django_capture_on_commit_callbacks):
    """create -> register 5 -> pair round 1 -> games played -> pair round 2 -> close,
    read back through the API as a league's bot would."""
    olga = _staff()
    api = token_client(olga)
    names = ["ann", "bob", "cat", "dan", "eve"]
    slug = _cup_with(api, names)
    base = f"/api/tournaments/{slug}"

    one = api.post(f"{base}/rounds/", {}, format="json").json()
    assert len(one["rounds"][0]["tables"]) == 2 and len(one["rounds"][0]["byes"]) == 1
    started = api.post(f"{base}/rounds/1/start/", {"pairing": one["pairing"]}, format="json").json()
    from games.models import Game

    first, second = started["rounds"][0]["tables"]
    with django_capture_on_commit_callbacks(execute=True):
        play_to_the_end(Game.objects.get(pk=first["game"]))  # played out: its own result
    results.results_collect()
    game_end(game=Game.objects.get(pk=second["game"]), by=olga, reason="offline")
    assert api.post(f"{base}/rounds/1/tables/2/result/",
                    {"ranking": [[second["players"][1]], [second["players"][0]]],
                     "reason": "played over the board"}, format="json").status_code == 200  # fmt: skip
    after_one = api.get(f"{base}/").json()
    assert after_one["rounds"][0]["status"] == "finished"
    assert after_one["rounds"][0]["tables"][0]["result_source"] == "game"

    two = api.post(f"{base}/rounds/", {}, format="json")
    assert two.status_code == 201 and [r["number"] for r in two.json()["rounds"]] == [1, 2]
    api.post(f"{base}/rounds/2/start/", {}, format="json")
    early = api.post(f"{base}/close/", {"confirm": True}, format="json")
    assert early.status_code == 409  # round 2 is being played
    _decide(api, slug, 2, olga)
    assert api.post(f"{base}/rounds/", {}, format="json").status_code == 409  # every round played
    closed = api.post(f"{base}/close/", {"confirm": True}, format="json")
    assert closed.status_code == 200

    final = APIClient().get(f"{base}/").json()  # public
    assert final["status"] == "closed" and final["rounds_paired"] == 2
    standings = final["standings"]
    assert sorted(s["player"] for s in standings) == names
    # Tallied from the rounds' own tables and byes: 1 for a win at a table of two, each
    # bye its points; a player's games are the tables they sat at.
    tally = dict.fromkeys(names, 0.0)
    seated = dict.fromkeys(names, 0)
    for rnd in final["rounds"]:
        for table in rnd["tables"]:
            for name in table["players"]:
                seated[name] += 1
            if len(table["ranking"]) == 2:
                tally[table["ranking"][0][0]] += 1
            else:  # a draw shares the places' points
                for name in table["ranking"][0]:
                    tally[name] += 0.5
        for bye in rnd["byes"]:
            tally[bye["player"]] += bye["points"]
    assert {s["player"]: s["points"] for s in standings} == tally
    assert {s["player"]: s["played"] for s in standings} == seated
    assert [s["points"] for s in standings] == sorted((s["points"] for s in standings), reverse=True)
    assert standings[0]["rank"] == 1
    kinds = _kinds(slug)
    assert kinds.count("round_paired") == 2 and kinds.count("round_started") == 2
    assert kinds[-1] == "tournament_closed"


def test_the_organizers_operations_are_throttled_with_the_organizer_tools(settings):
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "organizer": "2/min"},
    }
    api = token_client(_staff())
    slug = _created(api)  # one
    assert api.post(f"/api/tournaments/{slug}/open/", {}, format="json").status_code == 200  # two
    refused = api.post(f"/api/tournaments/{slug}/rounds/", {}, format="json")
    assert refused.status_code == 429 and refused.json()["error"] == "throttled"
    assert refused["RateLimit-Limit"] == "2" and refused["Retry-After"]
    assert not Round.objects.exists()
    assert api.get(f"/api/tournaments/{slug}/organizer/").status_code == 200  # reads are not counted


def test_staff_run_anyones_tournament_and_are_logged_as_themselves():
    olga = make_user("olga")
    slug = _created(token_client(olga))
    staff = token_client(_staff("sam"))
    opened = staff.post(f"/api/tournaments/{slug}/open/", {}, format="json")
    assert opened.status_code == 200
    assert opened.json()["log"][0]["kind"] == "tournament_opened"
    assert opened.json()["log"][0]["actor"] == "sam"


def test_the_schema_documents_every_organizer_operation(client):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    base = "/api/tournaments/{slug}/"
    posts = [base + tail for tail in (
        "open/", "registrations/", "registrations/{player}/withdraw/", "rounds/",
        "rounds/by-hand/", "rounds/{number}/repair/", "rounds/{number}/start/",
        "rounds/{number}/remind/", "rounds/{number}/extend/",
        "rounds/{number}/tables/{table}/result/", "close/", "rename/", "delete/",
    )]  # fmt: skip
    for route in posts:
        responses = set(paths[route]["post"]["responses"])
        assert {"400", "401", "403", "404", "409", "429"} <= responses, route
    assert "Idempotency-Key" in [p["name"] for p in paths["/api/tournaments/"]["post"]["parameters"]]
    extend = paths[base + "rounds/{number}/extend/"]["post"]
    assert "Idempotency-Key" in [p["name"] for p in extend["parameters"]]
    assert "422" in extend["responses"]
