"""A station server for the crash test: file camera, fake pipeline whose n-th scan takes DELAYS[n] seconds.

Usage: python crash_server.py DATA_DIR PORT PHOTO DELAYS   (DELAYS like "0.1,0.1,30")
Imported by pytest's doctest collection, so it does nothing on import.
"""

import sys


def main(argv):
    import waitress

    from beachscore.serving import build_station
    from beachscore.station.testing import FakeCalibration, FakeScanner, fake_score
    from web import create_app

    data, port, photo, delays = argv[1], int(argv[2]), argv[3], [float(d) for d in argv[4].split(",")]

    class SteppedScanner(FakeScanner):
        def __call__(self, image, calibration, setup):
            self.delay_s = delays[min(self.calls, len(delays) - 1)]
            return super().__call__(image, calibration, setup)

    station = build_station(data, camera="file:" + photo, button="none", scanner=SteppedScanner(), scorer=fake_score)
    if station.calibration is None:
        station.use_calibration(FakeCalibration())
    waitress.serve(create_app(station=station), host="127.0.0.1", port=port, threads=4)


if __name__ == "__main__":
    main(sys.argv)
