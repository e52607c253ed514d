import sys

from beachscore.cli import main

sys.exit(main())
