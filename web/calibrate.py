"""The calibration wizard: take (or upload) a shot, click corners and pieces, save → calibrate."""

from __future__ import annotations

import json

from flask import Blueprint, current_app, jsonify, render_template, request

from beachscore.errors import BadInputError
from beachscore.station.wizard import calibrate_from_clicks
from calibration.advice import FOUND_BY_ITSELF, PART_WORDS, words_of
from calibration.profiles import GAMES as DEFAULT_PROFILE_GAMES
from calibration.profiles import default_profile as load_default
from web.errors import error_response
from web.inputs import MAX_JSON_DEPTH, MAX_LABEL_CHARS, MAX_SAMPLES, body_id, json_body, json_depth, loads

bp = Blueprint("calibrate", __name__)

LABELS = {
    "strand-unter": ["shell/white", "shell/gray", "shell/brown", "shell/black", "castle/{p}/0", "castle/{p}/1",
                     "castle/{p}/2", "castle/{p}/3", "sandpiper", "sea", "sand"],
    "plazing": ["piece/{p}", "screen/{p}/N", "screen/{p}/S", "screen/{p}/E", "screen/{p}/W", "meeple/{p}",
                "neutral", "resource/amber", "resource/shell", "resource/pebble", "trash", "surprise", "sand"],
    "seashells": ["shell", "empty", "fossil/head", "fossil/tail", "sand_dollar", "bottle"],
    "sand-castles": ["wave", "wall", "space", "castle_piece", "slot"],
}
DEFAULT_PLAYERS = ["red", "yellow", "green", "blue"]
#: What each game's calibration shot must hold (what ``calibrate`` refuses to go without, and
#: what it cannot read unless labelled); the wizard's step 1 says it for the chosen board.
SHOT_NEEDS = {
    "strand-unter": "the sea cloth, at least one shell of each colour (white, gray, brown, black) and a castle "
                    "of each player's colour (players are learned from their castles); the sandpiper too, "
                    "for scans to find it",
    "plazing": "a piece or a screen of each player's colour and one of each other kind the scans should read "
               "(meeples, neutral, amber, shell, pebble, trash, surprise); the wizard does not learn the "
               "terrain's look, so each game's terrain is entered on the Game page",
    "seashells": "a player's mat with at least one shell on a towel place and one free towel place; "
                 "fossil heads and tails, sand dollars and bottles in the basket for scans to tell them apart",
    "sand-castles": "at least one wave, one empty lane space, one castle piece and one empty castle slot; "
                    "a wall too, for scans to find walls",
}


def classes_in_words(game: str, classes: list[str], labels: list[str]) -> list[dict]:
    """The calibration's classes as the wizard lists them: one entry per thing a player labelled
    (a colour with its labelled values folded in) and one per class learned without a label.

    Args:
        game: the calibration's game; classes: what it learned (``learned_classes``); labels: the
            labels of the wizard's samples.
    Returns:
        ``[{"words", "classes": [class, ...], "labelled": bool, "detail": str}]``, labelled first.

    >>> [(e["words"], e["detail"], e["labelled"]) for e in classes_in_words(
    ...     "strand-unter", ["castle/red", "castle/red/0", "castle/red/2", "sea", "stick"],
    ...     ["castle/red/0", "castle/red/2", "sea"])]
    [('red castles', 'values 0, 2', True), ('the sea cloth', '', True), ("the sea's stick", "the stick under the sea cloth's edge: learned so that nothing there counts as a piece", False)]
    """
    groups: dict[str, dict] = {}
    for cls in classes:
        parts = cls.split("/")
        head = "/".join(parts[:2]) if len(parts) >= 3 else cls
        entry = groups.setdefault(head, {"words": words_of(game, head), "classes": [], "labelled": False,
                                         "values": []})
        entry["classes"].append(cls)
        if len(parts) >= 3:
            entry["values"].append("/".join(parts[2:]))
    for head, entry in groups.items():
        entry["labelled"] = any(label == head or label.startswith(head + "/") for label in labels)
        values, part = entry.pop("values"), PART_WORDS.get(head.split("/")[0], "")
        part = "values" if part == "value" and len(values) > 1 else part
        entry["detail"] = (f"{part + ' ' if part else ''}{', '.join(values)}" if values
                           else "" if entry["labelled"] else FOUND_BY_ITSELF.get(head, "learned from the shot by itself"))
    return sorted(groups.values(), key=lambda e: not e["labelled"])


def station():
    return current_app.extensions["station"]


def label_choices(game: str, players: list[str]) -> list[str]:
    """Every label the game's calibration knows, ``{p}`` expanded per player colour.

    >>> label_choices("seashells", ["red"])[:2]
    ['shell', 'empty']
    """
    out = []
    for label in LABELS.get(game, []):
        out.extend(label.format(p=p) for p in players) if "{p}" in label else out.append(label)
    return out


