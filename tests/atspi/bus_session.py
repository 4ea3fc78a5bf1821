"""Inside a private D-Bus session and an Xvfb display: the AT-SPI bus, the app, then the walker.

Run by test_screen_reader_bus.py as
``xvfb-run … dbus-run-session -- python bus_session.py SYSTEM_PYTHON LOG_DIR [APP_ARG ...]``.
It starts ``at-spi-bus-launcher`` (which starts ``at-spi2-registryd`` on the accessibility bus),
then the app on Qt's xcb platform with ``QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1``, then
``SYSTEM_PYTHON atspi_walk.py LOG_DIR/walk.json`` (Debian's pyatspi); it ends the app and the
launcher it started and exits with the walker's status. The walker's record is LOG_DIR/walk.json
(a file: D-Bus daemons and services share our stdout); the app's output and the launcher's go to
LOG_DIR/app.log and LOG_DIR/bus.log, the walker's to stderr.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

WALKER = Path(__file__).with_name("atspi_walk.py")
# Debian/Ubuntu put it in /usr/libexec (bookworm, jammy) or /usr/lib/at-spi2-core (older).
LAUNCHERS = ("/usr/libexec/at-spi-bus-launcher", "/usr/lib/at-spi2-core/at-spi-bus-launcher")
WALK_TIMEOUT = 240  # seconds: the app's start on 2 busy cores, the walk, the press and a re-walk


def launcher() -> str:
    for path in LAUNCHERS:
        if os.access(path, os.X_OK):
            return path
    raise SystemExit(f"bus_session: no at-spi-bus-launcher in {LAUNCHERS} (install at-spi2-core)")


def wait_for_accessibility_bus(log) -> None:
    """Until our launcher owns org.a11y.Bus on the session bus (10 s at most). Asked with
    NameHasOwner, which never activates: a call to org.a11y.Bus itself would make the session
    bus start a second launcher from its service file, whose output is no log's."""
    dbus_send = shutil.which("dbus-send")
    if dbus_send is None:
        time.sleep(1.0)
        return
    ask = [dbus_send, "--session", "--print-reply", "--dest=org.freedesktop.DBus",
           "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
           "string:org.a11y.Bus"]  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        answer = subprocess.run(ask, capture_output=True, text=True, check=False)
        if "boolean true" in answer.stdout:
            return
        time.sleep(0.1)
    log.write(b"bus_session: at-spi-bus-launcher did not take org.a11y.Bus within 10 s\n")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> int:
    system_python, log_dir, *app_args = sys.argv[1:]
    logs = Path(log_dir)
    env = dict(os.environ, QT_QPA_PLATFORM="xcb", QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1")
    with open(logs / "bus.log", "wb") as bus_log, open(logs / "app.log", "wb") as app_log:
        bus = subprocess.Popen([launcher(), "--launch-immediately"], stdout=bus_log, stderr=bus_log)
        app = None
        try:
            wait_for_accessibility_bus(bus_log)
            app = subprocess.Popen(
                [sys.executable, "-m", "grpo_desktop", *app_args],
                env=env,
                stdout=app_log,
                stderr=app_log,
            )
            walk_env = {k: v for k, v in env.items() if not k.startswith("PYTHON")}
            try:
                walked = subprocess.run(
                    [system_python, str(WALKER), str(logs / "walk.json"), "2"],
                    env=walk_env,
                    capture_output=True,
                    timeout=WALK_TIMEOUT,
                    check=False,
                )
            except subprocess.TimeoutExpired as timeout:
                sys.stderr.write(f"bus_session: the walker ran over {WALK_TIMEOUT} s\n")
                sys.stderr.buffer.write(timeout.stderr or b"")
                return 4
            sys.stderr.buffer.write(walked.stdout + walked.stderr)
            if app.poll() is not None:
                sys.stderr.write(f"bus_session: the app exited early (status {app.returncode})\n")
            return walked.returncode
        finally:
            if app is not None:
                stop(app)
            stop(bus)


if __name__ == "__main__":
    sys.exit(main())
