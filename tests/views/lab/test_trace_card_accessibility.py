"""A trace card as a screen reader gets it through Qt: a check box it can press (issue 29)."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QAccessibleActionInterface

from grpo_desktop.core.lab.lab_snapshot import build_snapshot
from grpo_desktop.core.lab.problems import get_problem
from grpo_desktop.views.common import accessible_events
from grpo_desktop.views.lab.accessible_card import RECORDED_NOTE, CardAccessible
from grpo_desktop.views.lab.trace_card import TraceCard

PROBLEM = get_problem("mult-23x47")
SEED = build_snapshot(PROBLEM, [True, False, False, True])
TOGGLE = QAccessibleActionInterface.toggleAction()
SET_FOCUS = QAccessibleActionInterface.setFocusAction()


def shown(qtbot, index, state, reward_range=None):
    widget = TraceCard(index)
    qtbot.addWidget(widget)
    widget.show_card(state, compact=False, reward_range=reward_range)
    widget.resize(widget.sizeHint())
    with qtbot.waitExposed(widget):
        widget.show()
    return widget


def test_a_card_is_a_named_described_check_box(qtbot):
    widget = shown(qtbot, 0, SEED.cards[0])
    iface = QAccessible.queryAccessibleInterface(widget)
    assert isinstance(iface, CardAccessible)
    assert iface.role() == QAccessible.Role.CheckBox
    assert iface.text(QAccessible.Text.Name) == "Card 1"
    assert iface.text(QAccessible.Text.Description) == (
        "final answer 1081, checker: right, reward 1, advantage +1.00, pushed up · above par"
    )
    state = iface.state()
    assert state.checkable and state.checked and state.focusable and not state.readOnly


def test_checked_follows_the_checker(qtbot):
    widget = shown(qtbot, 1, SEED.cards[1])
    iface = QAccessible.queryAccessibleInterface(widget)
    assert not iface.state().checked
    assert "checker: wrong, reward 0, advantage −1.00, pushed down" in iface.text(
        QAccessible.Text.Description
    )


def test_the_default_action_toggles_exactly_as_a_click_does(qtbot):
    widget = shown(qtbot, 2, SEED.cards[2])
    actions = QAccessible.queryAccessibleInterface(widget).actionInterface()
    assert actions.actionNames() == [TOGGLE, SET_FOCUS]
    assert actions.keyBindingsForAction(TOGGLE) == ["Space"]
    with qtbot.waitSignal(widget.toggle_requested, timeout=1000) as pressed:
        actions.doAction(actions.actionNames()[0])
    with qtbot.waitSignal(widget.toggle_requested, timeout=1000) as clicked:
        qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)
    assert pressed.args == clicked.args == [2]
    # Like a click, the action only asks: the card changes when a new snapshot comes back.
    assert not QAccessible.queryAccessibleInterface(widget).state().checked


def test_a_new_verdict_sends_one_state_change_and_updates_checked(qtbot):
    widget = shown(qtbot, 2, SEED.cards[2])
    heard = []

    def listen(event):
        heard.append((event.type(), event.object(), event.changedStates().checked))

    remove = accessible_events.add_listener(listen)
    try:
        after = build_snapshot(PROBLEM, [True, False, True, True])
        widget.show_card(after.cards[2], compact=False)
        widget.show_card(after.cards[2], compact=False)  # the same state again: no event
        widget.show_card(SEED.cards[1], compact=False)  # right to wrong: a second event
    finally:
        remove()
    assert heard == [(QAccessible.Event.StateChanged, widget, True)] * 2
    assert not QAccessible.queryAccessibleInterface(widget).state().checked


def test_a_recorded_answer_is_read_only_text_without_a_toggle(qtbot):
    recorded = dataclasses.replace(SEED.cards[0], correct=None)
    widget = shown(qtbot, 0, recorded)
    iface = QAccessible.queryAccessibleInterface(widget)
    assert iface.role() == QAccessible.Role.StaticText
    state = iface.state()
    assert state.readOnly and not state.checkable
    assert iface.text(QAccessible.Text.Description).endswith(f"; {RECORDED_NOTE}")
    actions = iface.actionInterface()
    assert TOGGLE not in actions.actionNames()
    with qtbot.assertNotEmitted(widget.toggle_requested):
        actions.doAction(TOGGLE)


@pytest.mark.parametrize(
    ("action", "reward"),
    [
        (QAccessibleActionInterface.increaseAction(), 0.55),
        (QAccessibleActionInterface.decreaseAction(), 0.45),
    ],
)
def test_continuous_mode_offers_increase_and_decrease_like_plus_and_minus(qtbot, action, reward):
    hand = build_snapshot(PROBLEM, [True, False, False, True], scores=[1.0, 0.0, 0.5, 1.0])
    widget = shown(qtbot, 2, hand.cards[2], reward_range=(0.0, 1.0))
    actions = QAccessible.queryAccessibleInterface(widget).actionInterface()
    assert actions.actionNames()[:3] == [
        TOGGLE,
        QAccessibleActionInterface.increaseAction(),
        QAccessibleActionInterface.decreaseAction(),
    ]
    with qtbot.waitSignal(widget.score_requested, timeout=1000) as blocker:
        actions.doAction(action)
    index, value, _gesture = blocker.args
    assert index == 2 and value == pytest.approx(reward)


def test_every_card_of_a_large_group_gets_its_own_interface(qtbot):
    snapshot = build_snapshot(PROBLEM, [i % 3 == 0 for i in range(64)])
    widgets = [shown(qtbot, i, snapshot.cards[i]) for i in (0, 1, 63)]
    names = [QAccessible.queryAccessibleInterface(w).text(QAccessible.Text.Name) for w in widgets]
    assert names == ["Card 1", "Card 2", "Card 64"]
    checked = [bool(QAccessible.queryAccessibleInterface(w).state().checked) for w in widgets]
    assert checked == [True, False, True]


def test_a_card_that_shows_no_answer_yet_reads_its_hint(qtbot):
    # A pooled card before its first state: Qt's own answer (the tooltip) stands in.
    widget = TraceCard(0)
    qtbot.addWidget(widget)
    description = QAccessible.queryAccessibleInterface(widget).text(QAccessible.Text.Description)
    assert description == "Click, Space or Enter to mark it right/wrong"
