"""Calibration: the files a user hands in (profile, calibration shot) and the learned result on disk."""
