"""The table station: button or page → capture → scan → store → push to every open page.

:class:`Station` (:mod:`beachscore.station.station`) is what the table does, independent of any
web page; ``web`` calls it and ``beachscore.serving`` builds it. Beside it: the data folder's
:mod:`~beachscore.station.store`, the :mod:`~beachscore.station.events` bus the pages listen to,
the calibration :mod:`~beachscore.station.wizard`, the :mod:`~beachscore.station.outbox` and
:mod:`~beachscore.station.hall_link` to a tournament hall, and test doubles in
:mod:`~beachscore.station.testing`. Nothing here imports ``web``, ``hall`` or the command line.
"""

from beachscore.station.station import CALIBRATION_SETTING, ScanRequest, Station, calibrate_from_clicks, encode

__all__ = ["CALIBRATION_SETTING", "ScanRequest", "Station", "calibrate_from_clicks", "encode"]
