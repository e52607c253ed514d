"""The ``beachscore`` command line (contract: ``shared/contracts/README.md`` §Commands).

Exit codes: 0 read and scored, 2 bad input, 3 the board cannot be read reliably,
1 an internal error (reported in one line, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from beachscore import __version__
from beachscore.errors import BadInputError, BeachscoreError

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT, EXIT_UNREADABLE = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors are bad input: exit 2, one line
        command = self.prog.removeprefix("beachscore").strip()  # "beachscore: error:" is printed before it
        raise BadInputError("usage", f"{command + ': ' if command else ''}{message} (see beachscore "
                            f"{command + ' ' if command else ''}--help)")


def port_number(text: str) -> int:
    """``--port``: a TCP port 0..65535 (0: any free one); argparse reports anything else as a usage error.

    >>> port_number("8080")
    8080
    """
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: a number 1..65535") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{number} is not a port: a number 1..65535")
    return number


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand; usage errors raise BadInputError (exit 2)."""
    p = _Parser(prog="beachscore", description="Read a beach board game from a photo and score it.",
                epilog="Exit codes: 0 read and scored, 2 bad input, 3 the board cannot be read reliably, "
                       "1 internal error.")
    p.add_argument("--version", action="version", version=f"beachscore {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    c = sub.add_parser("calibrate", help="learn the board and the pieces' appearance from a calibration shot")
    c.add_argument("calibration", metavar="CALIBRATION.json",
                   help="profile, calibration photo, board corners and labelled pieces (see the README)")
    c.add_argument("--out", required=True, metavar="CAL_DIR", help="folder to write the learned calibration to")
    c.add_argument("--json", action="store_true", help="print a JSON summary")

    s = sub.add_parser("scan", help="read and score photos")
    s.add_argument("images", nargs="+", metavar="IMAGE")
    s.add_argument("--calibration", required=True, metavar="CAL_DIR", help="folder written by 'beachscore calibrate'")
    s.add_argument("--setup", metavar="SETUP.json", help="setup file, or inline JSON such as '{\"player\": \"ana\"}'")
    s.add_argument("--json", action="store_true", help="one JSON object per image on stdout")
    s.add_argument("--annotate", metavar="OUT", help="annotated picture (a folder when several images)")

    sc = sub.add_parser("score", help="score a game state given as JSON")
    sc.add_argument("state", nargs="+", metavar="STATE.json",
                    help="a game state or scan output; several Seashells mats (states or scans) are merged")
    sc.add_argument("--setup", metavar="SETUP.json", help="off-board facts (players' buckets, terrain, weather …)")
    sc.add_argument("--json", action="store_true", help="print the contract's JSON instead of the explanation")
    sc.add_argument("--explain", action="store_true", help="with --json: add the explanation text as 'explanation'")

    sv = sub.add_parser("serve", help="run the table station (camera, button, web page)")
    sv.add_argument("--camera", default=None, help="picamera2 | opencv[:INDEX] | file:PATH | mock (default: $BEACHSCORE_CAMERA, else auto)")
    sv.add_argument("--button", default=None, help="GPIO pin of the scan button, e.g. 17 or GPIO17; 'none' to disable")
    sv.add_argument("--port", type=port_number, default=8080, help="web page port (default: %(default)s)")
    sv.add_argument("--host", default="0.0.0.0", help="address to listen on (default: %(default)s, the LAN)")
    sv.add_argument("--data", default=None, metavar="DIR", help="where games, scans and photos are kept")
    sv.add_argument("--calibration", default=None, metavar="CAL_DIR",
                    help="calibration to scan with (default: the last one the station used)")
    sv.add_argument("--led", default=None, help="GPIO pin of the status LED; 'none' to disable")
    sv.add_argument("--buzzer", default=None, help="GPIO pin of an active buzzer; 'none' to disable")

    st = sub.add_parser("standings", help="standings of a tournament after the rounds in its event file")
    st.add_argument("event", metavar="EVENT.json", help="the event file (shared/contracts/tournament.md)")
    st.add_argument("--json", action="store_true", help="print the contract's JSON")

    se = sub.add_parser("seat", help="seating of a tournament's next round")
    se.add_argument("event", metavar="EVENT.json", help="the event file (shared/contracts/tournament.md)")
    se.add_argument("--seed", type=int, default=None, help="seed of the first round's random draw")
    se.add_argument("--json", action="store_true", help="print the contract's JSON")

    h = sub.add_parser("hall", help="run the tournament hall server that stations report to")
    h.add_argument("--db", default=None, metavar="URL",
                   help="SQLAlchemy database URL, e.g. postgresql+psycopg://user:pw@host/db "
                        "(default: an SQLite file in --data)")
    h.add_argument("--data", default=None, metavar="DIR",
                   help="where the hall keeps photos and its SQLite file (default: $BEACHSCORE_HALL_DATA, "
                        "else ~/.local/share/beachscore-hall)")
    h.add_argument("--host", default="0.0.0.0", help="address to listen on (default: %(default)s, the LAN)")
    h.add_argument("--port", type=int, default=8090, help="port (default: %(default)s)")

    m = sub.add_parser("markers", help="write a printable sheet of the profile's ArUco markers at true size "
                                        "(or, with --charuco, the lens sheet)")
    m.add_argument("profile", metavar="PROFILE.json", nargs="?")
    m.add_argument("--charuco", action="store_true",
                   help="write the ChArUco sheet that calibrate measures the lens on (calibration.json 'charuco_image')")
    m.add_argument("--out", required=True, metavar="FILE.png|FILE.pdf", help="where to write the sheet")
    m.add_argument("--dpi", type=int, default=300, help="print resolution of a PNG sheet (default: %(default)s)")
    return p


def load_setup(value: str | None) -> dict | None:
    """Read ``--setup``: a path to a JSON file, or inline JSON text starting with ``{``.

    Raises:
        BadInputError: missing file or invalid JSON.
    """
    from beachscore.inputs import parse_json_text
    from calibration.files import load_object

    if value is None:
        return None
    if value.lstrip()[:1] in ("{", "["):
        data = parse_json_text(value, "--setup")
        if not isinstance(data, dict):
            raise BadInputError("invalid-json", "--setup: expected a JSON object")
        return data
    return load_object(value, "setup file")


def _emit_error(err: BeachscoreError, as_json: bool) -> None:
    if as_json:
        print(json.dumps(err.to_json()), flush=True)
    print(f"beachscore: error: {err.message} [{err.code}]", file=sys.stderr, flush=True)


def cmd_calibrate(args) -> int:
    """``beachscore calibrate``: learn CAL_DIR from calibration.json; prints a summary."""
    from beachscore.pipeline import calibrate
    from calibration.files import load_calibration_request

    cal = calibrate(args.calibration, args.out)
    learned = cal.model.get("classes") if isinstance(cal.model.get("classes"), dict) else {}
    classes = sorted({label for label, _ in load_calibration_request(args.calibration).samples} | set(learned))
    summary = {"game": cal.game, "calibration": os.path.abspath(args.out), "classes": classes}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"calibrated {cal.game}: {len(classes)} classes learned, written to {args.out}")
    return EXIT_OK


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
    from calibration.store import atomic_write_image

    try:
        atomic_write_image(path, result.annotate())
    except (OSError, ValueError) as exc:
        raise BadInputError("annotate-path", f"cannot write {path}: {exc}") from None


