"""``beachscore scan``."""

from __future__ import annotations

import json
import os

from beachscore.checks import game_players
from beachscore.commands.common import EXIT_OK, emit_error, load_setup
from beachscore.commands.game import follow
from beachscore.errors import BadInputError, BeachscoreError
from beachscore.follow import FollowedGame, load_previous
from beachscore.inputs import check_calibration_dir
from beachscore.pipeline import scan_file
from beachscore.report import scan_text
from calibration import store
from calibration.store import atomic_write_image

ANNOTATE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def plan_annotations(out: str, images: list[str]) -> list[str]:
    """Where each image's annotated picture goes, checked before anything is scanned.

    One image: ``out`` is the picture's path (its folder is created). Several: ``out`` is a folder
    and each picture is ``<stem>.annotated.png`` (``<stem>-2…`` when two inputs share a stem).

    Raises:
        BadInputError: ``annotate-path`` when the target would overwrite an input photo, is a
            folder where a file is needed (or the reverse), has an unknown picture extension, or
            cannot be created.
    """
    inputs = {os.path.realpath(p) for p in images}
    if len(images) == 1:
        paths = [out]
        if os.path.isdir(out):
            raise BadInputError("annotate-path", f"--annotate {out}: is a folder; give a picture file name")
        if os.path.splitext(out)[1].lower() not in ANNOTATE_EXTENSIONS:
            raise BadInputError("annotate-path", f"--annotate {out}: use one of {', '.join(ANNOTATE_EXTENSIONS)}")
        folder = os.path.dirname(os.path.abspath(out))
    else:
        if os.path.exists(out) and not os.path.isdir(out):
            raise BadInputError("annotate-path", f"--annotate {out}: with several images this must be a folder")
        folder, paths, used = out, [], set()
        for image in images:
            stem = os.path.splitext(os.path.basename(image))[0]
            name, n = f"{stem}.annotated.png", 1
            while name in used:
                n += 1
                name = f"{stem}-{n}.annotated.png"
            used.add(name)
            paths.append(os.path.join(out, name))
    if any(os.path.realpath(p) in inputs for p in paths):
        raise BadInputError("annotate-path", f"--annotate {out}: would overwrite an input photo")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise BadInputError("annotate-path", f"--annotate {out}: cannot create {folder}: {exc.strerror}") from None
    if not os.access(folder, os.W_OK):
        raise BadInputError("annotate-path", f"--annotate {out}: folder {folder} is not writable")
    return paths


def _write_annotation(path: str, result) -> None:
    try:
        atomic_write_image(path, result.annotate())
    except (OSError, ValueError) as exc:
        raise BadInputError("annotate-path", f"cannot write {path}: {exc}") from None


def run(args) -> int:
    """``beachscore scan``: read and score each photo in order; returns the worst exit code."""
    check_calibration_dir(args.calibration)
    cal = store.load(args.calibration)
    setup = load_setup(args.setup)
    targets = plan_annotations(args.annotate, args.images) if args.annotate else [None] * len(args.images)
    if getattr(args, "previous", None):
        return _scan_after(args, cal, setup, targets)
    worst = EXIT_OK
    for path, target in zip(args.images, targets):
        try:
            result = scan_file(path, cal, setup)
            if target:
                _write_annotation(target, result)
        except BeachscoreError as err:
            emit_error(err, args.json, path if len(args.images) > 1 else None)
            worst = max(worst, err.exit_code)
            continue
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
        else:
            print(scan_text(path, result), flush=True)
    return worst


def _scan_after(args, cal, setup: dict | None, targets: list) -> int:
    """``scan --previous``: the photos read in order after the previous reading, each with the
    accepted reading before it as its prior (``changes``, ``impossible``; no final line)."""
    game = FollowedGame(cal, setup, load_previous(args.previous, cal.game, game_players(setup, cal)))

    def annotate(i: int, result) -> None:
        if targets[i]:
            _write_annotation(targets[i], result)

    return follow(game, args.images, args.json, annotate)
