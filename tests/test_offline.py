"""Never online: a whole lab session opens no network connection, and no module can.

The app is used on stage and on trains: it must work with no network and never try one (no
update checks, no fonts or data fetched at run time). Python-level sockets are blocked and
recorded for a full window session, in this process and through the real entry point in a
subprocess; a static scan keeps networking modules out of the package so Qt's own networking
(which bypasses Python's socket module) cannot be used either.
"""

from __future__ import annotations

import ast
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

import grpo_desktop
from grpo_desktop.views.lab.trace_card import TraceCard
from grpo_desktop.window.main_window import MainWindow

PACKAGE_DIR = Path(grpo_desktop.__file__).resolve().parent
# Modules that talk to the network. ``socket`` covers everything built on it.
FORBIDDEN_IMPORTS = (
    "socket",
    "ssl",
    "urllib.request",
    "http.client",
    "requests",
    "urllib3",
    "httpx",
    "aiohttp",
    "ftplib",
    "smtplib",
    "xmlrpc.client",
    "webbrowser",
    "PySide6.QtNetwork",
    "PySide6.QtWebSockets",
    "PySide6.QtWebEngineCore",
    "PySide6.QtWebEngineWidgets",
)

# Shared by the in-process fixture and the subprocess: refuse and record every attempt.
BLOCKER_SOURCE = """
import socket

NETWORK_ATTEMPTS = []


def _refuse(name):
    def blocked(*args, **kwargs):
        NETWORK_ATTEMPTS.append(f"{name}{args[1:] if name.startswith('socket.socket') else args}")
        raise OSError(f"network use blocked by the offline test: {name}")

    return blocked


def block_network(setattr=setattr):
    setattr(socket.socket, "connect", _refuse("socket.socket.connect"))
    setattr(socket.socket, "connect_ex", _refuse("socket.socket.connect_ex"))
    setattr(socket, "create_connection", _refuse("socket.create_connection"))
    setattr(socket, "getaddrinfo", _refuse("socket.getaddrinfo"))
    return NETWORK_ATTEMPTS
"""


@pytest.fixture
def network_attempts(monkeypatch) -> list[str]:
    """Block the network for the whole test; the list records every attempt."""
    namespace: dict[str, object] = {}
    exec(compile(BLOCKER_SOURCE, "<network blocker>", "exec"), namespace)
    return namespace["block_network"](monkeypatch.setattr)


def test_the_blocker_refuses_and_records(network_attempts):
    with pytest.raises(OSError, match="blocked by the offline test"):
        socket.create_connection(("example.com", 80), timeout=1)
    with pytest.raises(OSError, match="blocked"):
        socket.getaddrinfo("example.com", 443)
    with socket.socket() as raw, pytest.raises(OSError, match="blocked"):
        raw.connect(("127.0.0.1", 9))
    assert len(network_attempts) == 3
    network_attempts.clear()


def click_card(qtbot, window: MainWindow, index: int) -> None:
    card = window.findChild(TraceCard, f"traceCard{index}")
    assert card is not None, f"traceCard{index} not found"
    qtbot.mouseClick(
        card, Qt.MouseButton.LeftButton, pos=QPoint(card.width() // 2, card.height() // 2)
    )


def test_a_full_window_session_opens_no_connection(qtbot, network_attempts, tmp_path):
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 800)
    with qtbot.waitExposed(window):
        window.show()

    click_card(qtbot, window, 1)
    click_card(qtbot, window, 2)
    for key in (Qt.Key.Key_1, Qt.Key.Key_3, Qt.Key.Key_4):
        qtbot.keyClick(window, key)
    window.group_size_spin.setValue(16)
    assert window.findChild(TraceCard, "traceCard15") is not None
    window.sample_action.trigger()
    assert "seed" in window.statusBar().currentMessage()

    window.lab.chart.animation_ms = 50
    for _ in range(2):  # advantages -> rewards -> advantages, animated
        with qtbot.waitSignal(window.lab.chart.animation_finished, timeout=3000):
            window.view_toggle.trigger()
    window.request_convention("trl")
    assert window.state.convention == "trl"
    window.show_compare(True)
    qtbot.wait(50)
    window.undo_action.trigger()
    window.show_compare(False)

    png = tmp_path / "session.png"
    assert window.grab().save(str(png), "PNG")
    assert png.stat().st_size > 10_000

    window.install_deferred_features()
    exports = window.export_actions
    for name, method in (
        ("group.csv", exports.export_group_csv),
        ("chart.png", exports.export_chart_png),
        ("chart.svg", exports.export_chart_svg),
        ("window.png", exports.export_window_png),
    ):
        exports.ask_path = lambda *_args, target=tmp_path / name: str(target)
        method()
        assert (tmp_path / name).stat().st_size > 0, name
    exports.copy_window_image()

    assert network_attempts == []


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """Every module a source file imports, statically or by a literal importlib call."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Name) and node.func.id == "__import__")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def is_forbidden(module: str) -> bool:
    return any(module == name or module.startswith(f"{name}.") for name in FORBIDDEN_IMPORTS)


def test_the_scan_sees_every_way_of_importing():
    source = textwrap.dedent(
        """
        import socket
        import urllib.request as fetch
        from http import client
        from PySide6 import QtNetwork
        from PySide6.QtNetwork import QNetworkAccessManager
        importlib.import_module("requests")
        from . import core
        import json
        """
    )
    flagged = sorted({m for _, m in imported_modules(ast.parse(source)) if is_forbidden(m)})
    assert flagged == [
        "PySide6.QtNetwork",
        "PySide6.QtNetwork.QNetworkAccessManager",
        "http.client",
        "requests",
        "socket",
        "urllib.request",
    ]


def test_no_module_in_the_package_imports_networking():
    sources = sorted(PACKAGE_DIR.rglob("*.py"))
    assert len(sources) > 10
    offenders = [
        f"{path.relative_to(PACKAGE_DIR.parent)}:{line}: {module}"
        for path in sources
        for line, module in imported_modules(ast.parse(path.read_text(encoding="utf-8")))
        if is_forbidden(module)
    ]
    assert offenders == []


SUBPROCESS_SESSION = """
import json, sys
{blocker}
attempts = block_network()

from grpo_desktop.app import main

code = main(["--screenshot", sys.argv[1], "--compare", "--sample", "3", "--view", "reward"])
print("REPORT " + json.dumps({{
    "code": code,
    "attempts": attempts,
    "qt_network_loaded": "PySide6.QtNetwork" in sys.modules,
}}))
sys.exit(0 if code == 0 and not attempts else 1)
"""


def test_the_entry_point_screenshot_run_opens_no_connection(tmp_path, private_home):
    target = tmp_path / "offline.png"
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["XDG_STATE_HOME"] = str(private_home / ".local" / "state")
    env["XDG_CACHE_HOME"] = str(private_home / ".cache")
    code = SUBPROCESS_SESSION.format(blocker=BLOCKER_SOURCE)
    result = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        cwd=os.environ["HOME"],  # not the repository root: that would import the source folder
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    reports = [line for line in result.stdout.splitlines() if line.startswith("REPORT ")]
    assert reports, f"no report; stderr:\n{result.stderr}"
    report = json.loads(reports[-1].removeprefix("REPORT "))
    assert report == {"code": 0, "attempts": [], "qt_network_loaded": False}, result.stderr
    assert result.returncode == 0
    assert target.stat().st_size > 10_000
