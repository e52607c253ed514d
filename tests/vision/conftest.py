"""Make this folder's shared helpers (``mats_helpers``) importable under pytest's importlib mode."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
