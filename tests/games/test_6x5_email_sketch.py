"""6x5 by email: the board and the goals drawn in text (an email-only player had only
coordinate lists: "blue: 1,0 0,-1" and a goal "0,0 1,0 2,0 0,1 1,1" to picture)."""

from __future__ import annotations

from games.email_views import hex_sketch, sixbyfive


def test_hexes_are_drawn_with_their_neighbours_around_them():
    # K at 0,0; its neighbours 1,0 (right), 0,1 (below right), -1,1 (below left) and
    # 0,-1 (above left), as 6x5.md's axial coordinates have them.
    cells = {(0, 0): "K", (1, 0): "B", (0, 1): "R", (-1, 1): "Y", (0, -1): "B"}
    assert hex_sketch(cells) == [
        "  r=-1  B",
        "  r= 0   K B",
        "  r= 1  Y R",
    ]
    assert hex_sketch({}) == []


def test_the_turn_email_draws_the_board_and_the_seats_goal():
    view = {
        "phase": "turn", "turn": 3, "pending": ["ann"],
        "board": {"0,0": "K", "1,0": "B", "0,1": "R"},
        "pawns": {"ann": "1,0"}, "reserve": {"BLUE": 7, "RED": 7, "YELLOW": 8}, "deck": 20,
        "players": {"ann": {"points": 0, "goal_count": 1,
                            "goals": [[[0, 0], [1, 0], [2, 0], [0, 1], [1, 1]]]},
                    "bob": {"points": 0, "goal_count": 1}},
    }  # fmt: skip
    text = sixbyfive(view, "ann")
    assert "Sketch (K black, B blue, R red, Y yellow):\n  r=0  K B\n  r=1   R\n" in text
    assert "  1. 0,0 1,0 2,0 0,1 1,1\n       r=0  o o o\n       r=1   o o\n" in text
    # At the start (the black tile alone) there is nothing to draw.
    start = sixbyfive({**view, "board": {"0,0": "K"}}, "ann")
    assert "Sketch" not in start


def test_points_are_shown_only_when_the_game_scores_them():
    """A player's journey: '0 points' beside every seat of a game without Scoring Points
    (the ``target`` option), on the page and in the email."""
    from django.template.loader import render_to_string

    view = {
        "phase": "turn", "turn": 3, "pending": ["ann"], "options": {"target": 0},
        "board": {"0,0": "K", "1,0": "B"}, "pawns": {"ann": "1,0"},
        "reserve": {"BLUE": 7, "RED": 8, "YELLOW": 8}, "deck": 20,
        "players": {"ann": {"points": 0, "goal_count": 1, "goals": []},
                    "bob": {"points": 0, "goal_count": 1}},
    }  # fmt: skip
    assert "\n  ann (you): 1 goal\n  bob: 1 goal" in sixbyfive(view, "ann")
    scored = {**view, "options": {"target": 3}}
    assert "\n  ann (you): 0 points, 1 goal\n  bob: 0 points, 1 goal" in sixbyfive(scored, "ann")
    page = render_to_string("games/rulesets/6x5.html", {"v": view, "waiting": []})
    assert "<th>Points</th>" not in page
    assert "<th>Points</th>" in render_to_string("games/rulesets/6x5.html", {"v": scored, "waiting": []})


def test_the_end_email_keeps_a_seat_names_case():
    """"Game over after turn 7. Bob wins" for seat bob (an audit): a seat name is
    case-significant in orders, so it is never capitalised; other results start a sentence."""
    players = {"bob": {"points": 0, "goal_count": 1}, "ann": {"points": 0, "goal_count": 1}}
    won = {"phase": "over", "turn": 7, "result": "bob wins: bob's goal 0,0 1,0 is complete",
           "players": players}  # fmt: skip
    assert sixbyfive(won, "ann").startswith("Game over after turn 7. bob wins: bob's goal")
    drawn = {**won, "result": "the reserve is empty and nobody has won: the game is a draw"}
    assert sixbyfive(drawn, "ann").startswith("Game over after turn 7. The reserve is empty and nobody")
