#!/usr/bin/env bash
# Build the Raspberry Pi install of the README on any machine and check it keeps apt's numpy.
#
#   bash scripts/pi_venv.sh [VENV] [EXTRAS]      (default .venv-pi, "pi,test")
#
# Pi OS has numpy 1.24 from apt (python3-numpy, which picamera2 is built against) in
# /usr/lib/python3/dist-packages, seen by a `--system-site-packages` venv after the venv's own
# packages. Here that is simulated: numpy 1.24 installed into a folder of its own that a .pth file
# puts on the venv's path exactly there (after the venv's site-packages, before the base Python's).
# Then the README's Pi command runs (`pip install -e ".[pi]"`), and the script fails unless numpy
# is still that pre-installed 1.24 (nothing shadowed it in the venv) and OpenCV is 4.11.0.86.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${1:-.venv-pi}"
EXTRAS="${2:-pi,test}"
APT_NUMPY="numpy==1.24.4"   # Bookworm's python3-numpy is 1.24.2; 1.24.4 is the same ABI on PyPI

rm -rf "$VENV"
python3 -m venv --system-site-packages "$VENV"
SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
APT_DIR="$(cd "$VENV" && pwd)/apt-dist-packages"
"$VENV/bin/pip" install -q --no-deps --target "$APT_DIR" "$APT_NUMPY"
echo "$APT_DIR" > "$SITE/zz-apt-dist-packages.pth"

# the README's Pi command
"$VENV/bin/pip" install -q -e ".[$EXTRAS]"

"$VENV/bin/python" - "$APT_DIR" <<'EOF'
import os
import sys

import cv2
import numpy

apt_dir = os.path.realpath(sys.argv[1])
where = os.path.realpath(numpy.__file__)
problems = []
if not where.startswith(apt_dir + os.sep):
    problems.append(f"numpy {numpy.__version__} comes from {where}, not from the pre-installed one in {apt_dir}")
if not numpy.__version__.startswith("1.24."):
    problems.append(f"numpy is {numpy.__version__}, not 1.24")
if cv2.__version__ != "4.11.0":
    problems.append(f"OpenCV is {cv2.__version__}, not 4.11.0 (opencv-python-headless 4.11.0.86)")
if problems:
    sys.exit("Pi install broken: " + "; ".join(problems))
print(f"Pi install: numpy {numpy.__version__} (pre-installed, kept), OpenCV {cv2.__version__}")
EOF
