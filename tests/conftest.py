"""Test set-up: Qt renders offscreen, and nothing touches the user's real settings or home."""

import os

# Must run before anything imports Qt: with no display and no platform set, Qt aborts pytest.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