@bp.get("/calibrate")
def page():
    st = station()
    game = st.store.current_game()
    cal = st.calibration
    players = list(DEFAULT_PLAYERS)
    if game and isinstance(game["setup"].get("players"), (list, dict)):
        players = list(dict.fromkeys([*game["setup"]["players"], *players]))
    labels = {g: label_choices(g, players) for g in LABELS}
    label_words = {g: {label: words_of(g, label) for label in ls} for g, ls in labels.items()}
    return render_template("calibrate.html", labels=labels, label_words=label_words, shot_needs=SHOT_NEEDS,
                           profile=cal.profile if cal is not None else None,
                           default_profiles=DEFAULT_PROFILE_GAMES,
                           default_game=(cal.game if cal is not None else game["game"] if game else "strand-unter"))


@bp.post("/api/calibration/shot")
def shot():
    """Take a calibration shot with the camera: → ``{"photo_id"}``."""
    return jsonify({"photo_id": station().take_photo("calibration")}), 201


@bp.post("/api/calibration/upload")
def upload():
    """Upload a calibration shot (multipart field ``photo``, ≤ MAX_CONTENT_LENGTH): → ``{"photo_id"}``.

    JPEG and PNG are kept byte for byte (no second lossy encoding); other formats become PNG
    (:meth:`beachscore.station.Station.add_upload`); 409 ``busy`` while another photo is read.
    """
    f = request.files.get("photo")
    if f is None:
        raise BadInputError("file-missing", "no photo in the upload")
    return jsonify({"photo_id": station().add_upload(f.read())}), 201


@bp.get("/api/calibration/profiles/<game>")
def default_profile(game: str):
    """The boxed board's default profile of a game (``calibration/profiles/<game>.json``); 404 for others."""
    if game not in DEFAULT_PROFILE_GAMES:
        return error_response("not-found", f"no default profile for {game[:40]!r}", 404)
    return jsonify(load_default(game))


@bp.post("/api/calibration")
def save():
    """``{"photo_id", "corners_px": [[x,y]×4], "samples": [{"label","px"}], "profile"?: {...} | "default_profile"?:
    game, "empty_photo_id"?: id}`` → calibrate.

    ``default_profile`` names a game whose boxed board's profile (package data) is used;
    ``empty_photo_id`` is an optional shot of the empty board (same view), passed to calibration
    as ``empty_image``. Without ``profile`` or ``default_profile`` the current calibration's profile is used. The profile is checked by
    ``calibration.files.validate_profile`` (as ``beachscore calibrate`` does); anything wrong is a
    400 and the station keeps its current calibration. Returns
    ``{"game", "classes", "preview_photo_id", "confusable": [{"classes": [a, b], "advice"}]}``: the pairs
    of classes the shot's light cannot tell apart (empty on a good table); ``classes_in_words``: the
    classes as the wizard lists them (:func:`classes_in_words`).
    """
    body = json_body()
    photo_id = body_id(body, "photo_id")
    samples = body.get("samples")
    if isinstance(samples, list):
        if len(samples) > MAX_SAMPLES:
            raise BadInputError("too-many-samples", f"{len(samples)} samples; at most {MAX_SAMPLES}")
        for i, sample in enumerate(samples):
            label = sample.get("label") if isinstance(sample, dict) else None
            if isinstance(label, str) and len(label) > MAX_LABEL_CHARS:
                raise BadInputError("invalid-json", f"sample {i + 1}: label of {len(label)} characters; "
                                    f"at most {MAX_LABEL_CHARS}")
    st = station()
    empty_photo_id = body_id(body, "empty_photo_id") if body.get("empty_photo_id") is not None else None
    profile = body.get("profile")
    if body.get("default_profile") is not None:
        if profile is not None:
            raise BadInputError("invalid-json", "send either profile or default_profile, not both")
        if not isinstance(body["default_profile"], str):
            raise BadInputError("invalid-json", "default_profile: expected a game name")
        profile = load_default(body["default_profile"])
    if isinstance(profile, str):
        try:
            profile = loads(profile)
        except json.JSONDecodeError as exc:
            raise BadInputError("invalid-json", f"profile.json: {exc.msg}") from None
        except RecursionError:
            raise BadInputError("invalid-json", f"profile.json: nested deeper than {MAX_JSON_DEPTH} levels") from None
        except ValueError as exc:  # e.g. an integer with thousands of digits
            raise BadInputError("invalid-json", f"profile.json: {str(exc)[:120]}") from None
        if json_depth(profile) > MAX_JSON_DEPTH:
            raise BadInputError("invalid-json", f"profile.json: nested deeper than {MAX_JSON_DEPTH} levels")
    if profile is None:
        if st.calibration is None:
            raise BadInputError("no-profile", "no current calibration to take the board profile from: "
                                "choose the board's profile.json")
        profile = st.calibration.profile
    if not isinstance(profile, dict):
        raise BadInputError("invalid-json", "profile must be a JSON object")
    out = calibrate_from_clicks(st, photo_id, profile, body.get("corners_px"), samples, empty_photo_id)
    labels = [s["label"] for s in samples if isinstance(s, dict) and isinstance(s.get("label"), str)]
    return jsonify({**{k: out[k] for k in ("game", "classes", "preview_photo_id", "confusable")},
                    "classes_in_words": classes_in_words(out["game"], out["classes"], labels)}), 201
