"""Walk GRPO Desktop's accessibility tree over AT-SPI, as Orca does, and press a card.

Run by test_screen_reader_bus.py with the *system* Python (Debian's ``python3-pyatspi`` is not on
PyPI), on the private D-Bus session the test starts, while the app runs there on xcb with
``QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1``. Not collected by pytest (no ``test_`` prefix) and
imports nothing from the app: it sees only what the bus shows.

``python3 atspi_walk.py OUT.json [CARD]`` waits for the lab, records every node (role, name,
description, states, actions), listens for announcements and checked-state changes, presses
card CARD (default 2) through its accessible action 0 ("Toggle"), waits for the state to change,
records the tree again, then presses the "Update step" workspace button and reads the token list,
then the "Training run" button and records that page's tree, and writes one JSON object to
OUT.json (not stdout, which the bus daemons share)::

    {"before": [node, ...], "after": [node, ...], "action_names": [...],
     "do_action": bool, "events": [{"type", "source", "detail1", "text"}, ...],
     "update": {"list": node, "count": int, "items": [node, ...], "events": [...]}
               or {"error": str, "events": [...]},
     "training": {"tree": [node, ...]} or {"error": str}}

Exit status 3 (with a message on stderr) when the app never shows its cards.
"""

from __future__ import annotations

import json
import sys
import time

import pyatspi
from gi.repository import GLib

APP_NAME = "GRPO Desktop"
START_TIMEOUT = 90.0  # seconds for the app to appear with its cards (2 shared cores)
UPDATE_BUTTON = "Update step"  # the workspace button in the status bar
TRAINING_BUTTON = "Training run"  # the next one
TRAINING_CONTROLS = "Training controls"  # a panel only the Training page has
TOKEN_LIST = "Answers as tokens"
TOKENS_READ = 40
EVENTS = ("object:announcement", "object:state-changed:checked")


