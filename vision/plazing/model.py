"""Plażing learned model: what a calibration stores, parsed once per calibration for the reader.

Input: a loaded calibration. Output: :class:`ReaderModel` (cached per calibration).
"""

from __future__ import annotations

import numpy as np

from vision.errors import BadInputError
from vision.plazing.cells import ColourModel, colour_table
from vision.plazing.config import PALETTE
from vision.plazing.patterns import PatternModel
from vision.plazing.terrain import TerrainModel
from vision.plazing.tokens import TokenModel

PALETTE_PICTURE = "plazing_labels.png"  #: the colour lookup table, kept so a scan need not rebuild it
FRAME_PICTURE = "plazing_board.png"  #: the calibration's small board view: the frame is the lighting reference
MODEL_VERSION = 5  #: 5: the seam noise (seam_sd) measured with the full-size shot's detail


class ReaderModel:
    """The learned model, parsed once per calibration (the lookup table costs a few ms)."""

    _cache: dict = {}  #: (id, folder) → (calibration, model); the calibration is kept so its id is not reused

    def __init__(self, d: dict):
        if d.get("version") != MODEL_VERSION:
            raise BadInputError("calibration-outdated", "this calibration was made by an older Plażing reader; "
                                "run beachscore calibrate again")
        self.players = list(d["players"])
        self.colours = [ColourModel.from_json(c) for c in d["colours"]]
        self.median = np.array(d["median_bgr"], np.float32)
        self.tokens = TokenModel.from_json(d["tokens"])
        #: the centre spread of bare sand and each neutral-marker and resource class
        #: (:func:`~vision.plazing.flatness.learn_flatness`; None: a calibration made without it)
        self.flatness = d.get("flatness")
        #: the centre darkness of each resource class (:func:`~vision.plazing.darkness.learn_darkness`;
        #: None: a calibration made without it)
        self.darkness = d.get("darkness")
        #: the footprint of each meeple and resource class (:func:`~vision.plazing.footprint.learn_footprint`;
        #: None: a calibration made without it)
        self.footprint = d.get("footprint")
        self.patterns = PatternModel.from_json(d["patterns"])
        self.template = np.array(d["screen_template"], np.float64)
        self.player_gray = list(d["player_gray"])
        self.sharpness = float(d.get("sharpness", 0.0))
        self.seam_sd = d.get("seam_sd")  #: sd of the dip inside one piece (BGR levels), measured at calibration
        self.jog_sd = d.get("jog_sd")  #: sd of the outline's jog inside one piece (mm), measured at calibration
        self.mark_inks = d.get("mark_inks") or {}  #: mark → its ink's direction from sand at calibration
        self.terrain = TerrainModel.from_json(d.get("terrain"))
        sand = d.get("sand")
        self.sand = np.array(sand["bgr"], np.float32) if sand else None  #: (rows, cols, 3) calibration's cell sands
        self.sand_bare = np.array(sand["bare"], bool) if sand else None  #: (rows, cols) where it was bare
        self.table = None
        self.registration_levels: dict = {}
        self.last_refined: dict = {}  #: photo size → the last refined Registration
        self.reference_small = None
        #: what a scan derives from the calibration alone (the frame's sampled pixels, …), made on first use
        self.derived: dict = {}

    @classmethod
    def of(cls, cal) -> "ReaderModel":
        """The parsed model of a loaded calibration (cached).

        Raises:
            BadInputError: ``calibration-outdated`` for a model of another reader version.
        """
        key = (id(cal), cal.folder)
        hit = cls._cache.get(key)
        if hit is not None and hit[0] is cal:
            return hit[1]
        m = cls(cal.model)
        pic = cal.image(cal.model.get("palette_picture", PALETTE_PICTURE)) if cal.folder else None
        n = 1 << (3 * PALETTE.lut_bits)
        m.table = pic.reshape(-1) if pic is not None and pic.size == n else colour_table(m.colours)
        m.reference_small = cal.image(cal.model.get("board_picture", FRAME_PICTURE)) if cal.folder else None
        if len(cls._cache) >= 4:
            cls._cache.pop(next(iter(cls._cache)))
        cls._cache[key] = (cal, m)
        return m