def cmd_scan(args) -> int:
    """``beachscore scan``: read and score each photo in order; returns the worst exit code."""
    from beachscore.inputs import check_calibration_dir
    from beachscore.pipeline import scan_file
    from beachscore.report import scan_text
    from calibration import store

    check_calibration_dir(args.calibration)
    cal = store.load(args.calibration)
    setup = load_setup(args.setup)
    targets = plan_annotations(args.annotate, args.images) if args.annotate else [None] * len(args.images)
    worst = EXIT_OK
    for path, target in zip(args.images, targets):
        try:
            result = scan_file(path, cal, setup)
            if target:
                _write_annotation(target, result)
        except BeachscoreError as err:
            _emit_error(err, args.json)
            worst = max(worst, err.exit_code)
            continue
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
        else:
            print(scan_text(path, result), flush=True)
    return worst


def cmd_score(args) -> int:
    """Score one state, or merge several Seashells mats (``scoring.seashells_mats.merge_mats``) and score them.

    Each STATE.json is a state or a ``scan --json`` output (its ``state`` is used). With several,
    every one must be a Seashells mat; ``--setup`` may name unnamed mats (``players``) and give
    ``scoring`` / ``sun``. Errors: missing file or invalid JSON → exit 2; states that cannot be
    merged or scored (another game, a player on two mats) → exit 2 ``invalid-state``.
    """
    import scoring
    from calibration.files import load_object

    paths = args.state if isinstance(args.state, list) else [args.state]
    docs = [load_object(path, "state file") for path in paths]
    states = [doc["state"] if isinstance(doc.get("state"), dict) else doc for doc in docs]
    setup = load_setup(args.setup)
    if len(states) == 1:
        state = states[0]
    else:
        from scoring.seashells_mats import merge_mats

        state = merge_mats(states, setup)
    t0 = time.perf_counter()
    result = scoring.score(state, setup)  # validates first: InvalidStateError lists every problem
    score_ms = round((time.perf_counter() - t0) * 1e3, 2)
    if args.json:
        out = {"game": state.get("game"), "state": scoring.complete_state(state, setup), "score": result,
               "confidence": 1.0, "warnings": [],
               "timing_ms": {"decode": 0.0, "register": 0.0, "detect": 0.0, "score": score_ms}}
        if args.explain:
            out["explanation"] = scoring.explain(state, setup)
        print(json.dumps(out))
    else:
        print(scoring.explain(state, setup))
    return EXIT_OK


