"""One module per ``beachscore`` command, each with ``run(args) -> exit code``.

:mod:`beachscore.cli` imports only the command it runs, so ``beachscore score`` never loads
OpenCV, the station's web pages or the hall's database.
"""
