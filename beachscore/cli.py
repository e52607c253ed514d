"""The ``beachscore`` command line (contract: ``shared/contracts/README.md`` §Commands).

Exit codes: 0 read and scored, 2 bad input, 3 the board cannot be read reliably,
1 an internal error (reported in one line, never a traceback).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from beachscore import __version__
from beachscore.commands.common import EXIT_BAD_INPUT, EXIT_INTERNAL, emit_error
from beachscore.errors import CODED_ERRORS, BadInputError, BeachscoreError
from scoring.errors import InvalidStateError



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
    s.add_argument("--previous", metavar="READING.json",
                   help="an earlier reading of this game on this table (a scan --json or game --json line, or a "
                        "state) as the prior: adds 'changes' and 'impossible'")

    g = sub.add_parser("game", help="read photos in order as one game (each with the reading before it as its prior)")
    g.add_argument("images", nargs="+", metavar="IMAGE", help="the game's photos, in play order")
    g.add_argument("--calibration", required=True, metavar="CAL_DIR", help="folder written by 'beachscore calibrate'")
    g.add_argument("--setup", metavar="SETUP.json", help="setup file (Plażing: terrain, players, weather …)")
    g.add_argument("--json", action="store_true", help="one JSON object per photo, then the game's final line")
    g.add_argument("--closer", action="append", default=[], metavar="PLACE=PLAYER",
                   help="Plażing: who closed an area the photos could not tell (its place as the game's lines "
                        "name it, e.g. N5-N7=red); repeat for each area")

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


#: The module (and its function) behind each command.
COMMANDS = {"calibrate": ("beachscore.commands.calibrate", "run"), "scan": ("beachscore.commands.scan", "run"),
            "game": ("beachscore.commands.game", "run"),
            "score": ("beachscore.commands.score", "run"), "serve": ("beachscore.commands.serve", "run"),
            "markers": ("beachscore.commands.markers", "run"), "standings": ("beachscore.commands.event", "standings"),
            "seat": ("beachscore.commands.event", "seating"), "hall": ("beachscore.commands.hall_server", "run")}


def run_command(args) -> int:
    """Import the module of ``args.command`` (only that one) and run it; returns the exit code."""
    module, function = COMMANDS[args.command]
    return getattr(importlib.import_module(module), function)(args)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``beachscore`` console script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    as_json = "--json" in argv
    try:
        args = build_parser().parse_args(argv)
        return run_command(args)
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_INTERNAL
    except CODED_ERRORS as err:
        emit_error(err, as_json)
        return err.exit_code
    except Exception as err:  # noqa: BLE001 - the contract forbids tracebacks on the user's terminal
        if not isinstance(err, InvalidStateError):
            return _internal(err, as_json)
        problems = getattr(err, "problems", None) or [str(err)]
        bad = BadInputError("invalid-state", "; ".join(problems))
        emit_error(bad, as_json)
        return EXIT_BAD_INPUT


def _internal(err: Exception, as_json: bool) -> int:
    emit_error(BeachscoreError("internal-error", f"{type(err).__name__}: {err}"), as_json)
    if os.environ.get("BEACHSCORE_DEBUG"):
        raise err
    return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