def cmd_serve(args) -> int:
    """``beachscore serve``: run the table station until stopped."""
    from beachscore.serving import run

    return run(args)


def load_event(path: str):
    """Read EVENT.json as a :class:`tournament.Event`; a file that breaks the contract is bad input (exit 2)."""
    from calibration.files import load_object
    from tournament import Event, InvalidEventError

    doc = load_object(path, "event file")
    try:
        return Event.from_json(doc)
    except InvalidEventError as err:
        raise BadInputError("invalid-event", f"event file {path}: " + "; ".join(err.problems[:5])
                            + (f" (and {len(err.problems) - 5} more)" if len(err.problems) > 5 else "")) from None


def cmd_standings(args) -> int:
    """``beachscore standings``: the standings after the rounds in the event file."""
    from tournament import standings_json
    from tournament.text import standings_text

    event = load_event(args.event)
    print(json.dumps(standings_json(event)) if args.json else standings_text(event))
    return EXIT_OK


def cmd_seat(args) -> int:
    """``beachscore seat``: the seating of the next round (random first round with ``--seed``)."""
    from tournament import RoundOpenError, seat
    from tournament.text import seating_text

    event = load_event(args.event)
    try:
        nxt = seat(event, seed=args.seed)
    except RoundOpenError as err:  # the hall refuses the same way (hall.store.HallStore.start_round)
        raise BadInputError("round-open", f"event file {args.event}: {err}") from None
    print(json.dumps(nxt.to_json()) if args.json else seating_text(event, nxt))
    return EXIT_OK


def cmd_hall(args) -> int:
    """``beachscore hall``: run the hall server until stopped."""
    from beachscore.hall_server import run_hall

    return run_hall(args)


def cmd_markers(args) -> int:
    """``beachscore markers``: write the profile's ArUco markers at true size for printing."""
    from calibration.files import load_object, validate_profile
    from calibration.markers import write_charuco_sheet, write_marker_sheet

    if args.charuco:
        paths = write_charuco_sheet(args.out, dpi=args.dpi)
        print(f"lens sheet written to {', '.join(paths)} (an A4 page at true size; print at 100 %, lay it flat "
              "under the camera and name its photo as charuco_image in calibration.json)")
        return EXIT_OK
    if args.profile is None:
        raise BadInputError("missing-argument", "markers needs PROFILE.json (or --charuco for the lens sheet)")
    profile = validate_profile(load_object(args.profile, "profile"), args.profile)
    paths = write_marker_sheet(profile, args.out, dpi=args.dpi)
    print(f"marker sheet written to {', '.join(paths)} (A4 pages at true size; print at 100 %)")
    return EXIT_OK


COMMANDS = {"calibrate": cmd_calibrate, "scan": cmd_scan, "score": cmd_score, "serve": cmd_serve,
            "markers": cmd_markers, "standings": cmd_standings, "seat": cmd_seat, "hall": cmd_hall}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``beachscore`` console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    as_json = "--json" in argv
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_INTERNAL
    except BeachscoreError as err:
        _emit_error(err, as_json)
        return err.exit_code
    except Exception as err:  # noqa: BLE001 - the contract forbids tracebacks on the user's terminal
        from scoring.errors import InvalidStateError

        if not isinstance(err, InvalidStateError):
            return _internal(err, as_json)
        problems = getattr(err, "problems", None) or [str(err)]
        bad = BadInputError("invalid-state", "; ".join(problems))
        _emit_error(bad, as_json)
        return EXIT_BAD_INPUT


def _internal(err: Exception, as_json: bool) -> int:
    _emit_error(BeachscoreError("internal-error", f"{type(err).__name__}: {err}"), as_json)
    if os.environ.get("BEACHSCORE_DEBUG"):
        raise err
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
