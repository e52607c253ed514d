"""The table station: button or page → capture → scan → store → push to every open page.

- :mod:`~beachscore.station.station`: :class:`Station`, what the table does, independent of any
  web page (requests, games, corrections, calibration photos); ``web`` calls it and
  ``beachscore.serving`` builds it.
- :mod:`~beachscore.station.scanning`: one scan on the station's scan thread (capture → scan →
  store → push), :mod:`~beachscore.station.encoding` the photos' bytes.
- :mod:`~beachscore.station.seashells` (one scan per player's mat), :mod:`~beachscore.station.plazing`
  (the board's grid), :mod:`~beachscore.station.setups` (a new game's set-up checked).
- :mod:`~beachscore.station.store`: the data folder (SQLite and photo files);
  :mod:`~beachscore.station.events`: the bus the pages listen to.
- :mod:`~beachscore.station.wizard`: the calibration wizard (clicks → calibration).
- :mod:`~beachscore.station.outbox` and :mod:`~beachscore.station.hall_link`: results sent to a
  tournament hall.
- :mod:`~beachscore.station.testing`: test doubles (a fake scanner, calibration, GPIO).

Nothing here imports ``web``, ``hall`` or the command line.
"""

from beachscore.station.station import CALIBRATION_SETTING, ScanRequest, Station

__all__ = ["CALIBRATION_SETTING", "ScanRequest", "Station"]
