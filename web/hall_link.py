"""The station's *Hall* page: pair with a tournament hall, see the table's players, follow the reports.

Registered with the link itself by :func:`attach` (``beachscore serve`` calls it); changes go
through the station's PIN and CSRF guard like every other form.
"""

from __future__ import annotations

from flask import Blueprint, current_app, flash, jsonify, redirect, render_template, request, url_for

from beachscore.station.hall_link import HallLink, HallLinkError

bp = Blueprint("hall_link", __name__)

#: Colours offered for "who plays which colour" when the current game names none.
COLOURS = ("red", "yellow", "green", "blue", "black", "white")


def link():
    return current_app.extensions["hall_link"]


def _game_players() -> list[str]:
    game = current_app.extensions["station"].store.current_game()
    players = (game or {}).get("setup", {}).get("players")
    names = ((game or {}).get("display") or {}).get("names") or {}
    found = [p for p in players if isinstance(p, str)] if isinstance(players, list) else []
    return found or list(names) or list(COLOURS)


@bp.get("/hall")
def page():
    problem = None
    try:
        link().refresh_assignment()
    except HallLinkError as err:
        problem = err.message
    return render_template("hall_link.html", status=link().status(), colours=_game_players(), problem=problem)


@bp.get("/api/hall")
def status():
    return jsonify(link().status())


@bp.post("/hall/pair")
def pair():
    try:
        link().pair(request.form.get("hall_url", ""), request.form.get("code", ""),
                    request.form.get("name", "") or "station")
        flash("Paired with the hall.")
    except HallLinkError as err:
        flash(err.message)
    return redirect(url_for("hall_link.page"))


@bp.post("/hall/seats")
def seats():
    chosen = {}
    for key, value in request.form.items():
        if key.startswith("seat_") and value:
            chosen[value] = key[5:]  # colour -> hall player id
    link().set_seats(chosen)
    flash("Saved who plays which colour.")
    return redirect(url_for("hall_link.page"))


@bp.post("/hall/unpair")
def unpair():
    link().unpair()
    flash("Unpaired: results are no longer sent to the hall.")
    return redirect(url_for("hall_link.page"))


def init_app(app) -> None:
    app.register_blueprint(bp)

    @app.context_processor
    def _hall_nav():
        return {"hall_link_enabled": True}


def attach(app, station, **options) -> HallLink:
    """Give the station's web app its *Hall* page and start the link; call :meth:`HallLink.close` at shutdown.

    The hook ``beachscore serve`` needs: after ``create_app``, ``link = attach(app, station)``.
    """
    hall_link = HallLink(station, **options).start()
    app.extensions["hall_link"] = hall_link
    init_app(app)
    return hall_link
