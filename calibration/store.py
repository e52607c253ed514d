"""The calibration folder that ``beachscore calibrate`` writes and ``scan`` reads.

Layout of CAL_DIR (human-readable, versioned)::

    calibration.json    format, version, game, profile (copy), image size, corners, homography,
                        the learned appearance model of every labelled class
    reference.png       the calibration shot, grey, 1/4 size: registration refinement
    *.png               small pictures a game's learner chose to keep (class swatches …)

Writes are atomic (temporary file + rename) so a failed calibrate never leaves a half-written
folder behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.errors import CalibrationError
from vision.lens.model import Lens

FORMAT = "beachscore-calibration"
_UMASK = os.umask(0o022)
os.umask(_UMASK)
#: 2: the calibration may carry the camera's lens distortion (``lens``); its homography, reference
#: and learned pictures are then in the undistorted photo's pixels.
VERSION = 2
#: Versions :func:`load` reads: a version-1 calibration was learned without any distortion model,
#: which is what loading it with ``lens`` None does.
READABLE_VERSIONS = (1, 2)


@dataclass
class Calibration:
    """Everything ``scan`` needs, loaded from CAL_DIR.

    Attributes:
        game: game name.
        profile: the board profile dict.
        image_size: (width_px, height_px) of the calibration shot.
        H_px_from_mm: (3, 3) homography board mm → calibration-shot px (of the undistorted shot
            when ``lens`` is set).
        model: the game reader's learned appearance (JSON).
        reference: the calibration shot, grey uint8 at 1/4 size, or None.
        folder: CAL_DIR.
        extra: further saved fields (model version, board layout, outline …).
        lens: the camera's lens distortion (:class:`vision.lens.model.Lens`), or None for none.
        cache: derived data the scans build once per process (never saved).
    """

    game: str
    profile: dict
    image_size: tuple[int, int]
    H_px_from_mm: np.ndarray
    model: dict
    reference: np.ndarray | None = None
    folder: str = ""
    extra: dict = field(default_factory=dict)
    lens: Lens | None = None
    #: What scans derive from the calibration once per process (not saved).
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def image(self, name: str) -> np.ndarray | None:
        """Load a picture the learner saved in CAL_DIR (BGR or grey uint8), None if absent."""
        path = os.path.join(self.folder, name)
        return cv2.imread(path, cv2.IMREAD_UNCHANGED) if os.path.exists(path) else None


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file, fsync and rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_image(path: str, image: np.ndarray) -> None:
    """Encode ``image`` by the extension of ``path`` and write it atomically."""
    ok, buf = cv2.imencode(os.path.splitext(path)[1] or ".png", image)
    if not ok:
        raise OSError(f"cannot encode {path}")
    atomic_write_bytes(path, buf.tobytes())


def save(folder: str, cal: Calibration, pictures: dict[str, np.ndarray] | None = None) -> None:
    """Write a calibration to ``folder`` (created if needed), replacing one saved there before.

    Every file is written to a staging folder inside ``folder`` first; only when all are written
    are they moved into place (renames take no space), pictures first and calibration.json last,
    so that a full disk or a failed write leaves the calibration saved before untouched.

    Raises:
        OSError: a file cannot be written (the staging folder is removed, nothing else changed).
    """
    os.makedirs(folder, exist_ok=True)
    files = dict(pictures or {})
    if cal.reference is not None:
        files["reference.png"] = cal.reference
    doc = {"format": FORMAT, "version": VERSION, "game": cal.game, "profile": cal.profile,
           "image_size": list(cal.image_size), "H_px_from_mm": np.asarray(cal.H_px_from_mm).tolist(),
           "reference_image": "reference.png" if cal.reference is not None else None,
           "model": cal.model, "lens": cal.lens.to_json() if cal.lens is not None else None,
           **{k: v for k, v in cal.extra.items() if k not in ("checksum", "lens")}}
    doc["checksum"] = checksum(doc)
    staging = tempfile.mkdtemp(prefix=".staging-", dir=folder)
    try:
        for name, pic in files.items():
            atomic_write_image(os.path.join(staging, name), pic)
        atomic_write_bytes(os.path.join(staging, "calibration.json"), json.dumps(doc, indent=1).encode())
        for name in [*files, "calibration.json"]:
            os.replace(os.path.join(staging, name), os.path.join(folder, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def checksum(doc: dict) -> str:
    """SHA-256 of a calibration document without its ``checksum`` field (canonical JSON).

    A learned calibration is the product's output: one edited by hand (or damaged on disk) no
    longer matches and is refused with "recalibrate" instead of failing deep in a reader.
    """
    body = {k: v for k, v in doc.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def is_calibration(path: str) -> bool:
    """Whether ``path`` is the calibration.json of a learned calibration (any version)."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(doc, dict) and doc.get("format") == FORMAT


