"""Bad input never gives a traceback: exit 2 and one clear line (contract §Errors)."""
from __future__ import annotations

import json
import os
import struct
import zlib

import cv2
import numpy as np
import pytest

from beachscore.cli import main

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "strand-unter")


def _run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _png_header(w, h):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk
            + struct.pack(">I", zlib.crc32(chunk)) + b"\x00" * 64)


def _bad_files(tmp):
    photo = open(os.path.join(EXAMPLE, "scene_05.jpg"), "rb").read()
    rng = np.random.default_rng(7)
    files = {
        "empty.jpg": b"",
        "truncated.jpg": photo[: len(photo) // 2],
        "random.jpg": rng.integers(0, 256, 5000, dtype=np.uint8).tobytes(),
        "text.jpg": b"this is not an image\n" * 20,
        "one_pixel.png": cv2.imencode(".png", np.zeros((1, 1, 3), np.uint8))[1].tobytes(),
        "huge.png": _png_header(40_000, 30_000),
    }
    paths = {}
    for name, data in files.items():
        p = tmp / name
        p.write_bytes(data)
        paths[name] = str(p)
    return paths


@pytest.mark.parametrize("name,code", [("empty.jpg", "image-empty"), ("truncated.jpg", ("image-truncated", "image-corrupt")),
                                       ("random.jpg", "image-corrupt"), ("text.jpg", "image-corrupt"),
                                       ("one_pixel.png", "image-too-small"), ("huge.png", "image-too-large")])
def test_bad_image_exit_2_one_line(tmp_path, capsys, strand_cal, name, code):
    path = _bad_files(tmp_path)[name]
    rc, out, err = _run(capsys, ["scan", path, "--calibration", strand_cal, "--json"])
    assert rc == 2
    got = json.loads(out)["error"]["code"]
    assert got in code if isinstance(code, tuple) else got == code
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_huge_header_refused_before_decoding(tmp_path, monkeypatch):
    from vision.image import decode as image_io

    called = []
    monkeypatch.setattr(image_io.cv2, "imdecode", lambda *a: called.append(1))
    with pytest.raises(image_io.BadInputError) as e:
        image_io.read_image(_bad_files(tmp_path)["huge.png"])
    assert e.value.code == "image-too-large" and not called


def test_missing_calibration(tmp_path, capsys):
    rc, out, err = _run(capsys, ["scan", os.path.join(EXAMPLE, "scene_05.jpg"), "--calibration", str(tmp_path), "--json"])
    assert rc == 2 and json.loads(out)["error"]["code"] == "calibration-missing"


def test_invalid_calibration(tmp_path, capsys):
    (tmp_path / "calibration.json").write_text("{not json")
    rc, out, _ = _run(capsys, ["scan", os.path.join(EXAMPLE, "scene_05.jpg"), "--calibration", str(tmp_path), "--json"])
    assert rc == 2 and json.loads(out)["error"]["code"] == "calibration-invalid"


def _calibration_with(tmp_path, label):
    doc = json.load(open(os.path.join(EXAMPLE, "calibration.json")))
    for k in ("profile", "image", "empty_image"):
        doc[k] = os.path.join(os.path.abspath(EXAMPLE), doc[k])
    doc["samples"].append({"label": label, "board_mm": [100, 100]})
    p = tmp_path / "calibration.json"
    p.write_text(json.dumps(doc))
    return str(p)


@pytest.mark.parametrize("label", ["shell/purple", "castle/red/7", "seagull"])
def test_unknown_label_named(tmp_path, capsys, label):
    rc, out, err = _run(capsys, ["calibrate", _calibration_with(tmp_path, label), "--out", str(tmp_path / "c"), "--json"])
    assert rc == 2
    e = json.loads(out)["error"]
    assert e["code"] == "unknown-label" and label in e["message"]
    assert not (tmp_path / "c" / "calibration.json").exists()


@pytest.mark.parametrize("text", ["{", "[1, 2]", '{"game": "strand-unter", "sea_front": "x"}'])
def test_invalid_state_json(tmp_path, capsys, text):
    p = tmp_path / "state.json"
    p.write_text(text)
    rc, out, err = _run(capsys, ["score", str(p), "--json"])
    assert rc == 2
    assert json.loads(out)["error"]["code"] in ("invalid-json", "invalid-state")
    assert len(err.strip().splitlines()) == 1


def test_the_input_folder_as_calibration_says_to_calibrate_first(capsys):
    """Issue 22: the folder holding the user's calibration.json (the input) is not a calibration:
    the error names the command to run with this folder's calibration.json."""
    rc, out, _ = _run(capsys, ["scan", os.path.join(EXAMPLE, "scene_05.jpg"), "--calibration", EXAMPLE, "--json"])
    message = json.loads(out)["error"]["message"]
    assert rc == 2 and "not a beachscore calibration" not in message
    assert f"beachscore calibrate {os.path.join(EXAMPLE, 'calibration.json')} --out" in message
