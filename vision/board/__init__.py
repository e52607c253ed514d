"""The board stage: undistort → markers → outline → motion → identity, behind :func:`locate`.

:mod:`~vision.board.geometry` (corners, homographies), :mod:`~vision.board.markers` (ArUco),
:mod:`~vision.board.strips` (strips across the outline), :mod:`~vision.board.motion` (a bump of
the board, and what counts as moved), :mod:`~vision.board.identity` (is it the calibrated board?),
:mod:`~vision.board.references` (what the calibration keeps of the board),
:mod:`~vision.board.undistort` (the lens at calibration), :mod:`~vision.board.stage` (the stage).
"""

from vision.board.stage import Located, locate

__all__ = ["Located", "locate"]