def is_calibration_request(doc: dict) -> bool:
    """Whether a calibration.json document is the user's input to ``beachscore calibrate`` (a profile
    and a photo to learn from) rather than a learned calibration.

    >>> is_calibration_request({"profile": "profile.json", "image": "calib.jpg", "samples": []})
    True
    >>> is_calibration_request({"format": FORMAT, "profile": {}, "image_size": [4, 3]})
    False
    """
    return "format" not in doc and isinstance(doc.get("profile"), str) and isinstance(doc.get("image"), str)


def load(folder: str) -> Calibration:
    """Load a calibration folder.

    Raises:
        CalibrationError: ``calibration-missing`` or ``calibration-invalid``.
    """
    path = os.path.join(folder, "calibration.json")
    if not os.path.isfile(path):
        raise CalibrationError("calibration-missing", f"{folder}: no calibration here (run 'beachscore calibrate' first)")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (ValueError, RecursionError):
        raise CalibrationError("calibration-invalid", f"{path}: not valid JSON; recalibrate") from None
    if isinstance(doc, dict) and doc.get("format") is None and is_calibration_request(doc):
        raise CalibrationError("calibration-invalid", f"{folder}: holds the files a calibration is learned from, "
                               "not a learned calibration; run 'beachscore calibrate "
                               f"{path} --out CAL_DIR' first and scan with --calibration CAL_DIR")
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise CalibrationError("calibration-invalid", f"{path}: not a beachscore calibration")
    if doc.get("checksum") != checksum(doc):
        raise CalibrationError("calibration-invalid", f"{path}: the calibration was changed after it was learned "
                               "(edited by hand or damaged); recalibrate")
    if doc.get("version") not in READABLE_VERSIONS:
        raise CalibrationError("calibration-invalid", f"{path}: calibration version {doc.get('version')!r} "
                               f"is not supported (expected {VERSION}); recalibrate")
    try:
        H = np.array(doc["H_px_from_mm"], dtype=np.float64).reshape(3, 3)
        cal = Calibration(game=doc["game"], profile=doc["profile"], image_size=tuple(doc["image_size"]),
                          H_px_from_mm=H, model=doc["model"], folder=folder, lens=Lens.from_json(doc.get("lens")),
                          extra={k: v for k, v in doc.items() if k not in (
                              "format", "version", "game", "profile", "image_size", "H_px_from_mm",
                              "reference_image", "model", "lens")})
        if cal.lens is not None and tuple(cal.lens.size) != tuple(cal.image_size):
            raise ValueError("lens size")
    except (KeyError, TypeError, ValueError, IndexError):
        raise CalibrationError("calibration-invalid", f"{path}: missing or malformed fields; recalibrate") from None
    if doc.get("reference_image"):
        ref_path = os.path.join(folder, doc["reference_image"])
        ref = cv2.imread(ref_path, cv2.IMREAD_GRAYSCALE) if os.path.isfile(ref_path) else None
        if ref is None:
            raise CalibrationError("calibration-invalid", f"{folder}: reference image is missing; recalibrate")
        cal.reference = ref
    return cal