def pump(seconds: float, until=None) -> bool:
    """Run the GLib main loop (which delivers AT-SPI events) for ``seconds`` or until
    ``until()`` is true; returns whether it became true."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        if until is not None and until():
            return True
        time.sleep(0.02)
    return until is not None and until()


def node(acc, path: tuple[int, ...]) -> dict:
    try:
        actions_iface = acc.queryAction()
        actions = [actions_iface.getName(i) for i in range(actions_iface.nActions)]
    except NotImplementedError:
        actions = []
    states = sorted(pyatspi.stateToString(s) for s in acc.getState().getStates())
    return {
        "path": list(path),
        "role": acc.getRoleName(),
        "name": acc.name or "",
        "description": acc.description or "",
        "states": states,
        "actions": actions,
    }


def walk(acc, path: tuple[int, ...] = (), depth: int = 0, skip=None):
    """Every node under ``acc``, depth first, with its child-index path; the children of
    ``skip`` are left out."""
    yield path, acc
    if depth > 60 or (skip is not None and acc == skip):
        return
    for index in range(acc.childCount):
        try:
            child = acc.getChildAtIndex(index)
        except Exception:  # a node that went away while we walked
            continue
        if child is not None:
            yield from walk(child, (*path, index), depth + 1, skip)


def snapshot(app, skip=None) -> list[dict]:
    nodes = []
    for path, acc in walk(app, skip=skip):
        try:
            nodes.append(node(acc, path))
        except Exception as error:
            nodes.append({"path": list(path), "error": repr(error)})
    return nodes


def find_app():
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        if app is not None and app.name == APP_NAME:
            return app
    return None


def find(app, role: str | None, name: str):
    """The first node named ``name`` (with the role ``role``, unless None)."""
    for _path, acc in walk(app):
        try:
            if (role is None or acc.getRoleName() == role) and acc.name == name:
                return acc
        except Exception:
            continue
    return None


def wait_for_lab(card_name: str):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        app = find_app()
        card = find(app, "check box", card_name) if app is not None else None
        if card is not None:
            return app, card
        time.sleep(0.5)
    sys.stderr.write(f"atspi_walk: no {card_name!r} check box of {APP_NAME!r} on the bus\n")
    sys.exit(3)


def checked(acc) -> bool:
    return acc.getState().contains(pyatspi.STATE_CHECKED)


def press(app, name: str) -> str | None:
    """Press the workspace check box ``name`` through its "Press" action; what went wrong."""
    button = find(app, "check box", name)
    if button is None:
        return f"no {name!r} check box"
    action = button.queryAction()
    names = [action.getName(i) for i in range(action.nActions)]
    if "Press" not in names:
        return f"{name!r} has no Press action: {names}"
    action.doAction(names.index("Press"))
    return None


def token_list(app):
    for _path, acc in walk(app):
        try:
            if acc.getRoleName() == "list" and acc.name == TOKEN_LIST:
                return acc if acc.childCount > 0 else None
        except Exception:
            continue
    return None


def update_step(app) -> dict:
    """Press the "Update step" workspace button through its "Press" action, then read the token
    list ("Answers as tokens") and its first items (a list may hold thousands)."""
    error = press(app, UPDATE_BUTTON)
    if error is not None:
        return {"error": error}
    found: list = []
    pump(20.0, until=lambda: found.append(token_list(app)) or found[-1] is not None)
    tokens = found[-1] if found else None
    if tokens is None:
        return {"error": f"no {TOKEN_LIST!r} list with items after pressing {UPDATE_BUTTON!r}"}
    count = tokens.childCount
    items = [node(tokens.getChildAtIndex(i), (i,)) for i in range(min(count, TOKENS_READ))]
    # The page's tree without the token list's items (made on demand, thousands of them).
    tree = snapshot(app, skip=tokens)
    return {"list": node(tokens, ()), "count": count, "items": items, "tree": tree}


def training_run(app) -> dict:
    """Press the "Training run" workspace button, wait for its page, and record its tree."""
    error = press(app, TRAINING_BUTTON)
    if error is not None:
        return {"error": error}

    def shown() -> bool:
        panel = find(app, None, TRAINING_CONTROLS)
        return panel is not None and panel.getState().contains(pyatspi.STATE_SHOWING)

    if not pump(30.0, until=shown):
        return {"error": f"no {TRAINING_CONTROLS!r} showing after pressing {TRAINING_BUTTON!r}"}
    pump(0.5)  # the page's first layout
    return {"tree": snapshot(app)}


def main() -> None:
    out = sys.argv[1]
    card_number = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    card_name = f"Card {card_number}"
    events: list[dict] = []

    def heard(event) -> None:
        try:
            source = event.source.name if event.source is not None else None
        except Exception:
            source = None
        events.append(
            {
                "type": event.type,
                "source": source,
                "detail1": event.detail1,
                "text": event.any_data if isinstance(event.any_data, str) else None,
            }
        )

    # Listen first: Qt sends an event only while the registry has a listener for it (it reads
    # them when it starts and follows EventListenerRegistered after).
    pyatspi.Registry.registerEventListener(heard, *EVENTS)
    app, card = wait_for_lab(card_name)
    pump(1.0)  # let the layout settle before the first reading
    before = snapshot(app)
    pump(0.5)
    del events[:]  # only what the press causes

    action = card.queryAction()
    action_names = [action.getName(i) for i in range(action.nActions)]
    was_checked = checked(card)
    done = bool(action.doAction(0))
    pump(15.0, until=lambda: checked(card) != was_checked)
    pump(10.0, until=lambda: any(e["type"] == "object:announcement" for e in events))
    pump(0.5)  # a second announcement would arrive by now
    after = snapshot(app)
    card_events = list(events)  # what the press of the card alone caused
    update = update_step(app)
    update["events"] = events[len(card_events) :]
    training = training_run(app)
    record = {
        "before": before,
        "after": after,
        "action_names": action_names,
        "do_action": done,
        "events": card_events,
        "update": update,
        "training": training,
    }
    with open(out, "w", encoding="utf-8") as file:
        json.dump(record, file, ensure_ascii=False)


if __name__ == "__main__":
    main()
